#!/bin/sh
# Every configuration of experiments/speed/lm.json the older binary covers, 2 processes each, as
# ../../lm_peers_memory_before/run.sh runs them, with the build of e14f261 under a fixed 16 MiB mmap threshold
# (2026-12-06 04:16-04:31 UTC, the sweep lanes running; stopped before the last ten 2-thread medium runs):
#   sh results/speed/lm_peers_memory_why/mmap16M_all/run.sh build/bin/speed
set -e
GLIBC_TUNABLES=glibc.malloc.mmap_threshold=16777216:glibc.malloc.trim_threshold=1073741824 \
  sh results/speed/lm_peers_memory_before/run.sh "${1:?the speed binary of e14f261}" results/speed/lm_peers_memory_why/mmap16M_all
