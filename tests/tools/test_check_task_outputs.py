#!/usr/bin/env python3
"""tools/check_task_outputs.py's own pieces, without the task binaries: the timing fields cut out of JSON text
(one-line and pretty-printed, first, middle, last and only field), the stderr normaliser, the generated data
(deterministic, in the files the data keys name), the SentencePiece model's bytes, and the comparison (equal,
a changed field, a new and a missing entry, a stderr change, skipped run entries on another platform).
/usr/bin/python3 tests/tools/test_check_task_outputs.py
"""
import hashlib
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import check_task_outputs as cto  # noqa: E402
import task_outputs_data as tod  # noqa: E402


class FakeCtx:
    work = "/tmp/task_outputs_abc"

    def norm(self, text):
        return text.replace(self.work, "<tmp>").replace(cto.SOURCE, "<src>")


def folder_digest(root):
    h = hashlib.sha256()
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            h.update(os.path.relpath(p, root).encode())
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


class StripTiming(unittest.TestCase):
    def test_one_line(self):
        self.assertEqual(cto.strip_timing_text('{"elapsed_s":0.03,"epoch":1,"units_s":2.5e+04}'), '{"epoch":1}')
        self.assertEqual(cto.strip_timing_text('{"a":1,"pairs_per_s":3}'), '{"a":1}')
        self.assertEqual(cto.strip_timing_text('{"wall_seconds":3}'), '{}')

    def test_pretty(self):
        text = '{\n  "elapsed_s": 0.28,\n  "epoch": 6,\n  "dev": {\n    "n": 8,\n    "sentences_per_s": 1.5\n  }\n}'
        out = cto.strip_timing_text(text)
        self.assertEqual(json.loads(out), {"epoch": 6, "dev": {"n": 8}})
        self.assertEqual(out, '{\n  "epoch": 6,\n  "dev": {\n    "n": 8\n  }\n}')

    def test_peak_rss(self):
        # summary.json's memory high-water mark goes like a timing field (it varies between machines); a key
        # that only ends in _mb is kept.
        text = '{\n  "params": 5,\n  "peak_rss_mb": 83.25,\n  "predictions": 1,\n  "vocab_mb": 2\n}'
        self.assertEqual(cto.strip_timing_text(text), '{\n  "params": 5,\n  "predictions": 1,\n  "vocab_mb": 2\n}')

    def test_command_and_non_timing_keys(self):
        text = '{"command": "lm \\"a b\\" --set x=1", "steps": 4, "loss": 2.5}'
        self.assertEqual(json.loads(cto.strip_timing_text(text, drop_command=True)), {"steps": 4, "loss": 2.5})
        self.assertIn('"command"', cto.strip_timing_text(text))   # kept unless asked

    def test_stderr(self):
        err = ('epoch 1 100.0% | step 2 | loss 3.4373 ppl 31.10 | gnorm 2.36 | 4897 units/s | ETA 0m03s\n'
               '[dev] epoch 1 step 2: {"bleu":0.0,"decode_tokens_s":34586.3}\n'
               'nmt translate: 8 sentences in 0.01 s (2300.5 tokens/s), beam 3, /tmp/task_outputs_abc/x\n')
        self.assertEqual(cto.norm_stderr(FakeCtx(), err.encode()).splitlines(), [
            "epoch 1 100.0% | step 2 | loss 3.4373 ppl 31.10 | gnorm 2.36 | <rate> units/s | ETA <t>",
            '[dev] epoch 1 step 2: {"bleu":0.0}',
            "nmt translate: 8 sentences in <t> s (<rate> tokens/s), beam 3, <tmp>/x"])


class GeneratedData(unittest.TestCase):
    def test_deterministic_and_named_by_the_keys(self):
        nmt = {"dir": "data/multi30k", "src": "en", "tgt": "de", "train": "train", "dev": "val", "test": "t16",
               "extra_tests": ["t17"], "bpe": "bpe8000/joint.model", "bpe_src": "", "bpe_tgt": ""}
        digests = []
        for _ in range(2):
            with tempfile.TemporaryDirectory() as d:
                owners = {}
                tod.generate_data(d, "nmt", nmt, owners)
                tod.generate_data(d, "lm", {"dir": "data/ptb", "vocab": "vocab.txt"}, owners)
                tod.generate_data(d, "classify", {"dir": "data/sst/sst5"}, owners)
                for f in ("train.tok.en", "t17.raw.de", "val.tok.de", "bpe8000/joint.model"):
                    self.assertTrue(os.path.exists(os.path.join(d, "data/multi30k", f)), f)
                self.assertTrue(os.path.exists(os.path.join(d, "data/ptb/vocab.txt")))
                with open(os.path.join(d, "data/sst/sst5/train.txt")) as f:
                    self.assertEqual(sorted({l.split()[0] for l in f}), ["0", "1", "2", "3", "4"])
                with self.assertRaises(tod.SetupError):   # one folder, two tasks
                    tod.generate_data(d, "cws", {"dir": "data/ptb"}, owners)
                digests.append(folder_digest(d))
        self.assertEqual(digests[0], digests[1])

    def test_subword_model_bytes(self):
        m = tod.spm_bpe_model()
        self.assertEqual(m, tod.spm_bpe_model())
        self.assertIn("\u2581s3".encode(), m)
        self.assertIn(b"identity", m)


