package golden

import (
	"io/fs"
	"strings"
	"testing"
)

// Every embedded paper.yaml must decode strictly and parse cell by cell.
func TestEmbeddedPaperNumbersLoad(t *testing.T) {
	dirs, err := fs.ReadDir(Papers, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n, err := Load(d.Name())
		if err != nil {
			t.Errorf("%s: %v", d.Name(), err)
			continue
		}
		if len(n.Tables)+len(n.Values) == 0 {
			t.Errorf("%s: no numbers", d.Name())
		}
	}
}

func TestParseCell(t *testing.T) {
	cases := []struct {
		in        string
		mean, std float64
		hasStd    bool
		bad       bool
	}{
		{"98.06±0.07", 98.06, 0.07, true, false},
		{" 75.7 ± 0.85 ", 75.7, 0.85, true, false},
		{"4.840", 4.84, 0, false, false},
		{"n/a", 0, 0, false, true},
	}
	for _, c := range cases {
		got, err := ParseCell(c.in)
		if (err != nil) != c.bad {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		if c.bad {
			continue
		}
		if got.Mean != c.mean || got.HasStd != c.hasStd || (c.hasStd && got.Std != c.std) {
			t.Errorf("%q: %+v", c.in, got)
		}
	}
	if _, err := LoadNumbersFS(Papers, "nope"); err == nil || !strings.Contains(err.Error(), "golden/nope/paper.yaml") {
		t.Errorf("missing paper: %v", err)
	}
}
