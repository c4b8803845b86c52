package runner

import (
	"fmt"
	"io"
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

type progress struct {
	w            io.Writer
	total, ndone int
	failed       int
	skipped      int
	start        time.Time
	last         time.Time
}

func newProgress(w io.Writer, total, skipped int) *progress {
	return &progress{w: w, total: total, skipped: skipped, start: time.Now()}
}

func (p *progress) step(failed bool) {
	p.ndone++
	if failed {
		p.failed++
	}
	if p.w == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && p.ndone < p.total {
		return
	}
	p.last = now
	const width = 30
	filled := width * p.ndone / max(p.total, 1)
	eta := ""
	if p.ndone > 0 && p.ndone < p.total {
		per := now.Sub(p.start) / time.Duration(p.ndone)
		eta = fmt.Sprintf(" eta %s", (per * time.Duration(p.total-p.ndone)).Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), p.ndone, p.total)
	if p.skipped > 0 {
		fmt.Fprintf(p.w, ", %d reused", p.skipped)
	}
	if p.failed > 0 {
		fmt.Fprintf(p.w, ", %d failed", p.failed)
	}
	fmt.Fprintf(p.w, "%s   ", eta)
}

func (p *progress) done() {
	if p.w != nil && p.total > 0 {
		fmt.Fprintln(p.w)
	}
}
