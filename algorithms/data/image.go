package data

import (
	"fmt"
	"slices"
)

// ImageShape describes how a Dataset row holds an image: C channel planes
// of H×W pixels, channel-major, each plane row-major (the layout of IDX
// files and CIFAR binary batches).
type ImageShape struct{ C, H, W int }

// Size returns C·H·W, the row length D of such images.
func (s ImageShape) Size() int { return s.C * s.H * s.W }

// String formats the shape as C×H×W.
func (s ImageShape) String() string { return fmt.Sprintf("%d×%d×%d", s.C, s.H, s.W) }

// MNISTShape is the shape of MNIST and Fashion-MNIST images.
var MNISTShape = ImageShape{C: 1, H: 28, W: 28}

// AvgPool2x2 downsamples every image by averaging non-overlapping 2×2
// blocks in each channel (28×28 → 14×14 → 7×7 for the diffusion
// experiments' MNIST resolutions). H and W must be even. It returns the new
// dataset and shape; labels are copied.
func AvgPool2x2(d *Dataset, s ImageShape) (*Dataset, ImageShape, error) {
	if s.C <= 0 || s.H <= 0 || s.W <= 0 || d.D != s.Size() {
		return nil, s, fmt.Errorf("avg-pool: rows have %d features, shape %v has %d", d.D, s, s.Size())
	}
	if s.H%2 != 0 || s.W%2 != 0 {
		return nil, s, fmt.Errorf("avg-pool 2×2: shape %v has an odd side", s)
	}
	o := ImageShape{C: s.C, H: s.H / 2, W: s.W / 2}
	out := &Dataset{X: make([]float64, d.N*o.Size()), Y: slices.Clone(d.Y), N: d.N, D: o.Size(), Classes: d.Classes}
	for i := 0; i < d.N; i++ {
		in, dst := d.Row(i), out.Row(i)
		for c := 0; c < s.C; c++ {
			src := in[c*s.H*s.W : (c+1)*s.H*s.W]
			pl := dst[c*o.H*o.W : (c+1)*o.H*o.W]
			for y := 0; y < o.H; y++ {
				r0, r1 := src[(2*y)*s.W:], src[(2*y+1)*s.W:]
				for x := 0; x < o.W; x++ {
					pl[y*o.W+x] = (r0[2*x] + r0[2*x+1] + r1[2*x] + r1[2*x+1]) / 4
				}
			}
		}
	}
	return out, o, nil
}

// SelectClasses keeps the rows whose label is in classes, in their
// original order. With relabel, label classes[i] becomes i and Classes
// becomes len(classes); otherwise labels and Classes are kept. Classes
// must be distinct and in range.
func SelectClasses(d *Dataset, classes []int, relabel bool) (*Dataset, error) {
	if len(classes) == 0 {
		return nil, fmt.Errorf("select classes: empty class list")
	}
	pos := make(map[int]int, len(classes))
	for i, c := range classes {
		if c < 0 || c >= d.Classes {
			return nil, fmt.Errorf("select classes: class %d outside [0,%d)", c, d.Classes)
		}
		if _, dup := pos[c]; dup {
			return nil, fmt.Errorf("select classes: class %d listed twice", c)
		}
		pos[c] = i
	}
	var idx []int
	for i, y := range d.Y {
		if _, ok := pos[y]; ok {
			idx = append(idx, i)
		}
	}
	out := d.Subset(idx)
	if relabel {
		for i, y := range out.Y {
			out.Y[i] = pos[y]
		}
		out.Classes = len(classes)
	}
	return out, nil
}
