#!/bin/bash
# The profiles of issue 56 point 4 (the goals not met in results/speed.md). Run from the repo root with the
# sweep lanes stopped. This folder: 2026-12-06 11:03:52-11:06:42 UTC, build/bin/speed at 1b89b1d (the
# binary of the sitting in results/speed.md: Release, oneDNN 2.6.3, tcmalloc), then table.py -> summary.md.
set -e
O=${1:-results/speed/lm_peers_profile}
mkdir -p $O
B=./build/bin/speed
E=experiments/speed/lm.json
MED='shapes=[{"name":"medium","embed":650,"hidden":650,"layers":2}]'
SMALL='shapes=[{"name":"small","embed":200,"hidden":200,"layers":2}]'
# ours, with the per-op and per-product profile (stderr)
$B $E --set 'cells=["lstm","gru","atr","ran","hgrn"]' --set "$MED" --set 'threads=[2]' --set out=$O/ours_medium_2 --profile 2> $O/ours_medium_2.profile.txt
$B $E --set 'cells=["lstm","gru"]' --set "$SMALL" --set 'threads=[2]' --set out=$O/ours_small_2 --profile 2> $O/ours_small_2.profile.txt
$B $E --set 'cells=["lstm","gru"]' --set "$MED" --set 'threads=[1]' --set out=$O/ours_medium_1 --profile 2> $O/ours_medium_1.profile.txt
# oneDNN's reference LM with every primitive execution timed (DNNL_VERBOSE=1)
for c in lstm gru; do
  DNNL_VERBOSE=1 $B onednn $E --set "cells=[\"$c\"]" --set "$MED" --set 'threads=[2]' --set out=$O/onednn_${c}_medium_2 > $O/onednn_${c}_medium_2.verbose.txt
  DNNL_VERBOSE=1 $B onednn $E --set "cells=[\"$c\"]" --set "$SMALL" --set 'threads=[2]' --set out=$O/onednn_${c}_small_2 > $O/onednn_${c}_small_2.verbose.txt
  DNNL_VERBOSE=1 $B onednn $E --set "cells=[\"$c\"]" --set "$MED" --set 'threads=[1]' --set out=$O/onednn_${c}_medium_1 > $O/onednn_${c}_medium_1.verbose.txt
done
