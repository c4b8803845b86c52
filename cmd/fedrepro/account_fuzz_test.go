package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzAccountFlags drives `fedrepro account` end to end — flag parsing,
// the plan, every accountant (PLD and PRV included, unlike FuzzAccount)
// and the output — with arbitrary values and arbitrary extra flags. Whatever the input, the command must not panic,
// must exit 0 (an answer), 1 or 2 (a one-line error on stderr), must never
// print NaN, and with --json must print valid JSON. Time is bounded by
// the accountants' work cap (--max-points, prepended at 2^14 here so
// the fuzzer keeps its pace; a fuzzed --max-points later on the line
// overrides it, within the CLI's own limit of 2^26).
//
//	nice go test ./cmd/fedrepro/ -run '^$' -fuzz FuzzAccountFlags -fuzztime 3m
func FuzzAccountFlags(f *testing.F) {
	type seed struct {
		q, sigma, delta float64
		steps           int64
		mech, mode      uint8
		extra           string
	}
	for _, s := range []seed{
		{0.25, 0.0183655, 1e-5, 300, 0, 0, ""}, // issue 20: the PLD panicked
		{1, 0.07, 1e-5, 4000, 0, 0, ""},        // issue 20: over 30 s
		{0.01, 1.1, 1e-5, 1 << 48, 0, 0, ""},
		{0.01, 0, 1e-5, 100, 0, 0, ""},
		{0, 1, 1e-5, 100, 0, 0, ""},
		{0.01, 1, 1e-12, 1000000, 1, 0, "--neighbouring replace-one"},
		{0.5, 1e-300, 1e-5, 10, 2, 0, ""},
		{1, 2, 1e-5, 64, 3, 0, "--trees 3 --participations 2 --min-separation 4"},
		{0.01, 1, 1e-5, 1000, 0, 1, ""},
		{0.01, 1, 1e-5, 1000, 0, 2, "--accountant rdp,pld"},
		{0.02, 1, 1e-5, 100, 0, 0, "--sampling wor --population 100"},
		{0.01, 1e6, 0.5, 1e12, 0, 0, "--json"},
		{0.01, 1, 1e-5, 100, 0, 0, "--n 60000 --batch-size 256 --epochs 1e30"},
		{0.01, 1, 1e-5, 100, 0, 0, "--orders 1.5,2,x --bogus"},
	} {
		f.Add(s.q, s.sigma, s.delta, s.steps, s.mech, s.mode, s.extra)
	}
	f.Fuzz(func(t *testing.T, q, sigma, delta float64, steps int64, mech, mode uint8, extra string) {
		if len(extra) > 200 {
			return
		}
		ft := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		args := []string{"account", "--max-points", "16384",
			"--mechanism", []string{"gaussian", "laplace", "discrete-gaussian", "tree"}[mech%4],
			"--q", ft(q), "--steps", strconv.FormatInt(steps, 10)}
		switch mode % 3 {
		case 0:
			args = append(args, "--sigma", ft(sigma), "--delta", ft(delta))
		case 1:
			args = append(args, "--sigma", ft(sigma), "--epsilon", ft(math.Abs(delta)*10))
		case 2:
			args = append(args, "--target-eps", ft(sigma), "--delta", ft(delta))
		}
		args = append(args, strings.Fields(extra)...)
		code, out, errb := runCLI(args...)
		asJSON := slicesContain(args, "--json")
		switch code {
		case 0:
			if strings.Contains(out, "NaN") || strings.Contains(out, "+Inf") {
				t.Fatalf("%q: NaN or Inf printed:\n%s", args, out)
			}
			if asJSON && !slicesContain(args, "--help") && !slicesContain(args, "-h") && !json.Valid([]byte(out)) {
				t.Fatalf("%q: invalid JSON:\n%s", args, out)
			}
		case 1, 2:
			// One line on stderr; stdout empty, or with --json the
			// {"error": …} object.
			if errb == "" || strings.Count(errb, "\n") > 1 || (out != "" && !(asJSON && strings.Contains(out, `"error"`))) {
				t.Fatalf("%q: exit %d, stdout %q, stderr %q", args, code, out, errb)
			}
		default:
			t.Fatalf("%q: exit %d", args, code)
		}
	})
}

// slicesContain reports whether the flag x (given as "--name") is among
// xs in any spelling the flag package accepts: -name, --name, -name=v,
// --name=v.
func slicesContain(xs []string, x string) bool {
	name := strings.TrimLeft(x, "-")
	for _, y := range xs {
		if !strings.HasPrefix(y, "-") {
			continue
		}
		y = strings.TrimPrefix(strings.TrimPrefix(y, "-"), "-")
		if y == name || strings.HasPrefix(y, name+"=") {
			return true
		}
	}
	return false
}
