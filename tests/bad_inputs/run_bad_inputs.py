#!/usr/bin/python3
"""Runs every bad input of tests/bad_inputs/cases.json against the task binaries and checks each answer.

For each case: a fresh folder with the case's data, experiment file and (optionally) a copy of a trained
run folder; the command runs there, so the messages name short relative paths. A case whose args start with
"tune" runs `/usr/bin/python3 tools/tune.py ARGS --bin BIN_DIR` (a search space of the tuner, e.g.
`tune check space.json`, its space file given by the case's "files"); one whose args start with "prep" runs
`/usr/bin/python3 data_prep/SCRIPT ARGS` (a data_prep script on raw files the case writes: plain, gzipped or a
tar.gz archive). Checked: the exit code is the expected one (never a signal, 134 or 139), stderr holds
`<prog>: error: ...` containing the expected text and nothing of a crash (terminate, sanitizer report, stack
trace, a Python traceback), and no file that existed before the command was changed or removed (a refused
command must leave a run folder exactly as it was). A case with "accepted" is an input that looks odd but is
valid (a word2vec header line in a vectors file): exit 0, no error line, and its output holds that text.

The README's table of bad inputs is generated from these runs: `--write-readme` rewrites it, and a plain run
fails when the README's table differs from what the binaries answer now, so the table cannot go stale.

  /usr/bin/python3 tests/bad_inputs/run_bad_inputs.py --bin-dir build/bin [--write-readme] [-k FILTER] [-v]
Standard library only. Exit 0: all cases pass; 1: a mismatch (each printed with expected and actual).
"""
import argparse
import concurrent.futures
import gzip
import hashlib
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

import datagen

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
BEGIN, END = "<!-- bad-inputs:begin -->", "<!-- bad-inputs:end -->"
CRASH_SIGNS = ["terminate called", "Segmentation fault", "core dumped", "Aborted", "AddressSanitizer",
               "runtime error:", "internal error", "std::", "what():", "Traceback (most recent call last)"]
# Error messages end with the source location of the check ("  (cli.cc:42)"): useful to a developer, but
# line numbers move with every edit, so the table and the comparison leave them out.
LOCATION = re.compile(r"  \([A-Za-z0-9_]+\.(?:cc|h|cpp):\d+\)")
CASE_TIMEOUT_S = 20
TUNE_PYTHON = "/usr/bin/python3"   # the tuner's Python (it sees Debian's python3-optuna), whichever runs this
PREP_PYTHON = "/usr/bin/python3"   # the data_prep scripts' Python (the project runs Python only as this)


def deep_merge(base, patch):
    """Objects merge key by key; a null in the patch deletes the key (to test a missing required key)."""
    for k, v in patch.items():
        if v is None:
            base.pop(k, None)
        elif isinstance(v, dict) and isinstance(base.get(k), dict):
            deep_merge(base[k], v)
        else:
            base[k] = v
    return base


def file_digests(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p):   # the links a case makes (some dangle or loop) are not run files
                continue
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def spec_bytes(spec):
    """The bytes of a text or {"hex": ...} spec."""
    return spec.encode("utf-8") if isinstance(spec, str) else bytes.fromhex(spec["hex"])


def write_file(path, spec):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if isinstance(spec, str):
        with open(path, "w", encoding="utf-8") as f:
            f.write(spec)
    elif "hex" in spec:   # bytes JSON cannot hold as text (invalid UTF-8)
        with open(path, "wb") as f:
            f.write(bytes.fromhex(spec["hex"]))
    elif "gzip" in spec:   # {"gzip": text or {"hex"}}: a .gz file, the same bytes on every run (mtime 0)
        with open(path, "wb") as f:
            f.write(gzip.compress(spec_bytes(spec["gzip"]), mtime=0))
    elif "tar_gz" in spec:   # {"tar_gz": {member: text or {"hex"}, member/: {"dir": true}}}: an archive
        with tarfile.open(path, "w:gz") as tar:
            for name, member in spec["tar_gz"].items():
                info = tarfile.TarInfo(name.rstrip("/"))
                if isinstance(member, dict) and member.get("dir"):
                    info.type = tarfile.DIRTYPE
                    tar.addfile(info)
                    continue
                data = spec_bytes(member)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    elif "symlink" in spec:
        os.symlink(spec["symlink"], path)
    elif spec.get("dir"):   # in place of a file the data had
        if os.path.isfile(path):
            os.remove(path)
        os.makedirs(path, exist_ok=True)
    else:
        raise ValueError("file spec must be text, {\"hex\": ...}, {\"gzip\": ...}, {\"tar_gz\": {...}}, "
                         "{\"symlink\": ...} or {\"dir\": true}: %r" % (spec,))


