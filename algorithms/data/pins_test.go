package data

// Unit pins (issue 12, item 4): the three partitioners on a 10-row
// dataset. The expected partitions are recomputed in the test from the
// documented streams and rules, written out plainly: the permutation is
// Fisher–Yates from the stream, the Gamma variates are Marsaglia–Tsang
// (with the U^{1/a} boost below a = 1), and the cut points are the
// documented floors. A hand-derived case (α = +Inf is not allowed, so the
// Dirichlet pin relies on the reference sampler) is added where the
// arithmetic is simple.

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// refPerm is Fisher–Yates from the end: for i = n−1..1 swap i with
// IntN(i+1), starting from the identity.
func refPerm(r *rand.Rand, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	refShuffle(r, p)
	return p
}

func refShuffle(r *rand.Rand, p []int) {
	for i := len(p) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}

func sortedCopy(xs []int) []int {
	out := append([]int(nil), xs...)
	slices.Sort(out)
	return out
}

func samePartition(t *testing.T, what string, got, want [][]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d clients, want %d", what, len(got), len(want))
	}
	for c := range got {
		if !slices.Equal(got[c], want[c]) {
			t.Errorf("%s: client %d has %v, want %v", what, c, got[c], want[c])
		}
	}
}

// TestPinPartitionIID: n = 10, K = 3 → pieces [0,3), [3,6), [6,10) of the
// permutation from stream "perm" (⌊c·10/3⌋ = 0, 3, 6, 10), each sorted.
func TestPinPartitionIID(t *testing.T) {
	key := rng.New(42, "pin-iid")
	perm := refPerm(key.Derive("perm").Rand(), 10)
	want := [][]int{sortedCopy(perm[0:3]), sortedCopy(perm[3:6]), sortedCopy(perm[6:10])}
	got, err := PartitionIID(10, 3, key)
	if err != nil {
		t.Fatal(err)
	}
	samePartition(t, "iid", got, want)
	// n = K: one row each; n < K or K ≤ 0: error.
	if got, err := PartitionIID(3, 3, key); err != nil || len(got) != 3 || len(got[2]) != 1 {
		t.Errorf("n = K: %v, %v", got, err)
	}
	if _, err := PartitionIID(3, 0, key); err == nil {
		t.Error("0 clients accepted")
	}
}

// TestPinPartitionShards: labels of 10 rows, 2 clients × 2 shards: the
// shuffled order (stream "order") is stably sorted by label, cut into 4
// shards at ⌊s·10/4⌋ = 0, 2, 5, 7, 10, and the shard permutation (stream
// "assign") gives client c shards assign[2c], assign[2c+1].
func TestPinPartitionShards(t *testing.T) {
	labels := []int{2, 0, 1, 1, 0, 2, 2, 0, 1, 0}
	key := rng.New(43, "pin-shards")
	order := refPerm(key.Derive("order").Rand(), 10)
	// Stable sort by label, written as a bucket pass in order.
	var sorted []int
	for y := 0; y <= 2; y++ {
		for _, i := range order {
			if labels[i] == y {
				sorted = append(sorted, i)
			}
		}
	}
	cuts := []int{0, 2, 5, 7, 10}
	assign := refPerm(key.Derive("assign").Rand(), 4)
	want := make([][]int, 2)
	for c := range want {
		for _, sh := range assign[2*c : 2*c+2] {
			want[c] = append(want[c], sorted[cuts[sh]:cuts[sh+1]]...)
		}
		slices.Sort(want[c])
	}
	got, err := PartitionShards(labels, 2, 2, key)
	if err != nil {
		t.Fatal(err)
	}
	samePartition(t, "shards", got, want)
	// Hand check of the label structure: sorted labels are 0000 111 222,
	// so shard 0 (positions 0–1) holds two 0s and shard 3 (7–9) three 2s.
	for _, c := range got {
		if len(c) != 4 && len(c) != 5 && len(c) != 6 {
			t.Errorf("client size %d: two shards of sizes 2, 3, 2, 3 give 4, 5 or 6", len(c))
		}
	}
	if _, err := PartitionShards(labels, 0, 2, key); err == nil {
		t.Error("0 clients accepted")
	}
	if _, err := PartitionShards(labels, 2, 0, key); err == nil {
		t.Error("0 shards per client accepted")
	}
	if got, err := PartitionShards(labels, 5, 2, key); err != nil || len(got) != 5 {
		t.Errorf("10 shards for 10 rows: %v, %v", got, err)
	}
}

// refLogGamma is the log of a Gamma(a, 1) variate: Marsaglia–Tsang for
// a ≥ 1 (d = a − 1/3, c = 1/√(9d); x ~ N(0,1), v = (1 + cx)³ if 1 + cx > 0;
// u ~ U(0,1); accept if u < 1 − 0.0331x⁴ or log u < x²/2 + d(1 − v + log v);
// return log(d·v)), and for a < 1 log Gamma(a+1) + log(U)/a.
func refLogGamma(r *rand.Rand, a float64) float64 {
	if a < 1 {
		g := refLogGamma(r, a+1)
		return g + math.Log(r.Float64())/a
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return math.Log(d * v)
		}
	}
}

// refDirichlet normalises exp(log Gamma variates) (shifted by their
// maximum against underflow).
func refDirichlet(r *rand.Rand, alpha float64, k int) []float64 {
	lg := make([]float64, k)
	mx := math.Inf(-1)
	for i := range lg {
		lg[i] = refLogGamma(r, alpha)
		mx = math.Max(mx, lg[i])
	}
	var s float64
	for i := range lg {
		lg[i] = math.Exp(lg[i] - mx)
		s += lg[i]
	}
	for i := range lg {
		lg[i] /= s
	}
	return lg
}

