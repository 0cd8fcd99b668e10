#!/usr/bin/env bash
# tools/run_queue.sh QUEUE_FILE RUNS_DIR [THREADS]: runs a list of experiments one after another, each in
# RUNS_DIR/<task>_<experiment name>, and is safe to start again at any time:
#   - a run whose folder has summary.json, or already collected into results/runs/<run>, is finished and skipped;
#   - a run whose folder has a checkpoint is continued with --resume (never restarted from scratch);
#   - otherwise the run starts fresh.
# Each start appends the machine (CPU model, cores, load) to RUNS_DIR/<run>/machine.txt.
# QUEUE_FILE has one "task experiment.json [flags]" line per experiment (# comments and blank lines ignored), e.g.
#   snli experiments/snli/sick_cond_lstm.json
#   snli experiments/snli/sick_cond_lstm.json --seeds 1234,1,2
# A line with --seeds is one run per seed, RUNS_DIR/<task>_<experiment name>_s<seed> (the binary's --seed),
# each skipped, resumed or started on its own as above.
#
# Binaries are pinned per queue, not per start: the first start copies build/bin/<task> of every task the queue
# names to RUNS_DIR/bin/<task>-<rev> and writes the revision to RUNS_DIR/bin/pins/<pin>.rev; every later start
# runs those copies, whatever HEAD and build/ are by then. A comparison queued over several sessions thus runs
# every cell on one binary (no cell gets another revision's kernels or rounding because it came later), and
# rebuilding build/ never swaps a binary under a run. <pin> is the queue file's name without .txt, or the NAME
# of a "# pin: NAME [comment]" line, which lets the lanes of one comparison (issue52_a.txt, issue52_b.txt)
# share one pin.
# REPIN=1 moves the pin to HEAD's build/bin on purpose (a fix the rest of the queue must have); each pin and
# repin is logged in RUNS_DIR/bin/pins/<pin>.log.
# A binary is pinned under a revision only when it is a build of that revision's code: its --version names the
# revision it was built from ("git <rev>", "+modified" for a tree with uncommitted changes), and a build of
# uncommitted changes, or of a revision whose build inputs differ, is refused (a stale build/ would otherwise run
# the whole comparison under a label its code does not have).
# Lanes end without a signal when a session stops, so a run also saves its resume checkpoint every SAVE_MINUTES
# minutes of training (default 10; the binaries' --save-minutes, which changes no result; 0 leaves it out, and
# a pinned binary older than the flag runs without it). Start it in the background, e.g.
#   nohup tools/run_queue.sh lane.txt /work/runs 1 >> /work/runs/lane.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 QUEUE_FILE RUNS_DIR [THREADS]" >&2; exit 2; }
queue=$1 runs=$2 threads=${3:-1}
save_minutes=${SAVE_MINUTES:-10}
[ -f "$queue" ] || { echo "run_queue: no queue file $queue" >&2; exit 2; }
mkdir -p "$runs/bin/pins"

# Every line checked before anything runs: a bad line found after hours of runs is a lane left idle.
tasks=()
pin_name=$(basename "$queue" .txt)
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
  lineno=$((lineno + 1))
  if [[ "$line" =~ ^#[[:space:]]*pin:[[:space:]]*([^[:space:]]*) ]]; then   # its first word; the rest is comment
    pin_name=${BASH_REMATCH[1]}
    [[ "$pin_name" =~ ^[A-Za-z0-9._-]+$ ]] || {
      echo "run_queue: $queue:$lineno: '# pin:' needs a name of letters, digits, '.', '_' or '-'" >&2; exit 2; }
    continue
  fi
  read -r task exp _ <<< "$line" || true
  case "${task:-}" in ''|\#*) continue ;; esac
  [ -n "${exp:-}" ] || { echo "run_queue: $queue:$lineno: expected 'task experiment.json [flags]'" >&2; exit 2; }
  [ -f "$exp" ] || { echo "run_queue: $queue:$lineno: no experiment file $exp" >&2; exit 2; }
  case " ${tasks[*]} " in *" $task "*) ;; *) tasks+=("$task") ;; esac
done < "$queue"

# What a build reads: a revision differing from the pin only elsewhere (results, queues, docs) builds the same binary.
BUILD_INPUTS=(CMakeLists.txt cmake core tasks)
pin_file="$runs/bin/pins/$pin_name.rev"

