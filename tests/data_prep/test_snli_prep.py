#!/usr/bin/env python3
"""data_prep/snli.py on hand-made jsonl / TSV / SICK inputs: '-' labels dropped and counted, broken JSON, missing
fields, unknown labels, wrong TSV field counts, and a jsonl/TSV disagreement each stop with exit code 2 and a
message naming file and line; an existing prepared folder survives a failed run. Standard library only; runs the
script as a user would (a subprocess), in a temporary folder."""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "snli.py")


def record(label, premise, hypothesis):
    """An SNLI jsonl record whose binary parses tokenize to the given token strings."""
    parse = lambda s: "( " + " ".join(s.split()) + " )"
    return json.dumps({"gold_label": label, "sentence1_binary_parse": parse(premise),
                       "sentence2_binary_parse": parse(hypothesis), "pairID": "x"})


def corrupt_gzip(text):
    """A .gz file whose deflate stream is damaged (first block type 11, reserved): zlib.error, not OSError."""
    g = gzip.compress(text.encode("utf-8"), mtime=0)
    return g[:10] + b"\xff" + g[11:]


GOOD = [record("entailment", "A man sleeps .", "A person rests ."),
        record("-", "A dog runs .", "An animal moves ."),
        record("contradiction", "Two kids play .", "Nobody plays .")]


class SnliPrep(CorpusPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--protocol", "inhouse", "--no-check")
    RAW_SUBDIR = "snli"

    def write(self, name, lines):
        path = os.path.join(self.raw, "snli", name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in lines))
        return path

    def write_all(self, train, dev=GOOD, test=GOOD):
        self.write("snli_1.0_train_0.01.jsonl", train)
        self.write("snli_1.0_dev.jsonl", dev)
        self.write("snli_1.0_test.jsonl", test)

    def read_out(self, name):
        return self.read("inhouse", name)

    def test_good_input_drops_dash_labels_and_writes_tsv(self):
        self.write_all(GOOD)
        code, msg = self.run_prep()
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read_out("train.tsv"), ("entailment\tA man sleeps .\tA person rests .\n"
                                                      "contradiction\tTwo kids play .\tNobody plays .\n"))
        meta = json.loads(self.read_out("prep.json"))
        self.assertEqual(meta["dropped_no_gold_label"], {"train": 1, "dev": 1, "test": 1})
        self.assertEqual(meta["splits"]["train"]["pairs"], 2)

    def test_broken_json_names_file_and_line(self):
        self.write_all([GOOD[0], '{"gold_label": "neutral", "sentence1_binary_parse": '])
        self.assert_fails(["snli_1.0_train_0.01.jsonl:2:", "not a JSON object"])

    def test_missing_field_names_field_and_line(self):
        bad = json.dumps({"gold_label": "neutral", "sentence1_binary_parse": "( a b )"})
        self.write_all([GOOD[0], GOOD[2], bad])
        self.assert_fails(["snli_1.0_train_0.01.jsonl:3:", "sentence2_binary_parse"])

    def test_non_string_field_is_an_error(self):
        bad = json.dumps({"gold_label": "neutral", "sentence1_binary_parse": 7, "sentence2_binary_parse": "( a )"})
        self.write_all([bad])
        self.assert_fails(["snli_1.0_train_0.01.jsonl:1:", "missing or non-string field"])

    def test_unknown_label_is_an_error(self):
        self.write_all(GOOD, dev=[GOOD[0], record("Entails", "a", "b")])
        self.assert_fails(["snli_1.0_dev.jsonl:2:", "gold_label 'Entails'"])

    def test_empty_hypothesis_is_an_error(self):
        self.write_all([record("neutral", "A man .", "")])
        self.assert_fails(["snli_1.0_train_0.01.jsonl:1:", "empty hypothesis"])

    def test_tsv_wrong_field_count_names_line(self):
        self.write("snli_1.0_train_0.01.tok.tsv", ["gold_label\tsentence1_tokens\tsentence2_tokens\tpairID",
                                                  "neutral\tA man .\tA person .\t1",
                                                  "neutral\tA man .\tA person ."])
        self.write("snli_1.0_dev.jsonl", GOOD)
        self.write("snli_1.0_test.jsonl", GOOD)
        self.assert_fails(["snli_1.0_train_0.01.tok.tsv:3:", "3 tab-separated fields, expected 4"])

    def test_tsv_without_header_is_an_error(self):
        self.write("snli_1.0_train_0.01.tok.tsv", ["neutral\tA man .\tA person .\t1"])
        self.write("snli_1.0_dev.jsonl", GOOD)
        self.write("snli_1.0_test.jsonl", GOOD)
        self.assert_fails(["snli_1.0_train_0.01.tok.tsv:1:", "expected the header"])

    def test_jsonl_and_tsv_must_agree(self):
        self.write_all(GOOD)
        self.write("snli_1.0_dev.tok.tsv", ["gold_label\tsentence1_tokens\tsentence2_tokens\tpairID",
                                           "entailment\tA man sleeps .\tA person rests .\tx",
                                           "-\tA dog runs .\tAn animal moves .\tx",
                                           "contradiction\tTwo kids play .\tSomebody plays .\tx"])
        self.assert_fails(["disagree at pair 3"])

    def test_missing_file_says_where_to_put_it(self):
        self.write("snli_1.0_train_0.01.jsonl", GOOD)
        self.write("snli_1.0_dev.jsonl", GOOD)
        self.assert_fails(["missing", "snli_1.0_test.jsonl", "SOURCE.md"])

    def test_failed_run_keeps_the_previous_output(self):
        self.write_all(GOOD)
        self.assertEqual(self.run_prep()[0], 0)
        before = self.read_out("train.tsv")
        self.write_all(['{"broken'])
        self.assertEqual(self.run_prep()[0], 2)
        self.assertEqual(self.read_out("train.tsv"), before)

    def test_invalid_utf8_names_the_line(self):
        self.write_all(GOOD)
        with open(os.path.join(self.raw, "snli", "snli_1.0_test.jsonl"), "ab") as f:
            f.write(b'{"gold_label": "neutral\xff"}\n')
        self.assert_fails(["snli_1.0_test.jsonl:4:", "invalid UTF-8"])

    # Findings of tests/fuzz/fuzz_prep.py: each was a Python traceback (or a crash of the writer) before the fix.
    def test_fuzz_damaged_gzip_names_the_file(self):
        self.write_all(GOOD)
        os.remove(os.path.join(self.raw, "snli", "snli_1.0_dev.jsonl"))
        with open(os.path.join(self.raw, "snli", "snli_1.0_dev.jsonl.gz"), "wb") as f:
            f.write(corrupt_gzip("".join(l + "\n" for l in GOOD)))
        self.assert_fails(["cannot read", "snli_1.0_dev.jsonl.gz", "invalid block type"])  # was zlib.error

    def test_fuzz_deep_nesting_is_an_error(self):
        self.write_all([GOOD[0], "[" * 100000])
        self.assert_fails(["snli_1.0_train_0.01.jsonl:2:", "unreadable JSON (nested too deeply)"])  # RecursionError

    def test_fuzz_number_of_thousands_of_digits_is_an_error(self):
        self.write_all(['{"gold_label": ' + "7" * 5000 + "}"])
        self.assert_fails(["snli_1.0_train_0.01.jsonl:1:", "unreadable JSON (Exceeds the limit"])  # ValueError

    def test_fuzz_lone_surrogate_escape_is_an_error(self):
        # JSON may escape half a UTF-16 pair: json.loads accepted it, then writing train.tsv raised UnicodeEncodeError
        bad = record("neutral", "A man \\ud800 sleeps .", "A person rests .").replace("\\\\ud800", "\\ud800")
        self.write_all([GOOD[0], bad])
        self.assert_fails(["snli_1.0_train_0.01.jsonl:2:", "\\ud800, a lone UTF-16 surrogate"])