def mutate(case_dir, m):
    """Damage to a copied run folder: truncate, overwrite bytes at an offset (negative: from the end), copy, delete."""
    path = os.path.join(case_dir, m["path"])
    if m["op"] == "truncate":
        with open(path, "r+b") as f:
            f.truncate(m["size"])
    elif m["op"] == "patch":
        size = os.path.getsize(path)
        at = m["offset"] if m["offset"] >= 0 else size + m["offset"]
        with open(path, "r+b") as f:
            f.seek(at)
            f.write(bytes.fromhex(m["hex"]))
    elif m["op"] == "copy":
        shutil.copyfile(os.path.join(case_dir, m["from"]), path)
    elif m["op"] == "delete":
        os.remove(path)
    else:
        raise ValueError("unknown mutation %r" % (m,))


class Runner:
    def __init__(self, bin_dir, work, env):
        self.bin_dir, self.work, self.env = bin_dir, work, env
        self.fixtures = {}
        self.data = {}

    def data_for(self, task):
        """Each task's data is generated once (NMT's subword model takes a moment) and copied into the cases."""
        if task not in self.data:
            self.data[task] = os.path.join(self.work, "data_" + task)
            datagen.generate(task, self.data[task])
        return self.data[task]

    def command(self, args):
        if args[0] == "tune":   # tools/tune.py, its search spaces checked against the task binaries' keys
            return [TUNE_PYTHON, os.path.join(SOURCE, "tools", "tune.py")] + args[1:] + ["--bin", self.bin_dir]
        if args[0] == "prep":   # a data_prep script on the case's raw files
            return [PREP_PYTHON, os.path.join(SOURCE, "data_prep", args[1])] + args[2:]
        exe = os.path.join(self.bin_dir, args[0])
        if not os.path.exists(exe):
            raise FileNotFoundError("binary %s not built" % exe)
        return [exe] + args[1:]

    def config_for(self, case):
        task = case["task"]
        with open(os.path.join(SOURCE, "experiments", "smoke", task + "_atr.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        # Local data and run folder: short relative paths in the messages, nothing written outside the case.
        cfg["data"]["dir"] = "data"
        cfg["out_dir"] = "run"
        cfg["threads"] = 1
        return deep_merge(cfg, json.loads(json.dumps(case.get("patch", {}))))

    def fixture(self, name, cases):
        """A finished run folder (trained once per invocation) that checkpoint cases copy and damage."""
        if name in self.fixtures:
            return self.fixtures[name]
        spec = cases["fixtures"][name]
        d = os.path.join(self.work, "fixture_" + name)
        os.makedirs(d)
        shutil.copytree(self.data_for(spec["task"]), os.path.join(d, "data"))
        with open(os.path.join(d, "exp.json"), "w", encoding="utf-8") as f:
            json.dump(self.config_for(spec), f, indent=2)
        r = subprocess.run(self.command(spec["args"]), cwd=d, env=self.env, capture_output=True, text=True,
                           timeout=120)
        if r.returncode != 0:
            raise RuntimeError("fixture %s: training failed (exit %d):\n%s" % (name, r.returncode, r.stderr))
        self.fixtures[name] = os.path.join(d, "run")
        return self.fixtures[name]

    def prepare(self, case, cases):
        d = os.path.join(self.work, case["id"])
        os.makedirs(d)
        if case.get("task") and case.get("data", True):
            shutil.copytree(self.data_for(case["task"]), os.path.join(d, "data"))
        if "config_text" in case:
            write_file(os.path.join(d, "exp.json"), case["config_text"])
        elif case.get("task"):
            with open(os.path.join(d, "exp.json"), "w", encoding="utf-8") as f:
                json.dump(self.config_for(case), f, indent=2)
        if "fixture" in case:
            shutil.copytree(self.fixture(case["fixture"], cases), os.path.join(d, "run"))
        for rel, spec in case.get("files", {}).items():
            write_file(os.path.join(d, rel), spec)
        for m in case.get("mutate", []):
            mutate(d, m)
        return d

    def run(self, case, cases):
        d = self.prepare(case, cases)
        before = file_digests(d)
        env = dict(self.env)
        env.update(case.get("env", {}))
        t0 = time.monotonic()
        try:
            r = subprocess.run(self.command(case["args"]), cwd=d, env=env, capture_output=True,
                               timeout=CASE_TIMEOUT_S, stdin=subprocess.DEVNULL)
            code, err = r.returncode, r.stderr.decode("utf-8", "replace")
            out = r.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            code, err = None, (e.stderr or b"").decode("utf-8", "replace") + "\n[timed out: the input was accepted?]"
            out = ""
        seconds = time.monotonic() - t0
        after = file_digests(d)
        changed = sorted(p for p in before if after.get(p) != before[p])
        return {"case": case, "exit": code, "stderr": err.replace(d, "<tmp>").replace(self.work, "<tmp>"),
                "stdout": out.replace(d, "<tmp>").replace(self.work, "<tmp>"), "changed": changed,
                "seconds": seconds}


def error_message(stderr, prog):
    """The `<prog>: error: ...` part of stderr (to its end: some messages list details on further lines)."""
    lines = stderr.rstrip("\n").split("\n")
    for i, line in enumerate(lines):
        if line.startswith(prog + ": ") and ": error: " in line:
            return LOCATION.sub("", "\n".join(lines[i:])).strip()
    return None


def check(res):
    c = res["case"]
    prog = c.get("prog", c["args"][0])
    problems = []
    if res["exit"] is None:
        problems.append("no exit within %d s" % CASE_TIMEOUT_S)
    elif res["exit"] < 0 or res["exit"] in (134, 139):
        problems.append("killed by a signal / crashed (exit %d)" % res["exit"])
    elif res["exit"] != c["exit"]:
        problems.append("exit code %d, expected %d" % (res["exit"], c["exit"]))
    for sign in CRASH_SIGNS:
        if sign in res["stderr"]:
            problems.append("stderr shows a crash or an uncaught exception (%r)" % sign)
    if "accepted" in c:   # a valid input: no error, and the output says it was read
        msg = error_message(res["stderr"], prog)
        if msg is not None:
            problems.append("an error for an input that is valid: " + msg)
        line = next((l for l in (res["stdout"] + res["stderr"]).splitlines() if c["accepted"] in l), None)
        if line is None:
            problems.append("the output lacks %r" % c["accepted"])
        res["message"] = "(accepted) " + LOCATION.sub("", line or "").strip()
        return problems
    msg = error_message(res["stderr"], prog)
    # Numbers that differ from run to run (a checkpoint's header holds the elapsed time, so its length varies)
    # are masked by the case: [regex, replacement] pairs.
    for pattern, repl in c.get("mask", []):
        msg = msg and re.sub(pattern, repl, msg)
    res["message"] = msg
    if msg is None:
        problems.append("no '%s: ... error: ...' line on stderr" % prog)
    elif c["stderr"] not in msg:
        problems.append("message lacks the expected text")
    if res["changed"]:
        problems.append("pre-existing files changed or removed: " + ", ".join(res["changed"]))
    return problems


def table(results):
    def cell(s):   # inside <code>: HTML-escaped, `|` kept from splitting the row, lines as <br>
        return html.escape(s, quote=False).replace("|", "&#124;").replace("\n", "<br>")
    rows = ["| category | bad input | exact message (stderr) | exit |", "|---|---|---|---:|"]
    for r in results:
        c = r["case"]
        args = c["args"]
        if args[0] == "tune":
            args = ["tools/tune.py"] + args[1:]
        elif args[0] == "prep":
            args = ["data_prep/" + args[1]] + args[2:]
        cmd = " ".join(args)
        for k, v in sorted(c.get("env", {}).items()):
            cmd = "%s=%s %s" % (k, v, cmd)
        rows.append("| %s | %s: <code>%s</code> | <code>%s</code> | %s |" % (
            c["category"], c["input"].replace("|", "\\|"), cell(cmd), cell(r["message"] or ""), r["exit"]))
    intro = ("Generated by `make bad-input-table` from %d cases in `tests/bad_inputs/cases.json` (each run in a "
             "fresh folder holding `exp.json` — a smoke experiment with its data in `data/` and `out_dir` "
             "`run` — and, for the checkpoint cases, a copy of a trained run folder; a search-space case checks "
             "`space.json` there with `tools/tune.py check` against the task binary's keys; a data_prep case runs "
             "the script on the small raw files it writes there; an \"(accepted)\" row is an odd but valid input, "
             "read without error); the `bad_inputs` test "
             "fails when this table differs from what the binaries answer. Source locations (`  (file.cc:N)`) "
             "at the end of each message are left out, and a number that varies between runs (a checkpoint header's "
             "length: it holds the elapsed time) or library versions (a SentencePiece source line) is shown as "
             "`<n>`. In every case no file that existed before was changed."
             % len(results))
    return "\n".join([BEGIN, intro, ""] + rows + [END])


def readme_section(text):
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < 0:
        return None, None
    return a, b + len(END)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", default=os.path.join(SOURCE, "build", "bin"))
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.json"))
    ap.add_argument("--readme", default=os.path.join(SOURCE, "README.md"))
    ap.add_argument("--write-readme", action="store_true", help="rewrite the README table from this run")
    ap.add_argument("-k", dest="filter", help="only cases whose id contains this (no README check)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()

    with open(a.cases, encoding="utf-8") as f:
        cases = json.load(f)
    ids = [c["id"] for c in cases["cases"]]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        sys.exit("cases.json: duplicate ids " + ", ".join(dup))
    selected = [c for c in cases["cases"] if not a.filter or a.filter in c["id"]]
    env = dict(os.environ)
    env.pop("TWIN_FAIL_ON_RANK", None)
    env["OMP_WAIT_POLICY"] = "passive"   # two cases at once on a shared machine
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="twin_bad_inputs_") as work:
        runner = Runner(os.path.abspath(a.bin_dir), os.path.realpath(work), env)
        for task in sorted({c["task"] for c in selected if c.get("task") and c.get("data", True)}):
            runner.data_for(task)   # before the parallel part: each is generated once
        for name in sorted({c["fixture"] for c in selected if "fixture" in c}):
            runner.fixture(name, cases)   # before the parallel part: each is trained once
        with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
            results = list(pool.map(lambda c: runner.run(c, cases), selected))
    failed = 0
    for r in results:
        problems = check(r)
        c = r["case"]
        if a.verbose or problems:
            print("[%s] %s (%s) %.2fs: %s" % ("FAIL" if problems else "ok", c["id"], c["category"], r["seconds"],
                                              " ".join(c["args"])))
        if problems:
            failed += 1
            print("  problems: " + "; ".join(problems))
            print("  expected: exit %d, message containing: %s" % (c["exit"], c["stderr"]))
            print("  actual:   exit %s, stderr:\n    %s" % (r["exit"], r["stderr"].rstrip().replace("\n", "\n    ")))
    counts = {}
    for c in selected:
        counts[c["category"]] = counts.get(c["category"], 0) + 1
    print("bad inputs: %d cases (%s), %d failed, %.1f s" % (
        len(selected), ", ".join("%s %d" % kv for kv in sorted(counts.items())), failed, time.monotonic() - t0))
    if failed:
        return 1
    if a.filter:
        return 0
    with open(a.readme, encoding="utf-8") as f:
        text = f.read()
    lo, hi = readme_section(text)
    want = table(results)
    if a.write_readme:
        if lo is None:
            sys.exit("%s: no %s ... %s markers to write the table between" % (a.readme, BEGIN, END))
        with open(a.readme, "w", encoding="utf-8") as f:
            f.write(text[:lo] + want + text[hi:])
        print("wrote the table to " + a.readme)
        return 0
    if lo is None or text[lo:hi] != want:
        print("%s: the bad-input table differs from what the binaries answer now "
              "(HINT: `make bad-input-table` regenerates it):" % a.readme)
        have = [] if lo is None else text[lo:hi].split("\n")
        for line in want.split("\n"):
            if line not in have:
                print("  missing/changed: " + line)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
