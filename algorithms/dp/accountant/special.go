package accountant

import "math"

// Numerical helpers shared by the accountants: log-space sums and tail-safe
// error functions. math.Erfc underflows for x ≳ 26.5, so the log and scaled
// versions switch to asymptotic expansions there.

// logAdd returns log(e^a + e^b) without overflow.
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logErfc returns log(erfc(x)) for every finite x.
func logErfc(x float64) float64 {
	if x < 25 {
		return math.Log(math.Erfc(x))
	}
	// erfc(x) = e^{−x²}/(x√π) · Σ_n (−1)^n (2n−1)!!/(2x²)^n; at x ≥ 25 the
	// terms fall by > 600× each, so eight terms reach full precision.
	return -x*x - math.Log(x) - 0.5*math.Log(math.Pi) + math.Log1p(asymSeries(x)-1)
}

// asymSeries returns Σ_{n=0}^{N} (−1)^n (2n−1)!!/(2x²)^n for large x.
func asymSeries(x float64) float64 {
	inv := 1 / (2 * x * x)
	sum, term := 1.0, 1.0
	for n := 1; n <= 12; n++ {
		term *= -float64(2*n-1) * inv
		sum += term
		if math.Abs(term) < 1e-17*math.Abs(sum) {
			break
		}
	}
	return sum
}

// erfcx returns the scaled complementary error function e^{x²}·erfc(x).
// It overflows to +Inf only for x ≲ −26.6, where the true value does.
func erfcx(x float64) float64 {
	switch {
	case x < 0:
		return 2*math.Exp(x*x) - erfcx(-x)
	case x < 12:
		return math.Exp(x*x) * math.Erfc(x)
	default:
		return asymSeries(x) / (x * math.SqrtPi)
	}
}

// normCDF is Φ, the standard normal CDF, accurate in both tails.
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// logNormCDF is log Φ(x), finite for all finite x.
func logNormCDF(x float64) float64 {
	if x > -5 {
		return math.Log(normCDF(x))
	}
	return math.Log(0.5) + logErfc(-x/math.Sqrt2)
}