class SickPrep(unittest.TestCase):
    HEAD = "\t".join(["pair_ID", "sentence_A", "sentence_B", "entailment_label", "relatedness_score",
                      "entailment_AB", "entailment_BA", "sentence_A_original", "sentence_B_original",
                      "sentence_A_dataset", "sentence_B_dataset", "SemEval_set"])

    def run_sick(self, lines):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "raw", "sick"))
            with open(os.path.join(tmp, "raw", "sick", "SICK.txt"), "w", encoding="utf-8") as f:
                f.write("".join(l + "\n" for l in lines))
            p = subprocess.run([sys.executable, SCRIPT, "--raw", os.path.join(tmp, "raw"), "--out",
                                os.path.join(tmp, "out"), "--protocol", "sick", "--no-check"],
                               capture_output=True, text=True)
            train = None
            if p.returncode == 0:
                with open(os.path.join(tmp, "out", "sick", "train.tsv"), encoding="utf-8") as f:
                    train = f.read()
            return p.returncode, p.stdout + p.stderr, train

    @staticmethod
    def row(i, a, b, label, split):
        return "\t".join([str(i), a, b, label, "4.5", "A_neutral_B", "B_neutral_A", a, b, "FLICKR", "FLICKR", split])

    def test_tokenizer_and_split_rule(self):
        code, msg, train = self.run_sick([self.HEAD,
                                          self.row(1, "The man isn't wearing a t-shirt, 3.5 times.",
                                                   "A man's shirt", "NEUTRAL", "TRAIN"),
                                          self.row(2, "A dog.", "A cat.", "CONTRADICTION", "TRIAL"),
                                          self.row(3, "A dog.", "An animal.", "ENTAILMENT", "TEST")])
        self.assertEqual(code, 0, msg)
        self.assertEqual(train, "neutral\tThe man is n't wearing a t-shirt , 3.5 times .\tA man 's shirt\n")

    def test_bad_header_and_bad_label(self):
        code, msg, _ = self.run_sick(["pair_ID\tsentence_A"])
        self.assertEqual(code, 2, msg)
        self.assertIn("SICK.txt:1:", msg)
        code, msg, _ = self.run_sick([self.HEAD, self.row(1, "a", "b", "MAYBE", "TRAIN")])
        self.assertEqual(code, 2, msg)
        self.assertIn("SICK.txt:2:", msg)
        self.assertNotIn("Traceback", msg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
