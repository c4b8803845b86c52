// Package datasets obtains and verifies the data the reproductions need on a
// machine that has only Go and git: the released Upcycled-FL synthetic data
// and Fashion-MNIST.
//
// Content decides, never a directory's existence: a dataset is present when
// every file matches its SHA-256 pin (algorithms/data holds the pins). The
// released Upcycled-FL data is looked for in the project's shared folder
// (../shared/datasets/upcycled-synthetic), then in the cache (.cache/
// datasets/upcycled-synthetic, which git ignores); when it is in neither,
// Fetch downloads the authors' public repository at the pinned commit
// (osu-srml/Upcycled-FL 4dd7400) as one tarball, keeps the sixteen files of
// the four synthetic settings, verifies each against its pin and installs
// them into the cache atomically. Fashion-MNIST is Debian's package
// dataset-fashion-mnist; InstallFashionMNIST runs apt-get when this process
// may (root, or sudo without a password).
package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fedrepro/fedrepro/algorithms/data"
)

// Status values of an Entry.
const (
	OK      = "ok"
	Missing = "missing"
	Corrupt = "corrupt"
)

// Entry is the state of one dataset on this machine.
type Entry struct {
	Name   string `json:"name"`   // "upcycled-synthetic", "fashion-mnist"
	Status string `json:"status"` // ok, missing, corrupt
	Where  string `json:"where"`  // where it was found, or where it was looked for
	Detail string `json:"detail,omitempty"`
	// Fix is the command that obtains the dataset ("" when OK).
	Fix string `json:"fix,omitempty"`
	// Papers that need it.
	Papers []string `json:"papers"`
}

// Line renders the entry as one line.
func (e Entry) Line() string {
	s := fmt.Sprintf("%s: %s at %s", e.Name, e.Status, e.Where)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	if e.Fix != "" {
		s += "; fix: " + e.Fix
	}
	return s
}

// UpcycledCommit is the upstream commit whose data/ folder the pins
// describe, and UpcycledRepo its GitHub repository.
const (
	UpcycledCommit = "4dd74006fb42a6d39fb1a997943e63b3372383a6"
	UpcycledRepo   = "osu-srml/Upcycled-FL"
	// UpcycledName is the dataset's folder name in the shared folder and the cache.
	UpcycledName = "upcycled-synthetic"
	// FashionMNISTName names Fashion-MNIST.
	FashionMNISTName = "fashion-mnist"
)

// UpcycledURL is where Fetch downloads the upstream tarball from: the
// FEDREPRO_UPCYCLED_URL environment variable when set (a mirror, or a test
// server), otherwise GitHub's tarball of the pinned commit.
func UpcycledURL() string {
	if u := os.Getenv("FEDREPRO_UPCYCLED_URL"); u != "" {
		return u
	}
	return "https://codeload.github.com/" + UpcycledRepo + "/tar.gz/" + UpcycledCommit
}

// DefaultCache is the cache folder: FEDREPRO_CACHE when set, else .cache
// under the working directory (git ignores it).
func DefaultCache() string {
	if c := os.Getenv("FEDREPRO_CACHE"); c != "" {
		return c
	}
	return ".cache"
}

