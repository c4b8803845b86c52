package upcycled

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
)

// auditReleasedRoot is the shared copy of the released data seen from this
// package's directory (go test runs in reproduce/upcycled).
var auditReleasedRoot = filepath.Join("..", "..", "..", "shared", "datasets", "upcycled-synthetic")

func auditHaveReleased() bool {
	st, err := os.Stat(filepath.Join(auditReleasedRoot, "synthetic_iid"))
	return err == nil && st.IsDir()
}

// auditRunAll runs every registered audit and checks the common contract:
// no error, rows present, every column in every row, numbers finite, a
// verdict and notes.
func auditRunAll(t *testing.T, o audit.Options) map[string]audit.Table {
	t.Helper()
	out := map[string]audit.Table{}
	entries := audit.Entries(paperID)
	if len(entries) < 6 {
		t.Fatalf("%d audits registered, want 6", len(entries))
	}
	for _, e := range entries {
		if e.ID == claims.EntryID {
			// The claim-engine table: claims' TestPaperAuditsGatedHere checks
			// its values and its row contract at the report's options, and
			// algorithms/audit/claim tests the engine's quick mode.
			continue
		}
		tab, err := e.Run(o)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if tab.ID != e.ID || len(tab.Rows) == 0 || tab.Verdict == "" || len(tab.Notes) == 0 {
			t.Fatalf("%s: id %q, %d rows, verdict %q, %d notes", e.ID, tab.ID, len(tab.Rows), tab.Verdict, len(tab.Notes))
		}
		papertest.AuditTable(t, tab)
		out[e.ID] = tab
	}
	return out
}

// auditFind returns the first row whose fields match all of want.
func auditFind(t *testing.T, tab audit.Table, want map[string]any) audit.Row {
	t.Helper()
	for _, r := range tab.Rows {
		ok := true
		for k, v := range want {
			if r[k] != v {
				ok = false
				break
			}
		}
		if ok {
			return r
		}
	}
	t.Fatalf("%s: no row matching %v", tab.ID, want)
	return nil
}

func TestAuditReleasedData(t *testing.T) {
	if !auditHaveReleased() {
		t.Skipf("released data not at %s", auditReleasedRoot)
	}
	tabs := auditRunAll(t, audit.Options{Seed: 20240727, Quick: true, DataDir: auditReleasedRoot})
	for id, tab := range tabs {
		if id == "claims" {
			continue // reads no data: its client sizes are in the claim files (checked in claims_test.go)
		}
		if !strings.Contains(tab.Notes[0], "released Syn(iid)") {
			t.Errorf("%s: first note %q does not name the released data", id, tab.Notes[0])
		}
	}

	// The recovered constants reproduce the printed values with Thm 6.2.
	cons := tabs["op-constants"]
	for _, c := range []struct {
		pair, search string
		base         float64
		tau, delta   float64 // expected (released data), 0 = not checked
		consistent   bool
	}{
		{"fig3", "delta_for_tau_10", 1.59, 10, 0.3564, false},
		{"fig3", "tau_for_delta_1e-05", 1.59, 4.018, 1e-5, true},
		{"appF1", "delta_for_tau_10", 0.773, 10, 0.9242, false},
		{"appF1", "tau_for_delta_1e-05", 0.773, 2.0005, 1e-5, false},
	} {
		r := auditFind(t, cons, map[string]any{"pair": c.pair, "search": c.search, "eps_bar": "mean_over_clients", "rounds": "80/40"})
		tau, delta := r["tau"].(float64), r["delta"].(float64)
		d, err := auditLoad(audit.Options{DataDir: auditReleasedRoot})
		if err != nil {
			t.Fatal(err)
		}
		got := auditEpsBar("mean_over_clients", d.sizes, func(n float64) float64 { return auditThm62Eps(80, tau, 1, n, delta) })
		if !(math.Abs(got-c.base) <= 1e-9) {
			t.Errorf("%s %s: τ = %g, δ = %g give ε̄ = %.12f, want %g", c.pair, c.search, tau, delta, got, c.base)
		}
		if !(math.Abs(tau-c.tau) <= 1e-3*c.tau) || !(math.Abs(delta-c.delta) <= 1e-3*c.delta) {
			t.Errorf("%s %s: recovered τ = %g, δ = %g, want ≈ %g, %g", c.pair, c.search, tau, delta, c.tau, c.delta)
		}
		if r["consistent"] != c.consistent {
			t.Errorf("%s %s: consistent = %v, want %v (Upcycled predicted %v)", c.pair, c.search, r["consistent"], c.consistent, r["eps_up_predicted"])
		}
	}

	// The ratio claim.
	ratio := tabs["op-ratio"]
	if r := ratio.Rows[0]["ratio"].(float64); !(math.Abs(r-0.8838834764831844) <= 1e-12) {
		t.Errorf("leading-order ratio %v", r)
	}
	for _, p := range []string{"published_fig3", "published_appF1"} {
		if auditFind(t, ratio, map[string]any{"quantity": p})["consistent"] != true {
			t.Errorf("%s not consistent with 0.884", p)
		}
	}

	// Objective perturbation: the fitted (u₁, u₂) reproduce 7.36/7.25.
	for _, terms := range []string{"M+1 (printed Σ_{m=0}^{M})", "M (leaking rounds)"} {
		r := auditFind(t, tabs["objective"], map[string]any{"constants": "fit_u1_u2_to_printed", "terms": terms})
		if !(math.Abs(r["eps_base"].(float64)-7.36) <= 1e-9) || !(math.Abs(r["eps_up"].(float64)-7.25) <= 1e-9) {
			t.Errorf("%s: fit gives %v/%v", terms, r["eps_base"], r["eps_up"])
		}
		if u1, u2 := r["u1"].(float64), r["u2"].(float64); u1 >= 1 || u2 >= 0.25 {
			t.Errorf("%s: fitted u1 = %g, u2 = %g; expected below the valid bounds", terms, u1, u2)
		}
	}

	// Accountants under the paper's assumptions: Thm 6.2 ≥ RDP ≥ PLD.
	for _, r := range tabs["op-recompute"].Rows {
		thm, rdp, pld := r["eps_thm62"].(float64), r["eps_rdp"].(float64), r["eps_pld"].(float64)
		if !(thm >= rdp && rdp >= pld*(1-1e-3)) {
			t.Errorf("op-recompute %v δ=%v: Thm 6.2 %g, RDP %g, PLD %g not ordered", r["variant"], r["delta"], thm, rdp, pld)
		}
	}

	// The mechanism as released: the clipped-model rows dwarf the paper's.
	mech := auditFind(t, tabs["op-mechanism"], map[string]any{"std_mode": "paper_sigma", "variant": "baseline", "sensitivity": "2tau_clipped_model_replace_one"})
	if e := mech["eps_exact"].(float64); e < 1000 {
		t.Errorf("clipped-model ε = %g, want ≫ 1.59", e)
	}
	for _, s := range []string{"tau_over_D_paper_add_one", "2tau_over_D_replace_one_averaging", "2tau_clipped_model_replace_one"} {
		b := auditFind(t, tabs["op-mechanism"], map[string]any{"std_mode": "upstream_sigma_squared", "variant": "baseline", "sensitivity": s})
		u := auditFind(t, tabs["op-mechanism"], map[string]any{"std_mode": "upstream_sigma_squared", "variant": "upcycled", "sensitivity": s})
		if !(u["eps_exact"].(float64) > b["eps_exact"].(float64)) {
			t.Errorf("%s: with std σ² Upcycled ε %v should exceed the baseline's %v", s, u["eps_exact"], b["eps_exact"])
		}
	}

	// The empirical audit: the lower bound exceeds what the paper claims.
	for _, r := range tabs["op-empirical"].Rows {
		lb, claimed := r["eps_lb"].(float64), r["eps_claimed_total"].(float64)
		if r["relation"] == "replace_one" && !(lb > claimed) {
			t.Errorf("op-empirical %v %v: ε_LB = %g not above the claimed %g", r["mode"], r["variant"], lb, claimed)
		}
		if d := r["distance"].(float64); r["relation"] == "replace_one" && d < 19 {
			t.Errorf("op-empirical: worst pair distance %g, want ≈ 2τ = 20", d)
		}
	}
}

