//go:build openblas && cgo

package openblas

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
void openblas_set_num_threads(int);
char* openblas_get_corename(void);
char* openblas_get_config(void);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func init() { C.openblas_set_num_threads(1) }

// Core is the name of the kernel set OpenBLAS picked for this CPU (its
// rounding depends on it: FMA or not, blocking and summation order).
func Core() string { return C.GoString(C.openblas_get_corename()) }

// Config is OpenBLAS's build configuration string.
func Config() string { return C.GoString(C.openblas_get_config()) }

// Dgemm is C = α·op(A)·op(B) + β·C for row-major matrices by
// cblas_dgemm (same arguments as linalg.Gemm).
func Dgemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, n := c.Rows, c.Cols
	k := a.Cols
	if tA == blas.Trans {
		k = a.Rows
	}
	if m == 0 || n == 0 {
		return
	}
	ta, tb := C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans), C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans)
	if tA == blas.Trans {
		ta = C.CblasTrans
	}
	if tB == blas.Trans {
		tb = C.CblasTrans
	}
	ptr := func(g blas64.General) *C.double {
		if len(g.Data) == 0 {
			return nil
		}
		return (*C.double)(&g.Data[0])
	}
	C.cblas_dgemm(C.CblasRowMajor, ta, tb, C.blasint(m), C.blasint(n), C.blasint(k), C.double(alpha),
		ptr(a), C.blasint(a.Stride), ptr(b), C.blasint(b.Stride), C.double(beta), ptr(c), C.blasint(c.Stride))
}