// upcycledFiles lists every pinned file of the released data as
// (relative path under the dataset root, SHA-256), sorted.
func upcycledFiles() [][2]string {
	var out [][2]string
	for _, name := range data.UpcycledSyntheticNames {
		pins, _ := data.UpcycledPins(name)
		for rel, sum := range pins {
			out = append(out, [2]string{name + "/" + rel, sum})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// verifyUpcycled checks every pinned file under root: "" when all match,
// otherwise the first problem; missing reports whether the root lacks the
// data altogether (as opposed to holding a damaged copy).
func verifyUpcycled(root string) (problem string, missing bool) {
	present := 0
	var first string
	for _, f := range upcycledFiles() {
		p := filepath.Join(root, filepath.FromSlash(f[0]))
		got, err := fileSHA256(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if first == "" {
				first = p + " is missing"
			}
		case err != nil:
			present++
			if first == "" {
				first = err.Error()
			}
		case got != f[1]:
			present++
			if first == "" {
				first = fmt.Sprintf("%s has SHA-256 %s…, pinned %s…", p, got[:12], f[1][:12])
			}
		default:
			present++
		}
	}
	return first, present == 0
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// UpcycledRoots are the folders the released data is looked for in, in
// order: the shared folder's copy, then the cache.
func UpcycledRoots(sharedDir, cacheDir string) []string {
	var roots []string
	if sharedDir != "" {
		roots = append(roots, filepath.Join(sharedDir, "datasets", UpcycledName))
	}
	if cacheDir != "" {
		roots = append(roots, filepath.Join(cacheDir, "datasets", UpcycledName))
	}
	return roots
}

// Upcycled reports the released Upcycled-FL data: OK at the first root
// where every file matches its pin; Corrupt when a root holds a damaged
// copy and none holds a good one; Missing otherwise.
func Upcycled(sharedDir, cacheDir string) Entry {
	e := Entry{Name: UpcycledName, Papers: PapersUsing(UpcycledName), Fix: "make data (downloads " + UpcycledRepo + "@" + UpcycledCommit[:7] + " into " + filepath.Join(cacheDir, "datasets", UpcycledName) + ")"}
	roots := UpcycledRoots(sharedDir, cacheDir)
	var damaged []string
	for _, r := range roots {
		problem, missing := verifyUpcycled(r)
		if problem == "" {
			e.Status, e.Where, e.Fix = OK, r, ""
			return e
		}
		if !missing {
			damaged = append(damaged, problem)
		}
	}
	e.Where = strings.Join(roots, " or ")
	e.Status = Missing
	if len(damaged) > 0 {
		e.Status, e.Detail = Corrupt, damaged[0]
	}
	return e
}

// FashionMNIST reports Fashion-MNIST in dir (data.FashionMNISTDir when ""),
// verifying the decompressed content of its four IDX files.
func FashionMNIST(dir string) Entry {
	if dir == "" {
		dir = data.FashionMNISTDir
	}
	e := Entry{Name: FashionMNISTName, Where: dir, Papers: PapersUsing(FashionMNISTName), Fix: "make data (apt-get install dataset-fashion-mnist)"}
	present := 0
	for base, want := range data.FashionMNISTPins() {
		p := filepath.Join(dir, base)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			p += ".gz"
			b, err = os.ReadFile(p)
		}
		if errors.Is(err, os.ErrNotExist) {
			if e.Detail == "" {
				e.Detail = base + " missing"
			}
			continue
		}
		present++
		if err == nil {
			b, err = gunzip(b)
		}
		if err != nil {
			e.Status, e.Detail = Corrupt, fmt.Sprintf("%s: %v", p, err)
			return e
		}
		if got := data.SHA256Hex(b); got != want {
			e.Status, e.Detail = Corrupt, fmt.Sprintf("%s has SHA-256 %s…, pinned %s…", p, got[:12], want[:12])
			return e
		}
	}
	switch present {
	case 4:
		e.Status, e.Detail, e.Fix = OK, "", ""
	case 0:
		e.Status, e.Detail = Missing, ""
	default:
		e.Status = Corrupt
	}
	return e
}

func gunzip(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b, nil
	}
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(r, 1<<30))
}

// maxTarball bounds the download (the upstream repository's tarball is a
// few MB; FEMNIST's files are larger but still well under this).
const maxTarball = 512 << 20

// FetchUpcycled downloads the upstream tarball from url, extracts the
// released synthetic data, verifies every file against its pin and
// installs the set into cacheDir/datasets/upcycled-synthetic atomically.
// Nothing is left behind on failure.
func FetchUpcycled(ctx context.Context, url, cacheDir string) (string, error) {
	final := filepath.Join(cacheDir, "datasets", UpcycledName)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".fetch-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("downloading %s: %s", url, resp.Status)
	}
	if err := extractUpcycled(io.LimitReader(resp.Body, maxTarball), tmp); err != nil {
		return "", fmt.Errorf("%s: %w", url, err)
	}
	if problem, _ := verifyUpcycled(tmp); problem != "" {
		return "", fmt.Errorf("%s: %s", url, strings.ReplaceAll(problem, tmp, "(download)"))
	}
	if err := os.RemoveAll(final); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	return final, nil
}

