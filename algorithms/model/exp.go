package model

import (
	"math"
	"math/big"
)

// expTableBits sets the table size of exp: 2^expTableBits entries.
const (
	expTableBits = 8
	expN         = 1 << expTableBits
)

// Constants of exp, computed once at start-up (see initExp).
var (
	expTable       [expN]float64 // 2^(j/N), correctly rounded
	expInvLn2N     float64       // N/ln 2
	expLn2Hi       float64       // ln 2/N, upper bits (k·expLn2Hi is exact for |k| < 2^20)
	expLn2Lo       float64       // ln 2/N − expLn2Hi
	expShift       = 0x1.8p52    // adding it rounds a float64 of magnitude < 2^51 to an integer
	expUnderBelow  = -708.0      // below: subnormal results; math.Exp handles them
	expOverflowAbv = 709.0       // above: near overflow; math.Exp handles it
)

// ln2Digits is ln 2 to 100 decimal places.
const ln2Digits = "0.6931471805599453094172321214581765680755001343602552541206800094933936219696947156058633269964186875"

func init() { initExp(); initDS4() }

// initExp fills the table with correctly rounded powers 2^(j/N), computed
// in 256-bit arithmetic (2^(1/N) by expTableBits square roots of 2), and
// splits ln 2/N into a 32-bit head and its remainder.
func initExp() {
	const prec = 256
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for range expTableBits {
		root.Sqrt(root)
	}
	pow := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range expN {
		expTable[j], _ = pow.Float64()
		pow.Mul(pow, root)
	}
	ln2, _, err := big.ParseFloat(ln2Digits, 10, prec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	ln2N := new(big.Float).SetPrec(prec).Quo(ln2, new(big.Float).SetPrec(prec).SetInt64(expN))
	f, _ := ln2N.Float64()
	expLn2Hi = math.Float64frombits(math.Float64bits(f) &^ (1<<21 - 1)) // keep 32 significant bits
	lo := new(big.Float).SetPrec(prec).Sub(ln2N, new(big.Float).SetPrec(prec).SetFloat64(expLn2Hi))
	expLn2Lo, _ = lo.Float64()
	inv := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(expN), ln2)
	expInvLn2N, _ = inv.Float64()
}

// exp returns e^x within about one unit in the last place (tested against
// math.Exp over the whole range), several times faster than math.Exp in
// the two-class heads, where it is the dominant cost. Method (the usual
// table-driven reduction): x = k·ln2/N + r with k = round(x·N/ln 2) and
// |r| ≤ ln2/(2N) ≈ 0.00135; e^x = 2^(k div N) · 2^((k mod N)/N) · e^r, the
// middle factor from the table (N = 256) and e^r − 1 by its degree-4
// Taylor polynomial (remainder r⁵/120 < 4e−17). Arguments outside
// [−708, 709], NaN and ±Inf go to math.Exp.
func exp(x float64) float64 {
	if !(x >= expUnderBelow && x <= expOverflowAbv) {
		return math.Exp(x)
	}
	return expCore(x)
}

// expCore is exp without the range check (small enough to inline):
// x must lie in [−708, 709].
func expCore(x float64) float64 {
	kd := x*expInvLn2N + expShift
	ki := math.Float64bits(kd)
	kd -= expShift
	r := x - kd*expLn2Hi - kd*expLn2Lo
	// The low bits of ki hold k (two's complement in the mantissa);
	// 2^(k div N) goes into the exponent bits (wrapping for k < 0).
	scale := math.Float64frombits(math.Float64bits(expTable[ki&(expN-1)]) + (ki>>expTableBits)<<52)
	return scale + scale*(r+r*r*(0.5+r*(1.0/6+r*(1.0/24))))
}
