#!/bin/sh
# The memory baseline of results/speed.md (issue 56, point 5: peak RSS per configuration no more than 10 % above
# before the changes): the speed binary of fd07b87 (the last revision before oneDNN and the allocator
# setting; Release, -mtune=znver3, built in a worktree) on every configuration of experiments/speed/lm.json that
# its cells cover, one process per configuration as in the sitting, 2 rounds. Peak RSS is the process's own
# ru_maxrss as its report gives it; speed words/s in these reports are not speed figures (the sweep lanes ran).
#   sh results/speed/lm_peers_memory_before/run.sh /work/wt_fd07/build_z3/bin/speed
set -e
BIN=${1:?the older speed binary}
OUT=${2:-results/speed/lm_peers_memory_before}   # another folder as a second argument (../lm_peers_memory_why/ reuses the loop)
for t in 1 2; do
  for shape in small medium; do
    case $shape in small) h=200 ;; medium) h=650 ;; esac
    for cell in lstm gru atr lrn ran sru; do
      for r in 1 2; do
        $BIN experiments/speed/lm.json --quiet --set "cells=[\"$cell\"]" --set "threads=[$t]" \
          --set "shapes=[{\"name\":\"$shape\",\"embed\":$h,\"hidden\":$h,\"layers\":2}]" \
          --set out=$OUT/${cell}_${shape}_t${t}_r$r
        rm -f $OUT/${cell}_${shape}_t${t}_r$r.md $OUT/${cell}_${shape}_t${t}_r$r.csv
      done
    done
  done
done
