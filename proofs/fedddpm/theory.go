// Package fedddpm registers the executable checks of the claims of Peng et
// al., "Federated Learning for Diffusion Models" (FedDDPM / FedDDPM+), spec
// shared/specs/fedddpm.md §4.6: the DDPM identities (Eq. 3, the ancestral
// sampler with exact oracle denoisers), the algebra of Lemmas 1–2 and
// Theorem 1, the lemmas themselves evaluated exactly on heterogeneous
// quadratics, the theorem's bound and Remark 2 measured by simulating
// Algorithm 1 on quadratic federations with gradient noise, QuickTest's
// properties, and the findings (Assumption 4 missing from the statement,
// C ≥ 0 vs C > 0, K ≥ 2, no advantage over FedAvg in the bound, no
// auxiliary-distance term, the text/table conflict on MNIST).
//
// The simulations here are small loops written for the checks (plain SGD
// steps with single-sample noise, as in the analysis); they are not the FL
// engine.
package fedddpm

import "math"

// params are the constants of Theorem 1 (spec §4.5).
type params struct {
	T, K, E, N, n int
	L             float64 // smoothness (A1)
	SL2, SG2      float64 // σ_l², σ_g² (A3)
	Gap           float64 // f(w_0) − f*
}

// zetaThm and etaThm are the theorem's step sizes ζ = 1/(2LK√T), η = 1/(LE√T).
func zetaThm(L float64, K, T int) float64 { return 1 / (2 * L * float64(K) * math.Sqrt(float64(T))) }
func etaThm(L float64, E, T int) float64  { return 1 / (L * float64(E) * math.Sqrt(float64(T))) }

// rho is the without-replacement factor (N−n)/(n(N−1)) of Lemma 1
// (0 under full participation).
func rho(N, n int) float64 {
	if n >= N {
		return 0
	}
	return float64(N-n) / (float64(n) * float64(N-1))
}

// lemma1Cmax is the left side of Lemma 1's first condition,
// ½ − 9K²ζ²L² − ζL(N−n)/(2n(N−1))·(54K³ζ²L² + 3K): every admissible C is
// below it.
func lemma1Cmax(zeta, L float64, K, N, n int) float64 {
	k := float64(K)
	return 0.5 - 9*k*k*zeta*zeta*L*L - zeta*L*rho(N, n)/2*(54*k*k*k*zeta*zeta*L*L+3*k)
}

// lemma1Cond2 is Lemma 1's second condition ζKL ≤ n(N−1)/(N(n−1))
// (vacuous for n = 1).
func lemma1Cond2(zeta, L float64, K, N, n int) bool {
	if n <= 1 {
		return true
	}
	return zeta*float64(K)*L <= float64(n)*float64(N-1)/(float64(N)*float64(n-1))
}

// stepE is the condition of step (e) of (22): 1/(2K−1) + 6Kζ²L² ≤ 1/(K−1).
// At K = 1 the right side is 1/0 and the condition (like the proof's
// (1+1/(K−1))^K ≤ 4) is undefined; stepE reports false and defined = false.
func stepE(zeta, L float64, K int) (ok, defined bool) {
	if K < 2 {
		return false, false
	}
	k := float64(K)
	return 1/(2*k-1)+6*k*zeta*zeta*L*L <= 1/(k-1), true
}

// lemma1RHS is the right side of (16) given f(w_t) and ‖∇f(w_t)‖².
func lemma1RHS(f, g2, zeta, C float64, p params) float64 {
	k, L := float64(p.K), p.L
	r := rho(p.N, p.n) / 2
	return f - k*zeta*C*g2 + k*zeta*zeta*L*p.SL2/(2*float64(p.n)) +
		(1.5*k*k*math.Pow(zeta, 3)*L*L+r*9*k*k*k*math.Pow(L, 3)*math.Pow(zeta, 4))*(p.SL2+6*k*p.SG2) +
		r*3*k*k*L*zeta*zeta*p.SG2
}

// lemma2Cond is η/2 − L²η³E²/4 − Lη²E/2 ≥ 0.
func lemma2Cond(eta, L float64, E int) bool {
	e := float64(E)
	return eta/2-L*L*eta*eta*eta*e*e/4-L*eta*eta*e/2 >= 0
}

// lemma2RHS is the right side of (17) given f(ŵ) and ‖∇f(ŵ)‖².
func lemma2RHS(f, g2, eta float64, E int, L, sl2 float64) float64 {
	e := float64(E)
	return f - eta*e/2*g2 + L*eta*eta*e*e*sl2/2 + L*L*eta*eta*eta*e*(e-1)*(2*e-1)*sl2/12
}

// bound15 is the right side of Theorem 1's (15) for constant C.
func bound15(p params, C float64) float64 {
	T, k, e := float64(p.T), float64(p.K), float64(p.E)
	nn, NN := float64(p.n), float64(p.N)
	sq := math.Sqrt(T)
	frac := 0.0
	if p.n < p.N {
		frac = (NN - nn) / (nn * (NN - 1))
	}
	return (2*p.L*p.Gap/sq +
		(3/(8*k*T)+9*frac/(16*k*math.Pow(T, 1.5)))*(p.SL2+6*k*p.SG2) +
		p.SL2/(4*k*nn*sq) +
		(e-1)*(2*e-1)*p.SL2/(6*e*e*T) +
		p.SL2/sq +
		3*frac*p.SG2/(4*sq)) / C
}

// fedavgBound is the bound Lemma 1 alone gives for FedAvg with the same ζ
// (telescoping (16) and dividing by T·KζC): (15) without the two server
// noise terms σ_l²/√T and (E−1)(2E−1)σ_l²/(6E²T).
func fedavgBound(p params, C float64) float64 {
	T, e := float64(p.T), float64(p.E)
	return bound15(p, C) - (p.SL2/math.Sqrt(T)+(e-1)*(2*e-1)*p.SL2/(6*e*e*T))/C
}

// biasedBound is the bound that a biased auxiliary gradient with
// ‖E∇̃f_A − ∇f‖² ≤ δ² and variance ≤ σ_l² gives (derived in
// claimAuxDistance): the FedAvg part of (15) plus σ_l²/(E·C·√T) from the
// server noise plus δ²/C, a term that does not vanish as T grows.
func biasedBound(p params, C, delta2 float64) float64 {
	return fedavgBound(p, C) + p.SL2/(float64(p.E)*C*math.Sqrt(float64(p.T))) + delta2/C
}

// rhs19 evaluates the right side of (19) by explicit summation over the T
// rounds of the per-round step sizes zeta[t], eta[t], and returns it with
// Σ_t Kζ_tC (the factor the average gradient norm is divided by).
func rhs19(p params, C float64, zeta, eta []float64) (rhs, lhsFactor float64) {
	k, L, e := float64(p.K), p.L, float64(p.E)
	r := rho(p.N, p.n) / 2
	var s2, s3, s4, e2, e3 float64
	for t := 0; t < p.T; t++ {
		z, h := zeta[t], eta[t]
		s2 += z * z
		s3 += z * z * z
		s4 += z * z * z * z
		e2 += h * h
		e3 += h * h * h
		lhsFactor += k * z * C
	}
	rhs = p.Gap + (r*9*k*k*k*L*L*L*s4+1.5*k*k*L*L*s3)*(p.SL2+6*k*p.SG2) +
		k*L*p.SL2/(2*float64(p.n))*s2 + L*e*e*p.SL2/2*e2 +
		r*3*k*k*L*p.SG2*s2 + L*L*e*(e-1)*(2*e-1)*p.SL2/12*e3
	return rhs, lhsFactor
}
