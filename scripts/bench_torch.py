#!/usr/bin/env python3
"""Time fedrepro's MLP benchmarks in PyTorch and print the ratios.

The work is that of algorithms/model's Go benchmarks: an MLP 784-196-10
(Linear, ReLU, Dropout 0.5, Linear, Softmax, CrossEntropyLoss: the
Upcycled-FL FEMNIST network, whose loss is the "double softmax"), on
MNIST-like inputs (80 % zeros), one thread:

  batch gradient n=32/128   forward + backward of the mean loss
                            (Go: BenchmarkMLPLossGrad)
  per-example gradients     the per-example weight gradients as Opacus's
                            hooks compute them (einsum of activations and
                            backpropagated errors; Go:
                            BenchmarkMLPPerExampleGrads), per example
  clipped sum n=32          DP-SGD's Σ_i min(1, C/‖g_i‖)·g_i from the
                            materialised per-example gradients (Go:
                            BenchmarkMLPClippedSum: materialised before,
                            exact and ghost after); PyTorch computes it
                            from materialised gradients and, against Go's
                            ghost path, by ghost norms too

in float64 and float32. Times are CPU times of the process
(time.process_time), compared with the Go benchmarks' cpu-ns/op and
cpu-ns/example metrics (wall-time ns/op when those are missing): on a
machine shared with other work CPU time measures the work, wall time the
neighbours. It is not part of the build: it needs Debian's
python3-torch (apt-get install python3-torch) and is skipped otherwise.

Usage:
  go test ./algorithms/model/ -run '^$' -bench 'MLPLossGrad|MLPPerExample|MLPClipped' -count 6 > go.txt
  /usr/bin/python3 scripts/bench_torch.py go.txt

Without an argument it only prints PyTorch's timings. Each figure is the
median of repeated timings (best-of is avoided on purpose: the Go side
reports means).
"""

import os
import re
import statistics
import sys
import time

# One thread everywhere: OpenBLAS and OpenMP read these at load time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

try:
    import torch
except ImportError:  # not installed: nothing to compare
    print("bench_torch: PyTorch is not installed (apt-get install python3-torch); skipped")
    sys.exit(0)

torch.set_num_threads(1)
torch.manual_seed(9)


clock = time.process_time


def timeit(fn, min_time=0.5, reps=7):
    """Median CPU seconds per call of fn over reps rounds of at least min_time/reps each."""
    fn()
    fn()
    n = 1
    while True:
        t = clock()
        for _ in range(n):
            fn()
        el = clock() - t
        if el >= min_time / reps:
            break
        n *= 2
    samples = []
    for _ in range(reps):
        t = clock()
        for _ in range(n):
            fn()
        samples.append((clock() - t) / n)
    return statistics.median(samples)


def setup(n, dtype):
    x = torch.randn(n, 784, dtype=dtype).abs() / 3
    x[torch.rand(n, 784) < 0.8] = 0
    y = torch.randint(0, 10, (n,))
    w1 = (torch.randn(196, 784, dtype=dtype) * 0.01).requires_grad_()
    b1 = torch.zeros(196, dtype=dtype).requires_grad_()
    w2 = (torch.randn(10, 196, dtype=dtype) * 0.01).requires_grad_()
    b2 = torch.zeros(10, dtype=dtype).requires_grad_()
    return x, y, (w1, b1, w2, b2)


def loss_fn(x, y, params, reduction="mean"):
    w1, b1, w2, b2 = params
    z1 = torch.nn.functional.linear(x, w1, b1)
    h = torch.nn.functional.dropout(torch.relu(z1), 0.5, training=True)
    z2 = torch.nn.functional.linear(h, w2, b2)
    s = torch.softmax(z2, dim=1)
    return torch.nn.functional.cross_entropy(s, y, reduction=reduction), (z1, h, z2)


def batch_grad(n, dtype):
    x, y, params = setup(n, dtype)

    def step():
        loss, _ = loss_fn(x, y, params)
        gs = torch.autograd.grad(loss, params)
        return gs

    return timeit(step)


def per_example(x, y, params):
    """Per-example gradients the Opacus way: errors δ = dloss_i/dz by one
    backward of the summed loss, then outer products by einsum."""
    loss, (z1, h, z2) = loss_fn(x, y, params, reduction="sum")
    d1, d2 = torch.autograd.grad(loss, (z1, z2))
    g_w1 = torch.einsum("ni,nj->nij", d1, x)
    g_w2 = torch.einsum("ni,nj->nij", d2, h)
    return g_w1, d1, g_w2, d2


def per_example_grads(n, dtype):
    x, y, params = setup(n, dtype)
    return timeit(lambda: per_example(x, y, params)) / n


def clipped_sum(n, dtype, c=0.5):
    x, y, params = setup(n, dtype)

    def step():
        gs = per_example(x, y, params)
        flat = torch.cat([g.reshape(n, -1) for g in gs], dim=1)
        norms = flat.norm(dim=1)
        f = torch.clamp(c / norms, max=1.0)
        return (f[:, None] * flat).sum(0)

    return timeit(step)


