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

// dsGrads overwrites each score difference sc[i] with the DoubleSoftmax
// gradient g of head2 for label Y[rows[i]] (Y[i] when rows is nil) and
// returns Σg. It is head2's DoubleSoftmax branch for training, without the
// loss, written for a whole mini-batch and without data-dependent branches
// (the sign of d and the label are random, so branches on them would be
// mispredicted half the time): s_0·s_1 = σ(|d|)·σ(−|d|) does not depend on
// the sign, t = s_1 − s_0 = sign(d)·(σ(|d|) − σ(−|d|)), and u_1 = q_1 − y.
func dsGrads(sc []float64, Y []int, rows []int) float64 {
	var sum float64
	for i, d := range sc {
		k := i
		if rows != nil {
			k = rows[i]
		}
		a := -math.Abs(d)
		var e float64
		if a >= expUnderBelow {
			e = expCore(a)
		} else {
			e = math.Exp(a)
		}
		inv := 1 / (1 + e)
		sPos, sNeg := inv, e*inv
		et := expCore(-math.Copysign(sPos-sNeg, d)) // e^{s_0 − s_1}, argument in [−1, 1]
		q1 := 1 / (1 + et)
		g := 2 * sPos * sNeg * (q1 - float64(Y[k]))
		sc[i] = g
		sum += g
	}
	return sum
}

// headLoss2 is headLoss for two classes: it writes dloss/dz = (−g, g)
// with g, the loss from head2 of the score difference z_1 − z_0.
func headLoss2(l Loss, z []float64, y int, delta []float64) float64 {
	g, loss, _, _ := head2(l, z[1]-z[0], y, true)
	if delta != nil {
		delta[0], delta[1] = -g, g
	}
	return loss
}

// head2 is the two-class head as a function of the score difference
// d = z_1 − z_0 (softmax of two scores is a sigmoid of d, so the loss
// depends on d alone and dloss/dz_0 = −dloss/dz_1). It returns
// g = dloss/dd, the loss when wantLoss (else 0), and the class
// probabilities s_0 = σ(−d), s_1 = σ(d) (the network's output), both
// computed from e = e^{−|d|} without cancellation. The binary synthetic
// tasks of Upcycled-FL spend most of their time here; the exponentials
// dominate, so they are inlined (expCore).
//
// CrossEntropy: g = s_1 − [y=1], loss = softplus(∓d) = max(∓d, 0) +
// log1p(e).
//
// DoubleSoftmax: the second softmax sees t = s_1 − s_0 ∈ [−1, 1], so
// q_1 = σ(t) ∈ [0.27, 0.73] and the loss −log q_y needs no care. With
// u = q − e_y (u_0 = −u_1) the chain rule through the first softmax gives
// g = s_1(u_1 − ⟨s, u⟩) = 2·s_0·s_1·u_1.
func head2(l Loss, d float64, y int, wantLoss bool) (g, loss, s0, s1 float64) {
	a := -math.Abs(d)
	var e float64
	if a >= expUnderBelow {
		e = expCore(a)
	} else {
		e = math.Exp(a)
	}
	inv := 1 / (1 + e)
	s1, s0 = inv, e*inv
	if d < 0 {
		s1, s0 = s0, s1
	}
	switch l {
	case CrossEntropy:
		g = s1
		if y == 1 {
			g = -s0
		}
		if wantLoss {
			x := d // loss = softplus(d) for y = 0, softplus(−d) for y = 1
			if y == 1 {
				x = -d
			}
			loss = max(x, 0) + math.Log1p(e)
		}
		return g, loss, s0, s1
	case DoubleSoftmax:
		// As dsGrads computes it (bit for bit): s_0 − s_1 = −sign(d)·(σ(|d|) −
		// σ(−|d|)), s_0·s_1 = σ(|d|)·σ(−|d|), u_1 = q_1 − y.
		et := expCore(s0 - s1) // the argument lies in [−1, 1]
		q1 := 1 / (1 + et)
		q0 := et * q1
		g = 2 * s0 * s1 * (q1 - float64(y))
		if wantLoss {
			if y == 0 {
				loss = -math.Log(q0)
			} else {
				loss = -math.Log(q1)
			}
		}
		return g, loss, s0, s1
	}
	panic("model: unknown loss " + l.String())
}
