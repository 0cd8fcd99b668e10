#!/bin/bash
# HGRN medium, 2 threads, in fresh processes (twice alone) and after ATR in one process; the sweep lanes stopped.
# Compare ../ours_medium_2 (HGRN run last, after LSTM, GRU, ATR and RAN in one process). Run from the repo root.
set -e
O=results/speed/lm_peers_profile/hgrn_fresh
MED='shapes=[{"name":"medium","embed":650,"hidden":650,"layers":2}]'
# 2026-12-06 11:08:39-11:09:17 UTC, build/bin/speed at 1b89b1d (written to a scratch folder then, moved here).
for i in 1 2; do
  ./build/bin/speed experiments/speed/lm.json --set 'cells=["hgrn"]' --set "$MED" --set 'threads=[2]' --set out=$O/alone_$i --profile 2> $O/alone_$i.profile.txt
done
./build/bin/speed experiments/speed/lm.json --set 'cells=["atr","hgrn"]' --set "$MED" --set 'threads=[2]' --set out=$O/after_atr --profile 2> $O/after_atr.profile.txt
