package main

import (
	"os"
	"strings"
	"testing"
)

func load(t *testing.T, name string) samples {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := read(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// One file: the median of six runs with its distribution-free interval;
// two files: a halved time is a significant −50% and an unchanged
// allocation count is "~"; a benchmark only in the new file is marked new.
func TestTable(t *testing.T) {
	old, nw := load(t, "testdata/old.txt"), load(t, "testdata/new.txt")
	one := table([]samples{old})
	for _, want := range []string{"| example.com/p.A-2 | sec/op | 1.001e-06 | ±1% | 6 |", "| example.com/p.A-2 | B/op | 64 | ±0% | 6 |"} {
		if !strings.Contains(one, want) {
			t.Errorf("single table lacks %q:\n%s", want, one)
		}
	}
	two := table([]samples{old, nw})
	for _, want := range []string{"| sec/op | 1.001e-06 ±1% | 5.005e-07 ±1% | -50.00% | p=0.002 n=6 |", "| B/op | 64 ±0% | 64 ±0% | ~ |", "| example.com/p.B-2 | sec/op | — | 1e-08 ±∞ | new | n=1 |"} {
		if !strings.Contains(two, want) {
			t.Errorf("comparison lacks %q:\n%s", want, two)
		}
	}
}

func TestReadRejectsEmpty(t *testing.T) {
	if _, err := read(strings.NewReader("goos: linux\n"), "empty.txt"); err == nil || !strings.Contains(err.Error(), "no benchmark results") {
		t.Errorf("err = %v", err)
	}
}
