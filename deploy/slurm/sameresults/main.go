// Command sameresults checks that two results trees hold the same result
// files with the same content, timing fields aside (runner.TimingFields:
// wall and CPU seconds and the binary's version legitimately differ
// between two executions of a run). deploy/slurm/test.sh uses it to compare
// a sharded cluster run with a single-process one.
//
//	sameresults DIR_A DIR_B
//
// It prints one line and exits 0 when they match, else lists the first
// differences and exits 1.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sameresults DIR_A DIR_B")
		os.Exit(2)
	}
	a, err := load(os.Args[1])
	if err == nil {
		var b map[string][]byte
		if b, err = load(os.Args[2]); err == nil {
			if diffs := compare(a, b); len(diffs) > 0 {
				for i, d := range diffs {
					if i == 10 {
						fmt.Printf("… %d more\n", len(diffs)-10)
						break
					}
					fmt.Println(d)
				}
				os.Exit(1)
			}
			fmt.Printf("%d result files identical (timing fields %s aside)\n", len(a), strings.Join(runner.TimingFields, ", "))
			return
		}
	}
	fmt.Fprintln(os.Stderr, "sameresults:", err)
	os.Exit(2)
}

// load maps each result file under dir (relative path) to its JSON with
// the timing fields removed, re-encoded canonically. Files under
// .fedrepro/ (plan files, logs) are not results.
func load(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".fedrepro" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, f := range runner.TimingFields {
			delete(m, f)
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel], err = json.Marshal(m)
		return err
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("no result files under %s", dir)
	}
	return out, err
}

func compare(a, b map[string][]byte) []string {
	var diffs []string
	for k, va := range a {
		vb, ok := b[k]
		switch {
		case !ok:
			diffs = append(diffs, "only in the first: "+k)
		case !bytes.Equal(va, vb):
			diffs = append(diffs, "differs: "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, "only in the second: "+k)
		}
	}
	sort.Strings(diffs)
	return diffs
}
