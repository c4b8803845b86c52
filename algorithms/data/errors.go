package data

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
)

// NotFoundError reports that a dataset is not on disk. Its message is
// "dataset X not found at P", which experiment reports quote verbatim as
// "not run: dataset X not found at P". It matches errors.Is(err,
// fs.ErrNotExist).
type NotFoundError struct {
	Dataset string // "cifar10", "fashion-mnist", "synthetic_iid", …
	Path    string // the directory or file that is missing
}

// Error returns "dataset X not found at P".
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("dataset %s not found at %s", e.Dataset, e.Path)
}

// Unwrap lets errors.Is(err, fs.ErrNotExist) recognise a missing dataset.
func (e *NotFoundError) Unwrap() error { return fs.ErrNotExist }

// ChecksumError reports a file whose SHA-256 differs from its pin.
type ChecksumError struct {
	File      string
	Want, Got string // lower-case hex
}

// Error names the file and both digests.
func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: SHA-256 mismatch: want %s, got %s (the file is not the pinned release; re-fetch it)", e.File, e.Want, e.Got)
}

// SHA256Hex returns the lower-case hex SHA-256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// VerifySHA256 checks b against the pinned hex digest want and returns a
// *ChecksumError naming file when they differ.
func VerifySHA256(file string, b []byte, want string) error {
	if got := SHA256Hex(b); got != want {
		return &ChecksumError{File: file, Want: want, Got: got}
	}
	return nil
}

// maxDecompressed caps what any decoder of this package inflates from a
// gzip stream (the largest real input, Fashion-MNIST's training images, is
// 47 MB).
const maxDecompressed = 1 << 30

// isGzip reports whether b starts with the gzip magic bytes.
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// gunzipIfNeeded returns b itself when it is not gzip-compressed, and its
// decompressed content otherwise. The output buffer grows with the data
// actually inflated (never with a size claimed by a header), up to limit.
func gunzipIfNeeded(b []byte, name string, limit int64) ([]byte, error) {
	if !isGzip(b) {
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: bad gzip header: %v", name, err)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: corrupt gzip stream after %d bytes: %v", name, n, err)
	}
	if n > limit {
		return nil, fmt.Errorf("%s: decompresses to more than %d bytes", name, limit)
	}
	return buf.Bytes(), nil
}
