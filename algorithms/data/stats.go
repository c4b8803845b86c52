package data

import "math"

// SampleCounting says which samples a device's size counts in DeviceStats.
type SampleCounting int

const (
	// CountTrainAndTest counts a device's train and test rows: the
	// convention of the synthetic rows of Upcycled-FL's Table 2
	// (6043 train + 683 test = 6726 for Syn iid).
	CountTrainAndTest SampleCounting = iota
	// CountTrainOnly counts training rows only: the convention of the
	// FEMNIST and Sent140 rows of Table 2.
	CountTrainOnly
)

// SizeStats are the per-dataset figures of a "details of datasets" table
// (Upcycled-FL Table 2): Samples (Test), devices, samples/device mean and
// standard deviation.
type SizeStats struct {
	Samples int     // total counted samples (see SampleCounting)
	Test    int     // pooled test rows (the number in parentheses)
	Devices int     // number of clients
	Mean    float64 // Samples / Devices
	Std     float64 // population standard deviation (divide by Devices) of per-device counts
}

// DeviceStats computes Table-2 figures for f under the counting convention
// c. Test is the size of the pooled test set, or the sum of the clients'
// test sets when f has no pooled set.
func DeviceStats(f *Federated, c SampleCounting) SizeStats {
	s := SizeStats{Devices: len(f.Clients)}
	sizes := make([]float64, len(f.Clients))
	clientTest := 0
	for i, cl := range f.Clients {
		n := 0
		if cl.Train != nil {
			n = cl.Train.N
		}
		if cl.Test != nil {
			clientTest += cl.Test.N
			if c == CountTrainAndTest {
				n += cl.Test.N
			}
		}
		sizes[i] = float64(n)
		s.Samples += n
	}
	s.Test = clientTest
	if f.Test != nil {
		s.Test = f.Test.N
	}
	if s.Devices == 0 {
		return s
	}
	s.Mean = float64(s.Samples) / float64(s.Devices)
	v := 0.0
	for _, x := range sizes {
		v += (x - s.Mean) * (x - s.Mean)
	}
	s.Std = math.Sqrt(v / float64(s.Devices))
	return s
}

// ClientLabelCounts returns counts[c][y]: how many training rows of client
// c carry label y.
func (f *Federated) ClientLabelCounts() [][]int {
	out := make([][]int, len(f.Clients))
	for c, cl := range f.Clients {
		out[c] = make([]int, f.Classes)
		for _, y := range cl.Train.Y {
			if y >= 0 && y < f.Classes {
				out[c][y]++
			}
		}
	}
	return out
}

// LabelSkew measures label heterogeneity: the mean over clients (each
// weighted equally; empty clients skipped) of the total-variation distance
// between the client's label distribution and the pooled one. It is 0 when
// every client has the pooled label mix and approaches 1 − max_y p_y when
// each client holds a single label.
func LabelSkew(counts [][]int) float64 {
	if len(counts) == 0 {
		return 0
	}
	classes := 0
	for _, c := range counts {
		classes = max(classes, len(c))
	}
	pooled := make([]float64, classes)
	total := 0.0
	for _, c := range counts {
		for y, v := range c {
			pooled[y] += float64(v)
			total += float64(v)
		}
	}
	if total == 0 {
		return 0
	}
	sum, m := 0.0, 0
	for _, c := range counts {
		nc := 0
		for _, v := range c {
			nc += v
		}
		if nc == 0 {
			continue
		}
		tv := 0.0
		for y := range pooled {
			v := 0
			if y < len(c) {
				v = c[y]
			}
			tv += math.Abs(float64(v)/float64(nc) - pooled[y]/total)
		}
		sum += tv / 2
		m++
	}
	if m == 0 {
		return 0
	}
	return sum / float64(m)
}
