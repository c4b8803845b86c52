package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process: exit code, stdout, stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestAccountText(t *testing.T) {
	code, out, errb := runCLI("account", "--q", "0.04", "--sigma", "1.5", "--steps", "2250", "--delta", "1e-5", "--accountant", "rdp")
	if code != 0 || errb != "" {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
	// Opacus' pin: 7.32911 at order 3.9 (improved conversion).
	if !strings.Contains(out, "rdp         improved    7.32911  3.9") || !strings.Contains(out, "classic") {
		t.Errorf("output:\n%s", out)
	}
	if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
		t.Errorf("NaN/Inf printed:\n%s", out)
	}
}

type jsonRow struct {
	Accountant string   `json:"accountant"`
	Conversion string   `json:"conversion"`
	Epsilon    *float64 `json:"epsilon"`
	Delta      float64  `json:"delta"`
	Order      *float64 `json:"order"`
	Sigma      *float64 `json:"sigma"`
	Note       string   `json:"note"`
}

func decodeRows(t *testing.T, out string) []jsonRow {
	t.Helper()
	var rows []jsonRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("bad JSON %v:\n%s", err, out)
	}
	return rows
}

func TestAccountJSON(t *testing.T) {
	code, out, _ := runCLI("account", "--q", "0.01", "--sigma", "2", "--steps", "1000", "--delta", "1e-5", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := decodeRows(t, out)
	if len(rows) != 3 {
		t.Fatalf("want 3 rows (rdp/improved, rdp/classic, pld), got %d", len(rows))
	}
	want := [][2]string{{"rdp", "improved"}, {"rdp", "classic"}, {"pld", "none"}}
	for i, r := range rows {
		if r.Accountant != want[i][0] || r.Conversion != want[i][1] || r.Epsilon == nil || r.Delta != 1e-5 || r.Sigma != nil {
			t.Errorf("row %d: %+v", i, r)
		}
		if (r.Order != nil) != (r.Accountant == "rdp") {
			t.Errorf("row %d: order %v for %s", i, r.Order, r.Accountant)
		}
	}
	if !(*rows[2].Epsilon <= *rows[0].Epsilon && *rows[0].Epsilon <= *rows[1].Epsilon) {
		t.Errorf("want pld ≤ rdp/improved ≤ rdp/classic: %v %v %v", *rows[2].Epsilon, *rows[0].Epsilon, *rows[1].Epsilon)
	}
	// The order field is absent (not null, not 0) for PLD.
	if strings.Count(out, `"order"`) != 2 {
		t.Errorf("order should appear only for RDP rows:\n%s", out)
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

func TestAccountNoNoise(t *testing.T) {
	code, out, _ := runCLI("account", "--q", "0.01", "--sigma", "0", "--steps", "10")
	if code != 0 || !strings.Contains(out, "∞") || !strings.Contains(out, "no noise") || strings.Contains(out, "NaN") {
		t.Errorf("σ=0 (exit %d):\n%s", code, out)
	}
	code, out, _ = runCLI("account", "--q", "0.01", "--sigma", "0", "--steps", "10", "--json", "--accountant", "rdp")
	rows := decodeRows(t, out)
	if code != 0 || rows[0].Epsilon != nil || !strings.Contains(rows[0].Note, "no noise") {
		t.Errorf("σ=0 JSON (exit %d): %+v", code, rows)
	}
}

func TestAccountSamplingAndRelations(t *testing.T) {
	// Without replacement: RDP (WBK) only; PLD reported as not available.
	code, out, _ := runCLI("account", "--q", "0.01", "--sigma", "1", "--steps", "100", "--sampling", "wor", "--population", "1000")
	if code != 0 || !strings.Contains(out, "10 of 1000") || !strings.Contains(out, "replace-one") || !strings.Contains(out, "not available") {
		t.Errorf("wor (exit %d):\n%s", code, out)
	}
	// Asking for the unsupported accountant alone is an error.
	code, _, errb := runCLI("account", "--q", "0.01", "--sigma", "1", "--steps", "100", "--sampling", "wor", "--population", "1000", "--accountant", "pld")
	if code != 1 || strings.Count(errb, "\n") != 1 || !strings.Contains(errb, "sampling without replacement") {
		t.Errorf("pld+wor: exit %d, %q", code, errb)
	}
	// Poisson + replace-one: PLD only.
	code, out, _ = runCLI("account", "--q", "0.01", "--sigma", "1", "--steps", "100", "--neighbouring", "replace-one", "--json")
	rows := decodeRows(t, out)
	if code != 0 || rows[0].Epsilon != nil || rows[2].Epsilon == nil {
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
		{[]string{"account", "--q", "0", "--sigma", "1", "--steps", "10"}, 2, "--q 0"},
		{[]string{"account", "--q", "1.5", "--sigma", "1", "--steps", "10"}, 2, "--q 1.5"},
		{[]string{"account", "--q", "0.1", "--sigma", "-1", "--steps", "10"}, 2, "--sigma -1"},
		{[]string{"account", "--q", "0.1", "--sigma", "NaN", "--steps", "10"}, 2, "--sigma NaN"},
		{[]string{"account", "--q", "0.1", "--steps", "10"}, 2, "--sigma is required"},
		{[]string{"account", "--q", "0.1", "--sigma", "1"}, 2, "--steps is required"},
		{[]string{"account", "--q", "0.1", "--sigma", "1", "--steps", "0"}, 2, "--steps 0"},
		{with("--delta", "0"), 2, "--delta 0"},
		{with("--delta", "1"), 2, "--delta 1"},
		{with("--orders", "1,2"), 2, "order 1 must be > 1"},
		{with("--orders", "0.5"), 2, "must be > 1"},
		{with("--orders", "x"), 2, "not a number"},
		{with("--accountant", "moments"), 2, "--accountant"},
		{with("--sampling", "shuffle"), 2, "--sampling"},
		{with("--sampling", "wor"), 2, "--population"},
		{with("--sampling", "wor", "--population", "150"), 2, "whole batch size"},
		{with("--neighbouring", "swap"), 2, "--neighbouring"},
		{with("--target-eps", "1"), 2, "not both"},
		{[]string{"account", "--q", "0.1", "--steps", "10", "--target-eps", "-1"}, 2, "--target-eps"},
		{with("--bogus"), 2, "bogus"},
		{with("extra"), 2, "unexpected argument"},
		// The classic conversion has a floor log(1/δ)/(α_max−1) = 11.5 at
		// α_max = 2 even with infinite noise, so ε = 0.5 is unreachable.
		{[]string{"account", "--q", "0.5", "--steps", "10", "--target-eps", "0.5", "--orders", "1.5,2", "--accountant", "rdp"}, 1, "unreachable"},
	}
	for _, c := range cases {
		code, out, errb := runCLI(c.args...)
		if code != c.code || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d containing %q", c.args, code, errb, c.code, c.want)
		}
		if strings.Count(errb, "\n") > 1 && c.want != "bogus" {
			t.Errorf("%v: error is not one line: %q", c.args, errb)
		}
		if out != "" {
			t.Errorf("%v: printed %q on error", c.args, out)
		}
	}
}
