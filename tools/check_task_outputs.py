#!/usr/bin/python3
"""The behaviour of every task binary, recorded once and compared after a change (issue 54's safety net: the
tasks are rewritten on one shared skeleton, and nothing they print or write may change).

  /usr/bin/python3 tools/check_task_outputs.py record --bin build/bin --out tests/golden/task_outputs.json
  /usr/bin/python3 tools/check_task_outputs.py check  --bin build/bin --baseline tests/golden/task_outputs.json
      [-k FILTER] [--strict] [--keep DIR] [--jobs N] [-v]

Entries (each compared on its own; a command's entry is its exit code, its stdout and its stderr):
  keys/<task>             `<task> --print-keys` of lm nmt cws ner snli classify rc (speed has no key table).
  config/<experiment>     `<task> <experiment> --print-config`, byte for byte, of every experiment file under
                          experiments/ whose task its folder names (lm/ nmt/ cws/ ner/ snli/ classify/ rc/, base/ by
                          file name, smoke/). Not task experiments: experiments/speed/ (the speed benchmark has
                          no --print-config) and experiments/tune/ (studies read by tools/tune.py).
  config-flags/<smoke>    --print-config of the smoke experiments with --seed, --threads and --set flags.
  run/<task>/...          experiments/smoke/<task>_atr.json trained at --threads 1 for 2-3 epochs of the
                          generated data (a few steps each: --set train.max_epochs=N, train.max_steps=40), then
                          on that run: --eval-only, --resume (finished: nothing to do), --print-params, and the
                          task's modes: lm score, cws segment, ner tag, snli predict, classify predict, rc predict (from a
                          file, and from stdin with another --batch), nmt translate (a split with --scores,
                          a file with --nbest/--normalize/--attention, an ensemble), nmt average. Training
                          uses lm --dump-gates and classify --memory. Entries: every command, and every file
                          of the run folder (files/...: metrics.jsonl, summary.json, progress.json,
                          config.resolved.json, params.txt, vocabularies, predictions/, segmented/,
                          translations/, logprobs/, gates.json, memory.json, tags.txt, model.best.bin,
                          checkpoint.last.bin, snapshots/), the files --eval-only rewrites differently
                          (eval-only/...: eval.json, and any file it rewrote with other content) and each
                          mode's output file.
Texts up to INLINE_LIMIT characters are stored whole (a difference is shown as the differing JSON fields and
a unified diff), longer ones by sha256 (`check --keep DIR` keeps the new files to look at).

Data. --print-config reads the data, and the experiments' data (data/ptb, data/multi30k, ...) is absent in a
fresh clone or CI. So every command runs in a temporary folder that holds tiny generated data at each
experiment's own relative data.dir (tools/task_outputs_data.py: the same bytes on every machine; changing it
changes the baseline). Nothing is overridden with --set but the smoke runs' budget, so the printed configs are
the experiments' own; only the data-derived values (vocabulary sizes, num_labels) are those of the generated
data.

Stripped before hashing and comparing (nondeterministic or machine-dependent):
  - timing fields, from every JSON text (files, stdout, the checkpoints' headers, the JSON in stderr lines),
    cut out of the text itself so the rest stays byte for byte: every key ending in `_s`, `_per_s` or
    `seconds` with a number value (elapsed_s, units_s, pairs_per_s, sentences_per_s, decode_tokens_s,
    decode_chars_s, train_units_per_s, train_words_per_s, train_sentences_per_s, train_tokens_per_s,
    wall_seconds; the fields found in results/runs/*/metrics.jsonl and summary.json), and summary.json's
    peak_rss_mb (the process's memory high-water mark: it varies with the allocator and the machine);
  - in stderr: rates (`826 units/s`), ETAs and durations (`in 0.01 s`);
  - the "command" field of summary.json, eval.json and their stdout copies (the command line), and the file
    command.txt (the command line and working folder); the experiment and --set flags are in
    config.resolved.json, which is compared;
  - the temporary folder's path (replaced by `<tmp>`) and the repository's (`<src>`) in every text;
  - checkpoints and parameter files (*.bin) are compared as their JSON header without timing fields (a
    checkpoint's progress holds the elapsed time) plus the sha256 of their tensors; the checksum is not.
  - TWIN_* variables are removed from the commands' environment (TWIN_GEMM_BACKENDS changes the products).
    Where the binaries route products to oneDNN (the default build on a machine with libdnnl-dev), every
    command runs with TWIN_GEMM_BACKENDS set to the other libraries the probe chose ("eigen" when none), and
    the oneDNN part of the backends line is left out of the platform: one baseline serves the builds with
    and without oneDNN, which would otherwise round the larger products differently.
Everything else is bit-identical from run to run at --threads 1 (record, then check: all equal). The floats
depend on the machine and build, though (-march=native: AVX2 and AVX-512 reduce in other orders; OpenBLAS
picks kernels by CPU; the sanitizer build is -O1), so the baseline keeps the platform: the CPU's vendor,
family, model and vector flags, the build's CMake settings and compiler (from <bin>/../CMakeCache.txt), the
GEMM backends (`lm --version`) and the BLAS libraries. On another platform the run/ entries are skipped with a
note (the keys and configs hold no computed floats and are still compared); --strict compares them anyway.

Exit 0: every entry equal; 1: any difference (each printed, naming the entry, file or stream and field);
2: a setup error. The last line is "N passed, M failed" (with ", K skipped" when entries were skipped).

After an intended change of behaviour, re-record with the current binaries and commit the baseline with the
change: /usr/bin/python3 tools/check_task_outputs.py record --bin build/bin --out tests/golden/task_outputs.json
(`git diff tests/golden/task_outputs.json` then shows what changed, one text line per JSON line).
A baseline of a platform the change could not be run on keeps its entries and names the ones the change made
out of date in its "stale" object ({entry: why}); on that platform they are skipped with the reason, not
compared, until it is recorded there again (`record` writes no "stale").
"""
import argparse
import concurrent.futures
import difflib
import glob
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASKS = ["lm", "nmt", "cws", "ner", "snli", "classify", "rc"]
FORMAT = 1
INLINE_LIMIT = 8000          # texts up to this many characters are stored whole (for diffs)
TIMEOUT_S = 120

