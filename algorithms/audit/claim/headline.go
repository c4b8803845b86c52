package claim

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// paperMethod recomputes the accountant the paper names.
func paperMethod(c *Claim, res map[string]result, rs []resolved) (*PaperMethod, error) {
	name := c.AccountantUsed.Name.S
	from := func(m string) *PaperMethod {
		x := res[m]
		if x.err != nil || x.fallback {
			return nil // a work-cap fallback is not the paper's accountant
		}
		return &PaperMethod{Method: name, Epsilon: x.val}
	}
	switch name {
	case "rdp-classic", "moments":
		return from(MRDPClassic), nil
	case "rdp-improved":
		return from(MRDP), nil
	case "pld":
		return from(MPLD), nil
	case "prv":
		return from(MPRV), nil
	case "zcdp":
		return from(MZCDP), nil
	case "gdp-clt":
		var sum float64
		for _, r := range rs {
			var mu2 float64
			for _, p := range r.phases {
				if p.mech != "gaussian" || p.visible || (p.sampling != "poisson" && p.sampling != "full" && !(p.sampling == "clients" && p.rule == "poisson")) {
					return nil, nil
				}
				mu, err := accountant.PoissonGDPMu(p.q, effZ(p.z, r.nb), p.steps)
				if err != nil {
					return nil, nil
				}
				if p.q == 1 {
					mu = math.Sqrt(float64(p.steps)) / effZ(p.z, r.nb)
				}
				mu2 += mu * mu
			}
			e, err := accountant.GDPEpsilon(math.Sqrt(mu2), r.delta)
			if err != nil {
				return nil, nil
			}
			sum += e
		}
		return &PaperMethod{Method: name, Epsilon: sum / float64(len(rs))}, nil
	case "closed-form":
		f := c.AccountantUsed.Formula
		if !f.Set {
			return nil, nil
		}
		var sum float64
		for _, r := range rs {
			e, err := number(f, "accountant_used.formula", r.env)
			if err != nil {
				return nil, err
			}
			sum += e
		}
		return &PaperMethod{Method: name, Epsilon: sum / float64(len(rs))}, nil
	}
	return nil, nil
}

// combine gives a case's verdict from its readings', and the reading its
// headline rests on: when every reading is optimistic, the one with the
// smallest upper bound (the claim fails even under the reading most
// favourable to it); when every one is conservative, the one with the
// largest loosest bound; otherwise the first reading (the claim file's
// primary one). A reading under another neighbouring relation than the
// case states is labelled so in the summary.
func combine(cr CaseReport) (string, string, *Headline) {
	by := map[string][]string{}
	for _, r := range cr.Readings {
		name := r.Reading
		if r.RelationDiffers {
			name += " (" + r.Neighbouring + ")"
		}
		by[r.Verdict] = append(by[r.Verdict], name)
	}
	pick := 0
	if len(by) == 1 {
		for i, r := range cr.Readings {
			switch r.Verdict {
			case Optimistic:
				if r.Upper.Epsilon < cr.Readings[pick].Upper.Epsilon {
					pick = i
				}
			case Conservative:
				if r.Loosest.Epsilon > cr.Readings[pick].Loosest.Epsilon {
					pick = i
				}
			}
		}
	}
	h := cr.Readings[pick]
	head := &Headline{Reading: h.Reading, Method: h.Upper.Method, Epsilon: ptr(h.Upper.Epsilon), Unbounded: math.IsInf(h.Upper.Epsilon, 1)}
	if len(by) == 1 {
		v := h.Verdict
		switch {
		case len(cr.Readings) == 1:
			head.Why = "the only reading"
			return v, v + ": " + h.Reason, head
		case v == Optimistic:
			head.Why = "the reading most favourable to the claim (smallest upper bound)"
			return v, fmt.Sprintf("%s under every reading (%d), even the most favourable, %s: %s", v, len(cr.Readings), h.Reading, h.Reason), head
		case v == Conservative:
			head.Why = "the reading least favourable to the claim (largest loosest bound)"
			return v, fmt.Sprintf("%s under every reading (%d), even the least favourable, %s: %s", v, len(cr.Readings), h.Reading, h.Reason), head
		}
		head.Why = "the first reading"
		return v, fmt.Sprintf("%s under every reading (%d); %s: %s", v, len(cr.Readings), h.Reading, h.Reason), head
	}
	head.Why = "the first reading; the readings disagree"
	var parts []string
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s under %s", k, strings.Join(by[k], ", ")))
	}
	return Underspecified, "underspecified: the readings disagree — " + strings.Join(parts, "; "), head
}
