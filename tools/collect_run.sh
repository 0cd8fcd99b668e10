#!/usr/bin/env bash
# tools/collect_run.sh runs/<name> [...]: copies a finished run's small files (resolved config, command,
# parameter table, metrics log, machine record, summary, evaluation, gate statistics, classification memory weights) to
# results/runs/<name>/ so that results tables regenerate from a fresh clone. Checkpoints are never copied.
set -euo pipefail
cd "$(dirname "$0")/.."
for run in "$@"; do
  run=${run%/}
  [ -f "$run/summary.json" ] || { echo "collect_run: $run has no summary.json (not finished?)" >&2; exit 2; }
  dest="results/runs/$(basename "$run")"
  mkdir -p "$dest"
  for f in config.resolved.json command.txt params.txt metrics.jsonl summary.json eval.json gates.json memory.json machine.txt; do
    [ -f "$run/$f" ] && cp "$run/$f" "$dest/"
  done
  echo "collect_run: $run -> $dest"
done
