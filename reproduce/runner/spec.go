// Package runner expands experiment specs into runs, executes them on a
// worker pool, and stores one JSON result per run.
//
// A run is identified by (paper, scale, experiment, cell, seed); its result
// lives at <dir>/<paper>/<scale>/<experiment>/<cell>/seed-<n>.json and is
// written atomically (temporary file, fsync, rename), so a crash never
// leaves a half-written result and a rerun resumes where it stopped: a run
// whose result exists for the same configuration is skipped. Runs do their
// own random draws from streams named by their labels, so results are
// identical whatever the worker count or shard.
package runner

import "github.com/fedrepro/fedrepro/internal/strictyaml"

// DecodeStrict decodes the YAML document in data into v, rejecting unknown
// keys, trailing documents and type mismatches with errors of the form
// "<name>:<line>: unknown key "foo"" (see internal/strictyaml).
func DecodeStrict(name string, data []byte, v any) error { return strictyaml.Decode(name, data, v) }
