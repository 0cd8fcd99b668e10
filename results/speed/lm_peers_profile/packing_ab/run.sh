#!/bin/bash
# A/B of the packed recurrent input gradient (matmul's dx through gemm_reused):
# OLD = build/bin/speed at 1b89b1d (the sitting's binary, kept as a copy), NEW = build/bin/speed with the change,
# and oneDNN's reference LM (from NEW; its code did not change), one configuration per process as in the sitting,
# alternating OLD NEW oneDNN per configuration, ROUNDS rounds. The sweep lanes stopped. Run from the repo root:
#   bash results/speed/lm_peers_profile/packing_ab/run.sh /path/to/old/speed [rounds]
# then /usr/bin/python3 results/speed/lm_peers_profile/packing_ab/table.py -> table.md
set -e
OLD=$1
ROUNDS=${2:-3}
NEW=./build/bin/speed
O=results/speed/lm_peers_profile/packing_ab/runs
mkdir -p $O
E=experiments/speed/lm.json
shape() {
  case $1 in
    medium) echo 'shapes=[{"name":"medium","embed":650,"hidden":650,"layers":2}]' ;;
    small) echo 'shapes=[{"name":"small","embed":200,"hidden":200,"layers":2}]' ;;
  esac
}
CONFIGS="lstm:medium:2 gru:medium:2 atr:medium:2 ran:medium:2 lstm:small:2 gru:small:2 lstm:medium:1 gru:medium:1"
for r in $(seq 1 $ROUNDS); do
  for c in $CONFIGS; do
    IFS=: read cell sh thr <<< "$c"
    base="${cell}_${sh}_t${thr}_r${r}"
    $OLD $E --set "cells=[\"$cell\"]" --set "$(shape $sh)" --set "threads=[$thr]" --set out=$O/old_$base --quiet
    $NEW $E --set "cells=[\"$cell\"]" --set "$(shape $sh)" --set "threads=[$thr]" --set out=$O/new_$base --quiet
    if [ $cell = lstm ] || [ $cell = gru ]; then
      $NEW onednn $E --set "cells=[\"$cell\"]" --set "$(shape $sh)" --set "threads=[$thr]" --set out=$O/onednn_$base --quiet
    fi
  done
done
