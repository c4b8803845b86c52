package data

import "fmt"

// CIFARShape is the image shape of CIFAR-10/100: 3 channel planes (R, G, B)
// of 32×32, stored channel-major as in the binary batches.
var CIFARShape = ImageShape{C: 3, H: 32, W: 32}

const cifarPixels = 3072 // 3 channels × 32 × 32 (a literal: gremlins cannot see constant expressions tested, go-gremlins/gremlins#299)

// DecodeCIFAR10 parses a CIFAR-10 binary batch (data_batch_1.bin …
// test_batch.bin): records of 1 label byte (0–9) and 3072 pixel bytes
// (1024 red, 1024 green, 1024 blue, each row-major 32×32). Pixels become
// float64 in [0,1]. name is used in errors.
func DecodeCIFAR10(b []byte, name string) (*Dataset, error) {
	return decodeCIFAR(b, name, []int{10}, 0)
}

// DecodeCIFAR100 parses the CIFAR-100 binary file (train.bin, test.bin):
// records of a coarse label byte (0–19), a fine label byte (0–99) and 3072
// pixel bytes. fine selects the 100 fine labels, otherwise the 20 coarse
// superclasses.
func DecodeCIFAR100(b []byte, name string, fine bool) (*Dataset, error) {
	if fine {
		return decodeCIFAR(b, name, []int{20, 100}, 1)
	}
	return decodeCIFAR(b, name, []int{20, 100}, 0)
}

// decodeCIFAR reads records of len(limits) label bytes (byte k < limits[k])
// and 3072 pixels, keeping label byte which.
func decodeCIFAR(b []byte, name string, limits []int, which int) (*Dataset, error) {
	labelBytes := len(limits)
	rec := labelBytes + cifarPixels
	if len(b)%rec != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of %d-byte CIFAR records (%d label byte(s) + 3072 pixels)", name, len(b), rec, labelBytes)
	}
	n := len(b) / rec
	ds := &Dataset{X: make([]float64, n*cifarPixels), Y: make([]int, n), N: n, D: cifarPixels, Classes: limits[which]}
	for i := 0; i < n; i++ {
		r := b[i*rec : (i+1)*rec]
		for k, lim := range limits {
			if int(r[k]) >= lim {
				return nil, fmt.Errorf("%s: record %d: label byte %d is %d, want < %d", name, i, k, r[k], lim)
			}
		}
		ds.Y[i] = int(r[which])
		x := ds.X[i*cifarPixels : (i+1)*cifarPixels]
		for j, v := range r[labelBytes:] {
			x[j] = float64(v) / 255
		}
	}
	return ds, nil
}
