package model

// Checks aimed at mutants gremlins left alive (issue 12, item 5).

import "testing"

// TestEvaluateRejectsShortInput: X must hold n·d values and Y n labels.
func TestEvaluateRejectsShortInput(t *testing.T) {
	m := NewLogReg(2, 2, CrossEntropy)
	p := make([]float64, m.NumParams())
	for _, tc := range []struct {
		name string
		x    []float64
		y    []int
	}{{"short X", []float64{1, 2, 3}, []int{0, 1}}, {"short Y", []float64{1, 2, 3, 4}, []int{0}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Evaluate did not panic", tc.name)
				}
			}()
			Evaluate(m, p, tc.x, tc.y, 2, 2)
		}()
	}
	// Exactly n·d values and n labels are enough: p = 0 gives loss ln 2
	// and, with ties resolved to class 0, accuracy ½ on labels (0, 1).
	l, a := Evaluate(m, p, []float64{1, 2, 3, 4}, []int{0, 1}, 2, 2)
	if a != 0.5 || l < 0.693147 || l > 0.693148 {
		t.Errorf("Evaluate = %v, %v; want ln 2, 0.5", l, a)
	}
}