func TestAuditGeneratorFallback(t *testing.T) {
	t.Setenv("FEDREPRO_SHARED", "")
	o := audit.Options{Seed: 7, Quick: true, DataDir: filepath.Join(t.TempDir(), "missing")}
	if _, err := os.Stat(filepath.Join("..", "shared", "datasets", "upcycled-synthetic")); err == nil {
		t.Skip("../shared/datasets/upcycled-synthetic exists relative to this directory")
	}
	d, err := auditLoad(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.source, "generated") || !strings.Contains(strings.Join(d.notes(), " "), "Released data not found") {
		t.Fatalf("source %q, notes %q", d.source, d.notes())
	}
	for _, id := range []string{"op-recompute", "op-constants", "op-ratio", "objective", "op-mechanism"} {
		for _, e := range audit.Entries(paperID) {
			if e.ID != id {
				continue
			}
			tab, err := e.Run(o)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if len(tab.Rows) == 0 || !strings.Contains(strings.Join(tab.Notes, " "), "generated") {
				t.Errorf("%s: %d rows, notes %q", id, len(tab.Rows), tab.Notes)
			}
		}
	}
}

func TestAuditPureDPComposition(t *testing.T) {
	// k = 1: δ(ε) = (e^{ε₀} − e^{ε})/(1 + e^{ε₀}) for ε < ε₀ (randomized response).
	for _, c := range []struct{ eps0, eps float64 }{{1, 0}, {1, 0.5}, {3, 1}, {0.2, 0.1}} {
		want := (math.Exp(c.eps0) - math.Exp(c.eps)) / (1 + math.Exp(c.eps0))
		if got := auditRRDelta(c.eps0, 1, c.eps); !(math.Abs(got-want) <= 1e-12) {
			t.Errorf("RR δ(ε₀=%g, ε=%g) = %g, want %g", c.eps0, c.eps, got, want)
		}
	}
	// Composition never beats … nor exceeds the linear sum: 0 ≤ ε(δ) ≤ kε₀,
	// and it is below the zCDP bound's ε for small ε₀ only when that bound is
	// itself below kε₀.
	for _, c := range []struct {
		eps0 float64
		k    int
	}{{0.05, 80}, {0.2, 41}, {1, 10}, {4, 81}} {
		e := auditRREps(c.eps0, c.k, 1e-5)
		if e < 0 || e > float64(c.k)*c.eps0+1e-9 {
			t.Errorf("RR ε(ε₀=%g, k=%d) = %g outside [0, kε₀]", c.eps0, c.k, e)
		}
		if d := auditRRDelta(c.eps0, c.k, e); d > 1e-5*(1+1e-6) && e > 0 {
			t.Errorf("RR δ at the returned ε is %g > 1e-5", d)
		}
	}
}

func TestAuditBisect(t *testing.T) {
	x, ok := auditBisect(func(v float64) float64 { return v * v }, 2, 0, 10, true)
	if !ok || !(math.Abs(x-math.Sqrt2) <= 1e-12) {
		t.Fatalf("√2: %v %v", x, ok)
	}
	if _, ok := auditBisect(func(v float64) float64 { return -v }, 5, 0, 1, false); ok {
		t.Fatal("out-of-range target accepted")
	}
}
