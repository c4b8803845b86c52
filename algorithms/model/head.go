package model

import "math"

// headLoss returns the loss of one example with class scores z and label y
// under mode l. When delta is not nil it also writes dloss/dz into delta.
// work is scratch of len(z); z, delta and work may not alias.
//
// CrossEntropy:  loss = logsumexp(z) − z_y,  dloss/dz = softmax(z) − e_y.
//
// DoubleSoftmax: s = softmax(z), loss = logsumexp(s) − s_y (torch's
// CrossEntropyLoss applied to the probabilities a Softmax layer outputs),
// u = softmax(s) − e_y and dloss/dz = J_softmax(z)ᵀ u = s ⊙ (u − ⟨s, u⟩)
// (the softmax Jacobian diag(s) − s sᵀ is symmetric). s ∈ [0,1], so the
// second softmax needs no shift.
func headLoss(l Loss, z []float64, y int, delta, work []float64) float64 {
	if y < 0 || y >= len(z) {
		panic("model: label out of range")
	}
	k := len(z)
	if k == 2 {
		return headLoss2(l, z, y, delta)
	}
	e := work[:k]
	mx := z[0]
	for _, v := range z[1:] {
		mx = max(mx, v)
	}
	var sum float64
	for c, v := range z {
		e[c] = math.Exp(v - mx)
		sum += e[c]
	}
	switch l {
	case CrossEntropy:
		if delta != nil {
			delta = delta[:k]
			inv := 1 / sum
			for c, ec := range e {
				delta[c] = ec * inv
			}
			delta[y]--
		}
		return math.Log(sum) + mx - z[y]
	case DoubleSoftmax:
		// s = e/sum (kept in work), E_c = exp(s_c), S = Σ E_c, q = E/S = softmax(s).
		inv := 1 / sum
		for c := range e {
			e[c] *= inv
		}
		var s2 float64
		if delta == nil {
			for _, sc := range e {
				s2 += math.Exp(sc)
			}
			return math.Log(s2) - e[y]
		}
		delta = delta[:k]
		for c, sc := range e {
			ec := math.Exp(sc)
			delta[c] = ec
			s2 += ec
		}
		inv2 := 1 / s2
		// delta holds q for a moment; dot = ⟨s, q − e_y⟩.
		dot := -e[y]
		for c, sc := range e {
			q := delta[c] * inv2
			delta[c] = q
			dot += sc * q
		}
		for c, sc := range e {
			u := delta[c]
			if c == y {
				u--
			}
			delta[c] = sc * (u - dot)
		}
		return math.Log(s2) - e[y]
	}
	panic("model: unknown loss " + l.String())
}

// softmaxTo writes softmax(z) into out (len(z)); z and out may alias.
func softmaxTo(out, z []float64) {
	out = out[:len(z)]
	mx := z[0]
	for _, v := range z[1:] {
		mx = max(mx, v)
	}
	var sum float64
	for c, v := range z {
		out[c] = math.Exp(v - mx)
		sum += out[c]
	}
	inv := 1 / sum
	for c := range out {
		out[c] *= inv
	}
}

// argmax returns the index of the first largest entry.
func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// headLoss2 is headLoss for two classes, where softmax is a sigmoid of the
// score difference d = z_1 − z_0 (the binary synthetic tasks of Upcycled-FL
// spend most of their time here, and exp dominates). CrossEntropy shares one
// e = exp(−|d|) between σ(d) and the loss softplus(±d) = max(±d, 0) +
// log1p(e). DoubleSoftmax: s_1 = σ(d); the second softmax sees
// d₂ = s_1 − s_0 ∈ [−1, 1], so q_1 = σ(d₂) ∈ [0.27, 0.73] and the loss
// −log q_y is computed directly without loss of precision.
func headLoss2(l Loss, z []float64, y int, delta []float64) float64 {
	return headLoss2Opt(l, z, y, delta, true)
}

// headLoss2Opt is headLoss2 that skips the loss (returning 0) when
// wantLoss is false; delta is the same either way.
func headLoss2Opt(l Loss, z []float64, y int, delta []float64, wantLoss bool) float64 {
	d := z[1] - z[0]
	switch l {
	case CrossEntropy:
		e := math.Exp(-math.Abs(d))
		var p1 float64
		if d >= 0 {
			p1 = 1 / (1 + e)
		} else {
			p1 = e / (1 + e)
		}
		if delta != nil {
			delta[0], delta[1] = 1-p1, p1
			delta[y]--
		}
		if !wantLoss {
			return 0
		}
		x := d // loss = softplus(d) for y = 0, softplus(−d) for y = 1
		if y == 1 {
			x = -d
		}
		return max(x, 0) + math.Log1p(e)
	case DoubleSoftmax:
		var s1 float64
		if d >= 0 {
			s1 = 1 / (1 + math.Exp(-d))
		} else {
			e := math.Exp(d)
			s1 = e / (1 + e)
		}
		s0 := 1 - s1
		q1 := 1 / (1 + math.Exp(s0-s1))
		q0 := 1 - q1
		if delta != nil {
			u0, u1 := q0, q1
			if y == 0 {
				u0--
			} else {
				u1--
			}
			dot := s0*u0 + s1*u1
			delta[0], delta[1] = s0*(u0-dot), s1*(u1-dot)
		}
		if !wantLoss {
			return 0
		}
		if y == 0 {
			return -math.Log(q0)
		}
		return -math.Log(q1)
	}
	panic("model: unknown loss " + l.String())
}