def clipped_sum_ghost(n, dtype, c=0.5):
    """The same sum by ghost norms in PyTorch: ‖g_i‖² = Σ_l (‖a_i‖² + 1)·‖δ_i‖²
    per dense layer, then one weighted product per layer."""
    x, y, params = setup(n, dtype)

    def step():
        loss, (z1, h, z2) = loss_fn(x, y, params, reduction="sum")
        d1, d2 = torch.autograd.grad(loss, (z1, z2))
        sq = ((x * x).sum(1) + 1) * (d1 * d1).sum(1) + ((h * h).sum(1) + 1) * (d2 * d2).sum(1)
        f = torch.clamp(c / sq.sqrt(), max=1.0)[:, None]
        d1f, d2f = d1 * f, d2 * f
        return d1f.t() @ x, d1f.sum(0), d2f.t() @ h, d2f.sum(0)

    return timeit(step)


# (label, Go benchmark after, Go benchmark before issue 24, torch work, unit)
WORK = [
    ("batch gradient n=32", "BenchmarkMLPLossGrad/784-196-10-n32/kernel=linalg",
     "BenchmarkMLPLossGrad/784-196-10-n32/kernel=gonum", "batch32", "op"),
    ("batch gradient n=128", "BenchmarkMLPLossGrad/784-196-10-n128/kernel=linalg",
     "BenchmarkMLPLossGrad/784-196-10-n128/kernel=gonum", "batch128", "op"),
    ("per-example gradients, per example", "BenchmarkMLPPerExampleGrads/kernel=linalg",
     "BenchmarkMLPPerExampleGrads/kernel=gonum", "perexample", "example"),
    ("DP-SGD clipped sum n=32, exact (default)", "BenchmarkMLPClippedSum/exact-n32",
     "BenchmarkMLPClippedSum/materialised-n32", "clipsum", "op"),
    ("DP-SGD clipped sum n=32, ghost (opt-in) vs torch ghost", "BenchmarkMLPClippedSum/ghost-n32",
     "BenchmarkMLPClippedSum/materialised-n32", "clipsum_ghost", "op"),
]

# PyTorch's side of each work: the clipped sum from materialised
# per-example gradients, as Opacus computes it, or by ghost norms.
TORCH = {
    "batch32": lambda d: batch_grad(32, d),
    "batch128": lambda d: batch_grad(128, d),
    "perexample": lambda d: per_example_grads(32, d),
    "clipsum": lambda d: clipped_sum(32, d),
    "clipsum_ghost": lambda d: clipped_sum_ghost(32, d),
}


def go_times(path):
    """Mean ns/op (or ns/example) of every benchmark in a go test -bench output."""
    acc = {}
    line_re = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$")
    for line in open(path):
        m = line_re.match(line.strip())
        if not m:
            continue
        name, rest = m.group(1), m.group(2)
        vals = dict((u, float(v)) for v, u in re.findall(r"([\d.e+]+) (\S+)", rest))
        acc.setdefault(name, []).append(vals)
    return acc


def fmt(sec):
    if sec is None:
        return "—"
    if sec >= 1e-3:
        return "%.3f ms" % (sec * 1e3)
    return "%.1f µs" % (sec * 1e6)


def go_median(go, name, unit):
    """Median CPU time (else wall time) in seconds of a Go benchmark, or None."""
    if name not in go:
        return None
    key = "ns/example" if unit == "example" else "ns/op"
    vals = [v["cpu-" + key] for v in go[name] if "cpu-" + key in v]
    if not vals:
        vals = [v[key] for v in go[name] if key in v]
    return statistics.median(vals) * 1e-9 if vals else None


def main():
    go = go_times(sys.argv[1]) if len(sys.argv) > 1 else {}
    blas = "unknown"
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
        blas = "OpenBLAS" if "openblas" in maps else ("MKL" if "mkl" in maps else "other")
    except OSError:
        pass
    torch_times = {}
    rows = []
    for label, after, before, tkey, unit in WORK:
        if tkey not in torch_times:
            torch_times[tkey] = (TORCH[tkey](torch.float64), TORCH[tkey](torch.float32))
        t64, t32 = torch_times[tkey]
        rows.append((label, go_median(go, before, unit), go_median(go, after, unit), t64, t32))
    print("PyTorch %s, %d thread, BLAS %s; CPU times (medians)" % (torch.__version__, torch.get_num_threads(), blas))
    w = max(len(r[0]) for r in rows)
    head = ("work", "go before", "go after", "torch f64", "torch f32", "f64/after", "f32/after")
    print("%-*s  %11s  %11s  %11s  %11s  %9s  %9s" % ((w,) + head))
    for label, b, g, t64, t32 in rows:
        r64 = "%.2f" % (t64 / g) if g else "—"
        r32 = "%.2f" % (t32 / g) if g else "—"
        print("%-*s  %11s  %11s  %11s  %11s  %9s  %9s" % (w, label, fmt(b), fmt(g), fmt(t64), fmt(t32), r64, r32))
    print("f64/after > 1: fedrepro (float64) is faster than PyTorch float64.")


if __name__ == "__main__":
    main()
