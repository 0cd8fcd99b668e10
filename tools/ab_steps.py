#!/usr/bin/env python3
"""Two builds of one task binary, side by side: the same training run starts AT ONCE from each build, one run
pinned to each core (the cores swapped every round), and each is stopped once it has logged step N. A run's
time is its CPU seconds (user + system, /proc) between its logged steps K and N, so start-up (data loading,
vocabulary, the GEMM probe) is left out, and B / A is taken within a round.

  /usr/bin/python3 tools/ab_steps.py --a OLD_BIN_DIR --b NEW_BIN_DIR --task rc --exp EXPERIMENT.json
                                     [--rounds 6] [--from-step 2] [--to-step 12] [--out PREFIX] [--work DIR]
                                     [-- EXTRA TASK ARGUMENTS]

Why side by side: on a shared VM the speed of the machine drifts by more than a kernel change is worth (one
build's CPU seconds for the same 10 R-Net steps ranged 40.7-55.5 over alternating sequential runs, 2026-12-06),
and a drift falls on both runs of a round alike when they run together. What still differs between the cores
is averaged out by swapping them. Both runs share the memory bus: B / A is the ratio under that load, the way
the two lanes run.

Each run: BIN_DIR/TASK EXPERIMENT --threads 1 --set out_dir=<fresh folder> --set train.max_steps=N+5
--set train.log_every=K [EXTRA...], its train lines read from the run folder's metrics.jsonl as they appear
(N must be a multiple of K). Writes PREFIX.json (every run's CPU and wall seconds, the environment, the CPU)
and PREFIX.md (per round A, B and B / A; the median and mean of B / A and a two-sided sign test over rounds).

Exit 2 on a bad argument (named); 1 when a run ends before logging step N (its side, round, exit code and the
end of its log). Standard library only. Run it with the lanes paused: it measures the machine as well.
"""
import argparse
import datetime
import json
import math
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_env import cpu_name  # noqa: E402  (sibling tool, as tune.py imports its own)

POLL_S = 0.02   # metrics.jsonl is read this often: a step's CPU time is read at most this late


