// Package golden holds the transcribed paper numbers (<paper>/paper.yaml,
// embedded, with their schema Numbers)
// so that the fedrepro binary can write reports from any directory. The
// per-scale golden results and expected claim verdicts stay plain files:
// they are read by tests and `fedrepro compare` from the repository.
package golden

import "embed"

// Papers holds <paper>/paper.yaml for every paper that has one, and
// upcycled/upstream.yaml (the released code's measured accuracies).
//
//go:embed */paper.yaml upcycled/upstream.yaml
var Papers embed.FS

// Attacks holds attack/<scale>/<paper>.json: the canary audits that
// `fedrepro attack --paper P --scale S --json` recorded (reproduce/attack).
// They take minutes to an hour per paper at default scale, so the reports
// quote the recorded rows (with the command that remakes them) instead of
// rerunning the attacks on every `fedrepro reproduce`.
//
//go:embed attack/*/*.json
var Attacks embed.FS
