package convergence

import (
	"math"
	"strconv"
	"testing"
)

// igClaim is a Fed-α-NormEC claim on the IG method with c components per
// client; the bound is irrelevant here.
func igClaim(t *testing.T, method, local string) *Claim {
	return claimFor(t, header+`algorithm:
  name: `+method+`
  params: {gamma: 0.5, `+local+`, alpha: 0.5, beta: 0.05, eta: 0.01, R0: 0.2}
class: {convexity: nonconvex, heterogeneity: any, noise: none, constants: {L: 1}}
horizon: K
quantity: {measure: gradnorm, over: min, from: 0, to: K}
bound: "G0"
grid: {K: [6], N: [6]}
`)
}

// TestNormecIGUpdate checks the IG operator against the paper's recursion
// (§5.3, eq. (3)) written out by hand on quadratic components: x^{j+1} =
// x^j − (γ/c)∇f_{i,j}(x^j) for j = 0..c−1 in order, and the update is
// (x − x^c)/γ; with c = 1 it is one gradient step, so normec-ig with one
// component per client runs exactly like normec with T_local = 1.
func TestNormecIGUpdate(t *testing.T) {
	in := quadInstance(t, "any", 6, map[string]float64{"L": 1, "mu": 0.1}, "ig")
	for _, c := range []int{1, 2, 3, 6} {
		cl := igClaim(t, "normec-ig", "components: "+strconv.Itoa(c))
		res, err := cl.resolve(cl.readings()[0], map[string]float64{"K": 6, "N": 6}, dummyInstanceSymbols())
		if err != nil {
			t.Fatal(err)
		}
		e := &Env{In: in, R: res}
		x := []float64{0.3, -0.7}
		for i := 0; i < 6/c; i++ {
			y := append([]float64(nil), x...)
			g := make([]float64, 2)
			for j := 0; j < c; j++ {
				in.Clients[i*c+j].Grad(y, g)
				y[0] -= 0.5 / float64(c) * g[0]
				y[1] -= 0.5 / float64(c) * g[1]
			}
			u := normecIGUpdate(e, i, x)
			for k := range u {
				if want := (x[k] - y[k]) / 0.5; math.Abs(u[k]-want) > 1e-12*(1+math.Abs(want)) {
					t.Errorf("c = %d, client %d: update[%d] = %.17g, the recursion gives %.17g", c, i, k, u[k], want)
				}
			}
		}
	}
	a, b := igClaim(t, "normec-ig", "components: 1"), igClaim(t, "normec", "T_local: 1")
	pt := map[string]float64{"K": 6, "N": 6}
	ma, mb := runOn(t, a, in, pt, 1, 1), runOn(t, b, in, pt, 1, 1)
	if ma.Value != mb.Value {
		t.Errorf("normec-ig with 1 component: %.17g, normec with T_local = 1: %.17g", ma.Value, mb.Value)
	}
}

// TestGroupSymbols checks Δ^inf and the two readings of (1/M)ΣΔ_i^inf on
// quadratic components ½(x − c)ᵀA(x − c) (every f_{i,j}^inf = 0): with
// one component per client Δ^inf = Γ and the remark's Δ_i^inf vanish;
// always Delta_i_printed = Delta_inf + Delta_i_remark = f^inf, and
// Δ^inf ≤ Γ (a client's average is at least the mean of its components'
// infima).
func TestGroupSymbols(t *testing.T) {
	in := quadInstance(t, "any", 6, map[string]float64{"L": 1, "mu": 0.1}, "groups")
	gam := in.Symbols()["Gamma"]
	for _, c := range []int{1, 2, 3, 6} {
		s := in.groupSymbols(c)
		if d := s["Delta_i_printed"] - s["Delta_inf"] - s["Delta_i_remark"]; math.Abs(d) > 1e-9 {
			t.Errorf("c = %d: printed − Δ^inf − remark = %g, want 0", c, d)
		}
		if math.Abs(s["Delta_i_printed"]-in.FStar) > 1e-9 || math.Abs(s["Delta_i_printed"]-gam) > 1e-9 {
			t.Errorf("c = %d: Delta_i_printed = %g, want f* = %g = Γ = %g", c, s["Delta_i_printed"], in.FStar, gam)
		}
		if c == 1 && (math.Abs(s["Delta_inf"]-gam) > 1e-9 || s["Delta_i_remark"] > 1e-9) {
			t.Errorf("c = 1: Δ^inf = %g (want Γ = %g), remark %g (want 0)", s["Delta_inf"], gam, s["Delta_i_remark"])
		}
		if c == 6 && s["Delta_inf"] > 1e-9 {
			t.Errorf("one client holding everything: Δ^inf = %g, want 0", s["Delta_inf"])
		}
	}
	if s := in.groupSymbols(4); !math.IsNaN(s["Delta_inf"]) {
		t.Errorf("6 objectives in clients of 4: Δ^inf = %g, want NaN", s["Delta_inf"])
	}
}
