#!/usr/bin/env python3
"""data_prep/glove.py on hand-made corpora (classify .txt, snli .tsv, ner .conll) and a 3-dimensional vectors
file: the exact subset (source lines unchanged, in source order, LF; words as they are or ASCII-lowercased), the
coverage numbers of glove.json, a word2vec header accepted, and each refusal (wrong value count, header of another
dim, duplicate word naming both lines, invalid UTF-8, a non-finite value in a written line, a CWS folder): exit 2,
file:line, nothing written. With the shared vectors file present, one run on it (sha256 checked, lines byte-
identical). The printed command passes build/bin/<task> --print-config when that is built. Standard library only;
runs the script as a user would (a subprocess), in a temporary folder."""
import gzip
import json
import os
import shlex
import subprocess
import sys
import unittest

from own_case import PrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "glove.py")
RAW_DATA = os.environ.get("RAW_DATA", os.path.join(ROOT, "..", "shared", "data"))
SHARED = os.path.abspath(os.path.join(RAW_DATA, "glove", "glove.6B.100d.wink-subset.shared-corpora.txt.gz"))

# values written as the file has them (1e-05, +0.5, a tab before the values), which the subset must keep
VECTORS = ["the 0.1 0.2 0.3", "cat 1e-05 +0.5 -2", "unused inf nan 1", "dog\t0 0 0", ". . . 1 2 3",
           "sat 0.5 0.5 0.5", "ran -1 -1 -1"]
CLASSIFY = {"train": "1 The cat sat\n0 a Dog ran\n", "dev": "1 the cat\n", "test": "0 Zebra ran\n"}


