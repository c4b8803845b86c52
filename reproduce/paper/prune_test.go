package paper

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPruneStale: files written before the report (older than the margin)
// go, files of this report and sub-folders stay, a missing folder is fine.
func TestPruneStale(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	for _, tc := range []struct {
		name string
		age  time.Duration // how long before start the file was last written
	}{
		{"old.png", time.Hour},
		{"old.svg", 3 * time.Second},
		{"edge.png", staleMargin / 2}, // within the margin: kept
		{"new.png", -time.Second},     // written during the report
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		when := start.Add(-tc.age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := start.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "sub"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := pruneStale(dir, start); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"edge.png", "new.png", "sub"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if err := pruneStale(filepath.Join(dir, "missing"), start); err != nil {
		t.Errorf("missing folder: %v", err)
	}
}
