#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets with clang (ASan + UBSan) and runs each one after the other for
# FUZZ_SECONDS, starting from the committed seeds in tests/fuzz/corpus/<target>/.
#
#   tests/fuzz/run.sh [build_dir] [seconds] [out_dir] [target...]
#
# New corpus inputs go to <out>/corpus/<target>/ (the committed seeds are only read), crashing inputs to
# <out>/artifacts/<target>/, logs to <out>/<target>.log; <out> (default fuzz-findings/) is git-ignored. Prints
# one line per target (seconds, executions, coverage, result) and exits 1 if any target found something.
# One fuzzer runs at a time: the machines have 2 cores, shared with training runs. Without a target list, the
# Python readers of data_prep/ follow (fuzz_prep.py, the same seconds per reader; findings in <out>/prep/).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-fuzz}
SECONDS_EACH=${2:-60}
OUT=${3:-fuzz-findings}
shift $(( $# < 3 ? $# : 3 ))
TARGETS=("$@")
PREP=0
[ ${#TARGETS[@]} -gt 0 ] || { TARGETS=(experiment lm_text cws snli nmt classify checkpoint); PREP=1; }
JOBS=${JOBS:-2}
CLANG=${CLANG:-clang++-14}

command -v "$CLANG" >/dev/null || {
  echo "fuzz: $CLANG not found; libFuzzer needs Debian's clang: apt-get install clang-14 libclang-rt-14-dev libomp-14-dev" >&2
  exit 2
}
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  # Debug keeps assertions (Eigen's, TW_DCHECK's) on: a broken invariant must abort, not be optimised away.
  # BLIS and MPI are irrelevant to the readers and are left out to keep the instrumented build small.
  CC=${CLANG/clang++/clang} CXX=$CLANG cmake -S . -B "$BUILD" -DTW_FUZZ=ON -DTW_TESTS=OFF -DTW_BLIS=OFF -DTW_MPI=OFF \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g"
fi
cmake --build "$BUILD" -j"$JOBS" --target fuzz_targets

mkdir -p "$OUT"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
status=0
printf '%-12s %8s %12s %8s  %s\n' target seconds executions cov result
for t in "${TARGETS[@]}"; do
  bin="$BUILD/bin/fuzz_$t"
  seeds="tests/fuzz/corpus/$t"
  work="$OUT/corpus/$t"
  art="$OUT/artifacts/$t/"
  log="$OUT/$t.log"
  mkdir -p "$work" "$art"
  dict=()
  if [ -f "tests/fuzz/fuzz_$t.dict" ]; then dict=(-dict="tests/fuzz/fuzz_$t.dict")
  elif [ "$t" != checkpoint ]; then dict=(-dict=tests/fuzz/text.dict); fi
  start=$(date +%s)
  rc=0
  "$bin" "$work" "$seeds" "${dict[@]}" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$art" >"$log" 2>&1 &
  pid=$!
  wait "$pid" || rc=$?
  # The target's scratch folder (fuzz_util.h) is removed by an atexit handler, which a crash, a timeout or
  # an out-of-memory kill skips: remove it here so findings do not fill /dev/shm (RAM) run after run.
  rm -rf "/dev/shm/twinrnn-fuzz-$pid" "${TMPDIR:-/tmp}/twinrnn-fuzz-$pid"
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  if [ "$rc" -eq 0 ]; then result=ok; else result="FOUND (exit $rc): $(ls "$art" | head -3 | tr '\n' ' ')see $log"; status=1; fi
  printf '%-12s %8s %12s %8s  %s\n' "$t" "$secs" "${execs:-?}" "${cov:-?}" "$result"
done
if [ "$PREP" -eq 1 ]; then
  # Its own table, one line per reader (seconds, executions, accepted, rejected, findings); exit 1: findings
  # (inputs saved in $OUT/prep/<reader>/), 2: bad options.
  rc=0
  /usr/bin/python3 tests/fuzz/fuzz_prep.py --seconds "$SECONDS_EACH" --out "$OUT/prep" || rc=$?
  [ "$rc" -eq 0 ] || { echo "fuzz_prep: $([ "$rc" -eq 1 ] && echo FOUND || echo FAILED) (exit $rc): see above"; status=1; }
fi
exit $status
