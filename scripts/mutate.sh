#!/usr/bin/env bash
# Mutation score of fedrepro's numeric packages (issue 12, item 5).
#
# Runs gremlins (pinned version) over each package on its own — its
# subpackages' files are excluded, so algorithms/dp does not re-mutate
# algorithms/dp/accountant — and prints one table:
#
#   package, mutants, killed, lived, not covered, timed out, not viable, score
#
# score = (killed + timed out) / (killed + timed out + lived + not covered):
# mutants no test covers count against the package. Not-viable mutants (that
# do not compile) count neither way.
#
# Usage: scripts/mutate.sh [package-dir ...]   (default: the list below)
# Environment:
#   GREMLINS   command that runs gremlins (default: go run …@v0.6.0)
#   MUTATE_OUT directory for the per-package logs (default: a temp dir);
#              each log lists every mutant with its status and position.
# Slow (each mutant reruns the package's tests; one worker, niced); not CI.
#
# Timeouts: gremlins stops a mutant's test run after (duration of its initial
# coverage run) × coefficient and counts it as killed. A cached coverage run
# (go test's result cache) would make that limit a fraction of a second and
# "kill" every mutant by timeout, so test caching is off (GOFLAGS -count=1),
# and the coefficient is 10 rather than gremlins' 3, so that a loaded machine
# does not pass slow runs off as kills.
set -euo pipefail
cd "$(dirname "$0")/.."

GREMLINS=${GREMLINS:-go run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0}
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
OUT=${MUTATE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/fedrepro-mutate.XXXXXX")}
mkdir -p "$OUT"

if [ $# -gt 0 ]; then
  pkgs=("$@")
else
  pkgs=()
  for p in fl upcycled dp dpfl haar normec fedddpm diffusion optim model data; do
    pkgs+=("algorithms/$p")
  done
fi

rows=()
for pkg in "${pkgs[@]}"; do
  pkg=${pkg#./}
  pkg=${pkg%/}
  if [ ! -d "$pkg" ]; then
    echo "mutate: no package directory $pkg" >&2
    exit 1
  fi
  log="$OUT/$(echo "$pkg" | tr / _).log"
  echo "mutate: $pkg (log: $log)" >&2
  # -E is matched against paths relative to the package directory: any path
  # with a slash lies in a subpackage (or testdata), which is not this package.
  # shellcheck disable=SC2086
  if ! nice $GREMLINS unleash --workers 1 --timeout-coefficient 10 -E '/' "./$pkg" >"$log" 2>&1; then
    echo "mutate: gremlins failed on $pkg; see $log" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  # Final summary lines of gremlins:
  #   Killed: K, Lived: L, Not covered: N
  #   Timed out: T, Not viable: V, Skipped: S
  row=$(awk -v pkg="$pkg" '
    /^Killed: /   { gsub(",", ""); k = $2; l = $4; n = $7 }
    /^Timed out: / { gsub(",", ""); t = $3; v = $6 }
    END {
      if (k == "") { exit 1 }
      den = k + t + l + n
      score = (den > 0) ? sprintf("%.1f%%", 100 * (k + t) / den) : "n/a"
      printf "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", pkg, k + l + n + t + v, k, l, n, t, v, score
    }' "$log") || { echo "mutate: cannot read gremlins' summary in $log" >&2; exit 1; }
  rows+=("$row")
done

fmt='%-24s %8s %7s %6s %12s %10s %11s %7s\n'
# shellcheck disable=SC2059
printf "$fmt" package mutants killed lived "not covered" "timed out" "not viable" score
for row in "${rows[@]}"; do
  IFS=$'\t' read -r -a f <<<"$row"
  # shellcheck disable=SC2059
  printf "$fmt" "${f[@]}"
done
echo
echo "Surviving mutants (LIVED, NOT COVERED) per package are in $OUT/*.log:"
echo "  grep -E 'LIVED|NOT COVERED' $OUT/*.log"
