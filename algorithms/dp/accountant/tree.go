package accountant

import (
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/internal/memo"
)

// Sensitivity of tree aggregation (DP-FTRL). The tree over T leaves is the
// binary-counter forest of the TF Privacy implementation: a complete tree
// over the first 2^⌊log₂T⌋ leaves and, recursively, a forest over the
// rest; a complete tree has a root node covering all its leaves. A record
// that contributes c_v times under node v changes that node's sum by c_v
// (in clip units), so the release's squared L2 sensitivity is Σ_v c_v².

// Limits on TreeAggregation's parameters (the dynamic program's state
// space is participations × separation² × log₂(leaves)).
const (
	maxTreeLeaves         = 1 << 40
	maxTreeParticipations = 1 << 12
	maxTreeSeparation     = 1 << 12
)

// maxTreeWork bounds the dynamic program's work estimate
// k²·(sep+1)³·2·log₂(leaves), summed over the distinct tree sizes of an
// event: at most 0.65 s of CPU at the limit (BenchmarkTreeSensitivityAtLimit).
const maxTreeWork = 2e8

// distinctTrees lists the distinct tree sizes in order of appearance.
func distinctTrees(trees []int) []int {
	var out []int
	seen := map[int]bool{}
	for _, t := range trees {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// treeWork estimates the dynamic program's cost for one tree.
func treeWork(leaves, k, sep int) float64 {
	if k <= 1 {
		return 0
	}
	s := float64(sep + 1)
	return float64(k) * float64(k) * s * s * s * 2 * float64(bitsLen(leaves))
}

// treeSensitivitySq returns the worst-case Σ_v c_v² over placements of at
// most k contributions in a tree of `leaves` leaves with at least sep
// empty leaves between two contributions (Kairouz et al. 2021 App. D.2;
// for k = 1 it is the depth ⌈log₂(leaves+1)⌉).
func treeSensitivitySq(leaves, k, sep int) float64 {
	if leaves == 0 {
		return 0
	}
	if k <= 1 {
		return float64(bitsLen(leaves))
	}
	// Computed once per (leaves, k, sep) in a process: a tree event is
	// asked by Supports, Compose and the answer, and DP-FTRL restarts
	// repeat one tree size (--trees N).
	v, _ := treeSensMemo.Get(fmt.Sprint(leaves, k, sep), func() (float64, error) {
		return treeSensitivitySqDP(leaves, k, sep), nil
	})
	return v
}

var treeSensMemo memo.Memo[float64]

// treeSensitivitySqDP is treeSensitivitySq's dynamic program.
func treeSensitivitySqDP(leaves, k, sep int) float64 {
	t := newTreeDP(leaves, k, sep)
	best := 0.0
	// The record may contribute fewer than k times; a placement needs
	// (sep+1)·j − sep leaves for j contributions.
	for j := 1; j <= k; j++ {
		if (sep+1)*(j-1)+1 > leaves {
			break
		}
		best = math.Max(best, t.best(j, 0, sep, 0))
	}
	return best
}

// bitsLen is ⌈log₂(n+1)⌉ for n ≥ 0: the number of tree levels touched by
// one leaf of a forest over n leaves (⌊log₂n⌋ + 1).
func bitsLen(n int) int {
	d := 0
	for ; n > 0; n >>= 1 {
		d++
	}
	return d
}

// treeDP memoises the worst case of exactly k contributions in a block of
// `size` leaves when the first `before` leaves must stay empty (the
// previous contribution, left of the block, is too close) and the block
// may use `after` extra leaves of room to its right for separation only
// (the next contribution lies at least that far beyond it). before and
// after lie in [0, sep], and the blocks the recursion meets are few (a
// block of size s splits into the largest power of two below it and the
// rest, or two halves when s is a power of two: at most 2·log₂(leaves)
// sizes), so the memo is a dense table indexed by (block, k, before,
// after) — a map keyed by the four numbers cost ~40 times more per step
// (TreeAggregation's work limit, maxTreeWork, keeps the table under a
// few million entries).
type treeDP struct {
	sep, k      int
	size        []int     // block sizes, indexed as the table is
	left, right []int     // block indices of each block's two parts (−1: a leaf)
	root        []bool    // whether the block is a complete tree (a root node covers it)
	memo        []float64 // NaN: not computed yet
}

func newTreeDP(leaves, k, sep int) *treeDP {
	t := &treeDP{sep: sep, k: k}
	index := map[int]int{}
	var add func(size int) int
	add = func(size int) int {
		if i, ok := index[size]; ok {
			return i
		}
		i := len(t.size)
		index[size] = i
		t.size = append(t.size, size)
		t.left, t.right, t.root = append(t.left, -1), append(t.right, -1), append(t.root, false)
		if size > 1 {
			l := 1 << (bitsLen(size) - 1) // largest power of two ≤ size
			if l == size {
				t.root[i] = true
				l = size / 2
			}
			li := add(l)
			ri := add(size - l)
			t.left[i], t.right[i] = li, ri
		}
		return i
	}
	add(leaves)
	s := sep + 1
	t.memo = make([]float64, len(t.size)*(k+1)*s*s)
	for i := range t.memo {
		t.memo[i] = math.NaN()
	}
	return t
}

// feasible: k contributions fit when before + (sep+1)·k ≤ size + after,
// counting each contribution with the sep empty leaves that follow it.
func (t *treeDP) feasible(k, before, after, size int) bool {
	return before+(t.sep+1)*k <= size+after
}

// best is the largest Σ_v c_v² of exactly k contributions in block b.
func (t *treeDP) best(k, before, after, b int) float64 {
	size := t.size[b]
	if !t.feasible(k, before, after, size) {
		return math.Inf(-1)
	}
	if k == 0 {
		return 0
	}
	if size == 1 {
		return 1 // k = 1 here: a single leaf holds one contribution
	}
	s := t.sep + 1
	key := ((b*(t.k+1)+k)*s+before)*s + after
	if v := t.memo[key]; !math.IsNaN(v) {
		return v
	}
	root := 0.0
	if t.root[b] {
		root = float64(k * k) // a complete tree: its root covers every leaf
	}
	v := math.Inf(-1)
	// i contributions go right; g is how many leaves at the start of the
	// right block stay empty because of a contribution near the end of
	// the left block (the left block then has g leaves of room after it).
	for i := 0; i <= k; i++ {
		for g := 0; g <= t.sep; g++ {
			l := t.best(k-i, before, g, t.left[b])
			if math.IsInf(l, -1) {
				continue
			}
			r := t.best(i, g, after, t.right[b])
			if math.IsInf(r, -1) {
				continue
			}
			v = math.Max(v, l+r)
		}
	}
	v += root
	t.memo[key] = v
	return v
}

// treeGaussianSigma is the noise multiplier of the Gaussian mechanism
// equivalent to e: σ/√S with S the summed squared sensitivity. S = 0 (no
// leaves) gives +Inf: the release does not depend on the data.
func treeGaussianSigma(e TreeAggregation) float64 {
	s := 0.0
	for _, leaves := range e.Trees {
		s += treeSensitivitySq(leaves, max(e.Participations, 1), e.MinSeparation)
	}
	if s == 0 {
		return math.Inf(1)
	}
	return e.Sigma / math.Sqrt(s)
}