# check_build TASK REV: exits (2) unless build/bin/TASK is a build of code equal to REV's build inputs. A binary
# whose --version names no revision (not built from a git checkout) cannot be checked and is taken as it is.
check_build() {
  local task=$1 want=$2 version built
  version=$("build/bin/$task" --version 2>&1 | head -1 || true)
  [[ "$version" =~ git\ ([0-9a-f]{7,40})(\+modified)? ]] || return 0
  built=${BASH_REMATCH[1]}
  if [ -n "${BASH_REMATCH[2]}" ]; then
    echo "run_queue: $queue: build/bin/$task is a build of $built with uncommitted changes ('$version'): a pin" \
         "names a revision, so commit the changes and build again (make build) before starting the queue" >&2
    exit 2
  fi
  if ! git diff --quiet "$built" "$want" -- "${BUILD_INPUTS[@]}" 2> /dev/null; then
    echo "run_queue: $queue: build/bin/$task is a build of $built, whose build inputs (${BUILD_INPUTS[*]})" \
         "differ from $want's (or $built is not in this repository): build again (make build) before" \
         "starting the queue" >&2
    exit 2
  fi
}
head_rev=$(git rev-parse --short HEAD)
if [ -f "$pin_file" ] && [ -z "${REPIN:-}" ]; then
  rev=$(tr -d '[:space:]' < "$pin_file")
  [[ "$rev" =~ ^[0-9a-f]{4,40}$ ]] || {
    echo "run_queue: $pin_file: expected a git revision (what the queue's first start wrote), found '$rev'" >&2; exit 2; }
  for task in "${tasks[@]}"; do
    bin="$runs/bin/$task-$rev"
    [ ! -x "$bin" ] || continue
    # A task the pin does not have yet (the other lane pinned it first, or a line added since): build/bin is
    # that revision's build when no build input changed since (results and queue commits move HEAD, not code).
    if [ -x "build/bin/$task" ] && git diff --quiet "$rev" HEAD -- "${BUILD_INPUTS[@]}" 2> /dev/null; then
      check_build "$task" "$rev"
      cp "build/bin/$task" "$bin.$$" && mv -f "$bin.$$" "$bin"
      echo "$(date '+%F %T') added $task to $rev by $queue (no build input changed since)" >> "$runs/bin/pins/$pin_name.log"
      continue
    fi
    echo "run_queue: $queue: pinned to revision $rev ($pin_file) but $bin is missing, and HEAD's build inputs" \
         "(${BUILD_INPUTS[*]}) differ from that revision's (or it is not in this repository):" \
         "copy that revision's build of $task there (git worktree add DIR $rev; build it), or start with REPIN=1" \
         "to pin the queue to HEAD ($head_rev) from now on" >&2
    exit 2
  done
  if [ "$rev" != "$head_rev" ]; then
    since=$(grep -E "^[0-9-]+ [0-9:]+ (pinned|repinned)" "$runs/bin/pins/$pin_name.log" 2> /dev/null | tail -1 |
            cut -d' ' -f1,2 || true)
    echo "run_queue: $queue: pinned to revision $rev${since:+ since $since} (HEAD is $head_rev); its runs keep that" \
         "revision's binaries (REPIN=1 moves the pin)"
  fi
else
  rev=$head_rev
  for task in "${tasks[@]}"; do
    [ -x "build/bin/$task" ] || { echo "run_queue: build/bin/$task is missing (make build)" >&2; exit 2; }
    check_build "$task" "$rev"
  done
  for task in "${tasks[@]}"; do
    bin="$runs/bin/$task-$rev"
    # Copy then rename: two lanes starting together must not race on the same file (cp fails with
    # "File exists" when the other lane creates it first; rename is atomic, and a run already started keeps
    # the file it opened). REPIN replaces a copy of the same revision too (a build of a tree with changes).
    if [ ! -x "$bin" ] || [ -n "${REPIN:-}" ]; then cp "build/bin/$task" "$bin.$$" && mv -f "$bin.$$" "$bin"; fi
  done
  why="pinned"; [ -f "$pin_file" ] && why="repinned from $(tr -d '[:space:]' < "$pin_file") (REPIN)"
  echo "$rev" > "$pin_file.$$" && mv -f "$pin_file.$$" "$pin_file"
  echo "$(date '+%F %T') $why to $rev by $queue: ${tasks[*]}" >> "$runs/bin/pins/$pin_name.log"
  echo "run_queue: $queue: $why to revision $rev (${tasks[*]})"
