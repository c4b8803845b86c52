#!/usr/bin/env bash
# Planted-bug drill: plant each one-line bug below in turn, run the tests of
# the packages it can reach (its algorithm package, the paper's gate and
# claims), say whether they caught it, and restore the file. The plants are
# the eleven issue 12 measured on the old gate plus a few more (haar-weights-table
# alters only the weight table the claim checks read, so no run moves: the
# claims goldens and unit tests, not the result gates, must catch it); a row that
# says "missed" is a hole in the gate. Slow (a few minutes); not CI.
#   scripts/drill.sh            every plant
#   scripts/drill.sh 3 5        plants 3 and 5
#   RUN='^TestGate$' scripts/drill.sh   only the smoke golden gates judge
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

# id | file | perl substitution (applied to the first matching line) | packages
plants=(
"fedprox-mu|algorithms/fl/baselines.go|s/opt\.Prox, opt\.Anchor = f\.Mu,/opt.Prox, opt.Anchor = 1.2*f.Mu,/|./algorithms/fl ./reproduce/upcycled ./proofs/upcycled"
"normec-alpha|algorithms/normec/algorithm.go|s/Norm\(c\.Alpha, dl\)/Norm(2*c.Alpha, dl)/|./algorithms/normec ./reproduce/normec ./proofs/normec"
"upcycled-coefficient|algorithms/upcycled/upcycled.go|s/s\.Global\[i\] \+= c \* /s.Global[i] += 0.9 * c * /|./algorithms/upcycled ./reproduce/upcycled ./proofs/upcycled"
"output-sigma|algorithms/upcycled/privacy.go|s/\treturn o\.Sigma\n\}/\treturn 0.9 * o.Sigma\n}/|./algorithms/upcycled ./reproduce/upcycled ./proofs/upcycled"
"haar-weights-table|algorithms/haar/transform.go|s/wj := float64\(int\(1\) << j\)/wj := float64(int(1) << (j - 1))/|./algorithms/haar ./reproduce/haar ./proofs/haar"
"fedddpm-epochs|algorithms/fedddpm/methods.go|s/c\.opt, epochs, c\.Batch/c.opt, epochs+1, c.Batch/|./algorithms/fedddpm ./reproduce/fedddpm ./proofs/fedddpm"
"rdp-orders-32|algorithms/dp/accountant/rdp.go|s/for a := 12; a <= 63; a\+\+/for a := 12; a <= 32; a++/|./algorithms/dp/accountant ./reproduce/haar ./reproduce/normec ./proofs/haar ./proofs/normec"
"normec-beta|algorithms/normec/algorithm.go|s/floats\.AddScaled\(v, c\.Beta, dl\)/floats.AddScaled(v, 0.9*c.Beta, dl)/|./algorithms/normec ./reproduce/normec ./proofs/normec"
"dpsgd-sigma|algorithms/dpfl/dpsgd.go|s/a\.Mechanism\.Lot\(a\.gbar, rows, clip, sigma,/a.Mechanism.Lot(a.gbar, rows, clip, 0.9*sigma,/|./algorithms/dpfl ./reproduce/haar ./proofs/haar"
"normec-server-beta|algorithms/normec/algorithm.go|s/floats\.AddScaled\(a\.vhat, c\.Beta\/float64\(a\.m\)/floats.AddScaled(a.vhat, c.Beta\/float64(a.m+1)/|./algorithms/normec ./reproduce/normec ./proofs/normec"
"scaffold-correction|algorithms/fl/baselines.go|s/f\.corr\[i\] = f\.c\[i\] - st\.ci\[i\]/f.corr[i] = f.c[i] + st.ci[i]/|./algorithms/fl ./reproduce/upcycled ./proofs/upcycled"
"laplace-scale|algorithms/dp/dp.go|s/return scale \* math\.Log1p\(2\*u\)/return 0.9 * scale * math.Log1p(2*u)/|./algorithms/dp ./algorithms/upcycled ./reproduce/upcycled ./proofs/upcycled"
"dirichlet-alpha|algorithms/data/partition.go|s/Dirichlet\(r, alpha, q\)/Dirichlet(r, 2*alpha, q)/|./algorithms/data ./reproduce/fedddpm ./proofs/fedddpm"
"adam-bias-correction|algorithms/optim/adaptive.go|s/bc2Sqrt := math\.Sqrt\(1 - math\.Pow\(b2, float64\(a\.t\)\)\)/bc2Sqrt := math.Sqrt(1 - math.Pow(b2, float64(a.t+1)))/|./algorithms/optim ./reproduce/fedddpm ./proofs/fedddpm"
"haar-noise-weight|algorithms/haar/noise.go|s/std := scale \/ float64\(int\(1\)<<j\)/std := scale \/ float64(int(1)<<(j-1))/|./algorithms/haar ./reproduce/haar ./proofs/haar"
)

want=("$@")

# A plant is restored however the script ends (an interrupted drill must not
# leave a bug in the tree).
planted=""
restore() { if [ -n "$planted" ] && [ -f "$planted.drill" ]; then mv "$planted.drill" "$planted"; fi; }
trap restore EXIT
trap 'restore; exit 130' INT TERM

# The tests must pass before anything is planted, with every dataset
# present (CI=true turns a skipped gate into a failure): otherwise a plant
# would look caught by an unrelated failure, or missed by a skipped gate.
export CI=true
all=$(for p in "${plants[@]}"; do IFS='|' read -r _ _ _ pk <<<"$p"; echo $pk; done | tr ' ' '\n' | sort -u | tr '\n' ' ')
if ! base=$($GO test -count=1 ${RUN:+-run "$RUN"} $all 2>&1); then
  echo "drill: the tests fail with nothing planted; fix that first:" >&2
  grep -m5 -E '^--- FAIL|^FAIL|skip|missing' <<<"$base" >&2
  exit 2
fi

caught=0; total=0
printf '%-22s %-8s %s\n' plant result "first failing test"
for i in "${!plants[@]}"; do
  n=$((i + 1))
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $n " ]]; then continue; fi
  IFS='|' read -r id file sub pkgs <<<"${plants[$i]}"
  cp "$file" "$file.drill"
  planted=$file
  perl -0pi -e "$sub" "$file"
  if cmp -s "$file" "$file.drill"; then
    mv "$file.drill" "$file"; planted=""
    printf '%-22s %-8s %s\n' "$id" "STALE" "the substitution matched nothing: update the plant"
    continue
  fi
  out=$($GO test -count=1 ${RUN:+-run "$RUN"} $pkgs 2>&1)
  rc=$?
  mv "$file.drill" "$file"; planted=""
  total=$((total + 1))
  if [ $rc -ne 0 ]; then
    caught=$((caught + 1))
    first=$(grep -m1 -E '^--- FAIL|^FAIL|cannot|panic' <<<"$out" | sed 's/ (.*//')
    printf '%-22s %-8s %s\n' "$id" caught "$first"
  else
    printf '%-22s %-8s %s\n' "$id" MISSED ""
  fi
done
echo "caught $caught of $total"
[ "$caught" = "$total" ]
