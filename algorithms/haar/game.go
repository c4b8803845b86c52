package haar

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// AuditGame is the distinguishing game the Lemma 2 audit plays against one
// release of a mechanism: the adversary sees the output on either the empty
// lot D or D′ = D ∪ {g*} (add/remove neighbouring, clip bound C = 1, fixed
// denominator, so the release is the noisy sum) and must say which.
//
// g* is a worst-case neighbour: one example whose clipped contribution
// points along the direction the mechanism noises least relative to the
// sensitivity — the base and coarsest coefficients H_0 and H_{m−1}, whose
// noise std is scale/m. The score is the optimal (Neyman–Pearson)
// statistic for the Gaussian shift, ⟨Σ⁻¹Δμ, y⟩, computed in the
// coefficient domain where Σ is diagonal: with Δμ's coefficients d_j and
// noise std scale/W_j, score = Σ_j d_j·W_j²·HWT(y)_j (vanilla: ⟨g*, y⟩). A
// threshold on it achieves the mechanism's whole privacy curve, so the
// empirical ε lower bound can approach the true ε.
//
// An AuditGame holds buffers: one value must not be used by two goroutines
// at once.
type AuditGame struct {
	variant Variant
	n       int
	scale   float64
	star    []float64 // g*
	dir     []float64 // whitening direction in the coefficient domain
	lot     [][]float64
	out     []float64
	coef    []float64
	scr     []float64
	zero    []float64
}

// NewAuditGame prepares the game for variant v on vectors of length n with
// coefficient noise scale: σ (Vanilla), σ_c (the clipping variants, noise
// std σ_c·C/W_j with C = 1) or σ = z·C/(q_c d) with C/(q_c d) = 1
// (Aggregate).
func NewAuditGame(v Variant, n int, scale float64) *AuditGame {
	if n < 1 {
		panic(fmt.Sprintf("haar: audit game needs n ≥ 1, got %d", n))
	}
	m := PaddedLen(n)
	g := &AuditGame{variant: v, n: n, scale: scale, star: neighbour(v, n),
		dir: make([]float64, m), out: make([]float64, n), coef: make([]float64, m),
		scr: make([]float64, ScratchLen(n)), zero: make([]float64, n)}
	// The clipped contribution (g* is built inside the clip ball, so
	// clipping leaves it unchanged), its coefficients, times W_j².
	ForwardInto(g.dir, g.star, g.scr)
	for j := range g.dir {
		w := Weight(m, j)
		g.dir[j] *= w * w
	}
	g.lot = [][]float64{g.star}
	return g
}

// neighbour builds g* for the variant: for the wavelet variants it is
// constant on the first half [0, m/2) of the padded vector and zero
// elsewhere — reachable for every n, since m/2 < n — so its only non-zero
// coefficients are H_0 = H_{m−1} (both of weight m): √2 on the half for the
// coefficient clip (‖HWT(g*)‖ = 1, mean shift m/σ_c in noise units),
// 1/√(m/2) for the gradient-domain variants (‖g*‖ = 1, shift √m/σ_c, the
// top singular direction of diag(W)·A). For vanilla it is e_0.
func neighbour(v Variant, n int) []float64 {
	x := make([]float64, n)
	m := PaddedLen(n)
	half := max(m/2, 1)
	var c float64
	switch v {
	case Vanilla:
		x[0] = 1
		return x
	case CoefficientClip:
		c = math.Sqrt2
		if m == 1 {
			c = 1
		}
	case GradientClip, Aggregate:
		c = 1 / math.Sqrt(float64(half))
	default:
		panic(fmt.Sprintf("haar: unknown variant %d", int(v)))
	}
	for i := 0; i < half; i++ {
		x[i] = c
	}
	return x
}

// Neighbour returns a copy of g*, the example (Aggregate: the aggregate
// difference) whose presence the adversary tests.
func (g *AuditGame) Neighbour() []float64 { return append([]float64(nil), g.star...) }

// Score runs one release of the real mechanism — WaveletNoiseInto
// (Algorithm 1, in the variant's clip domain), WaveletNoiseAggregateInto
// (Algorithm 2) or the vanilla Gaussian mechanism — on D′ when present is
// true and on D otherwise, drawing its noise from r, and returns the
// adversary's score (larger means "g* present"). Its signature is that of
// audit.Mechanism.
func (g *AuditGame) Score(r *rand.Rand, present bool) float64 {
	switch g.variant {
	case Vanilla:
		for i := range g.out {
			g.out[i] = g.scale * r.NormFloat64()
		}
		if present {
			g.out[0] += g.star[0]
		}
		return g.out[0]
	case CoefficientClip, GradientClip:
		dom := CoefficientDomain
		if g.variant == GradientClip {
			dom = GradientDomain
		}
		var lot [][]float64
		if present {
			lot = g.lot
		}
		WaveletNoiseInto(g.out, r, lot, Alg1Params{C: 1, Sigma: g.scale, Domain: dom, Lot: 1}, g.scr)
	case Aggregate:
		w := g.zero
		if present {
			w = g.star
		}
		WaveletNoiseAggregateInto(g.out, r, w, g.scale, g.scr)
	default:
		panic(fmt.Sprintf("haar: unknown variant %d", int(g.variant)))
	}
	ForwardInto(g.coef, g.out, g.scr)
	var s float64
	for j, d := range g.dir {
		s += d * g.coef[j]
	}
	return s
}

// Scores plays trials releases with g* absent or present, all drawing from
// r in turn, and returns their scores.
func (g *AuditGame) Scores(r *rand.Rand, present bool, trials int) []float64 {
	s := make([]float64, trials)
	for i := range s {
		s[i] = g.Score(r, present)
	}
	return s
}
