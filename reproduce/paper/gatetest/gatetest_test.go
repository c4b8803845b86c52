package gatetest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/gate"
)

// TestMachineFree: an audit value naming the data directory (or the
// checkout's parent) is refused; a value naming only a folder's last
// element passes.
func TestMachineFree(t *testing.T) {
	data := filepath.Join(t.TempDir(), "datasets", "upcycled-synthetic")
	parent := checkoutParent()
	if parent == "" {
		t.Fatal("no go.mod above the working directory")
	}
	for _, c := range []struct {
		value string
		bad   bool
	}{
		{"Data: released Syn(iid) from upcycled-synthetic; 30 clients", false},
		{"Data: released Syn(iid) at " + data + "; 30 clients", true},
		{"read " + filepath.Join(parent, "shared", "datasets", "x"), true},
	} {
		n := gate.Flatten("", map[string]any{"notes": []any{c.value}})
		err := machineFree(n, data)
		if (err != nil) != c.bad {
			t.Errorf("%q: error %v, want refused = %v", c.value, err, c.bad)
		}
		if err != nil && !strings.Contains(err.Error(), "notes/0") {
			t.Errorf("%q: error %q does not name the value", c.value, err)
		}
	}
}
