package accountant

import (
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// FFT plans are shared by the whole process. Building a plan of length n
// (gonum's fourier.NewFFT: the factorisation of n and its n twiddle
// factors) costs as much as a transform, and every PLD and PRV evaluation
// used to build its own: a calibration evaluates dozens of accountants at
// the same grid sizes. A plan's twiddles depend on n alone and a
// transform overwrites its scratch half before reading it, so a reused
// plan gives the bits of a fresh one (TestFFTPlanReuseSameBits). A plan is
// not safe for concurrent use: getFFT hands each caller its own and
// putFFT returns it; sync.Pool lets the garbage collector drop idle ones.
var fftPlans sync.Map // int → *sync.Pool of *fourier.FFT

// getFFT returns an FFT plan of length n for the caller's exclusive use.
func getFFT(n int) *fourier.FFT {
	p, _ := fftPlans.LoadOrStore(n, &sync.Pool{})
	if f, ok := p.(*sync.Pool).Get().(*fourier.FFT); ok {
		return f
	}
	return fourier.NewFFT(n)
}

// putFFT returns a plan from getFFT for reuse.
func putFFT(f *fourier.FFT) {
	if p, ok := fftPlans.Load(f.Len()); ok {
		p.(*sync.Pool).Put(f)
	}
}