// TestPinDirichletSampler: Dirichlet's draws equal the reference sampler's
// for α below and above 1.
func TestPinDirichletSampler(t *testing.T) {
	for _, alpha := range []float64{0.3, 1, 2.5} {
		got := make([]float64, 4)
		Dirichlet(rng.Stream(7, "dir", alpha), alpha, got)
		want := refDirichlet(rng.Stream(7, "dir", alpha), alpha, 4)
		for i := range got {
			if !(math.Abs(got[i]-want[i]) <= 1e-12) {
				t.Errorf("α = %v: %v, want %v", alpha, got, want)
				break
			}
		}
	}
	// A concentration so small that every log-Gamma variate is −∞ (the
	// U^{1/α} boost overflows) gives a vertex chosen by one more draw.
	got := make([]float64, 4)
	Dirichlet(rng.Stream(8, "vertex"), 5e-324, got)
	r := rng.Stream(8, "vertex")
	for range 4 {
		if g := refLogGamma(r, 5e-324); !math.IsInf(g, -1) {
			t.Fatalf("reference log-Gamma(5e-324) = %v, want −∞", g)
		}
	}
	want := make([]float64, 4)
	want[r.IntN(4)] = 1
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("vertex: %v, want %v", got, want)
			break
		}
	}
	// α = +Inf is the uniform vector; an empty vector is left alone.
	u := make([]float64, 4)
	Dirichlet(rng.Stream(1), math.Inf(1), u)
	for _, v := range u {
		if v != 0.25 {
			t.Errorf("α = +Inf: %v", u)
		}
	}
	Dirichlet(rng.Stream(1), 1, nil)
}

// TestPinPartitionDirichlet: 10 rows of 2 classes, 3 clients, α = 0.8,
// minSize 1. Attempt t, class c: shuffle the class's indices with stream
// ("attempt", t, "class", c), draw q ~ Dir(α·1_3) from the same stream,
// and give client i the positions ⌊n_c·Σ_{j<i} q_j⌋ … ⌊n_c·Σ_{j≤i} q_j⌋
// (the last client takes the rest); redraw the whole partition while a
// client is empty. The reference below does exactly that.
func TestPinPartitionDirichlet(t *testing.T) {
	labels := []int{1, 0, 0, 1, 1, 0, 1, 0, 0, 1}
	for _, tc := range []struct {
		alpha   float64
		minSize int
	}{{0.8, 1}, {0.8, 3}, {5, 0}, {0.05, 1}} {
		key := rng.New(44, "pin-dir")
		var want [][]int
		attempts := 0
		for t0 := 0; want == nil; t0++ {
			attempts++
			parts := make([][]int, 3)
			for c := 0; c < 2; c++ {
				var idx []int
				for i, y := range labels {
					if y == c {
						idx = append(idx, i)
					}
				}
				r := key.Derive("attempt", t0, "class", c).Rand()
				refShuffle(r, idx)
				q := refDirichlet(r, tc.alpha, 3)
				nc := len(idx)
				cum, lo := 0.0, 0
				for i := 0; i < 3; i++ {
					cum += q[i]
					hi := int(math.Floor(cum * float64(nc)))
					if i == 2 || hi > nc {
						hi = nc
					}
					if hi < lo {
						hi = lo
					}
					parts[i] = append(parts[i], idx[lo:hi]...)
					lo = hi
				}
			}
			ok := true
			for _, p := range parts {
				if len(p) < max(tc.minSize, 1) {
					ok = false
				}
			}
			if ok {
				for _, p := range parts {
					slices.Sort(p)
				}
				want = parts
			}
		}
		got, err := PartitionDirichlet(labels, 2, 3, tc.alpha, tc.minSize, key)
		if err != nil {
			t.Fatal(err)
		}
		samePartition(t, "dirichlet", got, want)
		t.Logf("α = %v, minSize %d: accepted at attempt %d: %v", tc.alpha, tc.minSize, attempts, got)
	}
}

func TestPartitionDirichletBoundaries(t *testing.T) {
	labels := []int{0, 1, 0, 1}
	key := rng.New(1)
	// minSize·clients = n is feasible (each client gets exactly 2 … or a
	// redraw is needed); one more is an error.
	if _, err := PartitionDirichlet(labels, 2, 2, 50, 2, key); err != nil {
		t.Errorf("minSize·clients = n: %v", err)
	}
	if _, err := PartitionDirichlet(labels, 2, 2, 1, 3, key); err == nil {
		t.Error("minSize·clients > n accepted")
	}
	if _, err := PartitionDirichlet(labels, 0, 2, 1, 1, key); err == nil {
		t.Error("0 classes accepted")
	}
	if _, err := PartitionDirichlet(labels, 2, 0, 1, 1, key); err == nil {
		t.Error("0 clients accepted")
	}
	if _, err := PartitionDirichlet(labels, 2, 2, math.Inf(1), 1, key); err == nil {
		t.Error("α = +Inf accepted")
	}
	if _, err := PartitionDirichlet([]int{0, -1}, 2, 1, 1, 1, key); err == nil {
		t.Error("negative label accepted")
	}
	if _, err := PartitionDirichlet([]int{0, 0}, 2, 1, 1e-300, 1, key); err != nil {
		t.Errorf("one client always gets everything: %v", err)
	}
	// Impossible within the attempts: 2 clients, minSize 2, 4 rows, α tiny
	// (one client takes almost everything of each class every time).
	if _, err := PartitionDirichlet([]int{0, 0, 0, 0}, 1, 2, 1e-9, 2, key); err == nil {
		t.Error("a practically impossible constraint succeeded")
	}
}
