package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Partitioners split the row indices 0..n-1 of a dataset among clients.
// Every random draw comes from the rng.Key passed in, through sub-streams
// named by purpose, so the same key always gives the same partition. Each
// client's index list is returned sorted ascending.

// CheckPartition reports the first problem with parts as a split of
// 0..n-1: an index out of range, an index given to two clients (or twice to
// one), or — when cover is true — an index given to nobody.
func CheckPartition(parts [][]int, n int, cover bool) error {
	owner := make([]int32, n)
	for i := range owner {
		owner[i] = -1
	}
	for c, p := range parts {
		for _, i := range p {
			if i < 0 || i >= n {
				return fmt.Errorf("client %d: index %d outside [0,%d)", c, i, n)
			}
			if o := owner[i]; o >= 0 {
				return fmt.Errorf("index %d given to client %d and client %d", i, o, c)
			}
			owner[i] = int32(c)
		}
	}
	if cover {
		for i, o := range owner {
			if o < 0 {
				return fmt.Errorf("index %d given to no client", i)
			}
		}
	}
	return nil
}

// PartitionIID shuffles 0..n-1 (stream key/"perm") and cuts it into
// `clients` contiguous pieces whose sizes differ by at most one (client c
// gets positions ⌊c·n/K⌋ … ⌊(c+1)·n/K⌋−1), as in "divided equally".
func PartitionIID(n, clients int, key rng.Key) ([][]int, error) {
	if clients <= 0 || n < clients {
		return nil, fmt.Errorf("iid partition: cannot split %d samples among %d clients", n, clients)
	}
	perm := make([]int, n)
	rng.Perm(key.Derive("perm").Rand(), perm)
	parts := make([][]int, clients)
	for c := range parts {
		parts[c] = slices.Clone(perm[c*n/clients : (c+1)*n/clients])
		slices.Sort(parts[c])
	}
	return parts, nil
}

// PartitionShards is the label-shard split of FedAvg (McMahan et al.) used
// by FedDDPM: the indices are shuffled (stream "order") and then stably
// sorted by label, so that within a label the order is random; the sorted
// list is cut into S = clients·shardsPerClient contiguous shards (shard s
// holds positions ⌊s·n/S⌋ … ⌊(s+1)·n/S⌋−1), and a random permutation of
// the shards (stream "assign") gives client c the shards
// perm[c·shardsPerClient … (c+1)·shardsPerClient−1]. With 2 shards per
// client (2N shards) and class sizes that are multiples of the shard size,
// every client sees at most 2 labels.
func PartitionShards(labels []int, clients, shardsPerClient int, key rng.Key) ([][]int, error) {
	n := len(labels)
	if clients <= 0 || shardsPerClient <= 0 {
		return nil, fmt.Errorf("shard partition: %d clients × %d shards each", clients, shardsPerClient)
	}
	s := clients * shardsPerClient
	if s > n {
		return nil, fmt.Errorf("shard partition: %d shards for only %d samples", s, n)
	}
	order := make([]int, n)
	rng.Perm(key.Derive("order").Rand(), order)
	slices.SortStableFunc(order, func(a, b int) int { return labels[a] - labels[b] })
	assign := make([]int, s)
	rng.Perm(key.Derive("assign").Rand(), assign)
	parts := make([][]int, clients)
	for c := range parts {
		for _, sh := range assign[c*shardsPerClient : (c+1)*shardsPerClient] {
			parts[c] = append(parts[c], order[sh*n/s:(sh+1)*n/s]...)
		}
		slices.Sort(parts[c])
	}
	return parts, nil
}

// DirichletMaxAttempts is how many times PartitionDirichlet redraws before
// giving up on the minimum client size.
const DirichletMaxAttempts = 1000