def rec(text, **kw):
    r = cto.text_record(text, kw.pop("kind", "text"))
    r.update(kw)
    return r


class Compare(unittest.TestCase):
    def setUp(self):
        self.platform = {"cpu": {"flags": "avx2"}}
        self.base = {"platform": self.platform, "entries": {
            "keys/lm": rec('{\n "a": 1\n}', kind="json", exit=0, stderr=rec("")),
            "config/experiments/x.json": rec("{}", kind="json", exit=0, stderr=rec("lm: data\n")),
            "run/lm/files/metrics.jsonl": rec('{"loss":1.5,"step":1}\n', kind="jsonl"),
        }}

    def run_compare(self, entries, platform=None, strict=False):
        lines = []
        got = cto.compare(self.base, entries, platform or self.platform, "", strict, lines.append)
        return got, "\n".join(lines)

    def test_equal(self):
        (p, f, s), _ = self.run_compare(dict(self.base["entries"]))
        self.assertEqual((p, f, s), (3, 0, 0))

    def test_differences_are_named(self):
        now = dict(self.base["entries"])
        now["run/lm/files/metrics.jsonl"] = rec('{"loss":1.25,"step":1}\n', kind="jsonl")
        now["config/experiments/x.json"] = rec("{}", kind="json", exit=0, stderr=rec("lm: other data\n"))
        del now["keys/lm"]
        now["config/experiments/new.json"] = rec("{}", kind="json", exit=0, stderr=rec(""))
        (p, f, s), out = self.run_compare(now)
        self.assertEqual((p, f, s), (0, 4, 0))
        self.assertIn("FAIL run/lm/files/metrics.jsonl", out)
        self.assertIn("line 1 field loss: 1.5 -> 1.25", out)
        self.assertIn("stderr, unified diff:", out)
        self.assertIn("+lm: other data", out)
        self.assertIn("FAIL keys/lm: in the baseline but not produced now", out)
        self.assertIn("FAIL config/experiments/new.json: not in the baseline", out)

    def test_other_platform_skips_the_runs(self):
        now = {k: v for k, v in self.base["entries"].items() if not k.startswith("run/")}
        (p, f, s), out = self.run_compare(now, platform={"cpu": {"flags": "avx512f"}})
        self.assertEqual((p, f, s), (2, 0, 1))
        self.assertIn("platform cpu.flags", out)
        (p, f, s), _ = self.run_compare(now, platform={"cpu": {"flags": "avx512f"}}, strict=True)
        self.assertEqual((p, f, s), (2, 1, 0))

    def test_stale_entries_are_skipped_with_their_reason(self):
        now = dict(self.base["entries"])
        now["run/lm/files/metrics.jsonl"] = rec('{"loss":1.25,"step":1}\n', kind="jsonl")   # changed
        now["run/lm/files/new.txt"] = rec("x")                                              # not in the baseline
        (p, f, s), out = self.run_compare(now)
        self.assertEqual((p, f, s), (2, 2, 0))   # without the stale list both fail
        self.base["stale"] = {"run/lm/files/metrics.jsonl": "recorded before change X",
                              "run/lm/files/new.txt": "the unit came after this recording"}
        (p, f, s), out = self.run_compare(now)
        self.assertEqual((p, f, s), (2, 0, 2))
        self.assertIn("1 entry skipped as stale in this baseline (recorded before change X): "
                      "run/lm/files/metrics.jsonl", out)
        self.assertIn("(the unit came after this recording): run/lm/files/new.txt", out)
        now["keys/lm"] = rec('{\n "a": 2\n}', kind="json", exit=0, stderr=rec(""))   # not stale: still fails
        (p, f, s), out = self.run_compare(now)
        self.assertEqual((p, f, s), (1, 1, 2))
        self.assertIn("FAIL keys/lm", out)

    def test_the_baseline_of_this_platform_is_chosen(self):
        amd, intel = {"cpu": {"vendor_id": "AuthenticAMD"}}, {"cpu": {"vendor_id": "GenuineIntel"}}
        found = [("a.json", {"platform": amd}), ("b.json", {"platform": intel})]
        self.assertEqual(cto.choose_baseline(found, intel)[0], "b.json")
        self.assertEqual(cto.choose_baseline(found, amd)[0], "a.json")
        self.assertEqual(cto.choose_baseline(found, {"cpu": {}})[0], "a.json")   # none: the first (runs skipped)

    def test_filter_selects_units(self):
        self.assertTrue(cto.selected("lm", "run/lm"))
        self.assertTrue(cto.selected("run/lm/files/metrics.jsonl", "run/lm"))
        self.assertFalse(cto.selected("run/lm", "run/nmt"))
        self.assertEqual(cto.unit_of("run/nmt/files/snapshots/a.bin"), "run/nmt")