# Generated data: tools/task_outputs_data.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from task_outputs_data import (  # noqa: E402  (a sibling module, as tune.py imports its own)
    SetupError, embedding_dim, generate_data, generate_embeddings, write_lines)


# ----------------------------------------------------------------------------------------------------------
# Experiments and their tasks

BASE_TASKS = [("lm_", "lm"), ("nmt", "nmt"), ("cws", "cws"), ("ner", "ner"), ("snli", "snli"), ("sick", "snli"),
              ("classify", "classify"), ("rc", "rc")]
NOT_TASK_EXPERIMENTS = {"speed": "the speed tool has no --print-config", "tune": "tuning studies (tools/tune.py)"}


def experiment_task(rel):
    """The task binary of experiments/<folder>/<file>.json, or None for a folder of no task's experiments."""
    parts = rel.split("/")
    folder, stem = parts[1], os.path.splitext(parts[-1])[0]
    if folder in TASKS:
        return folder
    if folder == "smoke":
        return stem.split("_")[0] if stem.split("_")[0] in TASKS else ""
    if folder == "base":
        for prefix, task in BASE_TASKS:
            if stem.startswith(prefix):
                return task
        return ""
    if folder in NOT_TASK_EXPERIMENTS:
        return None
    return ""


def list_experiments():
    out = []
    for p in sorted(glob.glob(os.path.join(SOURCE, "experiments", "**", "*.json"), recursive=True)):
        rel = os.path.relpath(p, SOURCE).replace(os.sep, "/")
        if rel.count("/") < 2:
            continue   # experiments/*.json: none today
        out.append((rel, experiment_task(rel)))
    return out


def merge_json(base, over):
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge_json(base[k], v)
        else:
            base[k] = v
    return base


def load_experiment(path):
    """The experiment after "extends" (one level, objects deeply), as core/train/experiment.h merges it: only
    to learn which data files to generate; the binaries read the file themselves."""
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    ext = j.pop("extends", None)
    if ext:
        with open(os.path.join(os.path.dirname(path), ext), encoding="utf-8") as f:
            base = json.load(f)
        base.pop("extends", None)
        j = merge_json(base, j)
    return j


def data_section(task_keys, experiment):
    """The experiment's data keys over the task's defaults (from --print-keys)."""
    data = {}
    for row in task_keys:
        k = row.get("key", "")
        if k.startswith("data.") and k.count(".") == 1 and not row.get("required") and row.get("type") != "section":
            data[k[5:]] = row.get("default")
    data.update(experiment.get("data") or {})
    return data


# ----------------------------------------------------------------------------------------------------------
# Running and normalising


# oneDNN's part of the backends line: " + oneDNN 2.6.3 avx512_core_bf16 (every product from ...)" or "(unused: ...)".
ONEDNN_PART = re.compile(r" \+ oneDNN \S+ \S+ \([^)]*\)")


def without_onednn_backends(line):
    """TWIN_GEMM_BACKENDS for the libraries the probe chose in the backends line `line`, oneDNN left out; None when
    the probe did not choose oneDNN (the commands then run as the probe routes them)."""
    if not re.search(r" \+ oneDNN \S+ \S+ \((?!unused)", line):
        return None
    names = ["eigen"]
    if re.search(r"OpenBLAS .*? kernels \(large products\)", line):
        names.append("blas")
    if re.search(r"BLIS \S+ \(thin products\)", line):
        names.append("blis")
    return ",".join(names)


