package paper

import (
	"fmt"
	"math"
	"testing"
)

// TestEpsFormat pins the cases every paper's ε printing shares and the
// switch at Large, for the two formats the papers use (haar: 3 significant
// digits, 2 from 1000; normec: 2 decimals, 3 significant digits from 1e4).
func TestEpsFormat(t *testing.T) {
	sig := EpsFormat{Large: 1000, LargeVerb: "%.2g", Verb: "%.3g"}
	dec := EpsFormat{Large: 1e4, LargeVerb: "%.3g", Verb: "%.2f"}
	for _, tc := range []struct {
		f    EpsFormat
		e    float64
		want string
	}{
		{sig, math.Inf(1), "∞"},
		{sig, math.NaN(), "—"},
		{sig, 1.23456, "1.23"},
		{sig, 999.4, "999"},
		{sig, 1000, "1e+03"},
		{sig, 12345, "1.2e+04"},
		{sig, math.Inf(-1), "-Inf"},
		{dec, math.Inf(1), "∞"},
		{dec, math.NaN(), "—"},
		{dec, 7.999, "8.00"},
		{dec, 9999.5, "9999.50"},
		{dec, 1e4, "1e+04"},
		{dec, 123456, "1.23e+05"},
	} {
		if got := tc.f.Format(tc.e); got != tc.want {
			t.Errorf("%+v.Format(%v) = %q, want %q", tc.f, tc.e, got, tc.want)
		}
	}
}

// TestAppendNonEmpty checks that the empty items are dropped and the
// others kept in order after what out holds.
func TestAppendNonEmpty(t *testing.T) {
	for _, tc := range []struct {
		out, items []string
		want       string
	}{
		{nil, nil, "[]"},
		{nil, []string{"", ""}, "[]"},
		{[]string{"a"}, []string{"", "b", "", "c"}, "[a b c]"},
		{[]string{"a", ""}, []string{"b"}, "[a  b]"},
	} {
		if got := fmt.Sprint(AppendNonEmpty(tc.out, tc.items...)); got != tc.want {
			t.Errorf("AppendNonEmpty(%q, %q) = %s, want %s", tc.out, tc.items, got, tc.want)
		}
	}
}
