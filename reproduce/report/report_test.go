package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	cases := []struct {
		xs        []float64
		mean, std float64
	}{
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3)},
		{[]float64{7}, 7, 0},
	}
	for _, c := range cases {
		s := Summarize(c.xs)
		if math.Abs(s.Mean-c.mean) > 1e-12 || math.Abs(s.Std-c.std) > 1e-12 || s.N != len(c.xs) {
			t.Errorf("Summarize(%v) = %+v", c.xs, s)
		}
	}
	if got := Summarize([]float64{0.98, 0.982}).Scaled(100).PM(2); got != "98.10±0.14" {
		t.Errorf("PM = %s", got)
	}
}

func TestMarkdownEscapesAndAligns(t *testing.T) {
	tb := &Table{Header: []string{"method", "acc"}, Align: "lr"}
	tb.Add("a|b", "1.0")
	md := tb.Markdown()
	if !strings.Contains(md, `a\|b`) || !strings.Contains(md, "method") || !strings.Contains(md, "--:") {
		t.Fatalf("unexpected markdown:\n%s", md)
	}
}

func TestSummaryHandlesNonFinite(t *testing.T) {
	s := &Summary{Paper: "p", Scale: "s", Cells: []Cell{{"mean": math.NaN(), "std": math.Inf(1), "n": 3}}}
	b, err := MarshalSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"NaN"`) || !strings.Contains(string(b), `"+Inf"`) {
		t.Fatalf("non-finite values not sanitized: %s", b)
	}
}

func TestFigureWritesSVGAndPNG(t *testing.T) {
	base := filepath.Join(t.TempDir(), "fig", "loss")
	f := &Figure{Title: "loss", XLabel: "round", YLabel: "loss", Series: []Series{
		{Name: "a", X: []float64{1, 2, 3}, Mean: []float64{3, 2, 1}, Std: []float64{0.1, 0.2, 0.1}},
		{Name: "b", X: []float64{1, 2, 3}, Mean: []float64{3, 2.5, 2}, Dashed: true, Color: 1},
	}}
	if err := f.Save(base); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".svg", ".png"} {
		st, err := os.Stat(base + ext)
		if err != nil || st.Size() < 100 {
			t.Fatalf("%s: %v", ext, err)
		}
	}
	bad := &Figure{Series: []Series{{Name: "x", X: []float64{1}, Mean: []float64{1, 2}}}}
	if err := bad.Save(base); err == nil {
		t.Fatal("mismatched series accepted")
	}
}
