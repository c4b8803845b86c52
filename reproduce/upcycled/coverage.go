package upcycled

import (
	"github.com/fedrepro/fedrepro/algorithms/fl"
)

// privacies and modes are the mechanisms and their modes a spec may name
// (validated in Experiment.validate).
var (
	privacies = []string{"none", "output", "objective"}
	modes     = []string{"paper", "upstream"}
	models    = []string{"logreg", "mlp"}
)

// components lists every method, variant, mechanism and mode the Upcycled
// reproduction can run, from fl's baseline registry and the spec's
// vocabularies: each baseline (and Acar-form FedDyn) with and without
// Upcycled, each mechanism in each mode, fixed and tuned hyper-parameters.
func components() []string {
	methods := append(append([]string(nil), fl.Baselines...), feddynAcar)
	var out []string
	for _, m := range methods {
		for _, v := range variants {
			out = append(out, "method:"+m+"/"+v)
		}
	}
	for _, p := range privacies {
		if p == "none" {
			out = append(out, "privacy:none")
			continue
		}
		for _, m := range modes {
			out = append(out, "privacy:"+p+"/"+m)
		}
	}
	for _, m := range modes {
		out = append(out, "mode:"+m)
	}
	out = append(out, "tuning:fixed", "tuning:grid")
	for _, m := range models {
		out = append(out, "model:"+m)
	}
	return out
}

// Uses names the components a run exercises.
func (c RunConfig) Uses() []string {
	out := []string{"method:" + c.Method + "/" + c.Variant, "mode:" + c.Mode, "model:" + c.Model}
	if c.Privacy == "none" {
		out = append(out, "privacy:none")
	} else {
		out = append(out, "privacy:"+c.Privacy+"/"+c.Mode)
	}
	if c.Tune != nil {
		out = append(out, "tuning:grid")
	} else {
		out = append(out, "tuning:fixed")
	}
	return out
}
