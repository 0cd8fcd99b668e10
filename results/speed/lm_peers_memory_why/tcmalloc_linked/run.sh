#!/bin/sh
# Four configurations with the build that links tcmalloc (core/base/allocator.h, CMake TW_TCMALLOC; the tree of
# 2026-12-06 after d008650), one process each, 05:25 UTC, the sweep lanes and a ctest run beside them (the words/s
# are not speed figures): the peaks of ../tcmalloc_preload/ within 1.6 MiB.
#   sh results/speed/lm_peers_memory_why/tcmalloc_linked/run.sh build/bin/speed
set -e
BIN=${1:?the speed binary}
OUT=results/speed/lm_peers_memory_why/tcmalloc_linked
for cfg in "gru small 200 1" "lrn small 200 1" "atr small 200 1" "lstm medium 650 2"; do
  set -- $cfg
  $BIN experiments/speed/lm.json --quiet --set "cells=[\"$1\"]" --set "threads=[$4]" \
    --set "shapes=[{\"name\":\"$2\",\"embed\":$3,\"hidden\":$3,\"layers\":2}]" --set out=$OUT/${1}_${2}_t$4
  rm -f $OUT/${1}_${2}_t$4.md $OUT/${1}_${2}_t$4.csv
done
