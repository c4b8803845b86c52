// Package data holds the dataset types of fedrepro and the code that makes
// them: seeded generators (FedProx Synthetic(α,β)), partitioners (iid,
// label shards, Dirichlet), and decoders for the file formats the papers use
// (upstream Upcycled-FL PyTorch .pt archives, IDX for MNIST/Fashion-MNIST,
// CIFAR-10 binary batches, LEAF JSON).
//
// Decoders take an io.Reader or a byte slice plus a name used in errors; the
// functions that open files live in the *File helpers so that the rest of
// the package stays free of I/O and can be fuzzed.
package data

import (
	"fmt"
	"math"
)

// Dataset is a dense labelled sample: N rows of D float64 features stored
// row-major in X, with integer labels in [0, Classes).
type Dataset struct {
	X       []float64
	Y       []int
	N, D    int
	Classes int
}

// Row returns the features of example i (a view, not a copy).
func (d *Dataset) Row(i int) []float64 { return d.X[i*d.D : (i+1)*d.D] }

// Subset returns a new Dataset holding copies of the rows idx, in order.
func (d *Dataset) Subset(idx []int) *Dataset {
	out := &Dataset{X: make([]float64, len(idx)*d.D), Y: make([]int, len(idx)), N: len(idx), D: d.D, Classes: d.Classes}
	for j, i := range idx {
		copy(out.X[j*d.D:(j+1)*d.D], d.Row(i))
		out.Y[j] = d.Y[i]
	}
	return out
}

// Concat stacks datasets with the same D; Classes is the maximum.
func Concat(parts ...*Dataset) *Dataset {
	out := &Dataset{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		if out.D == 0 {
			out.D = p.D
		}
		out.X = append(out.X, p.X...)
		out.Y = append(out.Y, p.Y...)
		out.N += p.N
		out.Classes = max(out.Classes, p.Classes)
	}
	return out
}

// LabelCounts returns how many examples carry each label.
func (d *Dataset) LabelCounts() []int {
	c := make([]int, d.Classes)
	for _, y := range d.Y {
		c[y]++
	}
	return c
}

// Validate reports the first structural problem: inconsistent sizes,
// labels out of range, or non-finite features.
func (d *Dataset) Validate() error {
	if d.N < 0 || d.D < 0 || len(d.X) != d.N*d.D || len(d.Y) != d.N {
		return fmt.Errorf("dataset shape: N=%d D=%d but len(X)=%d len(Y)=%d", d.N, d.D, len(d.X), len(d.Y))
	}
	for i, y := range d.Y {
		if y < 0 || y >= d.Classes {
			return fmt.Errorf("dataset row %d: label %d outside [0,%d)", i, y, d.Classes)
		}
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("dataset row %d column %d: non-finite feature %v", i/max(d.D, 1), i%max(d.D, 1), v)
		}
	}
	return nil
}

// Client is one participant's data.
type Client struct {
	ID    int
	Train *Dataset
	Test  *Dataset // nil when the source gives no per-client test split
}

// Federated is a dataset split over clients, with a pooled test set for
// evaluating the global model.
type Federated struct {
	Name    string
	Source  string // where it came from: "generated(seed=…)", a file path, …
	Clients []Client
	Test    *Dataset
	D       int
	Classes int
}

// TrainSizes returns |D_i| for every client.
func (f *Federated) TrainSizes() []int {
	s := make([]int, len(f.Clients))
	for i, c := range f.Clients {
		s[i] = c.Train.N
	}
	return s
}

// Validate checks every client's data and the pooled test set.
func (f *Federated) Validate() error {
	if len(f.Clients) == 0 {
		return fmt.Errorf("%s: no clients", f.Name)
	}
	for _, c := range f.Clients {
		if c.Train == nil {
			return fmt.Errorf("%s: client %d has no training data", f.Name, c.ID)
		}
		if err := c.Train.Validate(); err != nil {
			return fmt.Errorf("%s: client %d train: %w", f.Name, c.ID, err)
		}
		if c.Train.D != f.D {
			return fmt.Errorf("%s: client %d has %d features, want %d", f.Name, c.ID, c.Train.D, f.D)
		}
		if c.Test != nil {
			if err := c.Test.Validate(); err != nil {
				return fmt.Errorf("%s: client %d test: %w", f.Name, c.ID, err)
			}
		}
	}
	if f.Test != nil {
		if err := f.Test.Validate(); err != nil {
			return fmt.Errorf("%s: pooled test: %w", f.Name, err)
		}
	}
	return nil
}