class Ctx:
    def __init__(self, bin_dir, work):
        self.bin = os.path.abspath(bin_dir)
        self.work = work          # the temporary working folder: every command's cwd
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("TWIN_")}
        self.env["OMP_WAIT_POLICY"] = "passive"
        self.env["LC_ALL"] = "C.UTF-8"
        # The probe's backends line (lm --version after "), "), then the same products without oneDNN.
        rc, out, _ = self.run(["lm", "--version"])
        self.gemm_probe = out.decode("utf-8", "replace").strip().partition("), ")[2] if rc == 0 else ""
        chosen = without_onednn_backends(self.gemm_probe)
        if chosen is not None:
            self.env["TWIN_GEMM_BACKENDS"] = chosen

    def run(self, argv, stdin=b"", cwd=None):
        exe = argv[0] if os.path.isabs(argv[0]) else os.path.join(self.bin, argv[0])
        try:
            p = subprocess.run([exe] + argv[1:], cwd=cwd or self.work, env=self.env, input=stdin,
                               capture_output=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return 124, b"", ("timed out after %d s" % TIMEOUT_S).encode()
        except OSError as e:
            return 127, b"", str(e).encode()
        return p.returncode, p.stdout, p.stderr

    def norm(self, text):
        """Machine paths out of a text: the working folder (and its real path) and the repository."""
        for path, token in ((os.path.realpath(self.work), "<tmp>"), (self.work, "<tmp>"),
                            (os.path.realpath(SOURCE), "<src>"), (SOURCE, "<src>")):
            text = text.replace(path, token)
        return text


# A timing field and its value inside JSON text, however it is laid out (one line or pretty-printed): the
# file's own bytes are kept, with only these fields cut out (and the comma that joined them).
_KEY = r'"(?:[A-Za-z0-9_]*(?:_s|_per_s|seconds)|peak_rss_mb)"'
_NUM = r'(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null|-?Infinity|NaN)'
_STR = r'"(?:[^"\\]|\\.)*"'


def _field_cutters(key, value):
    kv = key + r'\s*:\s*' + value
    return [re.compile(kv + r'\s*,\s*'),              # a field followed by another: cut it and its comma
            re.compile(r'\s*,\s*' + kv + r'(?=\s*\})'),  # the last field of its object: cut the comma before it
            re.compile(kv)]                              # the only field


TIMING_CUTTERS = _field_cutters(_KEY, _NUM)
COMMAND_CUTTERS = _field_cutters(r'"command"', _STR)


def strip_timing_text(text, drop_command=False):
    """JSON text without its timing fields (every key ending in _s, _per_s or seconds with a number value, and
    peak_rss_mb)
    and, with drop_command, its "command" fields (the command line)."""
    for cutters in (TIMING_CUTTERS, COMMAND_CUTTERS) if drop_command else (TIMING_CUTTERS,):
        for c in cutters:
            text = c.sub("", text)
    return text


def text_record(text, kind="text"):
    rec = {"kind": kind, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "chars": len(text)}
    if len(text) <= INLINE_LIMIT:
        rec["lines"] = text.split("\n")
    return rec


def json_text_record(raw, ctx, drop_command=False):
    """A JSON document (its own bytes, paths normalised) without its timing fields. A text that does not parse
    after that is kept as text (and compared as such)."""
    text = strip_timing_text(ctx.norm(raw), drop_command)
    try:
        json.loads(text)
    except ValueError:
        return text_record(text)
    return text_record(text, "json")


def jsonl_record(raw, ctx):
    return text_record(strip_timing_text(ctx.norm(raw)), "jsonl")


def binary_record(data):
    return {"kind": "binary", "sha256": hashlib.sha256(data).hexdigest(), "chars": len(data)}


RATE = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?( ?[A-Za-z]*/s\b)")
ETA = re.compile(r"ETA \d+m\d+s")
SECONDS = re.compile(r"\b\d+(?:\.\d+)? ?(s|ms|min)\b(?=[ ,;)]|$)")


def norm_stderr(ctx, err):
    """A command's stderr without what the clock decides: rates (`826 units/s`), the ETA, durations, and the
    timing fields of the JSON objects it prints ([dev] lines)."""
    lines = []
    for l in strip_timing_text(ctx.norm(err.decode("utf-8", "replace"))).splitlines():
        lines.append(SECONDS.sub(r"<t> \1", ETA.sub("ETA <t>", RATE.sub(r"<rate>\1", l))))
    return "\n".join(lines) + ("\n" if lines else "")


def command_record(ctx, rc, out, err, kind="text", drop_command=False):
    """A command's outcome: its exit code, stdout and (without times) stderr."""
    text = ctx.norm(out.decode("utf-8", "replace"))
    rec = json_text_record(text, ctx, drop_command) if kind == "json" and rc == 0 else text_record(text)
    rec["exit"] = rc
    rec["stderr"] = text_record(norm_stderr(ctx, err))
    return rec


# command.txt holds the command line and the working folder (a temporary path); the experiment and the
# --set flags are in config.resolved.json, which is compared.
SKIP_RUN_FILES = {"command.txt"}


def run_folder_records(ctx, run_dir, prefix):
    recs = {}
    for d, dirs, files in os.walk(run_dir):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, run_dir).replace(os.sep, "/")
            if rel in SKIP_RUN_FILES or f.endswith(".tmp"):
                continue
            with open(p, "rb") as fh:
                data = fh.read()
            if f.endswith(".bin"):
                rec = checkpoint_record(data)
            else:
                text = data.decode("utf-8", "replace")
                if f.endswith(".jsonl"):
                    rec = jsonl_record(text, ctx)
                elif f.endswith(".json"):
                    rec = json_text_record(text, ctx, drop_command=True)
                else:
                    rec = text_record(ctx.norm(text))
            recs[prefix + rel] = rec
    return recs