class GloveCase(PrepCase):
    """The helpers: a corpus folder under the temporary data/, a vectors file, the script run in the temporary
    folder (glove.py writes into the corpus folders it is given, so there is no --out)."""
    SCRIPT = SCRIPT

    def run_prep(self, *args):
        p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=self.tmp.name)
        return p.returncode, p.stdout + p.stderr

    def corpus(self, name, ext, splits):
        folder = os.path.join(self.tmp.name, "data", name)
        os.makedirs(folder, exist_ok=True)
        for s, text in splits.items():
            with open(os.path.join(folder, f"{s}.{ext}"), "w", encoding="utf-8") as f:
                f.write(text)
        return folder

    def vectors(self, lines, data=None, name="vec.txt"):
        path = os.path.join(self.tmp.name, name)
        raw = data if data is not None else "".join(l + "\r\n" for l in lines).encode("utf-8")
        with open(path, "wb") as f:
            f.write(gzip.compress(raw, mtime=0) if name.endswith(".gz") else raw)
        return path

    def prep(self, folder, vec, *extra):
        return self.run_prep(folder, "--glove", vec, "--dim", "3", *extra)

    def assert_fails(self, folder, vec, needles):
        self.assert_refused(*self.prep(folder, vec), needles)
        self.assertEqual(sorted(os.listdir(folder)), ["dev.txt", "test.txt", "train.txt"], "nothing may be written")

    def read_in(self, folder, name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return f.read()

    def check_print_config(self, line, task):
        """The printed command, with --print-config, must pass the binary (it loads data.embeddings)."""
        if not os.access(os.path.join(ROOT, "build", "bin", task), os.X_OK):
            return   # build/bin/<task> not built: the command is not checked here
        # Every word of these toy corpora occurs once, below the experiments' data.min_count of 2: with an empty
        # vocabulary the binary rightly refuses a vectors file that covers none of it, so the check keeps them all.
        p = subprocess.run(shlex.split(line) + ["--set", "data.min_count=1", "--print-config"], cwd=ROOT,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


class GlovePrep(GloveCase):
    def test_classify_subset_and_coverage(self):
        folder = self.corpus("sst/mine", "txt", CLASSIFY)
        code, msg = self.prep(folder, self.vectors(VECTORS, name="vec.txt.gz"))
        self.assertEqual(code, 0, msg)
        with open(os.path.join(folder, "glove.6B.100d.txt"), "rb") as f:
            self.assertEqual(f.read().decode("utf-8"), "the 0.1 0.2 0.3\ncat 1e-05 +0.5 -2\ndog\t0 0 0\n"
                                                       "sat 0.5 0.5 0.5\nran -1 -1 -1\n")
        meta = json.loads(self.read_in(folder, "glove.json"))
        self.assertEqual(meta["vectors_written"], 5)
        self.assertEqual(meta["source"]["words_with_spaces"], 1)
        train = meta["coverage"]["train"]
        # train tokens The cat sat a Dog ran: as they are, cat sat ran have vectors; lowercased, the and dog too
        self.assertEqual((train["as_is"]["types"], train["as_is"]["types_with_vector"], train["as_is"]["tokens"],
                          train["as_is"]["tokens_with_vector"]), (6, 3, 6, 3))
        self.assertEqual(train["ascii_lowercased"]["tokens_with_vector"], 5)
        self.assertEqual(meta["coverage"]["test"]["ascii_lowercased"]["token_coverage"], 0.5)
        self.assertIn("--set model.embed=3", meta["command"])
        self.assertIn("--set data.lowercase=true", meta["command"])
        self.check_print_config(meta["command"], "classify")

    def test_snli_and_ner_tokens_as_their_readers_split_them(self):
        snli = self.corpus("snli/mine", "tsv", {s: "entailment\tThe cat\u3000sat\tA dog ran\n" for s in
                                                ("train", "dev", "test")})
        ner = self.corpus("ner/mine", "conll", {s: "-DOCSTART- O\n\nThe O\ncat B-animal\n\nsat O\n" for s in
                                                ("train", "dev", "test")})
        code, msg = self.run_prep(snli, ner, "--glove", self.vectors(VECTORS), "--dim", "3")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read_in(snli, "glove.6B.100d.txt").split("\n")[0], "the 0.1 0.2 0.3")
        self.assertEqual(json.loads(self.read_in(snli, "glove.json"))["coverage"]["dev"]["as_is"]["tokens"], 6)
        ner_meta = json.loads(self.read_in(ner, "glove.json"))
        self.assertEqual(ner_meta["coverage"]["train"]["as_is"]["tokens"], 3, "the token column only, no -DOCSTART-")
        self.assertIn("--set model.word_embed=3", ner_meta["command"])
        self.assertEqual(self.read_in(ner, "glove.6B.100d.txt"), "the 0.1 0.2 0.3\ncat 1e-05 +0.5 -2\n"
                                                                 "sat 0.5 0.5 0.5\n")

    def test_word2vec_header_is_accepted(self):
        folder = self.corpus("sst/mine", "txt", CLASSIFY)
        code, msg = self.prep(folder, self.vectors(["7 3"] + VECTORS))
        self.assertEqual(code, 0, msg)
        self.assertTrue(self.read_in(folder, "glove.6B.100d.txt").startswith("the 0.1"), "the header is not copied")
        self.assertEqual(json.loads(self.read_in(folder, "glove.json"))["source"]["word2vec_header"],
                         {"line": 1, "count": 7, "dim": 3})
        code, msg = self.prep(folder, self.vectors(["9 3"] + VECTORS))
        self.assertEqual(code, 0, msg)
        self.assertIn("vec.txt:1: the word2vec header says 9 vectors, the file has 7", msg)

    def test_refusals_name_file_and_line(self):
        folder = self.corpus("sst/mine", "txt", CLASSIFY)
        vec = os.path.join(self.tmp.name, "vec.txt")
        for lines, needle in ((["7 4"] + VECTORS, f"{vec}:1: word2vec header '7 4' says dimension 4, expected 3"),
                              (VECTORS[:2] + ["dog 0 0"], f"{vec}:3: 'dog' has 2 values, expected 3"),
                              (VECTORS[:2] + ["dog 1 0 0 0"], f"{vec}:3: 'dog' has 4 values, expected 3"),
                              (VECTORS + ["cat 0 0 0"], f"{vec}:8: 'cat' again, first on line 2"),
                              (VECTORS + ["Dog 1 inf 0"], f"{vec}:8: value 2 of 'Dog' is 'inf', not a finite"),
                              (VECTORS + ["Dog 1 1,5 0"], f"{vec}:8: value 2 of 'Dog' is '1,5'")):
            self.vectors(lines)
            self.assert_fails(folder, vec, [needle])
        self.vectors(["9" * 5000 + " 0003"] + VECTORS)   # the count is not compared as an int: no 4300-digit limit
        code, msg = self.prep(folder, vec)
        self.assertEqual(code, 0, msg)
        os.remove(os.path.join(folder, "glove.6B.100d.txt"))
        os.remove(os.path.join(folder, "glove.json"))
        self.vectors(None, data=b"the 0.1 0.2 0.3\n\xc4\xe3 1 2 3\n")
        self.assert_fails(folder, vec, [f"{vec}:2: invalid UTF-8"])

    def test_fuzz_header_of_5000_digits(self):
        # fuzz_prep.py: int() of a 5000-digit dim raised ValueError (Python's 4300-digit limit), a traceback
        folder = self.corpus("sst/mine", "txt", CLASSIFY)
        vec = self.vectors(["7 " + "9" * 5000] + VECTORS)
        self.assert_fails(folder, vec, [f"{vec}:1: word2vec header", "says dimension 9999", "expected 3"])

    def test_cws_and_missing_folders_are_refused(self):
        cws = self.corpus("cws/mine", "seg", {s: "迈向 充满\n" for s in ("train", "dev", "test")})
        self.assert_refused(*self.prep(cws, self.vectors(VECTORS)), ["no character vectors here"])
        self.assert_refused(*self.prep(os.path.join(self.tmp.name, "nothing"), self.vectors(VECTORS)),
                            ["no folder", "nothing"])


@unittest.skipUnless(os.path.isfile(SHARED), "the shared GloVe file is not here")
class GloveShared(GloveCase):
    def test_shared_file(self):
        folder = self.corpus("sst/mine", "txt", CLASSIFY)
        code, msg = self.run_prep(folder, "--glove", SHARED)
        self.assertEqual(code, 0, msg)
        with gzip.open(SHARED, "rt", encoding="utf-8") as f:
            source = {l.split(" ", 1)[0]: l for l in f}
        want = "".join(source[w] for w in sorted({"the", "cat", "sat", "dog", "ran", "zebra"},
                                                  key=list(source).index))
        self.assertEqual(self.read_in(folder, "glove.6B.100d.txt"), want)
        meta = json.loads(self.read_in(folder, "glove.json"))
        self.assertEqual((meta["source"]["vectors"], meta["source"]["word2vec_header"]), (128521, None))


if __name__ == "__main__":
    unittest.main(verbosity=2)
