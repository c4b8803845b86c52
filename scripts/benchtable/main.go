// Command benchtable summarises `go test -bench` output as a Markdown table,
// as benchstat does: per benchmark and unit the median of the repeated
// measurements with its 95% confidence interval (distribution-free:
// benchmath.AssumeNothing, the order statistics of the sample), and, given
// a second file, the change from the first with the Mann–Whitney U test's
// p-value ("~" when p > 0.05: no change the runs can tell from noise).
//
//	go test -run '^$' -bench . -count 10 ./algorithms/fl > new.txt
//	go run ./scripts/benchtable new.txt            # one table
//	go run ./scripts/benchtable old.txt new.txt    # old → new, with Δ
//
// Parsing is golang.org/x/perf/benchfmt (the Go benchmark format's
// reference reader); the statistics are golang.org/x/perf/benchmath.
// Timings are measurements, never assertions: speed targets live in Go
// benchmarks, and this table is for the README and for reviewing a change.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

func main() {
	args := os.Args[1:]
	if len(args) < 1 || len(args) > 2 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(os.Stderr, "usage: benchtable [old.txt] new.txt   (go test -bench output; -count ≥ 6 for a confidence interval)")
		os.Exit(2)
	}
	var sets []samples
	for _, name := range args {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		s, err := read(f, name)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		sets = append(sets, s)
	}
	fmt.Print(table(sets))
}

// key names one row: a benchmark (with its package) and a unit.
type key struct{ pkg, name, unit string }

// samples are the measurements of each row, in the order read.
type samples map[key][]float64

// read collects every benchmark result of r (benchfmt syntax errors are
// returned with their file and line).
func read(r io.Reader, name string) (samples, error) {
	out := samples{}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			for _, v := range rec.Values {
				k := key{rec.GetConfig("pkg"), string(rec.Name.Full()), v.Unit}
				out[k] = append(out[k], v.Value)
			}
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", name)
	}
	return out, nil
}

// table renders one set (median ± CI) or two (old, new, Δ, p).
func table(sets []samples) string {
	last := sets[len(sets)-1]
	keys := make([]key, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.unit < b.unit
	})
	var b strings.Builder
	if len(sets) == 1 {
		b.WriteString("| benchmark | unit | median | 95% CI | n |\n|---|---|--:|--:|--:|\n")
	} else {
		b.WriteString("| benchmark | unit | old | new | Δ | p, n |\n|---|---|--:|--:|--:|--:|\n")
	}
	thr := &benchmath.DefaultThresholds
	a := benchmath.AssumeNothing
	for _, k := range keys {
		name := k.name
		if k.pkg != "" {
			name = k.pkg + "." + k.name
		}
		nw := benchmath.NewSample(append([]float64(nil), last[k]...), thr)
		sn := a.Summary(nw, 0.95)
		if len(sets) == 1 {
			fmt.Fprintf(&b, "| %s | %s | %s | ±%s | %d |\n", name, k.unit, format(sn.Center), sn.PctRangeString(), len(nw.Values))
			continue
		}
		ov, ok := sets[0][k]
		if !ok {
			fmt.Fprintf(&b, "| %s | %s | — | %s ±%s | new | n=%d |\n", name, k.unit, format(sn.Center), sn.PctRangeString(), len(nw.Values))
			continue
		}
		old := benchmath.NewSample(append([]float64(nil), ov...), thr)
		so := a.Summary(old, 0.95)
		c := a.Compare(old, nw)
		fmt.Fprintf(&b, "| %s | %s | %s ±%s | %s ±%s | %s | %s |\n", name, k.unit, format(so.Center), so.PctRangeString(),
			format(sn.Center), sn.PctRangeString(), c.FormatDelta(so.Center, sn.Center), c.String())
	}
	return b.String()
}

// format prints a value with four significant digits.
func format(v float64) string { return fmt.Sprintf("%.4g", v) }