def checkpoint_record(data):
    """A checkpoint or parameter file (core/train/checkpoint.cc: "TWCK", u32 version, u64 header length, the
    JSON header, the tensors, a u64 checksum of all before it): its header without timing fields (a
    checkpoint's progress holds the elapsed time) and the sha256 of its tensors. Another file: its sha256."""
    if data[:4] == b"TWCK" and len(data) >= 24:
        (n,) = struct.unpack("<Q", data[8:16])
        try:
            header = json.loads(data[16:16 + n].decode("utf-8"))
            tensors = data[16 + n:16 + n + int(header["data_bytes"])]
        except (ValueError, KeyError, TypeError):
            return binary_record(data)
        rec = text_record(strip_timing_text(data[16:16 + n].decode("utf-8")), "json")
        rec["tensors_sha256"] = hashlib.sha256(tensors).hexdigest()
        return rec
    return binary_record(data)


# ----------------------------------------------------------------------------------------------------------
# What is run

# The smoke runs' budget: two or three epochs of the generated data (a few steps each), so that there are dev
# evaluations, a best model, a patience counter and (NMT) snapshots to average.
SMOKE_BUDGET = {"lm": 2, "nmt": 3, "cws": 2, "ner": 2, "snli": 2, "classify": 3, "rc": 2}
SMOKE_MAX_STEPS = 40
# Task flags of the training run: the LM's gate dump and classify's memory weights write files of their own.
SMOKE_FLAGS = {"lm": ["--dump-gates", "2"], "classify": ["--memory", "4"]}


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def mode_inputs(ctx, task, data_dir):
    """The input file of the task's prediction mode, made from the generated test split (written once)."""
    d = os.path.join(ctx.work, "inputs")
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, task + ".txt")
    src = os.path.join(ctx.work, data_dir)
    if task == "lm":
        lines = read_lines(os.path.join(src, "test.txt"))
    elif task == "cws":
        lines = [l.replace(" ", "") for l in read_lines(os.path.join(src, "test.seg"))] + [""]
    elif task == "ner":
        lines, cur = [], []
        for l in read_lines(os.path.join(src, "test.conll")) + [""]:
            if l.strip():
                cur.append(l.split()[0])
            elif cur:
                lines.append(" ".join(cur))
                cur = []
    elif task == "snli":
        lines = ["\t".join(l.split("\t")[1:]) for l in read_lines(os.path.join(src, "test.tsv"))]
    elif task == "classify":
        lines = [l.split(" ", 1)[1] for l in read_lines(os.path.join(src, "test.txt"))]
    elif task == "rc":   # the dev split in SQuAD's official layout (rc predict's input), without its answers
        paras = [json.loads(l) for l in read_lines(os.path.join(src, "dev.jsonl"))]
        lines = [json.dumps({"data": [{"title": "dev", "paragraphs": [
            {"context": p["context"], "qas": [{"id": q["id"], "question": q["question"]} for q in p["qas"]]}
            for p in paras]}]}, ensure_ascii=False)]
    else:   # nmt
        lines = read_lines(os.path.join(src, "test.tok.src"))
    write_lines(p, lines)
    return os.path.relpath(p, ctx.work)


def output_record(ctx, path, kind="text"):
    p = os.path.join(ctx.work, path)
    if not os.path.exists(p):
        return {"kind": "missing"}
    with open(p, "rb") as f:
        data = f.read()
    if path.endswith(".bin"):
        return checkpoint_record(data)
    text = data.decode("utf-8", "replace")
    return json_text_record(text, ctx) if kind == "json" else text_record(ctx.norm(text), kind)


def unit_config(ctx, rel, task):
    rc, out, err = ctx.run([task, os.path.join(SOURCE, rel), "--print-config"])
    return {"config/" + rel: command_record(ctx, rc, out, err, "json")}


# The command-line flags that change a resolved experiment, on the smoke experiments: --seed (seed and the
# run folder's _s<N> suffix), --threads, and --set of a nested number, an integer and a string.
CONFIG_FLAGS = ["--seed", "5", "--threads", "2", "--set", "train.optim.lr=0.5", "--set", "train.max_epochs=1",
                "--set", "name=flagged"]


def unit_config_flags(ctx, rel, task):
    rc, out, err = ctx.run([task, os.path.join(SOURCE, rel), "--print-config"] + CONFIG_FLAGS)
    return {"config-flags/" + rel: command_record(ctx, rc, out, err, "json")}


