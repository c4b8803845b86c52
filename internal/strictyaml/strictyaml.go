// Package strictyaml decodes YAML strictly: unknown keys, type mismatches
// and trailing documents are errors of the form "<file>:<line>: <problem>",
// one line each, so a typo in a spec never silently changes an experiment.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode decodes the YAML document in data into v, rejecting unknown
// keys, trailing documents and type mismatches with errors of the form
// "<name>:<line>: unknown key "foo"".
func Decode(name string, data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty spec", name)
		}
		return fmt.Errorf("%s", rewriteYAMLError(name, err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return fmt.Errorf("%s:%d: unexpected second YAML document", name, extra.Line)
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s", rewriteYAMLError(name, err))
	}
	return nil
}

// DecodeFile reads path and decodes it strictly into v.
func DecodeFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return Decode(path, b, v)
}

var (
	reUnknown = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)
	reLine    = regexp.MustCompile(`^line (\d+): (.*)$`)
	reYAMLPre = regexp.MustCompile(`^yaml: (line (\d+): )?`)
)

// rewriteYAMLError turns yaml.v3's multi-line messages into
// "<name>:<line>: <problem>" lines joined by "; ".
func rewriteYAMLError(name string, err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		parts := make([]string, 0, len(te.Errors))
		for _, e := range te.Errors {
			if m := reUnknown.FindStringSubmatch(e); m != nil {
				parts = append(parts, fmt.Sprintf("%s:%s: unknown key %q", name, m[1], m[2]))
				continue
			}
			if m := reLine.FindStringSubmatch(e); m != nil {
				parts = append(parts, fmt.Sprintf("%s:%s: %s", name, m[1], m[2]))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s: %s", name, e))
		}
		return strings.Join(parts, "; ")
	}
	msg := err.Error()
	if m := reYAMLPre.FindStringSubmatch(msg); m != nil && m[2] != "" {
		return fmt.Sprintf("%s:%s: %s", name, m[2], strings.TrimPrefix(msg, m[0]))
	}
	return fmt.Sprintf("%s: %s", name, strings.TrimPrefix(msg, "yaml: "))
}
