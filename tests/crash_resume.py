#!/usr/bin/python3
"""Crash-safety test (issue 11): SIGKILL a training run at random moments, many of them while a checkpoint
is being written, resume it each time, and check that

  * after every kill, every checkpoint in the run folder is complete and valid (this script's reader of the
    format in core/train/checkpoint.h, checksum included) AND loads through the real loaders: the binary
    resumes a copy of the folder for one step (checkpoint.last.bin, strict) and evaluates model.best.bin;
  * no file under its final name is ever partial (JSON files parse, metrics.jsonl lines parse);
  * the finished run equals an uninterrupted run of the same config bit for bit (threads=1): summary.json's
    dev/test metrics, every metrics.jsonl line (timings aside), the parameters, optimiser and task state of
    checkpoint.last.bin, model.best.bin and the snapshots.

A kill "during a write" is one that leaves a temp file (.<name>.tmp-<pid>-<n>, see write_text_atomic): the
file exists only between open() and rename(). The script watches for one and kills the moment it appears.
The LM smoke model trains on a synthetic corpus this script writes, so no downloaded data is needed.

  /usr/bin/python3 tests/crash_resume.py                 # full form: 20 kills
  /usr/bin/python3 tests/crash_resume.py --kills 5       # short form (ctest)
Exit status 0 when every check passed; the seed is printed so a failure can be replayed (--seed).
"""
import argparse
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMING_KEYS = {"elapsed_s", "units_s"}   # wall-clock values: the only ones allowed to differ


def write_corpus(d):
    """A tiny grammar (like tests/synthetic/lm_synthetic.cc), fixed seed: the same corpus on every run."""
    r = random.Random(17)
    det, adj = ["the", "a", "every", "some"], ["small", "red", "old", "quick", "quiet"]
    noun = ["cat", "dog", "bird", "child", "teacher", "river"]
    verb, prep = ["sees", "likes", "follows", "finds"], ["near", "behind", "under"]

    def np_():
        return " ".join([r.choice(det)] + ([r.choice(adj)] if r.random() < 0.5 else []) + [r.choice(noun)])

    def sent():
        s = np_() + " " + r.choice(verb) + " " + np_()
        return s + (" " + r.choice(prep) + " " + np_() if r.random() < 0.3 else "")

    os.makedirs(d)
    for name, n in (("train.txt", 400), ("valid.txt", 60), ("test.txt", 60)):
        with open(os.path.join(d, name), "w") as f:
            f.write("".join(sent() + "\n" for _ in range(n)))


