#!/usr/bin/env bash
# Submit a paper's scale to Slurm: a job array of N shard tasks and a merge
# job that writes the report once every task has succeeded (afterok).
#
#   deploy/slurm/submit.sh --paper P --scale S --shards N --results DIR
#       [--reports DIR] [--bin FEDREPRO] [--cpus C] [--data-dir D]
#       [--shared-dir S] [--spec FILE] [-- extra sbatch options…]
#
# DIR must be on storage every node sees. Before submitting, `fedrepro plan
# --out` records the measured CPU time of results already in DIR (earlier
# or interrupted submissions) in DIR/.fedrepro/P-S.plan.json, which every
# task balances with; the tasks skip runs whose result exists, so running
# this again after a failure only computes what is missing. The commands
# to resubmit single tasks and the merge are printed and saved next to it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
paper="" scale="" shards="" results="" reports="" bin="" cpus=2
planflags=()
sbatchflags=()
die() { echo "submit.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --paper) paper=${2:?}; shift 2 ;;
    --scale) scale=${2:?}; shift 2 ;;
    --shards) shards=${2:?}; shift 2 ;;
    --results) results=${2:?}; shift 2 ;;
    --reports) reports=${2:?}; shift 2 ;;
    --bin) bin=${2:?}; shift 2 ;;
    --cpus) cpus=${2:?}; shift 2 ;;
    --data-dir|--shared-dir|--spec) planflags+=("$1" "$(realpath -m "${2:?}")"); shift 2 ;;
    --) shift; sbatchflags=("$@"); break ;;
    *) die "unknown argument $1 (see the header of $0)" ;;
  esac
done
[ -n "$paper" ] || die "--paper is required"
[ -n "$scale" ] || die "--scale is required"
[ -n "$results" ] || die "--results is required (a directory every node sees)"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards N: want a positive integer, got '$shards'"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || die "--cpus C: want a positive integer, got '$cpus'"
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node"
if [ -z "$bin" ]; then
  bin=$(command -v fedrepro) || die "fedrepro not on PATH: build it (make build) and pass --bin bin/fedrepro"
fi
[ -x "$bin" ] || die "--bin $bin is not an executable"
bin=$(realpath "$bin")
results=$(realpath -m "$results")
reports=$(realpath -m "${reports:-$results/../reports}")
state=$results/.fedrepro
mkdir -p "$state/logs"
plan=$state/$paper-$scale.plan.json

# Freeze the measured costs and the plan's digest for every task, and show
# the partition.
"$bin" plan --paper "$paper" --scale "$scale" --shards "$shards" --results "$results" --out "$plan" "${planflags[@]}"

# sbatch copies the script at submission, so the repository may change
# afterwards; the binary must stay where it is until the jobs have run.
export FEDREPRO=$bin
task_args=("$shards" "$paper" "$scale" "$results" --shard-plan "$plan" "${planflags[@]}")
array_opts=(--parsable --cpus-per-task="$cpus" --job-name="fedrepro-$paper-$scale"
  --output="$state/logs/$paper-$scale-%A_%a.out" "${sbatchflags[@]}")
array=$(sbatch "${array_opts[@]}" --array=1-"$shards" "$here/fedrepro-array.sbatch" "${task_args[@]}")
array=${array%%;*}
merge_opts=(--parsable --job-name="fedrepro-$paper-$scale-merge" --output="$state/logs/$paper-$scale-merge-%j.out" "${sbatchflags[@]}")
merge=$(sbatch "${merge_opts[@]}" --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
  "$here/fedrepro-merge.sbatch" "$paper" "$scale" "$results" "$reports" "${planflags[@]}")
merge=${merge%%;*}

q() { printf '%q ' "$@"; }
resubmit=$state/$paper-$scale.resubmit
{
  echo "# Resubmit tasks (e.g. TASKS=3,7) of array $array, then the merge:"
  echo "FEDREPRO=$(q "$bin")sbatch $(q "${array_opts[@]:1}")--array=\"\$TASKS\" $(q "$here/fedrepro-array.sbatch" "${task_args[@]}")"
  echo "FEDREPRO=$(q "$bin")sbatch $(q "${merge_opts[@]:1}")$(q "$here/fedrepro-merge.sbatch" "$paper" "$scale" "$results" "$reports" "${planflags[@]}")"
} >"$resubmit"
echo "array job: $array (tasks 1-$shards, --cpus-per-task=$cpus; logs in $state/logs)"
echo "merge job: $merge (after every task succeeds; report in $reports/$paper)"
echo "to resubmit failed tasks and the merge: see $resubmit"
