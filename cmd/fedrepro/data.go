package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fedrepro/fedrepro/internal/texttable"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
)

func init() {
	register(command{
		Name:    "data",
		Summary: "check (by checksum) and obtain the datasets the reproductions need",
		Description: "Checks every dataset the reproductions need by its SHA-256 pins, not by a folder's existence: the released Upcycled-FL " +
			"synthetic data (in the shared folder, or in the cache) and Fashion-MNIST (Debian's dataset-fashion-mnist). With --fetch it obtains " +
			"what is missing: the Upcycled-FL data from the authors' repository at the pinned commit (one tarball, every file verified, installed " +
			"atomically into the cache, which git ignores; FEDREPRO_UPCYCLED_URL points at a mirror) and Fashion-MNIST with apt-get when this " +
			"process is root or has password-less sudo. Exits 1 when a dataset is still missing or damaged (with --brief only under CI=true: " +
			"`make test` then lets the tests that need it skip with one line).",
		Examples: []string{"fedrepro data", "fedrepro data --fetch"},
		Run:      cmdData,
	})
}

// dataEntries checks every dataset the project knows how to obtain.
func dataEntries(shared, cache string) []datasets.Entry {
	return []datasets.Entry{datasets.Upcycled(shared, cache), datasets.FashionMNIST("")}
}

func cmdData(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data", stderr)
	fetch := fs.Bool("fetch", false, "obtain what is missing: the released Upcycled-FL data from the authors' repository at the pinned commit (into the cache), Fashion-MNIST with apt-get")
	brief := fs.Bool("brief", false, "print one line (for make test and make reproduce)")
	jsonOut := fs.Bool("json", false, "print the datasets as JSON")
	shared := fs.String("shared-dir", defaultShared(), "the project's shared/ folder")
	cache := fs.String("cache-dir", datasets.DefaultCache(), "cache folder for downloaded data (git ignores .cache)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	entries := dataEntries(*shared, *cache)
	var actions []string
	if *fetch {
		ctx, cancel := interruptible()
		defer cancel()
		for i, e := range entries {
			if e.Status == datasets.OK {
				continue
			}
			switch e.Name {
			case datasets.UpcycledName:
				fmt.Fprintf(stderr, "data: downloading %s@%s (released Upcycled-FL data) …\n", datasets.UpcycledRepo, datasets.UpcycledCommit[:7])
				root, err := datasets.FetchUpcycled(ctx, datasets.UpcycledURL(), *cache)
				if err != nil {
					actions = append(actions, fmt.Sprintf("could not fetch %s: %s", e.Name, oneLine(err.Error())))
					continue
				}
				actions = append(actions, fmt.Sprintf("fetched %s into %s", e.Name, root))
			case datasets.FashionMNISTName:
				if ok, why := datasets.CanInstall(); !ok {
					actions = append(actions, fmt.Sprintf("cannot install %s: %s", e.Name, why))
					continue
				}
				fmt.Fprintf(stderr, "data: installing Debian package dataset-fashion-mnist …\n")
				var log strings.Builder
				if err := datasets.InstallFashionMNIST(ctx, &log); err != nil {
					actions = append(actions, fmt.Sprintf("could not install %s: %s", e.Name, oneLine(err.Error())))
					continue
				}
				actions = append(actions, "installed "+e.Name)
			}
			entries[i] = dataEntries(*shared, *cache)[i]
			if entries[i].Status != datasets.OK && len(actions) > 0 && !strings.HasPrefix(actions[len(actions)-1], "could not") && !strings.HasPrefix(actions[len(actions)-1], "cannot") {
				actions[len(actions)-1] += fmt.Sprintf(", but it is still %s at %s", entries[i].Status, entries[i].Where)
			}
		}
	}
	bad := 0
	for _, e := range entries {
		if e.Status != datasets.OK {
			bad++
		}
	}
	switch {
	case *jsonOut:
		if err := writeJSON(stdout, map[string]any{"datasets": entries, "actions": actions}); err != nil {
			return err
		}
	case *brief:
		var parts []string
		for _, e := range entries {
			s := fmt.Sprintf("%s %s", e.Name, e.Status)
			if e.Status == datasets.OK {
				s += " (" + e.Where + ")"
			}
			parts = append(parts, s)
		}
		line := "data: " + strings.Join(parts, ", ")
		if len(actions) > 0 {
			line += "; " + strings.Join(actions, "; ")
		}
		switch {
		case bad > 0 && os.Getenv("CI") == "true":
			line += "; CI=true: missing data is a failure; fix: make data"
		case bad > 0:
			line += "; tests that need the missing data will skip (fail under CI=true); fix: make data"
		}
		fmt.Fprintln(stdout, line)
	default:
		for _, a := range actions {
			fmt.Fprintln(stdout, a)
		}
		t := texttable.Table{Header: []string{"dataset", "status", "where", "needed by", "fix"}}
		for _, e := range entries {
			where := e.Where
			if e.Detail != "" {
				where += " (" + e.Detail + ")"
			}
			t.Add(e.Name, e.Status, where, strings.Join(e.Papers, ", "), e.Fix)
		}
		fmt.Fprint(stdout, t.String())
	}
	if bad > 0 && (!*brief || os.Getenv("CI") == "true") {
		return fmt.Errorf("%d of %d datasets not available: %s", bad, len(entries), firstBad(entries))
	}
	return nil
}

func firstBad(es []datasets.Entry) string {
	for _, e := range es {
		if e.Status != datasets.OK {
			return e.Line()
		}
	}
	return ""
}