def fnv1a64(b):
    h = 0xCBF29CE484222325
    for x in b:
        h = ((h ^ x) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def read_checkpoint(path):
    """(header, {name: bytes}) of a checkpoint file; raises ValueError saying what is wrong."""
    with open(path, "rb") as f:
        s = f.read()
    if len(s) < 24 or s[:4] != b"TWCK":
        raise ValueError("%s: truncated or bad magic (%d bytes)" % (path, len(s)))
    version, hlen = struct.unpack_from("<IQ", s, 4)
    if version != 1 or 16 + hlen + 8 > len(s):
        raise ValueError("%s: bad version %d or header length %d" % (path, version, hlen))
    header = json.loads(s[16:16 + hlen].decode("utf-8"))
    if 16 + hlen + header["data_bytes"] + 8 != len(s):
        raise ValueError("%s: size %d, the header promises %d" % (path, len(s), 16 + hlen + header["data_bytes"] + 8))
    if fnv1a64(s[:-8]) != struct.unpack_from("<Q", s, len(s) - 8)[0]:
        raise ValueError("%s: checksum mismatch" % path)
    data = s[16 + hlen:-8]
    mats = {e["name"]: data[e["offset"]:e["offset"] + 4 * e["rows"] * e["cols"]] for e in header["params"]}
    return header, mats


def temp_files(run):
    """Hidden temp files of write_text_atomic in the run folder and its snapshots folder."""
    out = []
    for d in (run, os.path.join(run, "snapshots")):
        if os.path.isdir(d):
            out += [os.path.join(d, n) for n in os.listdir(d) if n.startswith(".") and ".tmp-" in n]
    return out


def check_folder(run):
    """Every final-named file is whole: checkpoints valid, JSON parses. Returns the progress step."""
    step = None
    bins = [os.path.join(run, n) for n in os.listdir(run) if n.endswith(".bin")]
    snaps = os.path.join(run, "snapshots")
    if os.path.isdir(snaps):
        bins += [os.path.join(snaps, n) for n in os.listdir(snaps) if not n.startswith(".")]
    for b in bins:
        header, _ = read_checkpoint(b)
        if b.endswith("checkpoint.last.bin"):
            step = header["meta"]["progress"]["step"]
    for n in ("progress.json", "summary.json", "config.resolved.json"):
        if os.path.exists(os.path.join(run, n)):
            with open(os.path.join(run, n)) as f:
                json.load(f)
    if os.path.exists(os.path.join(run, "metrics.jsonl")):
        with open(os.path.join(run, "metrics.jsonl")) as f:
            lines = f.read().split("\n")
        for ln in lines[:-1]:   # the last piece may be a line torn by the kill: a resume drops it
            json.loads(ln)
    return step, len(bins)


class Runner:
    def __init__(self, binary, config, data, log):
        self.binary, self.config, self.data, self.log = binary, config, data, log

    def cmd(self, out_dir, *extra):
        return [self.binary, self.config, "--threads", "1", "--set", "data.dir=" + json.dumps(self.data),
                "--set", "out_dir=" + json.dumps(out_dir)] + list(extra)

    def run(self, out_dir, *extra):
        r = subprocess.run(self.cmd(out_dir, *extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise AssertionError("%s exited %d:\n%s" % (" ".join(self.cmd(out_dir, *extra)), r.returncode,
                                                        r.stderr.decode()[-2000:]))
        return r

    def verify_with_binary(self, run, step):
        """The real loaders: resume a copy for one step (strict load of checkpoint.last.bin, with optimiser
        and task state), then run_main evaluates model.best.bin (load_params) and writes summary.json."""
        copy = run + ".verify"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(run, copy)
        self.run(copy, "--resume", "--set", "train.max_steps=%d" % (step + 1))
        shutil.rmtree(copy)


def compare(straight, crashed):
    """Bitwise equality of everything but wall-clock values. Returns a list of differences."""
    diffs = []
    with open(os.path.join(straight, "summary.json")) as f:
        a = json.load(f)
    with open(os.path.join(crashed, "summary.json")) as f:
        b = json.load(f)
    for k in ("dev", "test", "steps", "epochs_done", "stop_reason", "params", "evaluated_model"):
        if a.get(k) != b.get(k):
            diffs.append("summary.json %s: %r vs %r" % (k, a.get(k), b.get(k)))

    def rows(run):
        with open(os.path.join(run, "metrics.jsonl")) as f:
            return [{k: v for k, v in json.loads(ln).items() if k not in TIMING_KEYS} for ln in f if ln.strip()]
    ra, rb = rows(straight), rows(crashed)
    if ra != rb:
        first = next((i for i in range(min(len(ra), len(rb))) if ra[i] != rb[i]), min(len(ra), len(rb)))
        diffs.append("metrics.jsonl: %d vs %d lines, first difference at line %d: %s vs %s" % (
            len(ra), len(rb), first + 1, ra[first] if first < len(ra) else None, rb[first] if first < len(rb) else None))
    names = ["checkpoint.last.bin", "model.best.bin"]
    if os.path.isdir(os.path.join(straight, "snapshots")):
        names += ["snapshots/" + n for n in sorted(os.listdir(os.path.join(straight, "snapshots")))]
    for n in names:
        try:
            ha, ma = read_checkpoint(os.path.join(straight, n))
            hb, mb = read_checkpoint(os.path.join(crashed, n))
        except (OSError, ValueError) as e:
            diffs.append("%s: %s" % (n, e))
            continue
        if ma != mb:
            diffs.append("%s: matrices differ: %s" % (n, [k for k in ma if ma[k] != mb.get(k)][:5]))
        pa, pb = ha["meta"].get("progress"), hb["meta"].get("progress")
        if pa is not None:
            pa = {k: v for k, v in pa.items() if k not in TIMING_KEYS}
            pb = {k: v for k, v in pb.items() if k not in TIMING_KEYS}
            if pa != pb:
                diffs.append("%s: progress differs: %s" % (n, [k for k in pa if pa[k] != pb.get(k)]))
    if sorted(os.listdir(straight)) != sorted(n for n in os.listdir(crashed) if n != "eval.json"):
        diffs.append("files: %s vs %s" % (sorted(os.listdir(straight)), sorted(os.listdir(crashed))))
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=None, help="the lm binary (default: build/bin/lm, else build-*/bin/lm)")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--min-write-kills", type=int, default=None,
                    help="kills that must land during a checkpoint write (default: kills/5, at least 1)")
    ap.add_argument("--seed", type=int, default=None, help="default: from the clock (printed)")
    ap.add_argument("--epochs", type=int, default=4, help="epochs of 100 steps per run")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(time.time() * 1000) % 1000000
    min_write = a.min_write_kills if a.min_write_kills is not None else max(1, a.kills // 5)
    binary = a.bin or os.path.join(ROOT, "build", "bin", "lm")
    if not os.access(binary, os.X_OK):
        alts = sorted((os.path.getmtime(p), p) for p in
                      (os.path.join(ROOT, d, "bin", "lm") for d in os.listdir(ROOT) if d.startswith("build"))
                      if os.access(p, os.X_OK))
        if not alts:
            sys.exit("crash_resume: no lm binary at %s (build it: make -C build lm, or pass --bin)" % binary)
        binary = alts[-1][1]
    print("crash_resume: seed %d, %d kills (>= %d during a write), binary %s" % (seed, a.kills, min_write, binary))
    rng = random.Random(seed)
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="twin_crash_")
    try:
        data = os.path.join(work, "data")
        write_corpus(data)
        # The smoke LM with a checkpoint after every step and a dev evaluation (model.best.bin, a snapshot)
        # every 10: about 150 atomic writes per epoch, so kills often land inside one.
        with open(os.path.join(ROOT, "experiments", "smoke", "lm_atr.json")) as f:
            cfg = json.load(f)
        cfg["train"].update({"max_epochs": a.epochs, "save_every": 1, "eval_every": 10, "keep_snapshots": 2,
                             "log_every": 3})
        config = os.path.join(work, "lm_crash.json")
        with open(config, "w") as f:
            json.dump(cfg, f, indent=1)
        runner = Runner(binary, config, data, None)
        straight = os.path.join(work, "straight")
        ts = time.time()
        runner.run(straight)
        straight_s = time.time() - ts
        print("uninterrupted run: %.2f s" % straight_s)

        kills = write_kills = rounds = 0
        written_to = {}
        failures = []
        while kills < a.kills:
            rounds += 1
            run = os.path.join(work, "crashed%d" % rounds)
            sessions = 0
            while True:
                resume = os.path.exists(os.path.join(run, "checkpoint.last.bin"))
                before = set(temp_files(run)) if os.path.isdir(run) else set()
                p = subprocess.Popen(runner.cmd(run, *(["--resume"] if resume else [])),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                sessions += 1
                # Half the kills at a uniformly random moment of the session (start-up included), half the
                # moment a temp file appears after a random delay: of checkpoint.last.bin itself half the
                # time (otherwise progress.json, written right after it, is usually seen first).
                # The last kills all aim at writes if fewer than min_write have landed in one so far.
                at_write = kills < a.kills and (rng.random() < 0.5 or a.kills - kills <= min_write - write_kills)
                target = "." + rng.choice(["checkpoint.last.bin.tmp-", ""])
                deadline = time.time() + rng.uniform(0.0, straight_s / 4 if not at_write else straight_s / 8)
                killed = False
                while p.poll() is None and kills < a.kills:
                    now = time.time()
                    if now >= deadline and (not at_write or any(os.path.basename(t).startswith(target)
                                                                 for t in set(temp_files(run)) - before)):
                        p.send_signal(signal.SIGKILL)
                        killed = True
                        break
                    if not at_write or now < deadline:   # at a write: poll without sleeping
                        time.sleep(min(0.002, max(0.0, deadline - now)))
                err = p.communicate()[1].decode()
                if not killed:
                    if p.returncode != 0:
                        failures.append("round %d session %d exited %d: %s" % (rounds, sessions, p.returncode,
                                                                                err[-1500:]))
                    break
                kills += 1
                left = sorted(set(temp_files(run)) - before)
                if left:
                    write_kills += 1
                    for t in left:
                        n = os.path.basename(t)[1:].split(".tmp-")[0]
                        written_to[n] = written_to.get(n, 0) + 1
                try:
                    step, n_bins = check_folder(run) if os.path.isdir(run) else (None, 0)
                    if step is not None:
                        runner.verify_with_binary(run, step)
                except (ValueError, AssertionError, OSError) as e:
                    failures.append("after kill %d: %s" % (kills, e))
                    break
                print("kill %2d: round %d session %d, %s, step %s, %d checkpoint files valid%s" % (
                    kills, rounds, sessions, "during a write of " + ", ".join(os.path.basename(t) for t in left)
                    if left else "between writes", step, n_bins, " (+ loaded by the binary)" if step is not None
                    else " (killed before the first checkpoint)"))
            if failures:
                break
            diffs = compare(straight, run)
            stale = temp_files(run)
            if stale:
                diffs.append("temp files left after the finished run: %s" % stale)
            print("round %d: %d sessions; the finished run %s the uninterrupted one" % (
                rounds, sessions, "EQUALS" if not diffs else "DIFFERS FROM"))
            failures += ["round %d: %s" % (rounds, d) for d in diffs]
            if failures:
                break
        total = time.time() - t0
        print("crash_resume: %d kills, %d during a write (%s), %d rounds, seed %d, %.1f s" % (
            kills, write_kills, ", ".join("%s %d" % kv for kv in sorted(written_to.items())), rounds, seed, total))
        if write_kills < min_write:
            failures.append("only %d kills landed during a write (need %d)" % (write_kills, min_write))
        for f in failures:
            print("FAIL: " + f)
        if failures:
            print("work folder kept: " + work)
            a.keep = True
        return 1 if failures else 0
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
