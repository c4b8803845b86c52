package runner

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// IsTerminal reports whether w is a character device (an interactive
// terminal) and the CI environment variable is unset: the condition for
// showing a progress bar.
func IsTerminal(w io.Writer) bool {
	if os.Getenv("CI") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// LogInterval is the shortest time between two progress lines when the
// output is not a terminal (a CI log, a pipe, a file).
const LogInterval = 10 * time.Second

// progress reports runs done: a bar redrawn in place on a terminal, and
// otherwise one line at most every LogInterval (runs done/total, rate,
// ETA), so a CI log shows a reproduction moving without flooding.
//
// The ETA extrapolates the elapsed time by estimated cost, not by run
// count, when the runs' costs are known: the pool takes the longest runs
// first, so a count-based ETA would start several times too long (a
// quarter of the runs may hold half of the work).
type progress struct {
	w             io.Writer
	bar           bool
	total, ndone  int
	failed        int
	skipped       int
	wTotal, wDone float64 // estimated cost of all runs and of the runs done (0: count runs)
	start         time.Time
	last          time.Time
	now           func() time.Time
}

// newProgress reports on total runs (skipped reused besides them);
// costs, when not nil, are the runs' estimated costs (any unit), which
// step then receives one by one.
func newProgress(w io.Writer, bar bool, total, skipped int, costs []float64) *progress {
	p := &progress{w: w, bar: bar, total: total, skipped: skipped, now: time.Now}
	for _, c := range costs {
		if !(c > 0) || math.IsInf(c, 0) {
			p.wTotal = 0
			break
		}
		p.wTotal += c
	}
	p.start, p.last = p.now(), p.now()
	return p
}

// step records a run done, of estimated cost cost (ignored when the
// progress has no costs).
func (p *progress) step(failed bool, cost float64) {
	p.ndone++
	p.wDone += cost
	if failed {
		p.failed++
	}
	if p.w == nil {
		return
	}
	now := p.now()
	if p.bar {
		if now.Sub(p.last) < 100*time.Millisecond && p.ndone < p.total {
			return
		}
		p.last = now
		const width = 30
		filled := width * p.ndone / max(p.total, 1)
		fmt.Fprintf(p.w, "\r[%s%s] %s   ", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), p.status(now))
		return
	}
	if now.Sub(p.last) < LogInterval || p.ndone == p.total {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "progress: %s\n", p.status(now))
}

// status is "12/40 runs, 3 reused, 1.5 runs/s, eta 19s".
func (p *progress) status(now time.Time) string {
	s := fmt.Sprintf("%d/%d runs", p.ndone, p.total)
	if p.skipped > 0 {
		s += fmt.Sprintf(", %d reused", p.skipped)
	}
	if p.failed > 0 {
		s += fmt.Sprintf(", %d failed", p.failed)
	}
	if el := now.Sub(p.start); p.ndone > 0 && el > 0 {
		s += fmt.Sprintf(", %.3g runs/s", float64(p.ndone)/el.Seconds())
		if p.ndone < p.total {
			left := float64(p.total-p.ndone) / float64(p.ndone)
			if p.wTotal > 0 && p.wDone > 0 {
				left = (p.wTotal - p.wDone) / p.wDone
			}
			s += fmt.Sprintf(", eta %s", time.Duration(left*float64(el)).Round(time.Second))
		}
	}
	return s
}

func (p *progress) done() {
	// When every run failed the error says it all: no progress line.
	if p.w == nil || p.total == 0 || p.failed == p.ndone {
		return
	}
	if p.bar {
		fmt.Fprintln(p.w)
		return
	}
	fmt.Fprintf(p.w, "progress: %s in %s\n", p.status(p.now()), p.now().Sub(p.start).Round(100*time.Millisecond))
}
