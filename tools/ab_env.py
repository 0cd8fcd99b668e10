#!/usr/bin/env python3
"""One binary, two environments, the same commands: an A/B sitting of a setting that an environment variable
chooses (TWIN_GEMM_BACKENDS=eigen against the probe's routing, TWIN_MALLOC=glibc against the fixed malloc
thresholds of a build without tcmalloc, ...). Each command runs once per side per round, the sides alternating (A B in odd rounds,
B A in even ones, so a drift of the machine falls on both); per run the wall time and the child's own peak
resident set (os.wait4's ru_maxrss) are kept.

  /usr/bin/python3 tools/ab_env.py --a TWIN_MALLOC=glibc --b TWIN_MALLOC=twin --commands FILE
                                   [--rounds N] [--out PREFIX] [--work DIR]

FILE: one command per line, "name: command" (split like a shell would, no shell features); "#" starts a
comment line. "{out}" in a command is replaced by a fresh empty folder for that run (a run folder's
out_dir), removed after the run. Writes PREFIX.json (every run: name, side, round, wall_s, peak_rss_mb, the
environments, the date, the CPU) and PREFIX.md (per command: each side's runs, the means and B / A), and
PREFIX_logs/NAME_SIDE_ROUND.log (the run's stdout and stderr). Run it on a quiet machine: the figures are
the machine's as much as the setting's.

Exit 2 on a bad argument or command file (named, with the line); 1 when a command fails (its name, side,
exit code and the end of its log); 0 otherwise. Standard library only.
"""
import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time


def fail(msg, code=2):
    print(f"ab_env.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_env(text, flag):
    """'A=1,B=x' -> {'A': '1', 'B': 'x'}; '' -> {} (the environment as it is)."""
    env = {}
    for part in filter(None, text.split(",")):
        name, eq, value = part.partition("=")
        if not eq or not name:
            fail(f"{flag} {text}: expected NAME=VALUE[,NAME=VALUE...], got '{part}'")
        env[name] = value
    return env


def read_commands(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"--commands {path}: {e.strerror}")
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, colon, cmd = line.partition(":")
        name = name.strip()
        if not colon or not name or not cmd.strip() or not name.replace("_", "").replace("-", "").isalnum():
            fail(f"{path}:{n}: expected 'name: command' (name of letters, digits, _ and -), got '{line}'")
        if any(name == c[0] for c in out):
            fail(f"{path}:{n}: command name '{name}' is used twice")
        try:
            argv = shlex.split(cmd)
        except ValueError as e:
            fail(f"{path}:{n}: {e}")
        out.append((name, argv))
    if not out:
        fail(f"--commands {path}: no command in it")
    return out


def run_one(argv, env, work, log_path):
    """(wall seconds, peak RSS MiB, exit code) of one run, its output in log_path."""
    out_dir = tempfile.mkdtemp(prefix="ab_", dir=work)
    argv = [a.replace("{out}", os.path.join(out_dir, "run")) for a in argv]
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("$ " + shlex.join(argv) + "\n")
        log.flush()
        start = time.monotonic()
        try:
            p = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        except OSError as e:
            shutil.rmtree(out_dir, ignore_errors=True)
            fail(f"cannot start {argv[0]}: {e.strerror}", 1)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
    p.returncode = os.waitstatus_to_exitcode(status)   # reaped here: Popen must not wait for it again
    shutil.rmtree(out_dir, ignore_errors=True)
    return wall, usage.ru_maxrss / 1024.0, p.returncode


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def markdown(records, commands, a_text, b_text):
    def side(name, s):
        return [r for r in records if r["name"] == name and r["side"] == s]

    def mean(v):
        return sum(v) / len(v)

    lines = [f"A: `{a_text or '(environment unchanged)'}`; B: `{b_text or '(environment unchanged)'}`. "
             "Wall seconds of each run (rounds in order) and the run's peak RSS (MiB); B / A of the means.", "",
             "| command | A wall s | B wall s | B / A wall | A peak RSS | B peak RSS | B / A RSS |",
             "|---|---|---|---:|---|---|---:|"]
    for name, _ in commands:
        a, b = side(name, "A"), side(name, "B")
        aw, bw = [r["wall_s"] for r in a], [r["wall_s"] for r in b]
        ar, br = [r["peak_rss_mb"] for r in a], [r["peak_rss_mb"] for r in b]
        lines.append(f"| {name} | {' / '.join(f'{v:.1f}' for v in aw)} | {' / '.join(f'{v:.1f}' for v in bw)} | "
                     f"{mean(bw) / mean(aw):.3f} | {' / '.join(f'{v:.0f}' for v in ar)} | "
                     f"{' / '.join(f'{v:.0f}' for v in br)} | {mean(br) / mean(ar):.3f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", default="", help="side A's variables, NAME=VALUE[,NAME=VALUE...]")
    ap.add_argument("--b", default="", help="side B's variables")
    ap.add_argument("--commands", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default="ab")
    ap.add_argument("--work", default=None, help="where the runs' {out} folders go (default: the system's temp)")
    a = ap.parse_args()
    if a.rounds < 1:
        fail(f"--rounds {a.rounds}: expected at least 1")
    if a.a == a.b:
        fail(f"--a and --b are the same ('{a.a}'): nothing to compare")
    env_a, env_b = parse_env(a.a, "--a"), parse_env(a.b, "--b")
    commands = read_commands(a.commands)
    logs = a.out + "_logs"
    os.makedirs(logs, exist_ok=True)
    work = a.work or tempfile.gettempdir()
    records = []
    for rnd in range(1, a.rounds + 1):
        for name, argv in commands:
            for s in ("A", "B") if rnd % 2 else ("B", "A"):
                env = dict(os.environ)
                env.update(env_a if s == "A" else env_b)
                log = os.path.join(logs, f"{name}_{s}_{rnd}.log")
                wall, rss, rc = run_one(argv, env, work, log)
                if rc != 0:
                    with open(log, encoding="utf-8", errors="replace") as f:
                        tail = "".join(f.readlines()[-10:])
                    fail(f"{name} (side {s}, round {rnd}) exited with {rc}; the end of {log}:\n{tail}", 1)
                print(f"ab_env.py: round {rnd} {name} {s}: {wall:.1f} s, peak RSS {rss:.0f} MiB", flush=True)
                records.append({"name": name, "side": s, "round": rnd, "wall_s": round(wall, 3),
                                "peak_rss_mb": round(rss, 1)})
    doc = {"tool": "tools/ab_env.py", "command": shlex.join(["tools/ab_env.py"] + sys.argv[1:]),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "cpu": cpu_name(),
           "a": env_a, "b": env_b, "commands": {n: shlex.join(c) for n, c in commands}, "records": records}
    with open(a.out + ".json", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    md = (f"# A/B: `{a.a}` against `{a.b}`\n\n`{doc['command']}`, {doc['date']}, {doc['cpu']}.\n\n"
          + markdown(records, commands, a.a, a.b))
    with open(a.out + ".md", "w", encoding="utf-8") as f:
        f.write(md)
    print(md, end="")


if __name__ == "__main__":
    main()
