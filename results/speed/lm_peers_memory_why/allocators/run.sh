#!/bin/sh
# The malloc implementations beside glibc's on the configuration with the largest rise (gru, small, 1 thread), one
# process each (2026-12-06 04:27-04:30 UTC, the sweep lanes running: the words/s are not speed figures): the
# build of e14f261 (oneDNN on, glibc's malloc with the fixed thresholds), that build with the products on Eigen
# alone, with glibc's own thresholds, and with jemalloc, tcmalloc (gperftools' tcmalloc_minimal) and mimalloc put
# in front of glibc's malloc by LD_PRELOAD (Debian's libjemalloc2, libtcmalloc-minimal4, libmimalloc2.0); and the
# last binary before oneDNN (fd07b87). Under LD_PRELOAD the reports' "allocator" line still names glibc's
# thresholds: mallopt answered, but glibc's malloc served nothing.
#   sh results/speed/lm_peers_memory_why/allocators/run.sh BUILD_BIN_SPEED OLD_BIN_SPEED
set -e
BIN=${1:?the speed binary of e14f261}
OLD=${2:?the speed binary of fd07b87}
OUT=results/speed/lm_peers_memory_why/allocators
L=/usr/lib/x86_64-linux-gnu
one() {
  name=$1; bin=$2; shift 2
  env "$@" $bin experiments/speed/lm.json --quiet --set 'cells=["gru"]' --set 'threads=[1]' \
    --set 'shapes=[{"name":"small","embed":200,"hidden":200,"layers":2}]' --set out=$OUT/$name
  rm -f $OUT/$name.md $OUT/$name.csv
}
one before_fd07b87 $OLD A=1
one twin_eigen_only $BIN TWIN_GEMM_BACKENDS=eigen
one twin_default $BIN A=1
one glibc_dynamic $BIN TWIN_MALLOC=glibc
one jemalloc_preload $BIN LD_PRELOAD=$L/libjemalloc.so.2
one tcmalloc_preload $BIN LD_PRELOAD=$L/libtcmalloc_minimal.so.4
one mimalloc_preload $BIN LD_PRELOAD=$L/libmimalloc.so.2
