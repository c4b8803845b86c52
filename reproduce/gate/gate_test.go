package gate

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func results(cell string, shift float64, seeds int, base float64) []*runner.Result {
	var out []*runner.Result
	for s := 1; s <= seeds; s++ {
		// Seed-to-seed spread of ±0.004 around base.
		v := base + 0.002*float64(s%3-1) + shift
		out = append(out, &runner.Result{
			Run:   runner.Run{Paper: "toy", Scale: "smoke", Experiment: "t1", Cell: cell, Seed: uint64(s)},
			Final: runner.Metrics{"test_acc": v, "other": 1},
		})
	}
	return out
}

var metrics = []Metric{{Name: "test_acc", Threshold: 0.01}}

func golden(t *testing.T, seeds int) *File {
	t.Helper()
	rs := append(results("a", 0, seeds, 0.9), results("b", 0, seeds, 0.8)...)
	f, err := Collect("toy", "smoke", metrics, rs)
	if err != nil {
		t.Fatal(err)
	}
	// Round trip through the file format, as the gate does.
	p := filepath.Join(t.TempDir(), "results.json")
	if err := Write(p, f); err != nil {
		t.Fatal(err)
	}
	g, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGate(t *testing.T) {
	cases := []struct {
		name     string
		seeds    int
		shiftA   float64
		wantFail []string // cells that must fail
	}{
		{"unshifted rerun passes", 4, 0, nil},
		{"shift of 3 points fails (U test)", 4, -0.03, []string{"a"}},
		{"shift below threshold passes", 4, 0.005, nil},
		{"few seeds: tolerance catches a shift", 2, 0.03, []string{"a"}},
		{"few seeds: tolerance passes a small shift", 2, 0.005, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := golden(t, c.seeds)
			rs := append(results("a", c.shiftA, c.seeds, 0.9), results("b", 0, c.seeds, 0.8)...)
			fresh, err := Collect("toy", "smoke", metrics, rs)
			if err != nil {
				t.Fatal(err)
			}
			failed := Failed(Compare(g, fresh))
			var cells []string
			for _, f := range failed {
				cells = append(cells, f.Cell)
				line := f.String()
				if !strings.Contains(line, "t1 a test_acc") || !strings.Contains(line, "shift") {
					t.Errorf("finding line does not name the cell and shift: %s", line)
				}
				if f.Test == "mann-whitney" && !strings.Contains(line, "p = ") {
					t.Errorf("U-test finding lacks the p-value: %s", line)
				}
			}
			if strings.Join(cells, ",") != strings.Join(c.wantFail, ",") {
				t.Fatalf("failed cells %v, want %v", cells, c.wantFail)
			}
		})
	}
}

func TestGateMissingAndExtraCells(t *testing.T) {
	g := golden(t, 4)
	fresh, _ := Collect("toy", "smoke", metrics, append(results("a", 0, 4, 0.9), results("c", 0, 4, 0.7)...))
	failed := Failed(Compare(g, fresh))
	if len(failed) != 2 {
		t.Fatalf("want missing b and extra c, got %v", failed)
	}
}

func TestGateNonFinite(t *testing.T) {
	rs := results("a", 0, 4, 0.9)
	rs[0].Final["test_acc"] = math.NaN()
	g, _ := Collect("toy", "smoke", metrics, rs)
	fresh, _ := Collect("toy", "smoke", metrics, results("a", 0, 4, 0.9))
	if len(Failed(Compare(g, fresh))) != 1 {
		t.Fatal("a NaN that disappeared must be flagged")
	}
	if len(Failed(Compare(g, g))) != 0 {
		t.Fatal("identical results with a NaN must pass")
	}
}
