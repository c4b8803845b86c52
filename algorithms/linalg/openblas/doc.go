// Package openblas is the measured alternative to linalg's Go kernels:
// OpenBLAS's cblas_dgemm through cgo, behind the build tag openblas, for
// benchmarks and the comparison in ARCHITECTURE.md only. Nothing else
// imports it, so the project still builds with Go alone (no C compiler, no
// BLAS library); without the tag the package is this file.
//
//	apt-get install libopenblas-dev
//	go test -tags openblas ./algorithms/linalg/openblas/ -bench . -run .
//
// OpenBLAS runs single-threaded here (openblas_set_num_threads(1)): the
// runner parallelises across runs, one goroutine per model.
package openblas
