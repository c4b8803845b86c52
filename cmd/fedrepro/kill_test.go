package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the fedrepro binary when FEDREPRO_AS_CLI is
// set, so the kill tests can SIGKILL a real process without building one.
func TestMain(m *testing.M) {
	if os.Getenv("FEDREPRO_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The report cache (claims and audits) would otherwise land in
	// cmd/fedrepro/.cache; a temporary one keeps the package folder clean
	// and the tests independent of earlier runs. Children inherit it.
	if os.Getenv("FEDREPRO_CACHE") == "" {
		dir, err := os.MkdirTemp("", "fedrepro-test-cache-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Setenv("FEDREPRO_CACHE", dir)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// cli starts the CLI as a child process.
func cli(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FEDREPRO_AS_CLI=1")
	return cmd
}

// tinySpec is the Haar smoke spec cut to its table3 experiment: 16 short
// runs whose report has claims, audits and figures. Its audits run at the
// quick size (audit_size: quick): the tests using it check process
// behaviour (identical bytes after kill and resume), which the audits'
// size does not change, and the full audits are gated by
// reproduce/haar's TestGate.
func tinySpec(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "reproduce", "haar", "specs", "smoke.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	head, exps, _ := strings.Cut(s, "experiments:")
	var keep string
	for _, blk := range strings.Split(exps, "\n  - name: ") {
		if strings.HasPrefix(blk, "table3") {
			keep = blk
		}
	}
	if keep == "" {
		t.Fatal("the Haar smoke spec has no table3 experiment")
	}
	p := filepath.Join(dir, "tiny.yaml")
	writeFile(t, p, head+"audit_size: quick\nexperiments:\n  - name: "+strings.TrimRight(keep, "\n")+"\n")
	return p
}

// noTemporaries fails when a killed process left a temporary file.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".tmp") || strings.Contains(filepath.Base(p), ".tmp.")) {
			t.Errorf("a killed run left %s", p)
		}
		return nil
	})
}

// kill -9 in the middle of the runs, then again as the report is being
// written; each time a restart completes the reproduction, no temporary or
// damaged file is left, and the results and report are those of an
// uninterrupted run.
func TestKillNineAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a reproduction three times")
	}
	if _, err := os.Stat("/usr/share/datasets/fashion-mnist"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("Fashion-MNIST is not installed (make data)")
	}
	dir := t.TempDir()
	spec := tinySpec(t, dir)
	cache := filepath.Join(dir, "cache")
	args := func(name string) []string {
		return []string{"reproduce", "--paper", "haar", "--scale", "smoke", "--spec", spec, "--workers", "2",
			"--results", filepath.Join(dir, name, "res"), "--reports", filepath.Join(dir, name, "rep"), "--cache-dir", cache}
	}
	if code, _, errs := call(args("ref")...); code != 0 {
		t.Fatalf("uninterrupted run: %s", errs)
	}

	// 1. During the runs: kill as soon as some results exist.
	cmd := cli(t, args("runs")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		n := 0
		filepath.WalkDir(filepath.Join(dir, "runs", "res"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".json") {
				n++
			}
			return nil
		})
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	noTemporaries(t, filepath.Join(dir, "runs"))
	code, out, errs := call(args("runs")...)
	if code != 0 {
		t.Fatalf("restart after kill: %s", errs)
	}
	var total, ran, reused int
	if _, err := fmt.Sscanf(strings.SplitN(out, ": ", 2)[1], "%d runs (%d ran, %d reused)", &total, &ran, &reused); err != nil || reused < 2 || ran < 1 {
		t.Fatalf("the restart should reuse the results the killed run left and run the rest: %q", out)
	}
	a, b := strippedResults(t, filepath.Join(dir, "ref", "res")), strippedResults(t, filepath.Join(dir, "runs", "res"))
	if len(a) != 16 || len(a) != len(b) {
		t.Fatalf("%d and %d results", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s differs after kill and resume", k)
		}
	}

	// 2. During the report: kill on the line that announces it.
	cmd = cli(t, args("report")...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "writing the report") {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	cmd.Wait()
	noTemporaries(t, filepath.Join(dir, "report"))
	if code, _, errs := call(args("report")...); code != 0 {
		t.Fatalf("restart after a kill in the report phase: %s", errs)
	}
	// The resumed report equals a report written again, uninterrupted,
	// from the same results.
	if code, _, errs := call("report", "--paper", "haar", "--scale", "smoke", "--spec", spec, "--results", filepath.Join(dir, "report", "res"),
		"--reports", filepath.Join(dir, "again"), "--cache-dir", cache); code != 0 {
		t.Fatalf("report again: %s", errs)
	}
	sameTree(t, filepath.Join(dir, "report", "rep", "haar"), filepath.Join(dir, "again", "haar"))
}
