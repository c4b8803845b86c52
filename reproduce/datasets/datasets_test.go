package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
)

func sharedDir(t *testing.T) string {
	t.Helper()
	d, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared"))
	if Upcycled(d, "").Status != OK {
		t.Skipf("the released Upcycled-FL data is not at %s (this test builds its fixture tarball from it)", d)
	}
	return d
}

// tarball packs the shared copy of the released data in the upstream
// repository's layout, optionally altering one file.
func tarball(t *testing.T, shared string, alter func(rel string, b []byte) []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name string, b []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	add("Upcycled-FL-"+UpcycledCommit+"/README.md", []byte("readme"))
	for _, f := range upcycledFiles() {
		b, err := os.ReadFile(filepath.Join(shared, "datasets", UpcycledName, filepath.FromSlash(f[0])))
		if err != nil {
			t.Fatal(err)
		}
		if alter != nil {
			b = alter(f[0], b)
		}
		parts := strings.SplitN(f[0], "/", 2) // synthetic_iid, train/mytrain.pt
		add("Upcycled-FL-"+UpcycledCommit+"/data/"+parts[0]+"/data/"+parts[1], b)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func serve(t *testing.T, body []byte, status int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestFetchUpcycled(t *testing.T) {
	shared := sharedDir(t)
	good := tarball(t, shared, nil)
	bad := tarball(t, shared, func(rel string, b []byte) []byte {
		if rel == "synthetic_1_1/train/mytrain.pt" {
			return b[:len(b)/2] // truncated
		}
		return b
	})
	cases := []struct {
		name   string
		body   []byte
		status int
		want   string // error substring; "" = success
	}{
		{"the pinned tarball installs", good, 200, ""},
		{"a damaged file is refused", bad, 200, "synthetic_1_1/train/mytrain.pt"},
		{"a truncated tarball is refused", good[:len(good)/3], 200, "tarball"},
		{"not a tarball", []byte("<html>rate limited</html>"), 200, "not a gzip tarball"},
		{"an HTTP error", nil, 404, "404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cache := t.TempDir()
			root, err := FetchUpcycled(context.Background(), serve(t, c.body, c.status), cache)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if e := Upcycled("", cache); e.Status != OK || e.Where != root {
					t.Fatalf("after fetch: %s", e.Line())
				}
				if _, err := data.LoadUpcycled(root, "synthetic_iid"); err != nil {
					t.Fatalf("the fetched data does not load: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			// Nothing is left behind: no dataset, no temporary folder.
			left, _ := os.ReadDir(filepath.Join(cache, "datasets"))
			if len(left) != 0 {
				t.Fatalf("a failed fetch left %v", left)
			}
		})
	}
}

func TestUpcycledStatus(t *testing.T) {
	shared := sharedDir(t)
	if e := Upcycled(shared, t.TempDir()); e.Status != OK || e.Fix != "" {
		t.Fatalf("shared copy: %s", e.Line())
	}
	empty := t.TempDir()
	if e := Upcycled(empty, empty); e.Status != Missing || !strings.Contains(e.Fix, "make data") {
		t.Fatalf("nothing anywhere: %s", e.Line())
	}
	// A cache holding a damaged copy is corrupt, and says which file.
	cache := t.TempDir()
	dst := filepath.Join(cache, "datasets", UpcycledName)
	for _, f := range upcycledFiles() {
		b, _ := os.ReadFile(filepath.Join(shared, "datasets", UpcycledName, filepath.FromSlash(f[0])))
		if strings.HasSuffix(f[0], "user_groups.json") && strings.HasPrefix(f[0], "synthetic_0_0/test") {
			b = append(b, ' ')
		}
		os.MkdirAll(filepath.Join(dst, filepath.Dir(f[0])), 0o755)
		os.WriteFile(filepath.Join(dst, filepath.FromSlash(f[0])), b, 0o644)
	}
	if e := Upcycled(empty, cache); e.Status != Corrupt || !strings.Contains(e.Detail, "synthetic_0_0/test/user_groups.json") {
		t.Fatalf("damaged cache: %s", e.Line())
	}
}

func TestFashionMNISTStatus(t *testing.T) {
	empty := t.TempDir()
	if e := FashionMNIST(empty); e.Status != Missing {
		t.Errorf("empty folder: %s", e.Line())
	}
	bad := t.TempDir()
	for _, f := range []string{data.IDXTrainImages, data.IDXTrainLabels, data.IDXTestImages, data.IDXTestLabels} {
		os.WriteFile(filepath.Join(bad, f), []byte("not idx"), 0o644)
	}
	if e := FashionMNIST(bad); e.Status != Corrupt || !strings.Contains(e.Detail, "pinned") {
		t.Errorf("wrong content: %s", e.Line())
	}
	if e := FashionMNIST(""); e.Status == Corrupt {
		t.Errorf("the Debian copy is damaged: %s", e.Line())
	}
}

func TestUpstreamRel(t *testing.T) {
	cases := map[string]string{
		"Upcycled-FL-4dd7400/data/synthetic_iid/data/train/mytrain.pt": "synthetic_iid/train/mytrain.pt",
		"x/data/synthetic_0.5_0.5/data/test/user_groups.json":          "synthetic_0.5_0.5/test/user_groups.json",
		"Upcycled-FL-4dd7400/client/avg.py":                            "",
		"Upcycled-FL-4dd7400/data/femnist/data/train/mytrain.pt":       "femnist/train/mytrain.pt",
		"Upcycled-FL-4dd7400/data/synthetic_iid/data/train/extra/x.pt": "",
	}
	for in, want := range cases {
		got, ok := upstreamRel(in)
		if got != want || ok != (want != "") {
			t.Errorf("upstreamRel(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
