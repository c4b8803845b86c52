package linalg

// AddScaledProduct adds (a_k·d)·f to dst_k for every k < len(a), rounding
// like gonum's floats.ScaleTo(g, d, a) followed by floats.AddScaled(dst, f,
// g) on amd64 — g_k = a_k·d, then (g_k·f) + dst_k, three roundings per
// entry — without writing g: the clipped sum of DP-SGD adds f_i·(δ_ij·a_i)
// for every example i and unit j this way. dst must be at least as long
// as a.
func AddScaledProduct(dst, a []float64, d, f float64) {
	dst = dst[:len(a)]
	if len(a) == 0 {
		return
	}
	addScaledProduct(dst, a, d, f)
}

// addScaledProductGo is the pure-Go AddScaledProduct (the float64
// conversions forbid fused multiply-adds).
func addScaledProductGo(dst, a []float64, d, f float64) {
	for k, x := range a {
		dst[k] += float64(float64(x*d) * f)
	}
}