def unit_run(ctx, task):
    """The smoke run of experiments/smoke/<task>_atr.json and the task's modes on it."""
    exp_rel = "experiments/smoke/%s_atr.json" % task
    exp = os.path.join(SOURCE, exp_rel)
    cfg = load_experiment(exp)
    run_dir = cfg["out_dir"]
    data_dir = cfg["data"]["dir"]
    budget = ["--threads", "1", "--set", "train.max_epochs=%d" % SMOKE_BUDGET[task],
              "--set", "train.max_steps=%d" % SMOKE_MAX_STEPS]
    pre = "run/%s/" % task
    recs = {}

    def cmd(name, argv, kind="text", drop_command=False, stdin=b""):
        rc, out, err = ctx.run(argv, stdin)
        recs[pre + name] = command_record(ctx, rc, out, err, kind, drop_command)
        return rc

    if os.path.exists(os.path.join(ctx.work, run_dir)):
        shutil.rmtree(os.path.join(ctx.work, run_dir))
    if cmd("train", [task, exp] + budget + SMOKE_FLAGS.get(task, []), "json", drop_command=True) != 0:
        return recs
    trained = run_folder_records(ctx, os.path.join(ctx.work, run_dir), pre + "files/")
    recs.update(trained)
    # --eval-only on the finished run: eval.json, and any file it rewrites with other content (none today).
    cmd("eval-only", [task, exp, "--eval-only"] + budget, "json", drop_command=True)
    for name, rec in run_folder_records(ctx, os.path.join(ctx.work, run_dir), pre + "files/").items():
        if trained.get(name, {}).get("sha256") != rec["sha256"]:
            recs[name.replace(pre + "files/", pre + "eval-only/")] = rec
    # --resume of the finished run: its message that there is nothing to do.
    cmd("resume-finished", [task, exp, "--resume"] + budget)
    cmd("print-params", [task, exp, "--print-params"], "json")

    out_dir = os.path.join("outputs", task)
    os.makedirs(os.path.join(ctx.work, out_dir), exist_ok=True)
    inp = mode_inputs(ctx, task, data_dir)
    mode = {"lm": "score", "cws": "segment", "ner": "tag", "snli": "predict", "classify": "predict",
            "rc": "predict"}.get(task)
    if mode:
        out = os.path.join(out_dir, mode + ".txt")
        cmd(mode, [task, mode, run_dir, "--input", inp, "--output", out, "--threads", "1"])
        recs[pre + mode + ".output"] = output_record(ctx, out)
        with open(os.path.join(ctx.work, inp), "rb") as f:   # the same lines from stdin to stdout, other batches
            cmd(mode + ".stdio", [task, mode, run_dir, "--batch", "3"], stdin=f.read())
    if task == "nmt":
        o = lambda name: os.path.join(out_dir, name)  # noqa: E731
        cmd("translate.split", ["nmt", "translate", run_dir, "--split", cfg["data"]["test"], "--beam", "3",
                                "--output", o("test.beam3.txt"), "--scores", o("test.beam3.scores.json")])
        recs[pre + "translate.split.output"] = output_record(ctx, o("test.beam3.txt"))
        recs[pre + "translate.split.scores"] = output_record(ctx, o("test.beam3.scores.json"), "json")
        cmd("translate.input", ["nmt", "translate", run_dir, "--input", inp, "--beam", "2", "--nbest", "2",
                                "--normalize", "gnmt", "--alpha", "0.6", "--batch", "3",
                                "--output", o("nbest.txt"), "--attention", o("attention.json")])
        recs[pre + "translate.input.output"] = output_record(ctx, o("nbest.txt"))
        recs[pre + "translate.input.attention"] = output_record(ctx, o("attention.json"), "json")
        cmd("average", ["nmt", "average", run_dir, "--last", "2", "--out", o("model.avg.bin")])
        recs[pre + "average.output"] = output_record(ctx, o("model.avg.bin"))
        cmd("translate.ensemble", ["nmt", "translate", run_dir, o("model.avg.bin"), "--split",
                                   cfg["data"]["test"], "--beam", "1", "--normalize", "none",
                                   "--output", o("ensemble.txt")])
        recs[pre + "translate.ensemble.output"] = output_record(ctx, o("ensemble.txt"))
    return recs


# ----------------------------------------------------------------------------------------------------------
# The platform the floating-point results belong to

CPU_FLAG = re.compile(r"^(sse|ssse|avx|fma|f16c|amx)")


