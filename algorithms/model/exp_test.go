package model

import (
	"math"
	"math/big"
	"testing"
)

// expRef returns e^x correctly rounded to float64, computed in 300-bit
// arithmetic: x = k·ln 2 + r with |r| ≤ ln 2/2, e^r by its Taylor series.
func expRef(x float64) float64 {
	const prec = 300
	ln2, _, _ := big.ParseFloat(ln2Digits, 10, prec, big.ToNearestEven)
	k := math.Round(x / math.Ln2)
	r := new(big.Float).SetPrec(prec).SetFloat64(x)
	r.Sub(r, new(big.Float).SetPrec(prec).Mul(ln2, big.NewFloat(k)))
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 80; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
	}
	sum.SetMantExp(sum, int(k))
	f, _ := sum.Float64()
	return f
}

// ulps is how many float64 steps separate got from want.
func ulps(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want)
}

// TestExpAccuracy compares exp with the correctly rounded e^x on a sweep
// of [−708, 709] and random arguments of every magnitude: within 1 ulp
// (math.Exp promises the same), and exact on the special values.
func TestExpAccuracy(t *testing.T) {
	worst, at, worstStd := 0.0, 0.0, 0.0
	check := func(x float64) {
		want := expRef(x)
		if u := ulps(exp(x), want); u > worst {
			worst, at = u, x
		}
		worstStd = max(worstStd, ulps(math.Exp(x), want))
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := range n {
		check(-708 + 1417*float64(i)/float64(n) + 1e-7*float64(i%7))
	}
	r := stream(1, "exp")
	for range n {
		check((r.Float64()*2 - 1) * math.Pow(10, r.Float64()*6-4))
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 1, -1, 0.5, -707.9997040013468} {
		check(x)
	}
	if worst > 1 {
		t.Errorf("exp is %.2f ulp from e^x at x = %.17g", worst, at)
	}
	t.Logf("largest error: exp %.2f ulp (x = %.17g), math.Exp %.2f ulp", worst, at, worstStd)
	for _, c := range []struct{ x, want float64 }{
		{math.Inf(1), math.Inf(1)}, {math.Inf(-1), 0}, {800, math.Inf(1)}, {-800, 0}, {0, 1},
	} {
		if got := exp(c.x); got != c.want {
			t.Errorf("exp(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if !math.IsNaN(exp(math.NaN())) {
		t.Error("exp(NaN) is not NaN")
	}
}

// TestExpTable checks the table against math.Exp2 (which is within 1 ulp):
// the table is correctly rounded, so the two agree to 1 ulp.
func TestExpTable(t *testing.T) {
	for j, v := range expTable {
		if u := ulps(v, math.Exp2(float64(j)/expN)); u > 1 {
			t.Errorf("table[%d] = %.17g, %g ulp from 2^(%d/%d)", j, v, u, j, expN)
		}
	}
	if !(math.Abs(expLn2Hi+expLn2Lo-math.Ln2/expN) <= 1e-18) {
		t.Errorf("ln2/N split: %g + %g", expLn2Hi, expLn2Lo)
	}
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 64)
	for i := range xs {
		xs[i] = -float64(i) * 0.37
	}
	var s float64
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for _, x := range xs {
				s += math.Exp(x)
			}
		}
	})
	b.Run("exp", func(b *testing.B) {
		for b.Loop() {
			for _, x := range xs {
				s += exp(x)
			}
		}
	})
	_ = s
}
