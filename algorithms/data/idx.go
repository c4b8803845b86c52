package data

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// IDX is an unsigned-byte array in the IDX format of MNIST and
// Fashion-MNIST (LeCun et al.): a 4-byte magic (0, 0, type 0x08, rank),
// the sizes as big-endian uint32, then the elements in row-major order.
type IDX struct {
	Dims []int  // sizes, outermost first
	Data []byte // row-major elements, len(Data) = product of Dims
}

const maxIDXRank = 8

// DecodeIDX parses an IDX array from b, which may be raw or gzip-compressed
// (detected by the gzip magic bytes 1f 8b). Only the unsigned-byte element
// type (0x08), the one MNIST-style datasets use, is supported. The element
// count must match the bytes present exactly. name is used in errors.
func DecodeIDX(b []byte, name string) (*IDX, error) {
	p, err := gunzipIfNeeded(b, name, maxDecompressed)
	if err != nil {
		return nil, err
	}
	return parseIDX(p, name)
}

func parseIDX(p []byte, name string) (*IDX, error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("%s: %d bytes, too short for an IDX header", name, len(p))
	}
	if p[0] != 0 || p[1] != 0 {
		return nil, fmt.Errorf("%s: bad IDX magic %02x %02x %02x %02x (want 00 00 08 <rank>)", name, p[0], p[1], p[2], p[3])
	}
	if p[2] != 0x08 {
		return nil, fmt.Errorf("%s: IDX element type 0x%02x is not supported (only unsigned byte, 0x08)", name, p[2])
	}
	rank := int(p[3])
	if rank < 1 || rank > maxIDXRank {
		return nil, fmt.Errorf("%s: IDX rank %d, want 1..%d", name, rank, maxIDXRank)
	}
	hdr := 4 + 4*rank
	if len(p) < hdr {
		return nil, fmt.Errorf("%s: %d bytes, too short for an IDX header of rank %d (%d bytes)", name, len(p), rank, hdr)
	}
	body := len(p) - hdr
	dims := make([]int, rank)
	zero := false
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(p[4+4*i:]))
		if dims[i] == 0 && i > 0 {
			// Only the item count may be zero; otherwise a header could
			// claim billions of empty items without any data behind them.
			return nil, fmt.Errorf("%s: IDX sizes %v: dimension %d is zero", name, dims[:i+1], i)
		}
		zero = zero || dims[i] == 0
	}
	n, overflow := uint64(0), false
	if !zero {
		n = 1
		for _, s := range dims {
			hi, lo := bits.Mul64(n, uint64(s))
			overflow = overflow || hi != 0
			n = lo
		}
	}
	if overflow {
		return nil, fmt.Errorf("%s: IDX sizes %v need more than the %d data bytes present", name, dims, body)
	}
	if n != uint64(body) {
		return nil, fmt.Errorf("%s: IDX sizes %v need %d data bytes, file has %d", name, dims, n, body)
	}
	return &IDX{Dims: dims, Data: p[hdr:]}, nil
}

// IDXDataset pairs an image array (n, rows, cols…) with a label array (n)
// into a Dataset: pixels become float64 in [0,1] (byte/255), each image a
// row of rows·cols… features. Labels must be < classes. name is used in
// errors.
func IDXDataset(images, labels *IDX, classes int, name string) (*Dataset, error) {
	if len(images.Dims) < 2 {
		return nil, fmt.Errorf("%s: image array has sizes %v, want (n, rows, cols)", name, images.Dims)
	}
	if len(labels.Dims) != 1 {
		return nil, fmt.Errorf("%s: label array has sizes %v, want (n)", name, labels.Dims)
	}
	n := images.Dims[0]
	if labels.Dims[0] != n {
		return nil, fmt.Errorf("%s: %d images but %d labels", name, n, labels.Dims[0])
	}
	d := 1
	for _, s := range images.Dims[1:] {
		d *= s
	}
	ds := &Dataset{X: make([]float64, len(images.Data)), Y: make([]int, n), N: n, D: d, Classes: classes}
	for i, v := range images.Data {
		ds.X[i] = float64(v) / 255
	}
	for i, v := range labels.Data {
		if int(v) >= classes {
			return nil, fmt.Errorf("%s: label %d of example %d is not below %d classes", name, v, i, classes)
		}
		ds.Y[i] = int(v)
	}
	return ds, nil
}
