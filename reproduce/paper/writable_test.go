package paper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckWritable answers before any run and leaves nothing behind: a
// command refused after the check (a shard plan for another array) must
// not litter the working folder with empty report folders.
func TestCheckWritableCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "a", "b", "c"), ""},
		{dir, ""},
		{filepath.Join(dir, "f"), "is not a folder"},
		{filepath.Join(dir, "f", "res"), "is not a folder"},
	} {
		err := CheckWritable(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error with %q", c.path, err, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the check left %d entries in %s, want only the file", len(entries), dir)
	}
}
