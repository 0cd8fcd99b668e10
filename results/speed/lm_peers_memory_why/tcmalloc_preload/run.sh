#!/bin/sh
# Every configuration of experiments/speed/lm.json the older binary covers, 2 processes each, as
# ../../lm_peers_memory_before/run.sh runs them, with the build of e14f261 on tcmalloc (gperftools'
# tcmalloc_minimal put in front of glibc's malloc; 2026-12-06 04:30-04:56 UTC, the sweep lanes running). The
# reports' "allocator" line still names glibc's thresholds: mallopt answered, but glibc's malloc served nothing.
#   sh results/speed/lm_peers_memory_why/tcmalloc_preload/run.sh build/bin/speed
set -e
LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 \
  sh results/speed/lm_peers_memory_before/run.sh "${1:?the speed binary of e14f261}" results/speed/lm_peers_memory_why/tcmalloc_preload
