package fedddpm

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	fa "github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/fedrepro/fedrepro/algorithms/metrics"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"gonum.org/v1/gonum/mat"
)

// sources loads every dataset once per process and caches what runs of
// one configuration share: the prepared data (subset, scaling, feature
// classifier, reference statistics), the federation of a (partition,
// seed) and its warmed-up local models and auxiliary sets. Every cached
// value is a deterministic function of its key, so caching changes no
// result; it only avoids recomputing a warmup for each method and
// participation level.
type sources struct {
	dataDir string
	memo    datasets.Memo[any]
}

func newSources(dataDir string) *sources { return &sources{dataDir: dataDir} }

// cached computes f once per key (concurrent callers of the same key wait
// for the first).
func (s *sources) cached(key string, f func() (any, error)) (any, error) { return s.memo.Get(key, f) }

func keyOf(parts ...any) string {
	b, err := json.Marshal(parts)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// locator finds the image datasets in the shared --data-dir layout
// (reproduce/datasets).
func (s *sources) locator() datasets.Locator { return datasets.Locator{DataDir: s.dataDir} }

// find returns the directory holding src's files, or "".
func (s *sources) find(src string) string {
	dir, _ := s.locator().Find(src)
	return dir
}

// Available reports, without loading, whether src can be loaded.
func (s *sources) Available(src string) bool {
	return src == "mixture" || s.find(src) != ""
}

// where says where src was looked for (for "not run" notes).
func (s *sources) where(src string) string {
	if w := s.locator().Where(src); w != "" {
		return w
	}
	return "--data-dir (none given)"
}

// raw loads a source's train and test splits with their image shape
// (not cached: scaled keeps the pooled copies).
func (s *sources) raw(src string) (train, test *data.Dataset, shape data.ImageShape, err error) {
	v, err := func() (any, error) {
		dir := s.find(src)
		if dir == "" {
			return nil, fmt.Errorf("dataset %s not found at %s", src, s.where(src))
		}
		tr, te, sh, err := datasets.LoadImages(src, dir)
		if err != nil {
			return nil, err
		}
		return [3]any{tr, te, sh}, nil
	}()
	if err != nil {
		return nil, nil, data.ImageShape{}, err
	}
	a := v.([3]any)
	return a[0].(*data.Dataset), a[1].(*data.Dataset), a[2].(data.ImageShape), nil
}

// scaled returns (once) a source's train and test splits pooled pool
// times and scaled to [−1, 1]; the full-resolution files are not kept.
func (s *sources) scaled(src string, pool int) (train, test *data.Dataset, shape data.ImageShape, err error) {
	v, err := s.cached(keyOf("scaled", src, pool), func() (any, error) {
		tr, te, sh, err := s.raw(src)
		if err != nil {
			return nil, err
		}
		str, osh, err := scaleImages(tr, sh, pool)
		if err != nil {
			return nil, err
		}
		ste, _, err := scaleImages(te, sh, pool)
		if err != nil {
			return nil, err
		}
		return [3]any{str, ste, osh}, nil
	})
	if err != nil {
		return nil, nil, data.ImageShape{}, err
	}
	a := v.([3]any)
	return a[0].(*data.Dataset), a[1].(*data.Dataset), a[2].(data.ImageShape), nil
}

// prepared is one setting's data and the reference statistics of its
// metrics, shared read-only by its runs.
type prepared struct {
	src   string
	train *data.Dataset // the m training rows, scaled to the denoiser's range
	test  *data.Dataset // held-out rows for loss curves
	shape data.ImageShape
	mix   *diffusion.GaussianMixture
	feat  *fa.FeatureNet

	refMu     []float64
	refCov    *mat.SymDense
	refMMD    []float64 // MMDRows rows of the embedded reference
	mmdRows   int
	bandwidth float64
	classHist []float64 // training-label proportions
	radius    float64   // mixture mode radius (3σ)
}

// image reports whether the setting's rows are images.
func (p *prepared) image() bool { return p.mix == nil }

// metricDim is the dimension of the space FDs are computed in.
func (p *prepared) metricDim() int {
	if p.feat != nil {
		return p.feat.Dim()
	}
	return p.train.D
}

// embed maps rows to the metric space: raw coordinates for the mixture,
// the feature classifier's last hidden layer for images.
//
// Generated images are clipped to the pixel range [−1, 1] first, as
// saving them as images (what FID implementations read) does.
func (p *prepared) embed(x []float64, n int) []float64 {
	if p.feat != nil {
		c := make([]float64, n*p.train.D)
		for i, v := range x[:n*p.train.D] {
			c[i] = max(-1, min(1, v))
		}
		return p.feat.Features(c, n)
	}
	return x[:n*p.train.D]
}

// fd is the Fréchet distance of n generated rows to the training set in
// the metric space.
func (p *prepared) fd(x []float64, n int) float64 {
	e := p.embed(x, n)
	mu, cov, err := metrics.Moments(e, n, p.metricDim())
	if err != nil {
		return math.NaN()
	}
	r, err := metrics.FrechetFromMoments(mu, cov, p.refMu, p.refCov)
	if err != nil {
		return math.NaN()
	}
	return r.Distance
}

// scores computes the final metrics of n generated rows.
func (p *prepared) scores(x []float64, n int) map[string]float64 {
	out := map[string]float64{}
	fd := p.fd(x, n)
	out["fd"] = fd
	out["log_fd"] = math.Log(fd)
	e := p.embed(x, n)
	d := p.metricDim()
	m := min(n, p.mmdRows)
	if mmd, err := metrics.MMD2(e, m, p.refMMD, p.mmdRows, d, p.bandwidth); err == nil {
		out["mmd2"] = mmd
	}
	if p.mix != nil {
		K := len(p.mix.Means)
		st, err := metrics.ModeCoverage(x, n, p.train.D, p.mix.Means, p.mix.Weights, p.radius, int(math.Ceil(0.25*float64(n)/float64(K))))
		if err == nil {
			out["mode_tv"] = st.TV
			out["mode_tv_assigned"] = st.TVAssigned
			out["high_quality"] = st.HighQuality
			out["modes_covered"] = float64(st.Covered)
		}
	} else {
		c := make([]float64, n*p.train.D)
		for i, v := range x[:n*p.train.D] {
			c[i] = max(-1, min(1, v))
		}
		cls := p.feat.Classes(c, n)
		hist := make([]float64, len(p.classHist))
		for _, c := range cls {
			hist[c] += 1 / float64(n)
		}
		var tv float64
		for c := range hist {
			tv += math.Abs(hist[c] - p.classHist[c])
		}
		out["class_tv"] = tv / 2
	}
	return out
}

// prepare builds (once) the data of a setting.
func (s *sources) prepare(st Setting, genSeed uint64) (*prepared, error) {
	k := keyOf("prepared", st.Source, st.TrainSize, st.Pool, st.Mixture, st.FeatureNet, st.Eval.MMDRows, st.Eval.LossRows, genSeed)
	v, err := s.cached(k, func() (any, error) { return s.prepareUncached(st, genSeed) })
	if err != nil {
		return nil, err
	}
	return v.(*prepared), nil
}

func (s *sources) prepareUncached(st Setting, genSeed uint64) (*prepared, error) {
	p := &prepared{src: st.Source}
	gkey := rng.New(genSeed, "fedddpm", "data", st.Source)
	lossRows := max(st.Eval.LossRows, 2)
	if st.Source == "mixture" {
		spec := fa.MixtureSpec{Components: st.Mixture.Components, Dim: 2, Layout: fa.Ring, Radius: st.Mixture.Radius, Std: st.Mixture.Std}
		g, err := spec.Mixture(nil)
		if err != nil {
			return nil, err
		}
		p.mix = g
		p.radius = 3 * st.Mixture.Std
		if p.train, err = fa.Generate(g, st.TrainSize, gkey.Derive("train").Rand()); err != nil {
			return nil, err
		}
		if p.test, err = fa.Generate(g, lossRows, gkey.Derive("test").Rand()); err != nil {
			return nil, err
		}
	} else {
		tr, te, shape, err := s.scaled(st.Source, st.Pool)
		if err != nil {
			return nil, err
		}
		p.shape = shape
		p.train = tr.Subset(stratified(tr, st.TrainSize, gkey.Derive("subset")))
		perm := make([]int, te.N)
		rng.Perm(gkey.Derive("test").Rand(), perm)
		p.test = te.Subset(perm[:min(lossRows, te.N)])
		// The feature classifier trains on the real training split (all
		// of it unless train_rows limits it) and is tested on the test split.
		fc := st.FeatureNet
		fx, ftest := tr, te
		if fc.TrainRows > 0 && fc.TrainRows < tr.N {
			fx = tr.Subset(stratified(tr, fc.TrainRows, gkey.Derive("feature-subset")))
		}
		p.feat, err = fa.TrainFeatureNet(fx, ftest, fa.FeatureNetConfig{Hidden: fc.Hidden, Epochs: fc.Epochs, Batch: fc.Batch, LR: fc.LR},
			rng.New(genSeed, "fedddpm", "feature-net", st.Source, st.Pool))
		if err != nil {
			return nil, err
		}
		counts := p.train.LabelCounts()
		p.classHist = make([]float64, len(counts))
		for c, n := range counts {
			p.classHist[c] = float64(n) / float64(p.train.N)
		}
	}
	e := p.embed(p.train.X, p.train.N)
	d := p.metricDim()
	var err error
	if p.refMu, p.refCov, err = metrics.Moments(e, p.train.N, d); err != nil {
		return nil, err
	}
	p.mmdRows = min(st.Eval.MMDRows, p.train.N)
	p.refMMD = append([]float64(nil), e[:p.mmdRows*d]...)
	p.bandwidth = metrics.MedianBandwidth(p.refMMD, p.mmdRows, p.refMMD, 0, d, 0)
	return p, nil
}

// stratified picks m rows of d in equal shares per class (largest
// remainders), each class's rows chosen by a seeded permutation, and
// returns them shuffled.
func stratified(d *data.Dataset, m int, key rng.Key) []int {
	if m >= d.N {
		idx := make([]int, d.N)
		rng.Perm(key.Derive("all").Rand(), idx)
		return idx
	}
	byClass := make([][]int, d.Classes)
	for i, y := range d.Y {
		byClass[y] = append(byClass[y], i)
	}
	w := make([]float64, d.Classes)
	for c := range w {
		if len(byClass[c]) > 0 {
			w[c] = 1
		}
	}
	counts := fa.Apportion(m, w)
	var out []int
	for c, idx := range byClass {
		rng.Shuffle(key.Derive("class", c).Rand(), idx)
		out = append(out, idx[:min(counts[c], len(idx))]...)
	}
	sort.Ints(out)
	rng.Shuffle(key.Derive("order").Rand(), out)
	return out
}

// scaleImages average-pools pool times and maps pixels from [0,1] to
// [−1,1], DDPM's data range.
func scaleImages(d *data.Dataset, shape data.ImageShape, pool int) (*data.Dataset, data.ImageShape, error) {
	d, shape, err := datasets.Pool(d, shape, pool)
	if err != nil {
		return nil, shape, err
	}
	out := &data.Dataset{X: make([]float64, len(d.X)), Y: append([]int(nil), d.Y...), N: d.N, D: d.D, Classes: d.Classes}
	for i, v := range d.X {
		out.X[i] = 2*v - 1
	}
	return out, shape, nil
}

// federation is one (setting, partition, seed): the clients' data, the
// shared initial model and the run key every method uses.
type federation struct {
	prep    *prepared
	st      Setting
	key     rng.Key
	clients []*data.Dataset
	init    []float64
}

// fedKey names a federation's streams; it leaves out the method and the
// participation level, so every method on the same data, partition and
// seed sees the same clients, initial model, warmup and auxiliary set,
// and (at equal p) the same client selections.
func fedKey(seed uint64, st Setting, partition string) rng.Key {
	return rng.New(seed, "fedddpm", st.Source, partition, st.Clients, st.TrainSize)
}

func (s *sources) federation(prep *prepared, st Setting, partition string, seed uint64) (*federation, error) {
	k := keyOf("federation", fmt.Sprintf("%p", prep), st.Clients, st.DirMinSize, st.Denoiser, partition, seed)
	v, err := s.cached(k, func() (any, error) {
		key := fedKey(seed, st, partition)
		shard, alpha, err := parsePartition(partition)
		if err != nil {
			return nil, err
		}
		var parts [][]int
		if shard {
			parts, err = data.PartitionShards(prep.train.Y, st.Clients, 2, key.Derive("partition"))
		} else {
			parts, err = data.PartitionDirichlet(prep.train.Y, prep.train.Classes, st.Clients, alpha, st.DirMinSize, key.Derive("partition"))
		}
		if err != nil {
			return nil, err
		}
		f := &federation{prep: prep, st: st, key: key}
		for _, idx := range parts {
			f.clients = append(f.clients, prep.train.Subset(idx))
		}
		den, err := newDenoiser(st, prep.train.D)
		if err != nil {
			return nil, err
		}
		f.init = make([]float64, den.NumParams())
		den.Init(f.init, key.Derive("init").Rand())
		return f, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*federation), nil
}

// sizes returns m_i.
func (f *federation) sizes() []int {
	out := make([]int, len(f.clients))
	for i, c := range f.clients {
		out[i] = c.N
	}
	return out
}

// warm is a federation's warmup and auxiliary set.
type warm struct {
	models [][]float64
	work   fa.Work
	aux    *data.Dataset
	// forwards counts the denoiser evaluations of the aux generation
	// (|A|·T_diff).
	forwards int64
}

func newDenoiser(st Setting, dim int) (*diffusion.Denoiser, error) {
	sched, err := diffusion.ScaledLinear(st.Denoiser.Steps)
	if err != nil {
		return nil, err
	}
	return diffusion.NewDenoiser(diffusion.NetConfig{Dim: dim, Hidden: st.Denoiser.Hidden, TimeDim: st.Denoiser.TimeDim}, sched)
}

func variance(s string) (diffusion.Variance, error) { return named("sampler variance", s, variances) }

func newSampler(st Setting, den *diffusion.Denoiser) *diffusion.Sampler {
	v, _ := variance(st.Denoiser.Variance)
	return diffusion.NewSampler(den.Schedule(), v)
}

// auxSizes returns |A_i|: frac·m_i (largest remainders), or a fixed total
// apportioned in proportion to m_i.
func auxSizes(m []int, frac float64, total int) ([]int, error) {
	if total > 0 {
		w := make([]float64, len(m))
		for i, v := range m {
			w[i] = float64(v)
		}
		return fa.Apportion(total, w), nil
	}
	return fa.AuxSizes(m, frac)
}

// warmup trains (once) every client's local model and samples the
// auxiliary set A (Alg. 1 line 1).
func (s *sources) warmup(f *federation) (*warm, error) {
	st := f.st
	type models struct {
		m    [][]float64
		work fa.Work
	}
	mk := keyOf("warmup", fmt.Sprintf("%p", f), st.Batch, st.Optimizer, st.ClientLR, st.WarmupEpochs)
	mv, err := s.cached(mk, func() (any, error) {
		den, err := newDenoiser(st, f.prep.train.D)
		if err != nil {
			return nil, err
		}
		m, work, err := fa.Warmup(den, f.clients, f.init, fa.WarmupConfig{Opt: fa.Opt{Kind: st.Optimizer, LR: st.ClientLR}, Epochs: st.WarmupEpochs, Batch: st.Batch}, f.key)
		return &models{m, work}, err
	})
	if err != nil {
		return nil, err
	}
	ms := mv.(*models)
	// The aux set is cached apart from the models, so experiments that
	// only change its size (Fig. 8's |A| = 2000) reuse the warmup.
	ak := keyOf("aux", fmt.Sprintf("%p", ms), st.AuxFraction, st.AuxSize)
	v, err := s.cached(ak, func() (any, error) {
		den, err := newDenoiser(st, f.prep.train.D)
		if err != nil {
			return nil, err
		}
		sizes, err := auxSizes(f.sizes(), st.AuxFraction, st.AuxSize)
		if err != nil {
			return nil, err
		}
		w := &warm{models: ms.m, work: ms.work}
		w.aux, w.forwards, err = sampleAux(den, st, ms.m, sizes, f.key)
		return w, err
	})
	if err != nil {
		return nil, err
	}
	return v.(*warm), nil
}

// sampleAux draws sizes[i] samples from every client's warmed-up model.
func sampleAux(den *diffusion.Denoiser, st Setting, models [][]float64, sizes []int, key rng.Key) (*data.Dataset, int64, error) {
	preds := make([]diffusion.Predictor, len(models))
	var total int64
	for i, m := range models {
		preds[i] = den.Bind(m)
		total += int64(sizes[i])
	}
	aux, err := fa.BuildAux(preds, sizes, newSampler(st, den), key)
	return aux, total * int64(st.Denoiser.Steps), err
}

// centralAux samples (once) Table IV's larger aux set, CentralFraction·m_i
// per client, from the same warmed-up models with its own stream.
func (s *sources) centralAux(f *federation, w *warm) (*data.Dataset, int64, error) {
	st := f.st
	k := keyOf("central-aux", fmt.Sprintf("%p", w), st.CentralFraction)
	type res struct {
		aux *data.Dataset
		fwd int64
	}
	v, err := s.cached(k, func() (any, error) {
		den, err := newDenoiser(st, f.prep.train.D)
		if err != nil {
			return nil, err
		}
		sizes, err := fa.AuxSizes(f.sizes(), st.CentralFraction)
		if err != nil {
			return nil, err
		}
		aux, fwd, err := sampleAux(den, st, w.models, sizes, f.key.Derive("central-aux"))
		return res{aux, fwd}, err
	})
	if err != nil {
		return nil, 0, err
	}
	r := v.(res)
	return r.aux, r.fwd, nil
}
