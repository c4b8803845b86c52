package upcycled

import (
	"strings"
	"testing"
)

// A table is judged by its fixed-hyper-parameter comparison on the released
// data in upstream mode, with the tuned one of the same data and mode beside
// it, whatever order the sections ran in.
func TestPrimaryOutcome(t *testing.T) {
	w := &reportWriter{outcomes: []tableOutcome{
		{table: "1", source: "generated", mode: "upstream", wins: 1},
		{table: "1", tuned: true, source: "released", mode: "upstream", wins: 2},
		{table: "1", source: "released", mode: "paper", wins: 3},
		{table: "1", source: "released", mode: "upstream", wins: 4},
		{table: "3", source: "generated", mode: "paper", wins: 5},
	}}
	m, tu := w.primary("1")
	if m == nil || m.wins != 4 || tu == nil || tu.wins != 2 {
		t.Errorf("table 1: primary %+v, tuned %+v", m, tu)
	}
	if m, tu := w.primary("3"); m == nil || m.wins != 5 || tu != nil {
		t.Errorf("table 3: primary %+v, tuned %+v", m, tu)
	}
	if m, _ := w.primary("5"); m != nil {
		t.Errorf("table 5: %+v", m)
	}
}

func TestAttribText(t *testing.T) {
	got := attribText(map[string]int{"both": 3, "authors' code": 2, "neither": 1})
	want := "of 6 cells, 3 agree with the paper and the released code, 2 agree with the released code only, 1 agree with neither"
	if got != want {
		t.Errorf("attribText = %q, want %q", got, want)
	}
	// Every verdict the attribution table writes has a reading.
	for _, v := range []string{"both", "paper", "paper only", "authors' code", "authors' code within noise (unstable)", "neither", "not the paper (code not run)"} {
		if s := attribText(map[string]int{v: 1}); !strings.HasPrefix(s, "of 1 cells, 1 ") {
			t.Errorf("verdict %q: %q", v, s)
		}
	}
}