// extractUpcycled copies the pinned files out of the upstream tarball
// (<prefix>/data/<name>/data/{train,test}/<file>) into dir/<name>/{train,test}/<file>.
func extractUpcycled(r io.Reader, dir string) error {
	want := map[string]bool{}
	for _, f := range upcycledFiles() {
		want[f[0]] = true
	}
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip tarball: %w", err)
	}
	tr := tar.NewReader(gz)
	found := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the tarball: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		rel, ok := upstreamRel(h.Name)
		if !ok || !want[rel] {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, io.LimitReader(tr, maxTarball))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("reading the tarball: %w", err)
		}
		found++
	}
	if found == 0 {
		return errors.New("the tarball holds none of the released synthetic data (data/synthetic_*/data/…)")
	}
	return nil
}

// upstreamRel maps "<prefix>/data/synthetic_iid/data/train/mytrain.pt" to
// "synthetic_iid/train/mytrain.pt".
func upstreamRel(name string) (string, bool) {
	p := strings.Split(path.Clean(name), "/")
	n := len(p)
	if n < 5 || p[n-5] != "data" || p[n-3] != "data" {
		return "", false
	}
	return p[n-4] + "/" + p[n-2] + "/" + p[n-1], true
}

// CanInstall reports whether InstallFashionMNIST can run apt-get here, and
// if not, why.
func CanInstall() (bool, string) {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return false, "no apt-get on this machine"
	}
	if os.Geteuid() == 0 {
		return true, ""
	}
	if _, err := exec.LookPath("sudo"); err == nil && exec.Command("sudo", "-n", "true").Run() == nil {
		return true, ""
	}
	return false, "not root and no password-less sudo"
}

// InstallFashionMNIST installs Debian's dataset-fashion-mnist, writing
// apt's output to log.
func InstallFashionMNIST(ctx context.Context, log io.Writer) error {
	ok, why := CanInstall()
	if !ok {
		return errors.New(why)
	}
	prefix := []string{}
	if os.Geteuid() != 0 {
		prefix = []string{"sudo", "-n"}
	}
	run := func(args ...string) error {
		all := append(append([]string{}, prefix...), args...)
		cmd := exec.CommandContext(ctx, all[0], all[1:]...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(all, " "), err)
		}
		return nil
	}
	// --reinstall also restores the files of a package dpkg believes is
	// installed but whose files are gone.
	install := []string{"apt-get", "install", "--reinstall", "-y", "-qq", "dataset-fashion-mnist"}
	if err := run(install...); err == nil {
		return nil
	}
	if err := run("apt-get", "update", "-qq"); err != nil {
		return err
	}
	return run(install...)
}

// PinDigest is the SHA-256 of a dataset's pin list ("path hash" lines,
// sorted): one value that names exactly which files a run read. Loading
// verifies every file against its pin, so a run that loaded the dataset
// read these files.
func PinDigest(name string) string {
	var lines []string
	switch name {
	case UpcycledName:
		for _, f := range upcycledFiles() {
			lines = append(lines, f[0]+" "+f[1])
		}
	case FashionMNISTName:
		for base, sum := range data.FashionMNISTPins() {
			lines = append(lines, base+" "+sum)
		}
	default:
		return ""
	}
	sort.Strings(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:])
}

// users maps each dataset to the papers that read it, as the papers
// register (reproduce/paper.Register calls Use): no list of paper names
// lives here.
var (
	usersMu sync.Mutex
	users   = map[string][]string{}
)

// Use records that paper reads each of the named datasets.
func Use(paper string, names ...string) {
	usersMu.Lock()
	defer usersMu.Unlock()
	for _, n := range names {
		if !slices.Contains(users[n], paper) {
			users[n] = append(users[n], paper)
			sort.Strings(users[n])
		}
	}
}

// PapersUsing lists the registered papers that read a dataset, sorted.
func PapersUsing(name string) []string {
	usersMu.Lock()
	defer usersMu.Unlock()
	return slices.Clone(users[name])
}

// UsedBy lists the datasets a paper reads (Entry.Papers), for provenance.
func UsedBy(paper string) []string {
	usersMu.Lock()
	defer usersMu.Unlock()
	var out []string
	for _, name := range []string{UpcycledName, FashionMNISTName} {
		if slices.Contains(users[name], paper) {
			out = append(out, name)
		}
	}
	return out
}
