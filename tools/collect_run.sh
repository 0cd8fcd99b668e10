#!/usr/bin/env bash
# tools/collect_run.sh runs/<name> [...]: copies a finished run's small files (resolved config, command,
# parameter table, metrics log, machine record, summary, evaluation, gate statistics, classification memory weights) to
# results/runs/<name>/ so that results tables regenerate from a fresh clone, with the system outputs its metrics
# were computed from (predictions/, segmented/, translations/, logprobs/; a file over 1 MB is stored gzip -9n),
# then writes the run's per-example statistics (stats/, plots/rescore.py --write-stats) and re-scores it, so a
# run whose outputs do not give its reported numbers is never collected silently. Checkpoints are never copied.
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
  for d in predictions segmented translations logprobs; do
    [ -d "$run/$d" ] || continue
    rm -rf "${dest:?}/$d"
    mkdir -p "$dest/$d"
    for f in "$run/$d"/*; do
      [ -f "$f" ] || continue
      if [ "$(stat -c %s "$f")" -gt 1048576 ]; then gzip -9n -c "$f" > "$dest/$d/$(basename "$f").gz"
      else cp "$f" "$dest/$d/"; fi
    done
  done
  if [ -d "$dest/predictions" ] || [ -d "$dest/segmented" ] || [ -d "$dest/translations" ] || [ -d "$dest/logprobs" ]; then
    /usr/bin/python3 plots/rescore.py --write-stats "$dest" > /dev/null || true   # the check below says why
    rc=0
    /usr/bin/python3 plots/rescore.py "$dest" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
      echo "collect_run: $dest: its kept outputs do not re-score to its summary.json (above); fix before committing" >&2
      exit 1
    fi
  fi
  echo "collect_run: $run -> $dest"
done
