package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badCase is one bad command line: what it must exit with, a word its one
// stderr line must contain, and which files of its sandbox it may change.
type badCase struct {
	name string
	// args may use {dir}, the case's sandbox directory.
	args []string
	// setup writes files into the sandbox before the call.
	setup func(t *testing.T, dir string)
	code  int
	want  string
	// mayWrite lists sandbox paths (relative) the call may create or change.
	mayWrite []string
}

// snapshot hashes every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(h[:])
		return nil
	})
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runBadInputs runs every case in its own sandbox and checks the contract
// of bad input: the exit code, exactly one line on stderr naming the
// problem, no stack trace, and no file created or changed outside mayWrite.
func runBadInputs(t *testing.T, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(t, dir)
			}
			before := snapshot(t, dir)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "{dir}", dir)
			}
			code, _, errs := call(args...)
			lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
			switch {
			case code != c.code:
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, errs)
			case len(lines) != 1 || lines[0] == "":
				t.Errorf("stderr has %d lines, want exactly one:\n%s", len(lines), errs)
			case !strings.Contains(errs, c.want):
				t.Errorf("stderr %q does not contain %q", errs, c.want)
			}
			if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic:") {
				t.Errorf("stack trace on stderr:\n%s", errs)
			}
			after := snapshot(t, dir)
			allowed := map[string]bool{}
			for _, m := range c.mayWrite {
				allowed[filepath.FromSlash(m)] = true
			}
			for p, h := range after {
				if before[p] != h && !allowed[p] && !underAllowed(p, allowed) {
					t.Errorf("bad input changed or created %s", p)
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("bad input removed %s", p)
				}
			}
		})
	}
}

