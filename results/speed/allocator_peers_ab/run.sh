#!/bin/bash
# Quiet A/B (lanes stopped): tcmalloc build (1b89b1d) against glibc build (d008650, twinrnn's fixed thresholds),
# ours and oneDNN's reference LM, LSTM and GRU, small and medium at 2 threads; 4 rounds, binary order alternating.
# usage: GLIBC_SPEED=<glibc build>/bin/speed results/speed/allocator_peers_ab/run.sh [OUT]
set -u
cd "$(dirname "$0")/../../.."   # the repository root
O=${1:-results/speed/allocator_peers_ab}
R=results/speed/lm_peers.runs
mkdir -p "$O"; date -u +%FT%TZ > $O/start.txt
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then bins="tc glibc"; else bins="glibc tc"; fi
  for b in $bins; do
    if [ $b = tc ]; then S=./build/bin/speed; else S=${GLIBC_SPEED:?set GLIBC_SPEED to a speed binary built with -DTW_TCMALLOC=OFF (here d008650)}; fi
    for s in small medium; do for c in lstm gru; do
      $S $R/twinrnn_${c}_${s}_t2_r1.config.json --quiet --set out=$O/${b}_ours_${c}_${s}_r$r > $O/${b}_ours_${c}_${s}_r$r.log 2>&1
      $S onednn $R/onednn_${c}_${s}_t2_r1.config.json --quiet --set out=$O/${b}_onednn_${c}_${s}_r$r > $O/${b}_onednn_${c}_${s}_r$r.log 2>&1
    done; done
  done
done
date -u +%FT%TZ > $O/end.txt
