#!/bin/sh
# Why the suite's peak RSS per configuration rose (results/speed.md, Memory): one configuration of the speed task
# (gru, small, 1 thread: the largest ratio), one process per setting of glibc's malloc thresholds and of the
# product routing, build/bin/speed at e14f261 (Release, oneDNN on). A GLIBC_TUNABLES that sets a threshold is left
# alone by the binary (core/base/allocator.h); TWIN_MALLOC=glibc keeps glibc's own dynamic thresholds. Peak RSS is
# the process's own ru_maxrss as its report gives it; the words/s are not speed figures (other jobs ran).
#   sh results/speed/lm_peers_memory_why/run.sh                                       (pass 1)
#   OUT=results/speed/lm_peers_memory_why/pass2 sh results/speed/lm_peers_memory_why/run.sh (pass 2)
set -e
OUT=${OUT:-results/speed/lm_peers_memory_why}
mkdir -p $OUT
one() {
  name=$1; shift
  env "$@" ./build/bin/speed experiments/speed/lm.json --quiet --set 'cells=["gru"]' --set 'threads=[1]' \
    --set 'shapes=[{"name":"small","embed":200,"hidden":200,"layers":2}]' --set out=$OUT/$name
  rm -f $OUT/$name.md $OUT/$name.csv
}
T=glibc.malloc.trim_threshold=1073741824
one twin_default A=1
one twin_eigen_only TWIN_GEMM_BACKENDS=eigen
one glibc_dynamic TWIN_MALLOC=glibc
one glibc_dynamic_eigen_only TWIN_MALLOC=glibc TWIN_GEMM_BACKENDS=eigen
one mmap32M GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432
one mmap16M_trim1G GLIBC_TUNABLES=glibc.malloc.mmap_threshold=16777216:$T
one mmap8M_trim1G GLIBC_TUNABLES=glibc.malloc.mmap_threshold=8388608:$T
one mmap4M_trim1G GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4194304:$T
one mmap1M_trim1G GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576:$T
one trim1G_only GLIBC_TUNABLES=$T