func underAllowed(p string, allowed map[string]bool) bool {
	for a := range allowed {
		if strings.HasPrefix(p, a+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

const validSpecHead = "paper: upcycled\nscale: smoke\nseeds: [1]\n"

// TestBadInputs is the table of bad command lines, specs, data files,
// result files and goldens; each must get one clear line and change
// nothing it should not.
func TestBadInputs(t *testing.T) {
	results := []string{"--results", "{dir}/res", "--reports", "{dir}/rep"}
	cases := []badCase{
		// Commands and flags.
		{name: "no command", args: nil, code: 2, want: "usage: fedrepro"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, want: `unknown command "frobnicate"`},
		{name: "unknown flag", args: []string{"list", "--bogus"}, code: 2, want: "--bogus"},
		{name: "flag without value", args: []string{"verify", "--paper"}, code: 2, want: "--paper"},
		{name: "stray argument", args: []string{"list", "extra"}, code: 2, want: `unexpected argument "extra"`},
		{name: "verify without paper", args: []string{"verify"}, code: 2, want: "--paper is required"},
		{name: "verify unknown paper", args: []string{"verify", "--paper", "nope"}, code: 2, want: `unknown paper "nope"`},
		{name: "verify bad seed", args: []string{"verify", "--paper", "haar", "--seed", "-1"}, code: 2, want: "--seed"},
		{name: "audit without paper", args: []string{"audit"}, code: 2, want: "--paper is required"},
		{name: "audit unknown paper", args: []string{"audit", "--paper", "x"}, code: 2, want: `unknown paper "x"`},
		{name: "version stray argument", args: []string{"version", "now"}, code: 2, want: "unexpected argument"},
		{name: "data unknown flag", args: []string{"data", "--fetchh"}, code: 2, want: "--fetchh"},
		{name: "reproduce without paper", args: append([]string{"reproduce"}, results...), code: 2, want: "--paper is required"},
		{name: "reproduce unknown paper", args: append([]string{"reproduce", "--paper", "nope"}, results...), code: 2, want: `unknown paper "nope"`},
		{name: "reproduce unknown scale", args: append([]string{"reproduce", "--paper", "haar", "--scale", "huge"}, results...), code: 2, want: `no scale "huge"`},
		{name: "reproduce negative workers", args: append([]string{"reproduce", "--paper", "haar", "--workers", "-1"}, results...), code: 2, want: "--workers"},
		{name: "reproduce bad workers", args: append([]string{"reproduce", "--paper", "haar", "--workers", "two"}, results...), code: 2, want: "--workers"},
		{name: "compare unknown scale", args: []string{"compare", "--paper", "haar", "--scale", "huge", "--results", "{dir}/res"}, code: 2, want: `no scale "huge"`},
		{name: "compare update no-run", args: []string{"compare", "--paper", "haar", "--scale", "smoke", "--update", "--no-run", "--results", "{dir}/res", "--golden", "{dir}/g"}, code: 2, want: "--no-run"},
		// Goldens.
		{name: "compare missing golden", args: []string{"compare", "--paper", "haar", "--scale", "smoke", "--no-run", "--results", "{dir}/res", "--golden", "{dir}/nogolden.json"},
			code: 1, want: "no golden results for haar/smoke"},
		{name: "compare garbage golden", args: []string{"compare", "--paper", "haar", "--scale", "smoke", "--no-run", "--results", "{dir}/res", "--golden", "{dir}/g.json"},
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "g.json"), "{not json") }, code: 1, want: "g.json"},
		{name: "compare old-schema golden", args: []string{"compare", "--paper", "haar", "--scale", "smoke", "--no-run", "--results", "{dir}/res", "--golden", "{dir}/g.json"},
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "g.json"), `{"paper":"haar","scale":"smoke","metrics":[],"cells":[]}`)
			}, code: 1, want: "make golden"},
		{name: "compare golden of another paper", args: []string{"compare", "--paper", "haar", "--scale", "smoke", "--no-run", "--results", "{dir}/res", "--golden", "{dir}/g.json"},
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "g.json"), `{"schema_version":2,"paper":"normec","scale":"smoke","platform":"x","metrics":[],"runs":[]}`)
			}, code: 1, want: "not haar/smoke"},
		{name: "compare without results", args: []string{"compare", "--paper", "fedddpm", "--scale", "smoke", "--no-run", "--results", "{dir}/res", "--golden", "../../golden"},
			code: 1, want: "results incomplete"},
		// Specs.
		{name: "spec unknown key", args: append([]string{"reproduce", "--paper", "upcycled", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "s.yaml"), validSpecHead+"experiments:\n  - name: x\n    sigma_typo: 1\n")
			}, code: 1, want: `s.yaml:6: unknown key "sigma_typo"`, mayWrite: nil},
		{name: "spec not YAML", args: append([]string{"reproduce", "--paper", "upcycled", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "s.yaml"), "paper: [unclosed\n") }, code: 1, want: "s.yaml"},
		{name: "spec missing file", args: append([]string{"reproduce", "--paper", "upcycled", "--scale", "smoke", "--spec", "{dir}/none.yaml"}, results...),
			code: 1, want: "none.yaml"},
		{name: "spec of another paper", args: append([]string{"reproduce", "--paper", "upcycled", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "s.yaml"), "paper: haar\nscale: smoke\nseeds: [1]\nexperiments: []\n")
			}, code: 1, want: "s.yaml"},
		{name: "spec epochs 1e12", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) { writeSpec(t, dir, "haar", "    epochs: 1\n", "    epochs: 1e12\n") }, code: 1, want: "epochs = 1e12 is outside the allowed range"},
		{name: "spec rounds negative", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) { writeSpec(t, dir, "haar", "    rounds: 5\n", "    rounds: -5\n") }, code: 1, want: "rounds = -5"},
		{name: "spec too many seeds", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) {
				writeSpec(t, dir, "haar", "seeds: [1, 2, 3, 4]\n", "seeds: ["+strings.Repeat("1, ", 200)+"1]\n")
			}, code: 1, want: "seeds has 201 entries"},
		{name: "spec no experiments", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "s.yaml"), "paper: haar\nscale: smoke\nseeds: [1]\ndelta: 1.0e-5\nexperiments: []\n")
			}, code: 1, want: "s.yaml:5: experiments is empty"},
		{name: "spec wrong scale", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) { writeSpec(t, dir, "haar", "scale: smoke\n", "scale: default\n") }, code: 1, want: `scale "default", but --scale is "smoke"`},
		{name: "spec type error", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) { writeSpec(t, dir, "haar", "    rounds: 5\n", "    rounds: five\n") }, code: 1, want: "s.yaml:"},
		{name: "spec unknown method", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", "{dir}/s.yaml"}, results...),
			setup: func(t *testing.T, dir string) {
				writeSpec(t, dir, "haar", "methods: [vanilla, wav]", "methods: [vanilla, wavy]")
			}, code: 1, want: "wavy"},
		{name: "unknown experiment", args: append([]string{"reproduce", "--paper", "fedddpm", "--scale", "smoke", "--experiment", "table9"}, results...),
			code: 2, want: `unknown experiment "table9"`},
		{name: "empty experiment name", args: append([]string{"reproduce", "--paper", "fedddpm", "--scale", "smoke", "--experiment", ","}, results...),
			code: 2, want: `unknown experiment ""`},
		// Folders and data.
		{name: "data-dir missing", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--data-dir", "{dir}/nowhere"}, results...),
			code: 2, want: "--data-dir"},
		{name: "data-dir is a file", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--data-dir", "{dir}/f"}, results...),
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "f"), "x") }, code: 2, want: "is not a directory"},
		{name: "results not writable", args: []string{"reproduce", "--paper", "fedddpm", "--scale", "smoke", "--results", "{dir}/f/res", "--reports", "{dir}/rep"},
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "f"), "a file, not a folder") }, code: 1, want: "is not writable"},
		{name: "reports not writable", args: []string{"reproduce", "--paper", "fedddpm", "--scale", "smoke", "--results", "{dir}/res", "--reports", "{dir}/f"},
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "f"), "a file, not a folder") }, code: 1, want: "is not writable"},
		{name: "corrupt dataset under data-dir", args: append([]string{"reproduce", "--paper", "haar", "--scale", "smoke", "--data-dir", "{dir}/data", "--experiment", "table3"}, results...),
			setup: func(t *testing.T, dir string) {
				for _, f := range []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"} {
					writeFile(t, filepath.Join(dir, "data", "fashion-mnist", f), "not an IDX file")
				}
			}, code: 1, want: "fashion-mnist", mayWrite: []string{"res"}},
		{name: "truncated released data under data-dir", args: append([]string{"reproduce", "--paper", "upcycled", "--scale", "smoke", "--experiment", "fig3_output",
			"--data-dir", "{dir}/data", "--shared-dir", "../../../shared"}, results...),
			setup: func(t *testing.T, dir string) {
				shared := sharedDir(t)
				for _, f := range []string{"train/mytrain.pt", "train/user_groups.json", "test/mytest.pt", "test/user_groups.json"} {
					b, err := os.ReadFile(filepath.Join(shared, "datasets", "upcycled-synthetic", "synthetic_iid", f))
					if err != nil {
						t.Fatal(err)
					}
					if f == "train/mytrain.pt" {
						b = b[:len(b)/2]
					}
					writeFile(t, filepath.Join(dir, "data", "synthetic_iid", f), string(b))
				}
			}, code: 1, want: "mytrain.pt", mayWrite: []string{"res"}},
		// Result files: the merge refuses what it cannot trust, and says so.
		{name: "report with no results", args: []string{"report", "--paper", "fedddpm", "--scale", "smoke", "--results", "{dir}/res", "--reports", "{dir}/rep"},
			code: 1, want: "results incomplete"},
		{name: "report unknown scale", args: []string{"report", "--paper", "haar", "--scale", "huge", "--results", "{dir}/res"},
			code: 2, want: `no scale "huge"`},
		{name: "no-run with shard", args: []string{"reproduce", "--no-run", "--paper", "haar", "--shard", "1/2", "--results", "{dir}/res"},
			code: 2, want: "--no-run"},
		{name: "shard out of range", args: append([]string{"reproduce", "--paper", "haar", "--shard", "3/2"}, results...), code: 2, want: "--shard"},
		{name: "shard auto without an engine", args: append([]string{"reproduce", "--paper", "haar", "--shard", "auto"}, results...), code: 2, want: "auto"},
		{name: "shard garbage", args: append([]string{"reproduce", "--paper", "haar", "--shard", "x/y"}, results...), code: 2, want: "--shard"},
		{name: "plan without shards", args: []string{"plan", "--paper", "haar"}, code: 2, want: "--shards is required"},
		{name: "plan shards 0", args: []string{"plan", "--paper", "haar", "--shards", "0"}, code: 2, want: "--shards 0: want ≥ 1"},
		// plan --spec goes through the same validation as reproduce --spec.
		{name: "plan spec missing file", args: []string{"plan", "--paper", "haar", "--scale", "smoke", "--shards", "2", "--spec", "{dir}/none.yaml"},
			code: 1, want: "none.yaml"},
		{name: "plan spec epochs 1e12", args: []string{"plan", "--paper", "haar", "--scale", "smoke", "--shards", "2", "--spec", "{dir}/s.yaml"},
			setup: func(t *testing.T, dir string) { writeSpec(t, dir, "haar", "    epochs: 1\n", "    epochs: 1e12\n") }, code: 1, want: "epochs = 1e12 is outside the allowed range"},
		{name: "plan spec wrong scale", args: []string{"plan", "--paper", "haar", "--scale", "smoke", "--shards", "2", "--spec", "{dir}/s.yaml"},
			setup: func(t *testing.T, dir string) { writeSpec(t, dir, "haar", "scale: smoke\n", "scale: default\n") }, code: 1, want: `scale "default", but --scale is "smoke"`},
		// The accountant.
		{name: "account without sigma", args: []string{"account", "--q", "0.01", "--steps", "10"}, code: 2, want: "--sigma"},
		{name: "account q above 1", args: []string{"account", "--q", "1.5", "--sigma", "1", "--steps", "10"}, code: 2, want: "--q"},
		{name: "account negative sigma", args: []string{"account", "--q", "0.1", "--sigma", "-1", "--steps", "10"}, code: 2, want: "--sigma"},
		{name: "account zero steps", args: []string{"account", "--q", "0.1", "--sigma", "1", "--steps", "0"}, code: 2, want: "--steps"},
		{name: "account delta 1", args: []string{"account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1"}, code: 2, want: "--delta"},
		{name: "account unknown mechanism", args: []string{"account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--mechanism", "cauchy"}, code: 2, want: "cauchy"},
		{name: "account unknown accountant", args: []string{"account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--accountant", "magic"}, code: 2, want: "magic"},
		{name: "account both delta and epsilon", args: []string{"account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--epsilon", "1"}, code: 2, want: "--epsilon"},
		{name: "account n without batch", args: []string{"account", "--n", "60000", "--epochs", "2", "--sigma", "1"}, code: 2, want: "--batch-size"},
		{name: "account bad number", args: []string{"account", "--q", "abc", "--sigma", "1", "--steps", "10"}, code: 2, want: "--q"},
		{name: "audit unknown flag", args: []string{"audit", "--paper", "haar", "--claimz", "x"}, code: 2, want: "--claimz"},
		{name: "compare flag it does not take", args: []string{"compare", "--paper", "haar", "--shard", "1/2"}, code: 2, want: "--shard"},
		{name: "help of an unknown command", args: []string{"help", "frob"}, code: 2, want: `unknown command "frob"`},
	}
	runBadInputs(t, cases)
}

// writeSpec copies a paper's smoke spec into dir/s.yaml with one edit.
func writeSpec(t *testing.T, dir, paper, old, new string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "reproduce", paper, "specs", "smoke.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("the %s smoke spec has no %q", paper, old)
	}
	writeFile(t, filepath.Join(dir, "s.yaml"), strings.Replace(string(b), old, new, 1))
}