fi

# run_one TASK EXP NAME OUT [ARGS...]: one run in OUT (skipped when finished, resumed when checkpointed).
run_one() {
  local task=$1 exp=$2 name=$3 out=$4
  shift 4
  if [ -f "$out/summary.json" ]; then echo "run_queue: $name finished, skipped"; return; fi
  # A run already collected into the repository is finished too, even when RUNS_DIR is a fresh folder.
  if [ -f "results/runs/$name/summary.json" ]; then echo "run_queue: $name in results/runs, skipped"; return; fi
  local bin="$runs/bin/$task-$rev"
  # A line added to the queue file while it runs, naming a task the pin lacks: start the queue again to add it.
  if [ ! -x "$bin" ]; then
    echo "run_queue: $(date '+%F %T') FAILED $name: no pinned binary $bin (a task added to the queue since it" \
         "started; start the queue again)" >&2
    return
  fi
  local resume=()
  if [ -f "$out/checkpoint.last.bin" ]; then resume=(--resume); fi
  echo "run_queue: $(date '+%F %T') start $name ${resume[*]:-fresh} ($bin)"
  # Speeds in a run's metrics depend on the machine and on what else ran: machine.txt records both for
  # every start and resume of the run, beside the run's own command.txt.
  mkdir -p "$out"
  { echo "$(date '+%F %T') ${resume[*]:-fresh} rev $rev threads $threads"
    echo "  cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g 2>/dev/null | awk '/^Mem:/{print $2}') GiB"
    echo "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg); other queue lanes may share the cores"
    # The matrix-product kernels depend on the machine and its environment (base/gemm.h): --version names them.
    echo "  binary: $("$bin" --version 2>&1 | head -1)"
    # The variables that change what a binary computes or how fast (TWIN_GEMM_BACKENDS, TWIN_SUBNORMALS,
    # TWIN_MALLOC, OMP_*, GLIBC_TUNABLES): a run made with any of them set says so here.
    local vars
    vars=$(env | { grep -E '^(TWIN_[A-Z_]*|OMP_[A-Z_]*|GLIBC_TUNABLES)=' || true; } | LC_ALL=C sort | tr '\n' ' ')
    echo "  environment: ${vars:-(none of TWIN_*, OMP_*, GLIBC_TUNABLES set)}"
  } >> "$out/machine.txt"
  local timed=()
  if [ "$save_minutes" != 0 ] && "$bin" --help 2>&1 | grep -q -- '--save-minutes'; then
    timed=(--save-minutes "$save_minutes")
  fi
  local rc=0
  "$bin" "$exp" --threads "$threads" "${timed[@]}" "${resume[@]}" "$@" < /dev/null || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "run_queue: $(date '+%F %T') done $name"
  else
    echo "run_queue: $(date '+%F %T') FAILED $name (exit $rc), going on" >&2
  fi
}

while read -r task exp rest; do
  case "$task" in ''|\#*) continue ;; esac
  [ -f "$exp" ] || { echo "run_queue: $queue: no experiment file $exp" >&2; exit 2; }
  name="${task}_$(basename "$exp" .json)"
  # shellcheck disable=SC2206  # the line's flags are words, as typed
  words=($rest)
  flags=()
  seeds=""
  i=0
  while [ "$i" -lt "${#words[@]}" ]; do
    if [ "${words[$i]}" = "--seeds" ]; then
      seeds=${words[$((i + 1))]:-}
      [ -n "$seeds" ] || { echo "run_queue: $queue: --seeds needs a list, e.g. --seeds 1234,1,2" >&2; exit 2; }
      i=$((i + 2))
    else
      flags+=("${words[$i]}")
      i=$((i + 1))
    fi
  done
  if [ -z "$seeds" ]; then
    run_one "$task" "$exp" "$name" "$runs/$name" --set "out_dir=$runs/$name" "${flags[@]}"
  else
    for seed in ${seeds//,/ }; do
      run_one "$task" "$exp" "${name}_s$seed" "$runs/${name}_s$seed" --set "out_dir=$runs/$name" --seed "$seed" "${flags[@]}"
    done
  fi
done < "$queue"
