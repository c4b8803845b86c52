package fedddpm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// AuxFraction is the paper's |A_i| / m_i (§VI-A2).
const AuxFraction = 0.1

// AuxSizes returns |A_i| for local dataset sizes m (spec §3.4, decision 8):
// the total is round(frac·Σm_i), every client gets ⌊frac·m_i⌋ and the
// remaining units go to the largest fractional parts frac·m_i − ⌊frac·m_i⌋
// (ties to the lower client index). So |A_i| ∈ {⌊frac·m_i⌋, ⌈frac·m_i⌉},
// the aux set keeps the clients' data proportions (the paper's second
// "alignment step") as closely as integers allow, and |A| = round(frac·m).
func AuxSizes(m []int, frac float64) ([]int, error) {
	if !(frac >= 0) {
		return nil, fmt.Errorf("fedddpm: aux fraction must be ≥ 0, got %g", frac)
	}
	const eps = 1e-9 // absorbs rounding of frac·m_i just below an integer
	out := make([]int, len(m))
	rem := make([]float64, len(m))
	var total float64
	given := 0
	for i, mi := range m {
		if mi < 0 {
			return nil, fmt.Errorf("fedddpm: client %d has negative size %d", i, mi)
		}
		q := frac * float64(mi)
		total += q
		out[i] = int(math.Floor(q + eps))
		rem[i] = math.Max(q-float64(out[i]), 0)
		given += out[i]
	}
	want := int(math.Round(total))
	for ; given < want; given++ {
		best := -1
		for i, v := range rem {
			if v > 0 && (best < 0 || v > rem[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out[best]++
		rem[best] = 0
	}
	return out, nil
}

// AuxSamples returns count samples (row-major count × d) drawn by the
// ancestral sampler s from the denoiser den with parameters p — one
// client's A_i, generated from its warmed-up local model w^i_warmup.
// All randomness comes from r.
func AuxSamples(den *diffusion.Denoiser, p []float64, count int, s *diffusion.Sampler, r *rand.Rand) []float64 {
	return s.Sample(den.Bind(p), count, r, nil)
}

// BuildAux builds the auxiliary set A = ∪_i A_i (Alg. 1 line 1): client i
// contributes sizes[i] samples from the predictor models[i] (its warmed-up
// local model, e.g. den.Bind(w_i), or an exact oracle), drawn by s from the
// stream key.Derive("aux", "client", i), so each client's samples depend
// only on its own model, size and the key. The samples are unlabeled; the
// returned Dataset's Y records the client each row came from (Classes =
// number of clients), which LocalAug and diagnostics use and no loss reads.
func BuildAux(models []diffusion.Predictor, sizes []int, s *diffusion.Sampler, key rng.Key) (*data.Dataset, error) {
	if len(models) != len(sizes) {
		return nil, fmt.Errorf("fedddpm: %d models but %d aux sizes", len(models), len(sizes))
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("fedddpm: no client models")
	}
	d := models[0].Dim()
	total := 0
	for i, m := range models {
		if m.Dim() != d {
			return nil, fmt.Errorf("fedddpm: client %d model has dimension %d, want %d", i, m.Dim(), d)
		}
		if sizes[i] < 0 {
			return nil, fmt.Errorf("fedddpm: client %d has negative aux size %d", i, sizes[i])
		}
		total += sizes[i]
	}
	out := &data.Dataset{X: make([]float64, 0, total*d), Y: make([]int, 0, total), D: d, Classes: len(models)}
	var buf []float64
	for i, m := range models {
		if sizes[i] == 0 {
			continue
		}
		buf = s.Sample(m, sizes[i], key.Derive("aux", "client", i).Rand(), buf)
		out.X = append(out.X, buf...)
		for j := 0; j < sizes[i]; j++ {
			out.Y = append(out.Y, i)
		}
	}
	out.N = total
	return out, nil
}
