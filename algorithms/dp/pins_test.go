package dp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Unit pins (issue 12, item 4) of the primitives: expectations by hand or
// by plainly written formulas (inverse CDF, Marsaglia–Tsang) evaluated on
// the same stream, or on a scripted source whose uniforms are chosen.
// Tolerance: 1e-12 relative (absolute below 1), pinNear.

func pinNear(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

// script is a rand.Source that returns the given words, then falls back
// to a PCG. A word w gives Float64() = (w mod 2^53)/2^53 and, when its low
// 32 bits are zero, NormFloat64() = 0 exactly.
type script struct {
	words []uint64
	rest  *rand.PCG
	extra int // words drawn from rest
}

func (s *script) Uint64() uint64 {
	if len(s.words) > 0 {
		w := s.words[0]
		s.words = s.words[1:]
		return w
	}
	s.extra++
	return s.rest.Uint64()
}

// unif is the word whose Float64() is x (x a multiple of 2^-53).
func unif(x float64) uint64 { return uint64(x * (1 << 53)) }

func panics(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func TestPinNorm2(t *testing.T) {
	cases := []struct {
		v    []float64
		want float64
	}{
		{[]float64{3, 4}, 5},
		{[]float64{4, 3}, 5},
		{[]float64{0, 0, 0}, 0},
		{nil, 0},
		{[]float64{0, -2, 0}, 2},
		{[]float64{1, 2, 2}, 3},
		{[]float64{2, 2, 1}, 3},
		{[]float64{3e200, 4e200}, 5e200},    // squares overflow
		{[]float64{3e-200, 4e-200}, 5e-200}, // squares underflow
		{[]float64{1, math.Inf(-1)}, math.Inf(1)},
	}
	for _, c := range cases {
		if got := Norm2(c.v); !(got == c.want || pinNear(got/c.want, 1)) {
			t.Errorf("Norm2(%v) = %.17g, want %.17g", c.v, got, c.want)
		}
	}
	if got := Norm2([]float64{1, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("Norm2 with NaN = %g", got)
	}
}

// ClipL2 multiplies by min(1, c/‖v‖): (3, 4) at c = 2.5 → factor 0.5,
// (1.5, 2); at c = 5 (on the sphere) and c = +Inf nothing moves; c = 0
// zeroes the vector (factor 0); negative or NaN c panics.
func TestPinClipL2(t *testing.T) {
	for _, c := range []struct {
		c, f float64
		want []float64
	}{{2.5, 0.5, []float64{1.5, 2}}, {5, 1, []float64{3, 4}}, {math.Inf(1), 1, []float64{3, 4}}, {0, 0, []float64{0, 0}}} {
		v := []float64{3, 4}
		f := ClipL2(v, c.c)
		if f != c.f || !pinNear(v[0], c.want[0]) || !pinNear(v[1], c.want[1]) {
			t.Errorf("ClipL2(c=%g): factor %g, v %v; want %g, %v", c.c, f, v, c.f, c.want)
		}
	}
	for _, c := range []float64{-1e-300, math.NaN()} {
		if msg := panics(func() { ClipL2([]float64{1}, c) }); !strings.Contains(msg, "clip norm") {
			t.Errorf("ClipL2(c=%g) panic %q", c, msg)
		}
	}
}

// ClipRows: rows (3,4), (0.3,0.4), (−6,8) at c = 1 → factors 1/5, 1, 1/10
// and two rows clipped.
func TestPinClipRows(t *testing.T) {
	g := []float64{3, 4, 0.3, 0.4, -6, 8}
	scales := make([]float64, 3)
	if n := ClipRows(g, 2, 1, scales); n != 2 {
		t.Errorf("clipped %d rows, want 2", n)
	}
	want := []float64{0.6, 0.8, 0.3, 0.4, -0.6, 0.8}
	for i := range want {
		if !pinNear(g[i], want[i]) {
			t.Fatalf("rows %v, want %v", g, want)
		}
	}
	for i, s := range []float64{0.2, 1, 0.1} {
		if !pinNear(scales[i], s) {
			t.Errorf("scales %v", scales)
		}
	}
	g = []float64{3, 4}
	if n := ClipRows(g, 2, 1, nil); n != 1 || !pinNear(g[0], 0.6) {
		t.Errorf("without scales: %d, %v", n, g)
	}
	for name, f := range map[string]func(){
		"width 0":    func() { ClipRows([]float64{1, 2}, 0, 1, nil) },
		"width -1":   func() { ClipRows([]float64{1, 2}, -1, 1, nil) },
		"ragged":     func() { ClipRows([]float64{1, 2, 3}, 2, 1, nil) },
		"scales len": func() { ClipRows([]float64{1, 2, 3, 4}, 2, 1, make([]float64, 1)) },
	} {
		msg := panics(f)
		want := "whole number of rows"
		if name == "scales len" {
			want = "scales has length 1, want 2 rows"
		}
		if !strings.Contains(msg, want) {
			t.Errorf("%s: panic %q, want %q", name, msg, want)
		}
	}
}

// AddGaussian adds std·Z_i with Z_i the stream's normal draws in order;
// std = 0 is allowed (nothing moves), std < 0 panics.
func TestPinAddGaussian(t *testing.T) {
	v := []float64{1, -1, 0.5}
	AddGaussian(rng.Stream(4, "g"), v, 0.7)
	r := rng.Stream(4, "g")
	for i, x := range []float64{1, -1, 0.5} {
		if want := x + 0.7*r.NormFloat64(); !pinNear(v[i], want) {
			t.Errorf("v[%d] = %g, want %g", i, v[i], want)
		}
	}
	v = []float64{1, 2}
	AddGaussian(rng.Stream(4, "g"), v, 0)
	if v[0] != 1 || v[1] != 2 {
		t.Errorf("std 0 moved v to %v", v)
	}
	if msg := panics(func() { AddGaussian(rng.Stream(1), v, -1) }); !strings.Contains(msg, "noise std") {
		t.Errorf("negative std: %q", msg)
	}
}

// Laplace by inversion: with u = U − ½, X = b·log(1 + 2u) for u < 0 and
// −b·log(1 − 2u) otherwise, i.e. F⁻¹(U) = −b·sgn(U − ½)·ln(1 − 2|U − ½|).
// Scripted: U = 0 (u = −½ is redrawn), then U = 0.75 → X = b·ln 2;
// U = 0.25 → X = −b·ln 2; U = 0.5 → X = 0.
func TestPinLaplace(t *testing.T) {
	const b = 1.5
	for _, c := range []struct {
		words []uint64
		want  float64
	}{
		{[]uint64{unif(0.75)}, b * math.Ln2},
		{[]uint64{unif(0), unif(0.75)}, b * math.Ln2},
		{[]uint64{unif(0.25)}, -b * math.Ln2},
		{[]uint64{unif(0.5)}, 0},
		{[]uint64{unif(0.875)}, b * math.Log(4)},
		{[]uint64{unif(0.125)}, -b * math.Log(4)},
	} {
		r := rand.New(&script{words: c.words, rest: rand.NewPCG(1, 2)})
		if got := Laplace(r, b); !pinNear(got, c.want) {
			t.Errorf("Laplace after %v = %.17g, want %.17g", c.words, got, c.want)
		}
	}
	// On a real stream: the same inverse CDF applied to its uniforms.
	v := []float64{0, 10}
	AddLaplace(rng.Stream(6, "lap"), v, b)
	r := rng.Stream(6, "lap")
	for i, x := range []float64{0, 10} {
		p := r.Float64()
		for p == 0 {
			p = r.Float64()
		}
		want := x - b*math.Copysign(1, p-0.5)*math.Log(1-2*math.Abs(p-0.5))
		if p == 0.5 {
			want = x
		}
		if !pinNear(v[i], want) {
			t.Errorf("AddLaplace v[%d] = %.17g, want %.17g", i, v[i], want)
		}
	}
	v = []float64{1}
	AddLaplace(rng.Stream(6, "lap"), v, 0)
	if v[0] != 1 {
		t.Errorf("scale 0 moved v to %v", v)
	}
	if msg := panics(func() { AddLaplace(rng.Stream(1), v, -1) }); !strings.Contains(msg, "Laplace scale") {
		t.Errorf("negative scale: %q", msg)
	}
}

// gammaRef is Marsaglia and Tsang's (2000) method written plainly for
// shape k ≥ 1 and rate β, plus the boost Gamma(k) = Gamma(k+1)·U^{1/k}
// (U drawn first, redrawn while 0) for k < 1.
func gammaRef(r *rand.Rand, k, beta float64) float64 {
	if k < 1 {
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		return gammaRef(r, k+1, beta) * math.Pow(u, 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		for v <= 0 {
			x = r.NormFloat64()
			v = 1 + c*x
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v / beta
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v / beta
		}
	}
}

// Gamma draws agree with the plain method on the same stream, for shapes
// below, at and above 1 (the boost boundary), over many seeds so that the
// squeeze, the log test, rejections and v ≤ 0 redraws all occur.
func TestPinGammaMatchesMarsagliaTsang(t *testing.T) {
	for _, shape := range []float64{0.3, 1, 1.5, 20} {
		for _, rate := range []float64{0.5, 4} {
			for seed := uint64(0); seed < 300; seed++ {
				got := Gamma(rng.Stream(seed, "gamma", shape), shape, rate)
				want := gammaRef(rng.Stream(seed, "gamma", shape), shape, rate)
				if !pinNear(got, want) {
					t.Fatalf("shape %g rate %g seed %d: %.17g, want %.17g", shape, rate, seed, got, want)
				}
			}
		}
	}
	// By hand: shape 1 (d = 2/3, c = 1/√6), a scripted first normal of
	// exactly 0 (v = 1) and U = 0.5 < 1 accepts d·v/β = (2/3)/2 = 1/3.
	r := rand.New(&script{words: []uint64{0, unif(0.5)}, rest: rand.NewPCG(1, 2)})
	if got := Gamma(r, 1, 2); !pinNear(got, 1.0/3) {
		t.Errorf("scripted Gamma(1, 2) = %.17g, want 1/3", got)
	}
	// A uniform of exactly 0 with |x| > 2.35 (so 0 ≥ 1 − 0.0331x⁴ fails the
	// squeeze) is rejected by the log test, which needs u > 0: the draw
	// continues on the stream. x comes from a one-word ziggurat draw found
	// by search.
	x, word := 0.0, uint64(0)
	for src := rand.NewPCG(5, 6); x < 2.4; {
		word = src.Uint64()
		s := &script{words: []uint64{word}, rest: rand.NewPCG(0, 0)}
		x = rand.New(s).NormFloat64()
		if s.extra != 0 {
			x = 0
		}
	}
	r = rand.New(&script{words: []uint64{word, 0}, rest: rand.NewPCG(7, 8)})
	ref := rand.New(&script{words: []uint64{word, 0}, rest: rand.NewPCG(7, 8)})
	if got, want := Gamma(r, 20, 1), gammaRef(ref, 20, 1); !pinNear(got, want) {
		t.Errorf("Gamma after x = %g, u = 0: %.17g, want %.17g", x, got, want)
	}
	for _, c := range [][2]float64{{0, 1}, {-1, 1}, {1, 0}, {1, -1}, {math.Inf(1), 1}, {1, math.Inf(1)}, {math.NaN(), 1}, {1, math.NaN()}} {
		if msg := panics(func() { Gamma(rng.Stream(1), c[0], c[1]) }); !strings.Contains(msg, "finite positive") {
			t.Errorf("Gamma(%g, %g): panic %q", c[0], c[1], msg)
		}
	}
	// Tiny shapes stay positive and finite (log form of U^{1/k}).
	if g := Gamma(rng.Stream(3, "tiny"), 1e-3, 1); !(g >= 0) || math.IsInf(g, 0) {
		t.Errorf("Gamma(1e-3) = %g", g)
	}
}

// ObjectivePerturbation: radius ~ Gamma(shape, α) first (shape defaults to
// the dimension), then a normal vector scaled to that radius. A scripted
// all-zero first normal vector is redrawn.
func TestPinObjectivePerturbationNoise(t *testing.T) {
	dst := make([]float64, 3)
	for _, shape := range []float64{0, 7} {
		o := ObjectivePerturbation{Alpha: 2.5, Shape: shape}
		got := o.Sample(rng.Stream(5, "obj", shape), dst)
		r := rng.Stream(5, "obj", shape)
		k := shape
		if k == 0 {
			k = 3
		}
		radius := gammaRef(r, k, 2.5)
		z := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		nz := math.Sqrt(z[0]*z[0] + z[1]*z[1] + z[2]*z[2])
		if !pinNear(got, radius) {
			t.Errorf("shape %g: radius %g, want %g", shape, got, radius)
		}
		for i := range z {
			if !pinNear(dst[i], z[i]*radius/nz) {
				t.Errorf("shape %g: noise %v, want direction %v times %g", shape, dst, z, radius/nz)
				break
			}
		}
	}
	if got := (ObjectivePerturbation{Alpha: 1}).Sample(rng.Stream(1), nil); got != 0 {
		t.Errorf("empty vector: %g", got)
	}
	// Scripted: Gamma(1, 2) as in the Gamma pin (words 0, U = ½ → 1/3), then
	// a zero normal vector (three zero words), redrawn from the PCG.
	words := []uint64{0, unif(0.5), 0, 0, 0}
	r := rand.New(&script{words: append([]uint64(nil), words...), rest: rand.NewPCG(3, 4)})
	dst = make([]float64, 3)
	got := (ObjectivePerturbation{Alpha: 2, Shape: 1}).Sample(r, dst)
	ref := rand.New(rand.NewPCG(3, 4))
	z := []float64{ref.NormFloat64(), ref.NormFloat64(), ref.NormFloat64()}
	nz := math.Sqrt(z[0]*z[0] + z[1]*z[1] + z[2]*z[2])
	if !pinNear(got, 1.0/3) {
		t.Errorf("scripted radius %g, want 1/3", got)
	}
	for i := range z {
		if !pinNear(dst[i], z[i]/(3*nz)) {
			t.Fatalf("after a zero draw: %v, want %v/(3·%g)", dst, z, nz)
		}
	}
}
