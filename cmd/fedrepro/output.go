package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// knownPapers are the papers fedrepro covers, as registered by the paper
// packages papers.go imports (initialised after them: a package's
// variables after every import's init); commands that take --paper reject
// anything else with the list.
var knownPapers = paper.Names()

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

// JSONSchema is the version of every JSON document the CLI prints; each
// carries it as "schema_version" (the README documents each document).
const JSONSchema = 1

// writeJSON prints v as indented JSON with a trailing newline, adding
// "schema_version" to it: v must encode as a JSON object (wrap arrays).
func writeJSON(w io.Writer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("encoding JSON: the document is not an object: %w", err)
	}
	obj["schema_version"] = json.RawMessage(fmt.Sprint(JSONSchema))
	b, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