class OneBaselineWithAndWithoutOneDnn(unittest.TestCase):
    """The commands of a build whose probe chose oneDNN run on the probe's other libraries, and the platform line
    leaves oneDNN's part out, so the baseline recorded without oneDNN is the one compared."""
    EIGEN = "matrix products: Eigen 3.4.0 (AVX512, FMA) + OpenBLAS Haswell kernels (unused: narrower than Eigen's vectors)"
    BLIS_GENERIC = " + BLIS generic (unused: reference kernels)"
    TAIL = ", MPI data-parallel training, float32"

    def test_onednn_chosen(self):
        line = self.EIGEN + self.BLIS_GENERIC + " + oneDNN 2.6.3 avx512_core_bf16 (every product from 2^18 multiply-adds)" + self.TAIL
        self.assertEqual(cto.without_onednn_backends(line), "eigen")
        self.assertEqual(cto.ONEDNN_PART.sub("", line), self.EIGEN + self.BLIS_GENERIC + self.TAIL)

    def test_other_libraries_kept(self):
        line = ("matrix products: Eigen 3.4.0 (AVX512) + OpenBLAS SkylakeX kernels (large products) + BLIS skx (thin "
                "products) + oneDNN 2.6.3 avx512_core (every product from 2^18 multiply-adds)" + self.TAIL)
        self.assertEqual(cto.without_onednn_backends(line), "eigen,blas,blis")

    def test_onednn_unused_or_absent(self):
        unused = self.EIGEN + " + oneDNN 2.6.3 sse41 (unused: kernels narrower than AVX2)" + self.TAIL
        self.assertIsNone(cto.without_onednn_backends(unused))
        self.assertEqual(cto.ONEDNN_PART.sub("", unused), self.EIGEN + self.TAIL)
        absent = self.EIGEN + self.BLIS_GENERIC + self.TAIL
        self.assertIsNone(cto.without_onednn_backends(absent))
        self.assertEqual(cto.ONEDNN_PART.sub("", absent), absent)


class BadBaselines(unittest.TestCase):
    """A baseline that cannot be read is a setup error (exit 2) naming the file, never a traceback; a folder
    means its task_outputs*.json. Checked before any binary runs, so --bin need not exist."""

    def check(self, *baselines):
        import contextlib
        import io
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = cto.main(["check", "--bin", "/nonexistent/bin"] + [x for b in baselines for x in ("--baseline", b)])
        return rc, err.getvalue()

    def test_unreadable_baselines_are_named(self):
        with tempfile.TemporaryDirectory() as d:
            not_json = os.path.join(d, "task_outputs_x.json")
            with open(not_json, "w") as f:
                f.write("{\"format\": 1,\n")
            a_list = os.path.join(d, "list.json")
            with open(a_list, "w") as f:
                f.write("[1, 2]")
            empty = os.path.join(d, "empty")
            os.mkdir(empty)
            bad_stale = os.path.join(d, "stale.json")
            with open(bad_stale, "w") as f:
                json.dump({"format": cto.FORMAT, "platform": {}, "entries": {}, "stale": {"run/lm/x": ""}}, f)
            cases = [(os.path.join(d, "missing.json"), "missing.json: No such file"),
                     (not_json, "task_outputs_x.json is not a JSON file (Expecting"),
                     (a_list, "list.json: expected an object"),
                     (bad_stale, "stale.json: \"stale\" must be an object of entry names to the reason"),
                     (empty, "no baseline in %s (task_outputs*.json)" % empty),
                     (d, "task_outputs_x.json is not a JSON file")]   # a folder: its task_outputs*.json are read
            for path, message in cases:
                rc, err = self.check(path)
                self.assertEqual(rc, 2, path)
                self.assertIn(message, err)
                self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
