package paper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// GoldenPath is golden/<paper>/<scale>/results.json under root.
func GoldenPath(root, paper, scale string) string {
	return filepath.Join(root, paper, scale, "results.json")
}

// Fresh snapshots the gated values of the scale's results, running what is
// missing first when run is true.
func (p *Paper) Fresh(ctx context.Context, o Options, run bool) (*gate.Snapshot, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	pl, runs, err := p.plan(o)
	if err != nil {
		return nil, err
	}
	if run {
		if _, err := p.execute(ctx, o, pl, runs); err != nil {
			return nil, err
		}
	}
	results, missing, rej := runner.Load(runs, o.ResultsDir)
	if rej.Count() > 0 {
		return nil, fmt.Errorf("%w: %d stored results of %s/%s cannot be used: %s", ErrIncomplete, rej.Count(), p.Name, o.Scale, rej.String())
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %d of %d runs of %s/%s have no result in %s (first: %s)", ErrIncomplete, len(missing), len(runs), p.Name, o.Scale, o.ResultsDir, missing[0].ID())
	}
	sayNotes(o, pl)
	return gate.Collect(p.Name, o.Scale, p.Gates, results)
}

// Comparison is a scale's results set against a golden snapshot: the
// exact tier's differences (what CI gates on) and the review tier's rows.
type Comparison struct {
	Golden, Fresh *gate.Snapshot
	// RelTol is the exact tier's tolerance (0: bit for bit) and TolNote
	// says why.
	RelTol  float64
	TolNote string
	Diffs   []gate.Diff
}

// Review returns the review tier's rows (paired by seed).
func (c *Comparison) Review() []gate.ReviewRow { return gate.Review(c.Golden, c.Fresh) }

// ReadGolden reads the snapshot at path, or golden/<paper>/<scale>/results.json
// when path is a directory (the golden root).
func (p *Paper) ReadGolden(path, scale string) (*gate.Snapshot, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = GoldenPath(path, p.Name, scale)
	}
	g, err := gate.Read(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no golden results for %s/%s at %s (record them with `make golden PAPER=%s SCALE=%s`)", p.Name, scale, file, p.Name, scale)
		}
		return nil, err
	}
	if g.Paper != p.Name || g.Scale != scale {
		return nil, fmt.Errorf("%s holds the golden of %s/%s, not %s/%s", file, g.Paper, g.Scale, p.Name, scale)
	}
	return g, nil
}

// Compare checks the scale's results against the golden snapshot at
// golden (a file, or the golden root directory).
func (p *Paper) Compare(ctx context.Context, o Options, golden string, run bool) (*Comparison, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	g, err := p.ReadGolden(golden, o.Scale)
	if err != nil {
		return nil, err
	}
	fresh, err := p.Fresh(ctx, o, run)
	if err != nil {
		return nil, err
	}
	tol, note := gate.Tolerance(g)
	return &Comparison{Golden: g, Fresh: fresh, RelTol: tol, TolNote: note, Diffs: gate.Exact(g, fresh, tol)}, nil
}

// UpdateGolden snapshots the scale's results (running what is missing) and
// rewrites golden/<paper>/<scale>/results.json under goldenRoot. When a
// previous golden exists it returns the review of old against new, for the
// reviewer of the change.
func (p *Paper) UpdateGolden(ctx context.Context, o Options, goldenRoot string) (string, []gate.ReviewRow, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return "", nil, err
	}
	fresh, err := p.Fresh(ctx, o, true)
	if err != nil {
		return "", nil, err
	}
	path := GoldenPath(goldenRoot, p.Name, o.Scale)
	var review []gate.ReviewRow
	if old, err := gate.Read(path); err == nil {
		review = gate.Review(old, fresh)
	}
	return path, review, gate.Write(path, fresh)
}