// PartitionDirichlet is the per-class Dirichlet split (Hsu et al. 2019;
// FedDDPM §VI-A1): for each class c, the class's indices are shuffled and
// proportions q_c ~ Dir(α·1_clients) are drawn; client i receives the
// slice of the class between positions ⌊n_c·Σ_{j<i} q_cj⌋ and
// ⌊n_c·Σ_{j≤i} q_cj⌋. Smaller α gives more label skew (and more unequal
// client sizes).
//
// Empty clients: if any client ends with fewer than minSize samples
// (minSize ≤ 0 means 1, i.e. no empty client), the whole partition is
// redrawn from fresh streams ("attempt", t, "class", c), up to
// DirichletMaxAttempts times; then an error is returned. Redrawing keeps
// the per-class Dirichlet law conditioned on the size constraint, unlike
// patching sizes afterwards. Labels must lie in [0, classes).
func PartitionDirichlet(labels []int, classes, clients int, alpha float64, minSize int, key rng.Key) ([][]int, error) {
	n := len(labels)
	if clients <= 0 || classes <= 0 {
		return nil, fmt.Errorf("dirichlet partition: %d clients, %d classes", clients, classes)
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("dirichlet partition: concentration α = %v, want a positive finite number", alpha)
	}
	minSize = max(minSize, 1)
	if minSize*clients > n {
		return nil, fmt.Errorf("dirichlet partition: %d clients × at least %d samples each needs more than %d samples", clients, minSize, n)
	}
	byClass := make([][]int, classes)
	for i, y := range labels {
		if y < 0 || y >= classes {
			return nil, fmt.Errorf("dirichlet partition: label %d of sample %d outside [0,%d)", y, i, classes)
		}
		byClass[y] = append(byClass[y], i)
	}
	q := make([]float64, clients)
	for t := 0; t < DirichletMaxAttempts; t++ {
		parts := make([][]int, clients)
		for c, idx := range byClass {
			r := key.Derive("attempt", t, "class", c).Rand()
			idx = slices.Clone(idx)
			rng.Shuffle(r, idx)
			Dirichlet(r, alpha, q)
			nc := len(idx)
			cum, lo := 0.0, 0
			for i := range parts {
				cum += q[i]
				hi := int(math.Floor(cum * float64(nc)))
				if i == clients-1 || hi > nc {
					hi = nc
				}
				hi = max(hi, lo)
				parts[i] = append(parts[i], idx[lo:hi]...)
				lo = hi
			}
		}
		ok := true
		for _, p := range parts {
			if len(p) < minSize {
				ok = false
				break
			}
		}
		if ok {
			for _, p := range parts {
				slices.Sort(p)
			}
			return parts, nil
		}
	}
	return nil, fmt.Errorf("dirichlet partition: no draw in %d attempts gave all %d clients ≥ %d samples (α = %v, n = %d); lower minSize or raise α",
		DirichletMaxAttempts, clients, minSize, alpha, n)
}

// Dirichlet overwrites p with a draw from the symmetric Dirichlet(α·1)
// distribution. It works in log space (log Gamma(α) variates, normalised by
// log-sum-exp), so tiny α does not underflow every component to zero.
// α = +Inf gives the uniform vector; α ≤ 0 or NaN fills p with NaN.
func Dirichlet(r *rand.Rand, alpha float64, p []float64) {
	if len(p) == 0 {
		return
	}
	if !(alpha > 0) { // (if-chain, not a tagless switch: go-gremlins/gremlins#298)
		for i := range p {
			p[i] = math.NaN()
		}
		return
	}
	if math.IsInf(alpha, 1) {
		for i := range p {
			p[i] = 1 / float64(len(p))
		}
		return
	}
	m := math.Inf(-1)
	for i := range p {
		p[i] = logGamma(r, alpha)
		m = max(m, p[i])
	}
	if math.IsInf(m, -1) { // every log variate was −∞: a uniform vertex
		clear(p)
		p[r.IntN(len(p))] = 1
		return
	}
	s := 0.0
	for i := range p {
		p[i] = math.Exp(p[i] - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
}

// logGamma returns the log of a Gamma(a, 1) variate: Marsaglia–Tsang
// (2000) for a ≥ 1, and for a < 1 the boost Gamma(a) = Gamma(a+1)·U^{1/a}.
func logGamma(r *rand.Rand, a float64) float64 {
	if a < 1 {
		return logGamma(r, a+1) + math.Log(r.Float64())/a
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

// FromPartition builds a Federated dataset: client c trains on the rows
// trainParts[c] of train and, when testParts is non-nil, tests on the rows
// testParts[c] of test (otherwise its Test is nil). The pooled test set is
// test itself (may be nil). Parts must be disjoint and in range; they need
// not cover every row.
func FromPartition(name string, train *Dataset, trainParts [][]int, test *Dataset, testParts [][]int) (*Federated, error) {
	if train == nil {
		return nil, fmt.Errorf("%s: no training data", name)
	}
	if len(trainParts) == 0 {
		return nil, fmt.Errorf("%s: partition has no clients", name)
	}
	if err := CheckPartition(trainParts, train.N, false); err != nil {
		return nil, fmt.Errorf("%s: train partition: %w", name, err)
	}
	if testParts != nil {
		if test == nil {
			return nil, fmt.Errorf("%s: test partition given without a test set", name)
		}
		if len(testParts) != len(trainParts) {
			return nil, fmt.Errorf("%s: %d train parts but %d test parts", name, len(trainParts), len(testParts))
		}
		if err := CheckPartition(testParts, test.N, false); err != nil {
			return nil, fmt.Errorf("%s: test partition: %w", name, err)
		}
	}
	if test != nil && test.D != train.D {
		return nil, fmt.Errorf("%s: train has %d features, test has %d", name, train.D, test.D)
	}
	f := &Federated{Name: name, Test: test, D: train.D, Classes: train.Classes}
	if test != nil {
		f.Classes = max(f.Classes, test.Classes)
	}
	for c, p := range trainParts {
		cl := Client{ID: c, Train: train.Subset(p)}
		if testParts != nil {
			cl.Test = test.Subset(testParts[c])
		}
		f.Clients = append(f.Clients, cl)
	}
	return f, nil
}
