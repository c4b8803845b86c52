package accountant

import "strconv"

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
