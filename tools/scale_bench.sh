#!/usr/bin/env bash
# tools/scale_bench.sh [OUT]: the measurements behind results/scale.md (issue 10; raw outputs kept, issue 25).
# One process x 2 threads against 2 MPI ranks x 1 thread, for a PTB medium LM (LSTM, ATR) and RNNSearch+ATR on
# Multi30k, each a few logged training windows. The training rows (units_s per log window) are all that is
# measured, so each run is stopped as soon as its last window is logged, before the end-of-run evaluation,
# whose beam search over dev and test would take minutes and measures nothing here.
# Keeps command.txt, config.resolved.json, metrics.jsonl, params.txt and machine.txt of every run in OUT/<run>/ (default
# results/scale/runs), never checkpoints; then `python3 plots/scale_table.py` writes the tables into
# results/scale.md. Needs prepared data (data/ptb, data/multi30k), build/bin/{lm,nmt} built with MPI, and a quiet
# machine: stop other jobs first (e.g. pkill -STOP -f /work/runs/bin/), they would be measured too.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/scale/runs}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --oversubscribe -np 2 --allow-run-as-root --mca btl self,vader)

# run NAME STEPS LAUNCH...: runs LAUNCH (its out_dir is $work/NAME) in its own process group, stops the group once
# metrics.jsonl has the training row of step STEPS, and keeps the run's text files in $out/NAME.
run() {
  local name=$1 steps=$2
  shift 2
  local dir="$work/$name"
  echo "scale_bench: $(date '+%F %T') $name: $*"
  setsid "$@" --set "out_dir=$dir" > "$work/$name.log" 2>&1 &
  local pid=$!
  until grep -q "\"split\":\"train\".*\"step\":$steps[,}]" "$dir/metrics.jsonl" 2> /dev/null; do
    if ! kill -0 "$pid" 2> /dev/null; then
      echo "scale_bench: $name ended before step $steps:" >&2
      tail -5 "$work/$name.log" >&2
      exit 1
    fi
    sleep 1
  done
  kill -KILL -- "-$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  mkdir -p "$out/$name"
  cp "$dir/config.resolved.json" "$dir/metrics.jsonl" "$dir/params.txt" "$out/$name/"
  # The command as typed (out_dir named after the kept folder), and the machine it ran on.
  printf '%s --set out_dir=%s\n' "$*" "$out/$name" > "$out/$name/command.txt"
  { echo "$(date '+%F %T') rev $(git rev-parse --short HEAD)"
    echo "  cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
    echo "  load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  stopped after the training row of step $steps (no end-of-run evaluation)"
  } > "$out/$name/machine.txt"
}

lm=(--set train.max_steps=40 --set train.log_every=10 --set train.max_epochs=1)
run lm_lstm_medium_1x2 40 build/bin/lm experiments/lm/lstm_medium.json "${lm[@]}" --threads 2
run lm_lstm_medium_2x1 40 "${mpi[@]}" build/bin/lm experiments/lm/lstm_medium.json "${lm[@]}" --threads 1
run lm_atr_medium_1x2 40 build/bin/lm experiments/lm/atr_medium.json "${lm[@]}" --threads 2
run lm_atr_medium_2x1 40 "${mpi[@]}" build/bin/lm experiments/lm/atr_medium.json "${lm[@]}" --threads 1
nmt=(--set train.max_steps=40 --set train.log_every=10)
run nmt_atr_1x2 40 build/bin/nmt experiments/nmt/atr.json "${nmt[@]}" --threads 2
run nmt_atr_2x1 40 "${mpi[@]}" build/bin/nmt experiments/nmt/atr.json "${nmt[@]}" --threads 1
echo "scale_bench: done; kept in $out"
