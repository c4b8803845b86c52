#!/usr/bin/env bash
# Live test of deploy/slurm on a real single-node Slurm cluster (Debian's
# slurm-wlm and munge; controller and node on this host, no cgroups), all
# of its state in a temporary directory:
#
#   1. run a paper's smoke scale in one process (the reference);
#   2. submit.sh: the same scale as a 3-task array plus the afterok merge job;
#   3. check that every task and the merge completed, that the result files
#      equal the reference's (timing fields aside, runner.TimingFields) and
#      that the report is byte-identical (the headline's measured CPU time aside);
#   4. delete some results of task 2, check that the merge now refuses,
#      resubmit task 2 alone, and check that exactly the deleted runs ran
#      again (the others' files untouched) and that the merge then passes.
#
# Needs root and apt-get (it installs slurm-wlm and munge). Where it cannot
# run it says so in one line and exits 0, except under CI=true, where that
# is a failure. The daemons are stopped on every exit path.
#
#   bash deploy/slurm/test.sh        # FEDREPRO_SLURM_KEEP=1 keeps the temp dir
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
paper=${FEDREPRO_SLURM_PAPER:-fedddpm} # its report has no timing columns
scale=smoke
shards=3
port=${FEDREPRO_SLURM_PORT:-16817}
t0=$(date +%s)

cannot() {
  if [ "${CI:-}" = true ]; then
    echo "slurm test: FAILED: cannot run: $*" >&2
    exit 1
  fi
  echo "slurm test: skipped: $*"
  exit 0
}
fail() { echo "slurm test: FAILED: $*" >&2; exit 1; }
say() { printf '[%3ds] %s\n' $(($(date +%s) - t0)) "$*"; }

[ "$(id -u)" = 0 ] || cannot "needs root (it starts munged, slurmctld and slurmd)"
command -v go >/dev/null || cannot "needs the Go toolchain to build fedrepro"
if command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 || cannot "apt-get install slurm-wlm munge failed"
  fi
fi
for c in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$c" >/dev/null || cannot "no $c and no apt-get to install slurm-wlm and munge"
done
say "slurm $(slurmctld -V | awk '{print $2}'), munge $(munged --version 2>&1 | awk '{print $1}' | sed 's/munge-//')"

tmp=$(mktemp -d /tmp/fedrepro-slurm.XXXXXX)
chmod 755 "$tmp" # munged wants every directory above its socket searchable
mkdir -p "$tmp"/{etc,state,spool,log,run,munge,bin}
install -d -m 700 "$tmp/munge-key"
jobs=()

