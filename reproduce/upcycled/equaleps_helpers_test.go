package upcycled

import "github.com/fedrepro/fedrepro/algorithms/dp/accountant"

func accountantGaussianEps(z, delta float64) (float64, error) {
	return accountant.GaussianEpsilon(z, delta)
}
