package accountant

import (
	"math"
	"testing"
)

// TestTreeSensitivityTFPrivacy pins the worst-case squared sensitivity to
// TF Privacy's tree_aggregation_accountant_test.py
// (test_max_tree_sensitivity_square_sum_*): the toy cases (the last one is
// where the worst case beats the greedy placement), every-leaf participation
// (Σ over complete subtrees of depth d of 2^d(2^{d+1} − 1)), and two
// participations (2 + 4·depth).
func TestTreeSensitivityTFPrivacy(t *testing.T) {
	toy := []struct{ k, sep, leaves, want int }{
		{1, 7, 8, 4}, {3, 3, 9, 11}, {3, 2, 7, 9}, {8, 2, 24, 88},
		{11, 0, 8, 120}, {19, 0, 8, 120}, {200, 0, 8, 120},
	}
	for _, c := range toy {
		if got := treeSensitivitySq(c.leaves, c.k, c.sep); got != float64(c.want) {
			t.Errorf("k=%d sep=%d leaves=%d: %v, want %d", c.k, c.sep, c.leaves, got, c.want)
		}
	}
	for _, steps := range []int{3, 8, 11, 19} {
		want, depth := 0, 0
		for d := 0; steps>>d > 0; d++ {
			if steps>>d&1 == 1 {
				want += (1 << d) * (1<<(d+1) - 1)
			}
			depth = d
		}
		if got := treeSensitivitySq(steps, steps, 0); got != float64(want) {
			t.Errorf("every leaf of %d: %v, want %d", steps, got, want)
		}
		if got := treeSensitivitySq(steps, 2, 0); got != float64(2+4*depth) {
			t.Errorf("two participations in %d: %v, want %d", steps, got, 2+4*depth)
		}
	}
	// One participation: the depth ⌈log₂(T+1)⌉ = ⌊log₂T⌋ + 1.
	for _, c := range []struct{ t, d int }{{1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {8, 4}, {1600, 11}} {
		if got := treeSensitivitySq(c.t, 1, 0); got != float64(c.d) {
			t.Errorf("depth of %d leaves: %v, want %d", c.t, got, c.d)
		}
	}
}

// TestTreeRestartTFPrivacy: compute_rdp_tree_restart is Gaussian RDP with
// squared sensitivity Σ_epochs depth, so restarts compose additively
// (test_compose_tree_rdp), [1]×T equals T plain Gaussian steps
// (test_no_tree_no_sampling), and the StackOverflow setting of Kairouz et
// al. (1600 steps, δ = 1e-6, Opacus orders) stays below the paper's ε:
// σ = 1.13 → ε < 19.74 and σ = 8.83 → ε < 2.04 (test_compute_eps_tree).
func TestTreeRestartTFPrivacy(t *testing.T) {
	orders := DefaultOrders()
	rdpOf := func(e Event) []float64 {
		v, err := EventRDP(e, orders, AddRemove)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, steps := range [][]int{{400, 400, 400, 400}, {800, 800}, {10, 400, 400, 400, 390}} {
		all := rdpOf(TreeAggregation{Sigma: 0.1, Trees: steps})
		sum := make([]float64, len(orders))
		for _, s := range steps {
			for i, v := range rdpOf(TreeAggregation{Sigma: 0.1, Trees: []int{s}}) {
				sum[i] += v
			}
		}
		for i := range all {
			if !near(all[i], sum[i], 0, 1e-12) {
				t.Fatalf("%v at α=%v: %v vs per-tree sum %v", steps, orders[i], all[i], sum[i])
			}
		}
	}
	for _, c := range []struct {
		steps int
		sigma float64
	}{{100, 0.1}, {1000, 0.01}} {
		ones := make([]int, c.steps)
		for i := range ones {
			ones[i] = 1
		}
		tree := rdpOf(TreeAggregation{Sigma: c.sigma, Trees: ones})
		plain := rdpOf(SelfComposed{Event: Gaussian{Sigma: c.sigma}, Count: c.steps})
		for i := range tree {
			if !near(tree[i], plain[i], 0, 1e-12) {
				t.Fatalf("[1]×%d at α=%v: %v vs %v", c.steps, orders[i], tree[i], plain[i])
			}
		}
	}
	for _, c := range []struct{ sigma, paper float64 }{{1.13, 19.74}, {8.83, 2.04}} {
		a := NewRDP(nil)
		if err := a.Compose(TreeAggregation{Sigma: c.sigma, Trees: []int{1600}}); err != nil {
			t.Fatal(err)
		}
		eps, _, err := a.Epsilon(1e-6, Improved)
		if err != nil || !(eps < c.paper) || eps < 0.8*c.paper {
			t.Errorf("σ=%v: ε = %v (%v), want just below the paper's %v", c.sigma, eps, err, c.paper)
		}
	}
	// The exact Gaussian curve is what every accountant approaches: PLD
	// agrees with GDP at μ = √depth/σ.
	e := TreeAggregation{Sigma: 8.83, Trees: []int{1600}}
	exact, _ := GaussianEpsilon(8.83/math.Sqrt(11), 1e-6)
	if p := pldEps(t, AddRemove, e, 1e-6); p < exact-1e-9 || p > exact+1e-3 {
		t.Errorf("PLD of the tree %v, exact Gaussian %v", p, exact)
	}
}

// treeNodes lists the leaf ranges [lo, hi) of every node of the
// binary-counter forest over n leaves (a complete tree over the largest
// power of two, then the same over the rest).
func treeNodes(lo, n int) [][2]int {
	if n == 0 {
		return nil
	}
	p := 1
	for p*2 <= n {
		p *= 2
	}
	var out [][2]int
	var tree func(a, size int)
	tree = func(a, size int) {
		out = append(out, [2]int{a, a + size})
		if size > 1 {
			tree(a, size/2)
			tree(a+size/2, size/2)
		}
	}
	tree(lo, p)
	return append(out, treeNodes(lo+p, n-p)...)
}

// TestTreeSensitivityBruteForce: the dynamic program (its dense memo
// table, session 30) equals the worst case over every placement of at
// most k contributions with at least sep empty leaves between two, in
// every forest of up to 13 leaves.
func TestTreeSensitivityBruteForce(t *testing.T) {
	for n := 1; n <= 13; n++ {
		nodes := treeNodes(0, n)
		for k := 1; k <= 4; k++ {
			for sep := 0; sep <= 3; sep++ {
				best := 0
				var place func(next, left int, at []int)
				place = func(next, left int, at []int) {
					if len(at) > 0 {
						s := 0
						for _, v := range nodes {
							c := 0
							for _, x := range at {
								if x >= v[0] && x < v[1] {
									c++
								}
							}
							s += c * c
						}
						best = max(best, s)
					}
					if left == 0 {
						return
					}
					for x := next; x < n; x++ {
						place(x+sep+1, left-1, append(at, x))
					}
				}
				place(0, k, nil)
				if got := treeSensitivitySqDP(n, k, sep); k > 1 && got != float64(best) {
					t.Errorf("%d leaves, k=%d, sep=%d: DP %v, brute force %d", n, k, sep, got, best)
				}
				if got := treeSensitivitySq(n, k, sep); got != float64(best) {
					t.Errorf("%d leaves, k=%d, sep=%d: %v, brute force %d", n, k, sep, got, best)
				}
			}
		}
	}
}
