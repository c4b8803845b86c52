package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// knownPapers are the papers fedrepro covers; commands that take --paper
// reject anything else with the list.
var knownPapers = []string{"upcycled", "haar", "normec", "fedddpm"}

func checkPaper(p string) error {
	if p == "" {
		return usagef("--paper is required (one of %v)", knownPapers)
	}
	for _, k := range knownPapers {
		if k == p {
			return nil
		}
	}
	return usagef("unknown paper %q (known: %v)", p, knownPapers)
}

// writeJSON prints v as indented JSON with a trailing newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
