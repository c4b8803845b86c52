package claim

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// newUserBase is a valid claim body (after head) that the table below
// breaks one way at a time.
const newUserBase = "unit: example\nneighbouring: add-remove\ndelta: 1e-5\nclaimed_epsilon: 1\nmechanism: gaussian\nnoise: {multiplier: 1}\nsteps: 10\n"

// TestNewUserErrors: what a new user gets wrong gets one exact line that
// names the file, the line where there is one, the field, and the fix.
func TestNewUserErrors(t *testing.T) {
	for _, c := range []struct{ name, file, body, want string }{
		{"missing mechanism", "test.yaml", strings.Replace(newUserBase, "mechanism: gaussian\n", "", 1),
			"test.yaml: mechanism is missing (want one of gaussian, laplace, discrete-gaussian, tree-aggregation, zcdp, pure-dp)"},
		{"missing accountant_used", "test.yaml", strings.Replace(head+newUserBase, "accountant_used: {name: unknown}\n", "", 1),
			"test.yaml: accountant_used.name is missing (want one of rdp-classic, rdp-improved, moments, pld, prv, gdp-clt, zcdp, closed-form, unknown; unknown when the paper does not say)"},
		{"steps as a list", "test.yaml", strings.Replace(newUserBase, "steps: 10", "steps: [10]", 1),
			"test.yaml:13: steps: want a number or a formula string, not a list"},
		{"noise as a number", "test.yaml", strings.Replace(newUserBase, "noise: {multiplier: 1}", "noise: 1", 1),
			`test.yaml:12: noise: want a mapping, not int "1"`},
		{"visible as text", "test.yaml", newUserBase + "sampling: {kind: poisson, q: 0.1, visible: yes please}\n",
			`test.yaml:14: sampling.visible: want true or false, not str "yes please"`},
		{"year as text", "test.yaml", strings.Replace(head, "year: 2024", "year: recent", 1) + newUserBase,
			`test.yaml:4: paper.year: want a whole number, not str "recent"`},
		{"id differs from the file name", "other.yaml", newUserBase,
			`other.yaml: id "test" differs from the file name other.yaml (want id: other, or rename the file test.yaml)`},
		{"unknown key, near a valid one", "test.yaml", strings.Replace(newUserBase, "steps: 10", "stpes: 10", 1),
			`test.yaml:13: unknown key "stpes" (did you mean "steps"?)`},
		{"unknown nested key", "test.yaml", strings.Replace(newUserBase, "{multiplier: 1}", "{multipler: 1}", 1),
			`test.yaml:12: unknown key "multipler" in noise (did you mean "multiplier"?)`},
		{"unknown key in a reading", "test.yaml", newUserBase + "readings:\n  - name: a\n    neighboring: replace-one\n",
			`test.yaml:16: unknown key "neighboring" in readings[0] (did you mean "neighbouring"?)`},
		{"steps = 1e15", "test.yaml", strings.Replace(newUserBase, "steps: 10", "steps: 1e15", 1),
			"test.yaml:13: steps = 1000000000000000: more than 1e+12 steps is outside the accountants' domain"},
	} {
		file := c.file
		body := head + c.body
		if strings.HasPrefix(c.body, "schema:") {
			body = c.body
		}
		_, err := Decode(file, []byte(body))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got  %v\n want %s", c.name, err, c.want)
		}
	}
}

// TestUnset: null in a case or reading clears the inherited field, so
// the reading audits exactly like a claim that never set it.
func TestUnset(t *testing.T) {
	o := Options{NoEmpirical: true, NoCalibration: true}
	base := "unit: user\nneighbouring: add-remove\ndelta: 1e-5\nclaimed_epsilon: 3\nmechanism: gaussian\nsteps: 50\n"
	withUnset := auditOf(t, base+`noise: {multiplier: 2, sensitivity: 2}
clip: 1.0
sampling: {kind: clients, q: 0.2, visible: true}
variables: {a: 1}
readings:
  - name: cleared
    clip: null
    noise: {sensitivity: null}
    sampling: {visible: null}
    variables: {a: null}
`, o)
	plain := auditOf(t, base+"noise: {multiplier: 2}\nsampling: {kind: clients, q: 0.2}\n", o)
	got, want := withUnset.Cases[0].Readings[0], plain.Cases[0].Readings[0]
	if got.Procedure != want.Procedure || *got.Upper != *want.Upper {
		t.Errorf("unset reading: %q %+v, want %q %+v", got.Procedure, *got.Upper, want.Procedure, *want.Upper)
	}
	c := decode(t, base+"noise: {multiplier: 2}\nreadings:\n  - name: r\n    clip: null\n    noise: {sensitivity: null}\n")
	if u := strings.Join(c.Readings[0].Unset, ","); u != "clip,noise.sensitivity" {
		t.Errorf("recorded unsets %q", u)
	}
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// TestJSONSnakeCase: every key of the --json report is snake_case.
func TestJSONSnakeCase(t *testing.T) {
	rep := auditOf(t, newUserBase+"readings: [{name: a}, {name: b, neighbouring: replace-one}]\n", Options{NoEmpirical: true})
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if !snakeKey.MatchString(k) {
					t.Errorf("key %q at %s is not snake_case", k, path)
				}
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range x {
				walk(path+"[]", e)
			}
		}
	}
	walk("", v)
}

// TestVisibleBlocks: when the Binomial window is cut into blocks, the
// bounds bracket the exact sum over every count (computed term by term
// here), δ's within 1e-6 of each other; 1e12 rounds still answer.
func TestVisibleBlocks(t *testing.T) {
	const steps, q, z, delta = 1_000_000, 0.5, 30.0, 1e-5
	nlo, nhi := visibleWindow(q, steps)
	if nhi-nlo+1 <= visibleMaxTerms {
		t.Fatalf("window %d…%d needs no blocks: the test does not exercise them", nlo, nhi)
	}
	naive := func(eps float64) float64 {
		var d float64
		for n := nlo; n <= nhi; n++ {
			g, _ := accountant.GaussianDelta(z/math.Sqrt(float64(n)), eps)
			d += math.Exp(binomLogPMF(q, steps, n)) * g
		}
		return d
	}
	for _, eps := range []float64{0.5, 2, 8} {
		lo, hi, err := visibleDelta(z, q, steps, eps)
		d := naive(eps)
		if err != nil || !(lo <= d*(1+1e-12) && d <= hi*(1+1e-12)) || hi-lo > 1e-6*hi {
			t.Errorf("ε = %g: δ bounds [%g, %g], term by term %g (%v)", eps, lo, hi, d, err)
		}
	}
	// Blocks of ⌈width/4096⌉ = 4 counts leave a few parts per million
	// between the ε bounds here.
	lo, hi, err := visibleEpsilonBounds(z, q, steps, delta)
	if err != nil || !(lo <= hi) || hi-lo > 1e-5*hi {
		t.Errorf("ε bounds [%g, %g] (%v)", lo, hi, err)
	}
	if lo, hi, err := visibleEpsilonBounds(1, 0.5, MaxSteps, delta); err != nil || !(lo > 0 && lo <= hi && hi-lo <= 1e-6*hi) {
		t.Errorf("1e12 rounds: [%g, %g] (%v)", lo, hi, err)
	}
}
