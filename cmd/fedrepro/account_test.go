package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process: exit code, stdout, stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

type jsonRow struct {
	Accountant string   `json:"accountant"`
	Conversion string   `json:"conversion"`
	Epsilon    *float64 `json:"epsilon"`
	Delta      *float64 `json:"delta"`
	Lower      *float64 `json:"lower"`
	Estimate   *float64 `json:"estimate"`
	Order      *float64 `json:"order"`
	Sigma      *float64 `json:"sigma"`
	Unbounded  bool     `json:"unbounded"`
	Note       string   `json:"note"`
}

func decodeRows(t *testing.T, out string) []jsonRow {
	t.Helper()
	var doc struct {
		Schema int       `json:"schema_version"`
		Rows   []jsonRow `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != JSONSchema {
		t.Fatalf("bad JSON (schema %d) %v:\n%s", doc.Schema, err, out)
	}
	return doc.Rows
}

func row(t *testing.T, rows []jsonRow, acct, conv string) jsonRow {
	t.Helper()
	for _, r := range rows {
		if r.Accountant == acct && r.Conversion == conv {
			return r
		}
	}
	t.Fatalf("no row %s/%s in %+v", acct, conv, rows)
	return jsonRow{}
}

func TestAccountText(t *testing.T) {
	code, out, errb := runCLI("account", "--q", "0.04", "--sigma", "1.5", "--steps", "2250", "--delta", "1e-5", "--accountant", "rdp")
	if code != 0 || errb != "" {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
	// Opacus' pin: 7.32911 at order 3.9 (improved conversion).
	if !strings.Contains(out, "rdp         improved    7.32911  -         -      3.9") || !strings.Contains(out, "classic") {
		t.Errorf("output:\n%s", out)
	}
	if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
		t.Errorf("NaN/Inf printed:\n%s", out)
	}
}

// TestAccountJSON: every accountant answers or says why not; PRV carries
// its bounds around the PLD value; PLD ≤ RDP (improved) ≤ RDP (classic).
func TestAccountJSON(t *testing.T) {
	code, out, _ := runCLI("account", "--q", "0.01", "--sigma", "2", "--steps", "1000", "--delta", "1e-5", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := decodeRows(t, out)
	if len(rows) != 8 {
		t.Fatalf("want 8 rows (rdp×2, pld, prv, zcdp×2, exact, pure), got %d", len(rows))
	}
	ri, rc, pld, prv := row(t, rows, "rdp", "improved"), row(t, rows, "rdp", "classic"), row(t, rows, "pld", ""), row(t, rows, "prv", "")
	for _, r := range []jsonRow{ri, rc, pld, prv} {
		if r.Epsilon == nil || r.Delta == nil || *r.Delta != 1e-5 || r.Sigma != nil {
			t.Errorf("%+v", r)
		}
	}
	if !(*pld.Epsilon <= *ri.Epsilon && *ri.Epsilon <= *rc.Epsilon) {
		t.Errorf("want pld ≤ rdp/improved ≤ rdp/classic: %v %v %v", *pld.Epsilon, *ri.Epsilon, *rc.Epsilon)
	}
	if prv.Lower == nil || prv.Estimate == nil || !(*prv.Lower <= *pld.Epsilon && *pld.Epsilon <= *prv.Epsilon) {
		t.Errorf("PRV bounds %+v do not bracket PLD %v", prv, *pld.Epsilon)
	}
	z := row(t, rows, "zcdp", "improved")
	if z.Epsilon != nil || !strings.Contains(z.Note, "n/a") || !strings.Contains(z.Note, "Poisson") {
		t.Errorf("zcdp: %+v", z)
	}
	if p := row(t, rows, "pure", ""); p.Epsilon != nil || !p.Unbounded || !strings.Contains(p.Note, "∞") {
		t.Errorf("pure: %+v", p)
	}
	// The order field is absent (not null, not 0) for PLD and PRV.
	if strings.Count(out, `"order"`) != 2 {
		t.Errorf("order should appear only for RDP rows:\n%s", out)
	}
}

// TestAccountTFPrivacyFlags: --n --batch-size --epochs as TF Privacy's
// compute_dp_sgd_privacy (q = B/N, steps = ⌈E·N/B⌉): its test case
// N = 60000, B = 150, σ = 1.3, 15 epochs, δ = 1e-5 gives 0.7242 on TF's
// orders; on Opacus' orders (ours) the optimum is the same order, 19.
func TestAccountTFPrivacyFlags(t *testing.T) {
	code, out, errb := runCLI("account", "--n", "60000", "--batch-size", "150", "--epochs", "15", "--sigma", "1.3", "--accountant", "rdp", "--json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errb)
	}
	r := row(t, decodeRows(t, out), "rdp", "improved")
	if !(math.Abs(*r.Epsilon-0.7242234026109595) <= 1e-9) || *r.Order != 19 {
		t.Errorf("ε = %v at %v, want 0.7242234026 at 19", *r.Epsilon, *r.Order)
	}
	code, out, _ = runCLI("account", "--n", "60000", "--batch-size", "150", "--epochs", "15", "--sigma", "1.3", "--accountant", "rdp")
	if code != 0 || !strings.Contains(out, "6000 steps") || !strings.Contains(out, "q=0.0025") {
		t.Errorf("text (exit %d):\n%s", code, out)
	}
}

// TestAccountDeltaAtEpsilon: --epsilon answers δ; δ at the ε the same
// accountant reports for δ = 1e-5 is back at 1e-5.
func TestAccountDeltaAtEpsilon(t *testing.T) {
	code, out, errb := runCLI("account", "--q", "0.04", "--sigma", "1.5", "--steps", "2250", "--epsilon", "7.32911117143", "--accountant", "rdp,pld", "--json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errb)
	}
	rows := decodeRows(t, out)
	ri, pld := row(t, rows, "rdp", "improved"), row(t, rows, "pld", "")
	if ri.Delta == nil || !(math.Abs(*ri.Delta-1e-5) <= 1e-9) || *ri.Epsilon != 7.32911117143 {
		t.Errorf("rdp: %+v", ri)
	}
	if pld.Delta == nil || !(*pld.Delta < 1e-5) {
		t.Errorf("pld δ should be below RDP's: %+v", pld)
	}
	code, out, _ = runCLI("account", "--q", "0.04", "--sigma", "1.5", "--steps", "2250", "--epsilon", "3", "--accountant", "prv")
	if code != 0 || !strings.Contains(out, "conversion  delta") || !strings.Contains(out, "ε=3") {
		t.Errorf("text δ mode (exit %d):\n%s", code, out)
	}
}

func TestAccountTargetEps(t *testing.T) {
	code, out, errb := runCLI("account", "--q", "0.04", "--steps", "2250", "--delta", "1e-5", "--target-eps", "8", "--accountant", "rdp", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	rows := decodeRows(t, out)
	if len(rows) != 2 || rows[0].Sigma == nil || rows[0].Epsilon == nil {
		t.Fatalf("rows %+v", rows)
	}
	if s := *rows[0].Sigma; s < 1.4157 || s > 1.4159 || *rows[0].Epsilon > 8 {
		t.Errorf("σ=%v ε=%v, want σ≈1.41579 with ε ≤ 8", s, *rows[0].Epsilon)
	}
	code, out, _ = runCLI("account", "--q", "0.04", "--steps", "2250", "--target-eps", "8", "--accountant", "rdp")
	if code != 0 || !strings.Contains(out, "sigma") || !strings.Contains(out, "target ε=8") {
		t.Errorf("text target output (exit %d):\n%s", code, out)
	}
}

// TestAccountRobustness: the cases users hit. 2^48 steps used to panic
// in the PLD (makeslice); targets ≤ 0.1 and σ = 1e6 aborted on RDP
// round-off below zero; σ = 1e-300 aborted on a NaN. Now: values, ∞ with
// a reason, or "n/a" naming the limit, and exit 0.
func TestAccountRobustness(t *testing.T) {
	code, out, errb := runCLI("account", "--q", "0.01", "--sigma", "1.1", "--steps", "281474976710656", "--json")
	rows := decodeRows(t, out)
	if code != 0 || errb != "" || row(t, rows, "rdp", "improved").Epsilon == nil {
		t.Fatalf("2^48 steps: exit %d %q %s", code, errb, out)
	}
	// PLD and PRV hit their work caps (2^20 points): each row says so and
	// shows the RDP upper bound instead, never a smaller number.
	rdpEps := *row(t, rows, "rdp", "improved").Epsilon
	if p := row(t, rows, "pld", ""); p.Epsilon == nil || *p.Epsilon != rdpEps || !strings.Contains(p.Note, "fallback") || !strings.Contains(p.Note, "1048576 points") {
		t.Errorf("2^48 steps, PLD: %+v", p)
	}
	if p := row(t, rows, "prv", ""); p.Epsilon == nil || *p.Epsilon != rdpEps || !strings.Contains(p.Note, "cap 1048576") || !strings.Contains(p.Note, "RDP upper bound") {
		t.Errorf("2^48 steps, PRV: %+v", p)
	}
	code, out, errb = runCLI("account", "--q", "0.01", "--sigma", "1.1", "--steps", "281474976710656", "--accountant", "pld")
	if code != 0 || errb != "" || !strings.Contains(out, "grid cap") || !strings.Contains(out, "RDP upper bound") {
		t.Errorf("2^48 steps, PLD alone: exit %d %q\n%s", code, errb, out)
	}
	for _, target := range []string{"0.1", "0.01", "0.001"} {
		code, out, errb := runCLI("account", "--q", "0.01", "--steps", "100", "--target-eps", target, "--accountant", "rdp,pld", "--json")
		if code != 0 {
			t.Errorf("target %s: exit %d %q", target, code, errb)
			continue
		}
		rows := decodeRows(t, out)
		tg := mustFloat(t, target)
		for _, r := range []jsonRow{row(t, rows, "rdp", "improved"), row(t, rows, "pld", "")} {
			if r.Sigma == nil || r.Epsilon == nil || *r.Epsilon > tg {
				t.Errorf("target %s: %+v", target, r)
			}
		}
		// The classic conversion cannot go below log(1/δ)/62 = 0.186.
		if c := row(t, rows, "rdp", "classic"); c.Sigma != nil || !strings.Contains(c.Note, "unreachable") {
			t.Errorf("target %s, classic: %+v", target, c)
		}
	}
	code, out, _ = runCLI("account", "--q", "0.01", "--steps", "100", "--sigma", "1e6", "--json")
	rows = decodeRows(t, out)
	if r := row(t, rows, "rdp", "improved"); code != 0 || r.Epsilon == nil || *r.Epsilon > 1e-3 || *r.Epsilon < 0 {
		t.Errorf("σ = 1e6: exit %d %+v", code, r)
	}
	code, out, _ = runCLI("account", "--q", "0.01", "--steps", "100", "--sigma", "1e-300", "--json")
	rows = decodeRows(t, out)
	if r := row(t, rows, "rdp", "improved"); code != 0 || r.Epsilon != nil || !r.Unbounded || !strings.Contains(r.Note, "overflows") {
		t.Errorf("σ = 1e-300: exit %d %+v", code, r)
	}
	code, out, _ = runCLI("account", "--q", "0.01", "--steps", "100", "--sigma", "1e-300", "--accountant", "rdp")
	if code != 0 || !strings.Contains(out, "∞") || strings.Contains(out, "NaN") {
		t.Errorf("σ = 1e-300 text (exit %d):\n%s", code, out)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAccountNoNoise(t *testing.T) {
	code, out, _ := runCLI("account", "--q", "0.01", "--sigma", "0", "--steps", "10")
	if code != 0 || !strings.Contains(out, "∞") || !strings.Contains(out, "no noise") || strings.Contains(out, "NaN") {
		t.Errorf("σ=0 (exit %d):\n%s", code, out)
	}
	code, out, _ = runCLI("account", "--q", "0.01", "--sigma", "0", "--steps", "10", "--json", "--accountant", "rdp")
	rows := decodeRows(t, out)
	if code != 0 || rows[0].Epsilon != nil || !rows[0].Unbounded || !strings.Contains(rows[0].Note, "no noise") {
		t.Errorf("σ=0 JSON (exit %d): %+v", code, rows)
	}
	// δ at ε: a probability, so the trivial 1 where ε is unbounded (never
	// ∞), and PLD's own answer 1 − (1 − q)^T where it has one.
	code, out, _ = runCLI("account", "--q", "0.1", "--sigma", "0", "--steps", "10", "--epsilon", "1", "--json", "--accountant", "rdp,pld,prv")
	rows = decodeRows(t, out)
	if code != 0 || len(rows) < 3 {
		t.Fatalf("σ=0 δ at ε (exit %d): %s", code, out)
	}
	for _, r := range rows {
		if r.Delta == nil || !(*r.Delta >= 0 && *r.Delta <= 1) || r.Unbounded {
			t.Errorf("σ=0 δ at ε, %s/%s: δ %v unbounded %v (%s)", r.Accountant, r.Conversion, r.Delta, r.Unbounded, r.Note)
		}
	}
	if r := row(t, rows, "pld", ""); r.Delta == nil || math.Abs(*r.Delta-(1-math.Pow(0.9, 10))) > 1e-9 {
		t.Errorf("σ=0 δ at ε by pld: %v, want 1 − 0.9^10", r.Delta)
	}
}

// TestAccountMechanisms: Laplace (pure ε = T·log(1 + q(e^{1/b} − 1))),
// the discrete Gaussian's exact ε between PLD's and RDP's, and DP-FTRL
// tree aggregation (exact Gaussian with μ = √depth/σ).
func TestAccountMechanisms(t *testing.T) {
	code, out, errb := runCLI("account", "--q", "0.01", "--steps", "1000", "--sigma", "1", "--mechanism", "laplace", "--json")
	if code != 0 {
		t.Fatalf("laplace: exit %d %s", code, errb)
	}
	rows := decodeRows(t, out)
	pure := row(t, rows, "pure", "")
	if want := 1000 * math.Log1p(0.01*math.Expm1(1)); pure.Epsilon == nil || !(math.Abs(*pure.Epsilon-want) <= 1e-9*want) {
		t.Errorf("laplace pure: %+v, want %v", pure, want)
	}
	if p, r := row(t, rows, "pld", ""), row(t, rows, "rdp", "improved"); p.Epsilon == nil || r.Epsilon == nil || *p.Epsilon > *r.Epsilon {
		t.Errorf("laplace: pld %+v, rdp %+v", p, r)
	}
	code, out, _ = runCLI("account", "--q", "1", "--steps", "1", "--sigma", "3", "--mechanism", "discrete-gaussian", "--sensitivity", "2", "--json")
	rows = decodeRows(t, out)
	ex, p, r := row(t, rows, "exact", ""), row(t, rows, "pld", ""), row(t, rows, "rdp", "improved")
	if code != 0 || ex.Epsilon == nil || *p.Epsilon < *ex.Epsilon-1e-9 || *p.Epsilon > *ex.Epsilon+1e-3 || *r.Epsilon < *ex.Epsilon {
		t.Errorf("discrete Gaussian: exact %+v pld %+v rdp %+v", ex, p, r)
	}
	code, out, _ = runCLI("account", "--mechanism", "tree", "--steps", "1600", "--sigma", "8.83", "--delta", "1e-6", "--accountant", "exact,rdp", "--json")
	rows = decodeRows(t, out)
	if ex := row(t, rows, "exact", ""); code != 0 || ex.Epsilon == nil || *ex.Epsilon > 2.04 {
		t.Errorf("tree: exit %d %+v (DP-FTRL paper: ε < 2.04)", code, ex)
	}
	code, out, _ = runCLI("account", "--mechanism", "tree", "--n", "1000", "--batch-size", "10", "--epochs", "4", "--sigma", "5", "--accountant", "exact")
	if code != 0 || !strings.Contains(out, "4 trees of 100 leaves") {
		t.Errorf("tree by epochs (exit %d):\n%s", code, out)
	}
}

func TestAccountSamplingAndRelations(t *testing.T) {
	// Without replacement: RDP (WBK) and pure only; the rest n/a.
	code, out, _ := runCLI("account", "--q", "0.01", "--sigma", "1", "--steps", "100", "--sampling", "wor", "--population", "1000")
	if code != 0 || !strings.Contains(out, "10 of 1000") || !strings.Contains(out, "replace-one") || !strings.Contains(out, "n/a") {
		t.Errorf("wor (exit %d):\n%s", code, out)
	}
	// Asking for the unsupported accountant alone is an error.
	code, _, errb := runCLI("account", "--q", "0.01", "--sigma", "1", "--steps", "100", "--sampling", "wor", "--population", "1000", "--accountant", "pld")
	if code != 1 || strings.Count(errb, "\n") != 1 || !strings.Contains(errb, "sampling without replacement") {
		t.Errorf("pld+wor: exit %d, %q", code, errb)
	}
	// --n sets the population for wor.
	code, out, _ = runCLI("account", "--n", "1000", "--batch-size", "10", "--epochs", "1", "--sigma", "1", "--sampling", "wor", "--accountant", "rdp")
	if code != 0 || !strings.Contains(out, "10 of 1000") {
		t.Errorf("wor with --n (exit %d):\n%s", code, out)
	}
	// Poisson + replace-one: PLD and PRV, not RDP.
	code, out, _ = runCLI("account", "--q", "0.01", "--sigma", "1", "--steps", "100", "--neighbouring", "replace-one", "--json")
	rows := decodeRows(t, out)
	if code != 0 || row(t, rows, "rdp", "improved").Epsilon != nil || row(t, rows, "pld", "").Epsilon == nil || row(t, rows, "prv", "").Epsilon == nil {
		t.Errorf("replace-one: %+v", rows)
	}
	// Custom orders.
	code, out, _ = runCLI("account", "--q", "0.01", "--sigma", "1", "--steps", "100", "--orders", "2,4,8", "--accountant", "rdp", "--json")
	rows = decodeRows(t, out)
	if code != 0 || *rows[0].Order != 8 && *rows[0].Order != 4 && *rows[0].Order != 2 {
		t.Errorf("orders: %+v", rows)
	}
}

func TestAccountBadInput(t *testing.T) {
	base := []string{"account", "--q", "0.01", "--sigma", "1", "--steps", "100"}
	with := func(extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"account", "--sigma", "1", "--steps", "10"}, 2, "--q is required"},
		{[]string{"account", "--q", "-0.1", "--sigma", "1", "--steps", "10"}, 2, "--q -0.1"},
		{[]string{"account", "--q", "1.5", "--sigma", "1", "--steps", "10"}, 2, "--q 1.5"},
		{[]string{"account", "--q", "0.1", "--sigma", "-1", "--steps", "10"}, 2, "--sigma -1"},
		{[]string{"account", "--q", "0.1", "--sigma", "NaN", "--steps", "10"}, 2, "--sigma NaN"},
		{[]string{"account", "--q", "0.1", "--steps", "10"}, 2, "--sigma is required"},
		{[]string{"account", "--q", "0.1", "--sigma", "1"}, 2, "--steps is required"},
		{[]string{"account", "--q", "0.1", "--sigma", "1", "--steps", "0"}, 2, "--steps 0"},
		{with("--delta", "0"), 2, "--delta 0"},
		{with("--delta", "1"), 2, "--delta 1"},
		{with("--epsilon", "-1"), 2, "--epsilon -1"},
		{with("--epsilon", "1", "--delta", "1e-5"), 2, "not both"},
		{with("--orders", "1,2"), 2, "order 1 must be > 1"},
		{with("--orders", "0.5"), 2, "must be > 1"},
		{with("--orders", "x"), 2, "not a number"},
		{with("--accountant", "moments"), 2, "--accountant"},
		{with("--accountant", "rdp,moments"), 2, "--accountant"},
		{with("--sampling", "shuffle"), 2, "--sampling"},
		{with("--sampling", "wor"), 2, "--population"},
		{with("--sampling", "wor", "--population", "150"), 2, "whole batch size"},
		{with("--neighbouring", "swap"), 2, "--neighbouring"},
		{with("--target-eps", "1"), 2, "not both"},
		{with("--mechanism", "cauchy"), 2, "--mechanism"},
		{with("--mechanism", "tree"), 2, "q must be 1"},
		{with("--mechanism", "discrete-gaussian", "--sensitivity", "0"), 2, "--sensitivity 0"},
		{with("--pld-interval", "0"), 2, "--pld-interval"},
		{with("--eps-error", "-1"), 2, "--eps-error"},
		{with("--delta-error", "1e-4"), 2, "--delta-error"},
		{with("--n", "100"), 2, "not both"},
		{[]string{"account", "--n", "100", "--batch-size", "10", "--sigma", "1"}, 2, "go together"},
		{[]string{"account", "--n", "100", "--batch-size", "200", "--epochs", "1", "--sigma", "1"}, 2, "--batch-size 200"},
		{[]string{"account", "--n", "100", "--batch-size", "10", "--epochs", "0", "--sigma", "1"}, 2, "--epochs 0"},
		{[]string{"account", "--n", "2", "--batch-size", "1", "--epochs", "1e300", "--sigma", "1"}, 2, "beyond 2^62"},
		{[]string{"account", "--mechanism", "tree", "--steps", "100", "--sigma", "1", "--participations", "100", "--min-separation", "100"}, 2, "limit"},
		{[]string{"account", "--q", "0.1", "--steps", "10", "--target-eps", "-1"}, 2, "--target-eps"},
		{with("--bogus"), 2, "bogus"},
		{with("extra"), 2, "unexpected argument"},
		// No σ gives a Gaussian mechanism a pure-DP guarantee.
		{[]string{"account", "--q", "0.5", "--steps", "10", "--target-eps", "0.5", "--accountant", "pure"}, 1, "unreachable"},
	}
	for _, c := range cases {
		code, out, errb := runCLI(c.args...)
		if code != c.code || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d containing %q", c.args, code, errb, c.code, c.want)
		}
		if strings.Count(errb, "\n") > 1 {
			t.Errorf("%v: error is not one line: %q", c.args, errb)
		}
		if out != "" {
			t.Errorf("%v: printed %q on error", c.args, out)
		}
	}
}

// TestAccountHelp: -h prints the description, two examples and the flags
// on stdout.
func TestAccountHelp(t *testing.T) {
	code, out, errb := runCLI("account", "-h")
	if code != 0 || errb != "" || !strings.Contains(out, "examples:") || strings.Count(out, "fedrepro account --") < 2 || !strings.Contains(out, "--target-eps") {
		t.Errorf("help (exit %d):\n%s", code, out)
	}
}

// FuzzAccount feeds arbitrary flag values to the account command: it must
// never panic, exit 0, 1 or 2, print at most one line on stderr when it
// fails, and nothing on stdout then. The accountants are the fast ones
// (RDP, zCDP, exact, pure) so that each input stays cheap; PLD and PRV
// limits are covered by TestAccountRobustness.
func FuzzAccount(f *testing.F) {
	f.Add("0.01", "1.1", "10000", "1e-5", "", "gaussian", "poisson", uint8(0), false)
	f.Add("0.01", "1e-300", "100", "1e-5", "", "gaussian", "poisson", uint8(1), true)
	f.Add("1", "3", "1", "", "0.5", "discrete-gaussian", "poisson", uint8(2), false)
	f.Add("0.1", "0.5", "50", "1e-6", "", "laplace", "wor", uint8(3), true)
	f.Add("1", "8.83", "1600", "1e-6", "", "tree", "poisson", uint8(0), false)
	f.Add("NaN", "-Inf", "-3", "2", "x", "", "", uint8(7), false)
	f.Add("1e-320", "1e308", "281474976710656", "1e-300", "1e300", "laplace", "poisson", uint8(5), true)
	f.Fuzz(func(t *testing.T, q, sigma, steps, delta, eps, mech, sampling string, pick uint8, asJSON bool) {
		args := []string{"account", "--q", q, "--sigma", sigma, "--steps", steps}
		if delta != "" {
			args = append(args, "--delta", delta)
		}
		if eps != "" {
			args = append(args, "--epsilon", eps)
		}
		if mech != "" {
			args = append(args, "--mechanism", mech)
		}
		if sampling != "" {
			args = append(args, "--sampling", sampling, "--population", "1000")
		}
		accts := []string{"rdp", "zcdp", "exact", "pure", "rdp,pure", "exact,zcdp"}
		args = append(args, "--accountant", accts[int(pick)%len(accts)])
		if asJSON {
			args = append(args, "--json")
		}
		code, out, errb := runCLI(args...)
		if code < 0 || code > 2 {
			t.Fatalf("%q: exit %d", args, code)
		}
		// On failure stdout is empty, or with --json the {"error": …} object.
		if code != 0 && (strings.Count(errb, "\n") > 1 || (out != "" && !(asJSON && strings.Contains(out, `"error"`)))) {
			t.Fatalf("%q: exit %d, stdout %q, stderr %q", args, code, out, errb)
		}
		if code == 0 && (strings.Contains(out, "NaN") || strings.Contains(out, "+Inf")) {
			t.Fatalf("%q: NaN or Inf printed:\n%s", args, out)
		}
	})
}