cleanup() {
  local rc=$?
  set +e
  if [ ${#jobs[@]} -gt 0 ]; then scancel "${jobs[@]}" >/dev/null 2>&1; fi
  for d in slurmd slurmctld munged; do
    local pf=$tmp/run/$d.pid
    [ -s "$pf" ] || continue
    local pid
    pid=$(cat "$pf")
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ $rc -ne 0 ]; then
    for f in "$tmp"/log/*.log "$tmp"/shared/results/.fedrepro/logs/*; do
      [ -f "$f" ] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }
    done
  fi
  if [ -n "${FEDREPRO_SLURM_KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "building fedrepro"
go build -o "$tmp/bin/fedrepro" ./cmd/fedrepro
go build -o "$tmp/bin/sameresults" ./deploy/slurm/sameresults
fedrepro=$tmp/bin/fedrepro

host=$(hostname -s)
cpus=$(nproc)
cat >"$tmp/etc/slurm.conf" <<EOF
ClusterName=fedrepro-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/etc/slurm.conf

say "starting munged, slurmctld, slurmd"
head -c 1024 /dev/urandom >"$tmp/munge-key/munge.key"
chmod 400 "$tmp/munge-key/munge.key"
munged --key-file="$tmp/munge-key/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" ||
  fail "munged did not start"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for i in $(seq 60); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -n1)
  [ "$state" = idle ] && break
  [ "$i" = 60 ] && fail "node not idle after 30 s (state '$state')"
  sleep 0.5
done
say "cluster up: node $host idle, $cpus CPUs"

say "reference: $paper/$scale in one process"
"$fedrepro" reproduce --paper "$paper" --scale "$scale" --results "$tmp/single/results" \
  --reports "$tmp/single/reports" --workers "$cpus" >"$tmp/log/single.out" 2>&1 ||
  { cat "$tmp/log/single.out"; fail "single-process run"; }
tail -n 2 "$tmp/log/single.out"

say "submit.sh: $shards-task array + merge"
out=$(deploy/slurm/submit.sh --paper "$paper" --scale "$scale" --shards "$shards" --cpus 1 \
  --results "$tmp/shared/results" --reports "$tmp/shared/reports" --bin "$fedrepro")
echo "$out"
array=$(echo "$out" | awk '/^array job:/ {print $3}')
merge=$(echo "$out" | awk '/^merge job:/ {print $3}')
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in submit.sh's output"
jobs+=("$array" "$merge")

# job_states JOBID: one JobState per task (array) or for the job.
job_states() { scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
wait_done() { # JOBID SECONDS
  local s
  for _ in $(seq $(($2 * 2))); do
    s=$(job_states "$1" | sort -u | tr '\n' ' ')
    if ! echo "$s" | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING'; then echo "$s"; return; fi
    sleep 0.5
  done
  fail "job $1 not finished after $2 s: $s"
}
s=$(wait_done "$merge" 180)
say "merge job $merge: $s; array tasks: $(job_states "$array" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
[ "$(job_states "$array" | grep -c COMPLETED)" = "$shards" ] || fail "not every array task completed"
[ "$s" = "COMPLETED " ] || fail "merge job ended $s"
grep -h "runs (" "$tmp"/shared/results/.fedrepro/logs/"$paper-$scale-${array}"_*.out || true

"$tmp/bin/sameresults" "$tmp/single/results" "$tmp/shared/results" || fail "sharded results differ from the single-process run"
diff -r -I '"cpu_seconds": ' "$tmp/single/reports" "$tmp/shared/reports" >/dev/null || fail "merged report differs from the single-process report"
say "results (timing fields aside) and report identical to the single-process run"

say "resubmission: delete 3 results of task 2, rerun task 2 alone"
plan=$tmp/shared/results/.fedrepro/$paper-$scale.plan.json
"$fedrepro" plan --paper "$paper" --scale "$scale" --shards "$shards" --shard-plan "$plan" --list >"$tmp/log/plan.txt"
mapfile -t mine < <(awk '/^ +[0-9]+ +[0-9]+ / {s=$1} /^         [^ ]/ && s==2 {print $1}' "$tmp/log/plan.txt")
[ ${#mine[@]} -ge 4 ] || fail "task 2 holds ${#mine[@]} runs"
resdir=$tmp/shared/results/$paper/$scale
deleted=("${mine[@]:0:3}")
for id in "${deleted[@]}"; do rm "$resdir/$id.json"; done
(cd "$resdir" && find . -name '*.json' -exec sha256sum {} + | sort >"$tmp/log/before.sum")
if "$fedrepro" report --paper "$paper" --scale "$scale" --results "$tmp/shared/results" \
  --reports "$tmp/refused" 2>"$tmp/log/refused.err"; then
  fail "report accepted incomplete results"
fi
grep -q "results incomplete: 3 of" "$tmp/log/refused.err" || fail "report's refusal: $(cat "$tmp/log/refused.err")"
[ ! -e "$tmp/refused" ] || fail "the refused merge wrote files"
say "merge refuses: $(cut -c1-150 "$tmp/log/refused.err")…"

cmd=$(grep -m1 -- '--array=' "$tmp/shared/results/.fedrepro/$paper-$scale.resubmit")
again=$(TASKS=2 bash -c "$cmd" | awk '{print $NF}')
jobs+=("$again")
s=$(wait_done "$again" 120)
[ "$s" = "COMPLETED " ] || fail "resubmitted task ended $s"
log=$(ls "$tmp"/shared/results/.fedrepro/logs/"$paper-$scale-${again}"_2.out)
line=$(grep "runs (" "$log") || fail "no summary in $log"
say "resubmitted task 2 (job $again): $line"
echo "$line" | grep -q "(3 ran, $((${#mine[@]} - 3)) reused)" || fail "task 2 did not rerun exactly the 3 deleted runs"
(cd "$resdir" && find . -name '*.json' -exec sha256sum {} + | sort >"$tmp/log/after.sum")
changed=$(comm -13 "$tmp/log/before.sum" "$tmp/log/after.sum" | awk '{print $2}' | sed 's|^\./||; s|\.json$||' | sort)
want=$(printf '%s\n' "${deleted[@]}" | sort)
[ "$changed" = "$want" ] || fail "files written by the resubmission: $changed; want the deleted ones: $want"
[ -z "$(comm -23 "$tmp/log/before.sum" "$tmp/log/after.sum")" ] || fail "the resubmission changed other results"
"$tmp/bin/sameresults" "$tmp/single/results" "$tmp/shared/results" || fail "rerun results differ from the single-process run"
"$fedrepro" report --paper "$paper" --scale "$scale" --results "$tmp/shared/results" --reports "$tmp/shared/reports2" >/dev/null
diff -r -I '"cpu_seconds": ' "$tmp/single/reports" "$tmp/shared/reports2" >/dev/null || fail "report after the resubmission differs"
say "only the 3 deleted runs ran again; merge passes; report identical"
say "slurm test: PASSED"
