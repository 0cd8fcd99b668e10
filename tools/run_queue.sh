#!/usr/bin/env bash
# tools/run_queue.sh QUEUE_FILE RUNS_DIR [THREADS]: runs a list of experiments one after another, each in
# RUNS_DIR/<task>_<experiment name>, and is safe to start again at any time:
#   - a run whose folder has summary.json, or already collected into results/runs/<run>, is finished and skipped;
#   - a run whose folder has a checkpoint is continued with --resume (never restarted from scratch);
#   - otherwise the run starts fresh.
# Each start appends the machine (CPU model, cores, load) to RUNS_DIR/<run>/machine.txt.
# QUEUE_FILE has one "task experiment.json [flags]" line per experiment (# comments and blank lines ignored), e.g.
#   snli experiments/snli/sick_cond_lstm.json
#   snli experiments/snli/sick_cond_lstm.json --seeds 1234,1,2
# A line with --seeds is one run per seed, RUNS_DIR/<task>_<experiment name>_s<seed> (the binary's --seed),
# each skipped, resumed or started on its own as above.
# The task binaries are copied once per git revision to RUNS_DIR/bin/<task>-<rev>, so rebuilding build/
# while a queue runs never swaps a binary under a running job. Start it in the background, e.g.
#   nohup tools/run_queue.sh lane.txt /work/runs 1 >> /work/runs/lane.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 QUEUE_FILE RUNS_DIR [THREADS]" >&2; exit 2; }
queue=$1 runs=$2 threads=${3:-1}
[ -f "$queue" ] || { echo "run_queue: no queue file $queue" >&2; exit 2; }
mkdir -p "$runs/bin"
rev=$(git rev-parse --short HEAD)

# run_one TASK EXP NAME OUT [ARGS...]: one run in OUT (skipped when finished, resumed when checkpointed).
run_one() {
  local task=$1 exp=$2 name=$3 out=$4
  shift 4
  if [ -f "$out/summary.json" ]; then echo "run_queue: $name finished, skipped"; return; fi
  # A run already collected into the repository is finished too, even when RUNS_DIR is a fresh folder.
  if [ -f "results/runs/$name/summary.json" ]; then echo "run_queue: $name in results/runs, skipped"; return; fi
  local bin="$runs/bin/$task-$rev"
  # Copy then rename: two lanes starting together must not race on the same file (cp fails with
  # "File exists" when the other lane creates it first; rename is atomic).
  if [ ! -x "$bin" ]; then cp "build/bin/$task" "$bin.$$" && mv -f "$bin.$$" "$bin"; fi
  local resume=()
  if [ -f "$out/checkpoint.last.bin" ]; then resume=(--resume); fi
  echo "run_queue: $(date '+%F %T') start $name ${resume[*]:-fresh} ($bin)"
  # Speeds in a run's metrics depend on the machine and on what else ran: machine.txt records both for
  # every start and resume of the run, beside the run's own command.txt.
  mkdir -p "$out"
  { echo "$(date '+%F %T') ${resume[*]:-fresh} rev $rev threads $threads"
    echo "  cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g 2>/dev/null | awk '/^Mem:/{print $2}') GiB"
    echo "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg); other queue lanes may share the cores"
    # The matrix-product kernels depend on the machine and its environment (base/gemm.h): --version names them.
    echo "  binary: $("$bin" --version 2>&1 | head -1)"
  } >> "$out/machine.txt"
  local rc=0
  "$bin" "$exp" --threads "$threads" "${resume[@]}" "$@" < /dev/null || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "run_queue: $(date '+%F %T') done $name"
  else
    echo "run_queue: $(date '+%F %T') FAILED $name (exit $rc), going on" >&2
  fi
}

while read -r task exp rest; do
  case "$task" in ''|\#*) continue ;; esac
  [ -f "$exp" ] || { echo "run_queue: $queue: no experiment file $exp" >&2; exit 2; }
  [ -x "build/bin/$task" ] || { echo "run_queue: build/bin/$task is missing (make build)" >&2; exit 2; }
  name="${task}_$(basename "$exp" .json)"
  # shellcheck disable=SC2206  # the line's flags are words, as typed
  words=($rest)
  flags=()
  seeds=""
  i=0
  while [ "$i" -lt "${#words[@]}" ]; do
    if [ "${words[$i]}" = "--seeds" ]; then
      seeds=${words[$((i + 1))]:-}
      [ -n "$seeds" ] || { echo "run_queue: $queue: --seeds needs a list, e.g. --seeds 1234,1,2" >&2; exit 2; }
      i=$((i + 2))
    else
      flags+=("${words[$i]}")
      i=$((i + 1))
    fi
  done
  if [ -z "$seeds" ]; then
    run_one "$task" "$exp" "$name" "$runs/$name" --set "out_dir=$runs/$name" "${flags[@]}"
  else
    for seed in ${seeds//,/ }; do
      run_one "$task" "$exp" "${name}_s$seed" "$runs/${name}_s$seed" --set "out_dir=$runs/$name" --seed "$seed" "${flags[@]}"
    done
  fi
done < "$queue"