def platform_fingerprint(ctx):
    fp = {}
    cpu = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k, v = k.strip(), v.strip()
                if k in ("vendor_id", "cpu family", "model") and k not in cpu:
                    cpu[k] = v
                elif k == "flags" and "flags" not in cpu:
                    cpu["flags"] = " ".join(sorted(x for x in v.split() if CPU_FLAG.match(x)))
    except OSError:
        pass
    fp["cpu"] = cpu
    build = {}
    cache = os.path.join(os.path.dirname(ctx.bin), "CMakeCache.txt")
    if os.path.exists(cache):
        vals = {}
        with open(cache, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line.rstrip("\n"))
                if m:
                    vals[m.group(1)] = m.group(2)
        bt = vals.get("CMAKE_BUILD_TYPE", "")
        for k in ("CMAKE_BUILD_TYPE", "TW_SANITIZE", "TW_NATIVE", "CMAKE_CXX_FLAGS",
                  "CMAKE_CXX_FLAGS_" + bt.upper(), "CMAKE_CXX_COMPILER"):
            build[k] = vals.get(k, "")
        for p in glob.glob(os.path.join(os.path.dirname(ctx.bin), "CMakeFiles", "*", "CMakeCXXCompiler.cmake")):
            with open(p, encoding="utf-8", errors="replace") as f:
                m = re.search(r'set\(CMAKE_CXX_COMPILER_VERSION "([^"]*)"\)', f.read())
            if m:
                build["compiler_version"] = m.group(1)
    fp["build"] = build
    # The matrix-product backends (the version and git revision before them change with every commit), as the
    # probe chose them, without oneDNN's part (see Ctx: the commands never route to oneDNN).
    fp["gemm"] = ONEDNN_PART.sub("", ctx.gemm_probe)
    libs = []
    try:
        out = subprocess.run(["ldd", os.path.join(ctx.bin, "lm")], capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.search(r"=> (\S+)", line)
            if m and re.search(r"blas|blis|lapack|gomp|sentencepiece|libm\.", m.group(1)):
                libs.append(os.path.basename(os.path.realpath(m.group(1))))
    except OSError:
        pass
    fp["libraries"] = sorted(libs)
    return fp


# ----------------------------------------------------------------------------------------------------------
# Record and check


def collect(bin_dir, filt, jobs, keep, log, runs=True):
    """Every entry's record, by entry name, and the platform; only the units `filt` selects are run, and not
    the smoke runs when `runs` is false."""
    for task in TASKS:
        if not os.access(os.path.join(bin_dir, task), os.X_OK):
            raise SetupError("%s/%s is missing (build the task binaries first)" % (bin_dir, task))
    def stamps():
        return {t: os.stat(os.path.join(bin_dir, t)).st_mtime_ns if os.path.exists(os.path.join(bin_dir, t)) else None
                for t in TASKS}

    before = stamps()
    work = tempfile.mkdtemp(prefix="task_outputs_", dir=keep) if keep else tempfile.mkdtemp(prefix="task_outputs_")
    ctx = Ctx(bin_dir, work)
    t0 = time.time()
    try:
        platform = platform_fingerprint(ctx)
        if callable(runs):
            runs = runs(platform)
        entries = {}
        key_rows = {}
        for task in TASKS:   # first: the key tables give the data defaults the generator needs
            rc, out, err = ctx.run([task, "--print-keys"])
            key_rows[task] = json.loads(out) if rc == 0 else []
            if selected(filt, "keys/" + task):
                entries["keys/" + task] = command_record(ctx, rc, out, err, "json")
        units = []
        owners = {}
        for rel, task in list_experiments():   # the data of every experiment, whatever the filter (cheap)
            if task is None:
                continue
            name = "config/" + rel
            if not task:
                if selected(filt, name):
                    entries[name] = {"kind": "error", "error": "cannot tell the task of %s: add its folder or "
                                     "name to BASE_TASKS / experiment_task in tools/check_task_outputs.py" % rel}
                continue
            experiment = load_experiment(os.path.join(SOURCE, rel))
            data = data_section(key_rows[task], experiment)
            generate_data(work, task, data, owners)
            if data.get("embeddings"):
                generate_embeddings(work, task, data, embedding_dim(key_rows[task], experiment))
            if selected(filt, name):
                units.append((name, unit_config, (ctx, rel, task)))
            if rel.startswith("experiments/smoke/") and selected(filt, "config-flags/" + rel):
                units.append(("config-flags/" + rel, unit_config_flags, (ctx, rel, task)))
        for task in TASKS:
            if runs and selected(filt, "run/" + task):
                units.append(("run/" + task, unit_run, (ctx, task)))
        # The smoke runs first (the longest units), then the configs.
        units.sort(key=lambda u: not u[0].startswith("run/"))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futs = {pool.submit(f, *args): name for name, f, args in units}
            for fut in concurrent.futures.as_completed(futs):
                entries.update(fut.result())
        if stamps() != before:
            raise SetupError("the task binaries in %s changed while they ran (a build?): run again once it is "
                             "done" % bin_dir)
        log("%d units in %.1f s, in %s" % (len(units) + len(TASKS), time.time() - t0,
                                            work if keep else "a temporary folder (removed)"))
        return entries, platform
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def selected(filt, unit):
    """Whether -k FILTER runs a unit: the filter is part of its name (`-k lm`, `-k run/lm`) or names one of
    its entries (`-k run/lm/files/metrics.jsonl`)."""
    return filt in unit or filt.startswith(unit + "/")


def unit_of(name):
    """The unit that produces an entry: run/<task> for the smoke runs' entries, else the entry itself."""
    return "/".join(name.split("/")[:2]) if name.startswith("run/") else name


def flatten(o, path="", out=None):
    out = {} if out is None else out
    if isinstance(o, dict) and o:
        for k, v in o.items():
            flatten(v, path + "." + k if path else k, out)
    elif isinstance(o, list) and o and any(isinstance(v, (dict, list)) for v in o):
        for i, v in enumerate(o):
            flatten(v, "%s[%d]" % (path, i), out)
    else:
        out[path] = o
    return out


def digest(rec):
    """What decides whether two records of an entry are equal."""
    d = {k: rec.get(k) for k in ("kind", "sha256", "exit", "tensors_sha256", "error")}
    d["stderr"] = (rec.get("stderr") or {}).get("sha256")
    return d


def describe_text(label, old, new, max_lines=60):
    """How the text record `new` differs from `old`: the JSON fields that differ, a unified diff of stored
    texts, or the digests."""
    msg = []
    if old.get("kind") != new.get("kind"):
        msg.append("  %s: kind %s -> %s" % (label, old.get("kind"), new.get("kind")))
    if old.get("tensors_sha256") != new.get("tensors_sha256"):
        msg.append("  %s: tensors sha256 %s -> %s" % (label, str(old.get("tensors_sha256"))[:16],
                                                      str(new.get("tensors_sha256"))[:16]))
    if old.get("sha256") == new.get("sha256"):
        return msg
    a, b = old.get("lines"), new.get("lines")
    if a is None or b is None:
        msg.append("  %s: sha256 %s -> %s (%s -> %s chars; too long to be stored: `check --keep DIR` keeps the "
                   "new files)" % (label, str(old.get("sha256"))[:16], str(new.get("sha256"))[:16],
                                   old.get("chars"), new.get("chars")))
        return msg
    fields = []

    def field_lines(fa, fb, where):
        for k in sorted(set(fa) | set(fb)):
            va, vb = fa.get(k, "<absent>"), fb.get(k, "<absent>")
            if va != vb:
                fields.append(k)
                if len(fields) <= 20:
                    msg.append("  %s: %sfield %s: %s -> %s" % (label, where, k or "<root>", json.dumps(va)[:120],
                                                              json.dumps(vb)[:120]))

    try:
        if new.get("kind") == "json" and old.get("kind") == "json":
            field_lines(flatten(json.loads("\n".join(a))), flatten(json.loads("\n".join(b))), "")
        elif new.get("kind") == "jsonl" and old.get("kind") == "jsonl":
            for i, (la, lb) in enumerate(zip(a, b)):
                if la != lb and la and lb:
                    field_lines(flatten(json.loads(la)), flatten(json.loads(lb)), "line %d " % (i + 1))
    except ValueError:
        pass
    if len(fields) > 20:
        msg.append("  %s: ... %d differing fields in all" % (label, len(fields)))
    diff = list(difflib.unified_diff(a, b, "baseline", "now", lineterm="", n=2))
    if diff:
        msg.append("  %s, unified diff:" % label)
    elif not fields:
        msg.append("  %s: sha256 %s -> %s, the same stored text (a baseline edited by hand?)" % (
            label, str(old.get("sha256"))[:16], str(new.get("sha256"))[:16]))
    msg += ["    " + l for l in diff[:max_lines]]
    if len(diff) > max_lines:
        msg.append("    ... (%d more diff lines)" % (len(diff) - max_lines))
    return msg


def describe(name, old, new):
    if old.get("kind") == "error" or new.get("kind") == "error":
        return ["  baseline: %s" % (old.get("error") or old.get("kind")),
                "  now:      %s" % (new.get("error") or new.get("kind"))]
    msg = []
    if old.get("exit") != new.get("exit"):
        msg.append("  exit code %s -> %s" % (old.get("exit"), new.get("exit")))
    msg += describe_text("stdout" if "exit" in new else "file", old, new)
    if (old.get("stderr") or {}).get("sha256") != (new.get("stderr") or {}).get("sha256"):
        msg += describe_text("stderr", old.get("stderr") or {}, new.get("stderr") or {})
    return msg


def choose_baseline(baselines, platform):
    """(path, baseline) recorded on `platform` (the floats are the platform's), else the first: its keys and
    configs hold no computed floats and are compared all the same."""
    return next(((path, b) for path, b in baselines if b.get("platform") == platform), baselines[0])


def compare(baseline, entries, platform, filt, strict, out):
    base = baseline["entries"]
    same_platform = baseline.get("platform") == platform
    if not same_platform:
        out("note: the baseline was recorded on another platform; the run entries (floating-point results) are "
            "%s:" % ("compared anyway (--strict)" if strict else "skipped (--strict compares them)"))
        bp = flatten(baseline.get("platform") or {})
        np_ = flatten(platform)
        for k in sorted(set(bp) | set(np_)):
            if bp.get(k) != np_.get(k):
                out("  platform %s: %s -> %s" % (k, json.dumps(bp.get(k))[:200], json.dumps(np_.get(k))[:200]))
    passed = failed = skipped = 0
    stale = baseline.get("stale") or {}
    stale_seen = {}
    names = sorted(set(base) | set(entries))
    for name in names:
        if not selected(filt, unit_of(name)) or (filt not in name and filt not in unit_of(name)):
            continue
        if name.startswith("run/") and not same_platform and not strict:
            skipped += 1
            continue
        if name in stale:   # out of date in this baseline by a change not recorded on its platform
            skipped += 1
            stale_seen.setdefault(stale[name], []).append(name)
            continue
        if name not in base:
            failed += 1
            out("FAIL %s: not in the baseline (a new experiment, task output or file?); re-record if intended" % name)
            continue
        if name not in entries:
            failed += 1
            out("FAIL %s: in the baseline but not produced now (%s)" % (name, "its experiment file or unit is gone"
                                                                        if not name.startswith("run/")
                                                                        else "a file the run no longer writes, or "
                                                                             "a command that failed earlier"))
            continue
        old, new = base[name], entries[name]
        if new.get("kind") == "error" or digest(old) != digest(new):
            failed += 1
            out("FAIL %s" % name)
            for l in describe(name, old, new):
                out(l)
        else:
            passed += 1
    for why, names_ in stale_seen.items():
        out("note: %d entr%s skipped as stale in this baseline (%s): %s; record the baseline on this platform to "
            "compare them again" % (len(names_), "y" if len(names_) == 1 else "ies", why, ", ".join(names_[:4]) +
                                    (" ..." if len(names_) > 4 else "")))
    return passed, failed, skipped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="write the baseline from the current binaries")
    r.add_argument("--bin", default="build/bin")
    r.add_argument("--out", default="tests/golden/task_outputs.json")
    c = sub.add_parser("check", help="compare the current binaries with the baseline")
    c.add_argument("--bin", default="build/bin")
    c.add_argument("--baseline", action="append", default=None,
                   help="a baseline file, or a folder of them (its task_outputs*.json); several: the one recorded "
                        "on this platform is used (default: the folder tests/golden)")
    c.add_argument("-k", dest="filter", default="",
                   help="only the entries whose name contains this (and run only what makes them)")
    c.add_argument("--strict", action="store_true", help="compare the run entries on another platform too")
    for p in (r, c):
        p.add_argument("--jobs", type=int, default=2, help="commands run at once (default 2)")
        p.add_argument("--keep", metavar="DIR", default="",
                       help="keep the working folder (data, runs, outputs) in a new folder under DIR")
        p.add_argument("-v", dest="verbose", action="store_true")
    a = ap.parse_args(argv)
    log = (lambda m: print(m, file=sys.stderr)) if a.verbose else (lambda m: None)
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    t0 = time.time()
    try:
        if a.cmd == "record":
            entries, platform = collect(a.bin, "", a.jobs, a.keep, log)
            # Every command succeeds on the generated data: a failure is a broken setup, not a baseline.
            bad = {n: e for n, e in entries.items() if e.get("kind") == "error" or e.get("exit", 0) != 0}
            for n, e in sorted(bad.items()):
                print("%s: %s" % (n, e.get("error") or "exit %s: %s" % (
                    e.get("exit"), " | ".join(l for l in (e.get("stderr") or {}).get("lines", []) if l)[-400:])),
                      file=sys.stderr)
            if bad:
                raise SetupError("%d commands failed (above): nothing recorded" % len(bad))
            doc = {"format": FORMAT,
                   "about": "tools/check_task_outputs.py's baseline: what every task binary printed and wrote "
                            "(see the script's docstring). Regenerate after an intended change: /usr/bin/python3 "
                            "tools/check_task_outputs.py record --bin build/bin --out tests/golden/task_outputs.json",
                   "platform": platform, "entries": dict(sorted(entries.items()))}
            os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
            tmp = a.out + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1, ensure_ascii=False, sort_keys=False)
                f.write("\n")
            os.replace(tmp, a.out)
            print("recorded %d entries in %s (%.1f s)" % (len(entries), a.out, time.time() - t0))
            return 0
        paths = []
        for given in a.baseline or [os.path.join(SOURCE, "tests", "golden")]:
            if os.path.isdir(given):   # a folder: every baseline in it, one per platform
                found = sorted(glob.glob(os.path.join(given, "task_outputs*.json")))
                if not found:
                    raise SetupError("no baseline in %s (task_outputs*.json): record one first" % given)
                paths += found
            else:
                paths.append(given)
        baselines = []
        for path in paths:
            try:
                with open(path, encoding="utf-8") as f:
                    b = json.load(f)
            except OSError as e:
                raise SetupError("baseline %s: %s" % (path, e.strerror or e))
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise SetupError("baseline %s is not a JSON file (%s)" % (path, e))
            if not isinstance(b, dict) or not isinstance(b.get("entries"), dict):
                raise SetupError("baseline %s: expected an object with \"format\", \"platform\" and \"entries\" "
                                 "(what `record` writes)" % path)
            if b.get("format") != FORMAT:
                raise SetupError("%s has format %s, this script writes %s: re-record it" % (path, b.get("format"),
                                                                                           FORMAT))
            stale = b.get("stale", {})
            if not isinstance(stale, dict) or not all(isinstance(v, str) and v for v in stale.values()):
                raise SetupError("baseline %s: \"stale\" must be an object of entry names to the reason each is out "
                                 "of date (a non-empty text)" % path)
            baselines.append((path, b))

        def for_platform(p):
            return choose_baseline(baselines, p)
        # On another platform the smoke runs would be skipped: they are not run at all.
        entries, platform = collect(a.bin, a.filter, a.jobs, a.keep, log,
                                    runs=lambda p: a.strict or for_platform(p)[1].get("platform") == p)
        path, baseline = for_platform(platform)
        if len(baselines) > 1:
            print("check_task_outputs: baseline %s (%s)" % (os.path.relpath(path), "recorded on this platform"
                                                            if baseline.get("platform") == platform else
                                                            "none of %d was recorded on this platform" % len(baselines)))
        passed, failed, skipped = compare(baseline, entries, platform, a.filter, a.strict, print)
        print("check_task_outputs: %.1f s" % (time.time() - t0))
        print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
        return 1 if failed else 0
    except SetupError as e:
        print("check_task_outputs: error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
