package model

import "math"

// ds4Const holds the constants of the AVX2 head kernel (head4_amd64.s),
// each broadcast to four lanes, at offsets fixed there: exp's reduction
// constants and Taylor coefficients (expCore's, so that each lane computes
// expCore bit for bit), 1, 2, expUnderBelow, the sign and absolute-value
// masks and the table-index mask.
var ds4Const [13][4]float64

func initDS4() {
	row := func(i int, v float64) { ds4Const[i] = [4]float64{v, v, v, v} }
	row(0, expInvLn2N)
	row(1, expShift)
	row(2, expLn2Hi)
	row(3, expLn2Lo)
	row(4, 1.0/24)
	row(5, 1.0/6)
	row(6, 0.5)
	row(7, 1)
	row(8, 2)
	row(9, expUnderBelow)
	row(10, math.Float64frombits(1<<63))
	row(11, math.Float64frombits(1<<63-1))
	row(12, math.Float64frombits(expN-1))
}