def fail(msg, code=2):
    print(f"ab_steps.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def cpu_seconds(pid):
    """User + system CPU seconds of a live process (its threads included), from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sign_test_p(wins, n):
    """Two-sided exact sign test: P(a count at least as far from n/2 as `wins`) under p = 1/2."""
    k = min(wins, n - wins)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


class Run:
    def __init__(self, side, argv, out, log_path, core):
        self.side, self.out, self.log_path = side, out, log_path
        self.cpu, self.wall = {}, {}
        self.done = False
        self.log = open(log_path, "w", encoding="utf-8")
        self.log.write("$ " + shlex.join(argv) + (f"   (pinned to CPU {core})" if core is not None else "") + "\n")
        self.log.flush()
        pin = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
        try:
            self.p = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      start_new_session=True, preexec_fn=pin)
        except OSError as e:
            fail(f"cannot start {argv[0]}: {e.strerror}", 1)
        self.read = 0   # bytes of metrics.jsonl already parsed

    def poll(self, last_step):
        """Reads new train lines; stops the run once `last_step` is logged. True when the run is over."""
        if self.done:
            return True
        alive = self.p.poll() is None
        try:
            with open(os.path.join(self.out, "metrics.jsonl"), encoding="utf-8") as f:
                f.seek(self.read)
                chunk = f.read()
        except FileNotFoundError:
            chunk = ""
        complete = chunk[:chunk.rfind("\n") + 1]   # a line being written is read next time
        self.read += len(complete.encode("utf-8"))
        for line in complete.splitlines():
            m = json.loads(line)
            if m.get("split") == "train" and "step" in m and m["step"] not in self.cpu and alive:
                self.cpu[m["step"]] = cpu_seconds(self.p.pid)
                self.wall[m["step"]] = float(m.get("elapsed_s", "nan"))
        if last_step in self.cpu or not alive:
            if alive:
                os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
            self.log.close()
            self.done = True
        return self.done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="side A's folder of task binaries (the baseline)")
    ap.add_argument("--b", required=True, help="side B's folder of task binaries")
    ap.add_argument("--task", required=True, help="the binary's name in both folders: rc, nmt, classify, ...")
    ap.add_argument("--exp", required=True, help="the experiment JSON both runs train")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--from-step", type=int, default=2, help="K: the time counts from this logged step")
    ap.add_argument("--to-step", type=int, default=12, help="N: ... to this one")
    ap.add_argument("--out", default="ab_steps")
    ap.add_argument("--work", default=None, help="where the runs' folders go (default: the system's temp)")
    ap.add_argument("extra", nargs="*", help="more task arguments, after --")
    a = ap.parse_args()
    if a.rounds < 1:
        fail(f"--rounds {a.rounds}: expected at least 1")
    K, N = a.from_step, a.to_step
    if K < 1 or N <= K or N % K:
        fail(f"--from-step {K} --to-step {N}: expected 1 <= K < N with N a multiple of K (steps are logged every K)")
    if os.path.realpath(a.a) == os.path.realpath(a.b):
        fail(f"--a and --b are the same folder ({a.a}): nothing to compare")
    bins = {}
    for side, d in (("A", a.a), ("B", a.b)):
        b = os.path.join(d, a.task)
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            fail(f"--{side.lower()} {d}: no executable '{a.task}' in it")
        bins[side] = b
    if not os.path.isfile(a.exp):
        fail(f"--exp {a.exp}: no such file")
    cores = sorted(os.sched_getaffinity(0))
    pinned = len(cores) >= 2
    if not pinned:
        print("ab_steps.py: one CPU available: the two runs share it unpinned", file=sys.stderr)
    logs = a.out + "_logs"
    os.makedirs(logs, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ab_steps_", dir=a.work)
    records = []
    try:
        for rnd in range(1, a.rounds + 1):
            runs = []
            for i, side in enumerate(("A", "B")):
                core = cores[(i + rnd) % 2] if pinned else None
                out = os.path.join(work, f"{side}_{rnd}")
                argv = [bins[side], a.exp, "--threads", "1", "--set", f"out_dir={out}",
                        "--set", f"train.max_steps={N + 5}", "--set", f"train.log_every={K}"] + a.extra
                runs.append(Run(side, argv, out, os.path.join(logs, f"{side}_{rnd}.log"), core))
            while not all([r.poll(N) for r in runs]):
                time.sleep(POLL_S)
            for r in runs:
                if K not in r.cpu or N not in r.cpu:
                    with open(r.log_path, encoding="utf-8", errors="replace") as f:
                        tail = "".join(f.readlines()[-10:])
                    fail(f"side {r.side}, round {rnd}: the run ended (exit {r.p.returncode}) before logging steps "
                         f"{K} and {N}; the end of {r.log_path}:\n{tail}", 1)
            rec = {"round": rnd}
            for r in runs:
                rec[r.side] = {"cpu_s": round(r.cpu[N] - r.cpu[K], 3), "wall_s": round(r.wall[N] - r.wall[K], 3)}
                shutil.rmtree(r.out, ignore_errors=True)
            rec["b_over_a"] = round(rec["B"]["cpu_s"] / rec["A"]["cpu_s"], 4)
            records.append(rec)
            print(f"ab_steps.py: round {rnd}: A {rec['A']['cpu_s']:.2f} s, B {rec['B']['cpu_s']:.2f} s CPU "
                  f"(steps {K + 1}..{N}), B / A {rec['b_over_a']:.4f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratios = [r["b_over_a"] for r in records]
    faster = sum(x < 1 for x in ratios)
    ties = sum(x == 1 for x in ratios)
    p = sign_test_p(faster, len(ratios) - ties) if len(ratios) > ties else 1.0
    summary = {"median_b_over_a": round(statistics.median(ratios), 4), "mean_b_over_a": round(statistics.mean(ratios), 4),
               "sd_b_over_a": round(statistics.stdev(ratios), 4) if len(ratios) > 1 else None,
               "rounds_b_faster": faster, "rounds_tied": ties, "sign_test_p": round(p, 4)}
    command = shlex.join(["tools/ab_steps.py"] + sys.argv[1:])
    doc = {"tool": "tools/ab_steps.py", "command": command, "cpu": cpu_name(), "pinned": pinned,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "a": a.a, "b": a.b, "task": a.task, "exp": a.exp, "steps": [K + 1, N], "records": records,
           "summary": summary}
    with open(a.out + ".json", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    lines = [f"# A/B of two builds: `{a.task} {a.exp}`, steps {K + 1}..{N}", "",
             f"`{command}`, {doc['date']}, {doc['cpu']}; A = `{a.a}`, B = `{a.b}`; the two runs of a round side by side"
             + (", one per core, the cores swapped each round." if pinned else " on one CPU."), "",
             "| round | A CPU s | B CPU s | B / A |", "|---:|---:|---:|---:|"]
    lines += [f"| {r['round']} | {r['A']['cpu_s']:.2f} | {r['B']['cpu_s']:.2f} | {r['b_over_a']:.4f} |" for r in records]
    sd = f", sd {summary['sd_b_over_a']:.4f}" if summary["sd_b_over_a"] is not None else ""
    lines += ["", f"B / A: median {summary['median_b_over_a']:.4f}, mean {summary['mean_b_over_a']:.4f}{sd}; "
              f"B faster in {faster} of {len(ratios)} rounds ({ties} tied), two-sided sign test p = {p:.4f}."]
    md = "\n".join(lines) + "\n"
    with open(a.out + ".md", "w", encoding="utf-8") as f:
        f.write(md)
    print(md, end="")


if __name__ == "__main__":
    main()
