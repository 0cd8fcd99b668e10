#!/usr/bin/env python3
"""data_prep/snli.py --own (issue 29): a user's NLI pairs -- SNLI-style jsonl (binary parses used when present,
else sentence1/2 tokenized with SICK's rules; `-` labels dropped and counted; blank lines skipped) or TSV
label<TAB>premise<TAB>hypothesis (header skipped) -- split 80/10/10 by pair order, or three files, into
OUT/<name>_own/; bad input (label, field count, JSON, empty side, UTF-8, empty file) stops with exit code 2
naming file:line and leaves nothing behind. The printed training command is run with --print-config when
build/bin/snli exists. Standard library only; runs the script as a user would (a subprocess)."""
import json
import os
import sys
import unittest

from own_case import OwnPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "snli.py")
LABELS = ["entailment", "neutral", "contradiction"]


def jsonl():
    rec = lambda label, a, b, **kw: json.dumps(dict(gold_label=label, sentence1=a, sentence2=b, **kw),
                                               ensure_ascii=False)
    lines = [rec("entailment", "ignored", "ignored", sentence1_binary_parse="( ( A dog ) ( runs . ) )",  # 1
                 sentence2_binary_parse="( ( An animal ) ( moves . ) )"),
             rec("-", "No majority.", "None."),                                                         # 2: dropped
             ""]                                                                                          # 3: blank
    for k in range(1, 10):                                                                                # 4..12
        label = LABELS[k % 3].upper() if k == 2 else LABELS[k % 3]
        lines.append(rec(label, f"The man {k} isn't sleeping.", "Nobody's awake, café."))
    return "".join(l + "\n" for l in lines)


class SnliOwn(OwnPrepCase):
    SCRIPT = SCRIPT

    def test_jsonl_split_80_10_10(self):
        _, msg = self.prep_own("pairs.jsonl", jsonl())
        self.assertIn("(1 '-' pairs dropped)", msg)
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "pairs_own"))),
                         ["dev.tsv", "prep.json", "test.tsv", "train.tsv"])
        self.assertEqual(self.read("pairs_own", "dev.tsv"),
                         "contradiction\tThe man 8 is n't sleeping .\tNobody 's awake , café .\n")
        self.assertEqual(self.read("pairs_own", "test.tsv"),
                         "entailment\tThe man 9 is n't sleeping .\tNobody 's awake , café .\n")
        train = self.read("pairs_own", "train.tsv").splitlines()
        self.assertEqual(len(train), 8)
        self.assertEqual(train[0], "entailment\tA dog runs .\tAn animal moves .")
        self.assertEqual(train[2], "contradiction\tThe man 2 is n't sleeping .\tNobody 's awake , café .")  # upper
        meta = json.loads(self.read("pairs_own", "prep.json"))
        info = meta["source_files"]["nli"]
        self.assertEqual((info["form"], info["pairs"], info["dropped_no_gold_label"], info["blank_lines_skipped"]),
                         ("jsonl", 10, 1, 1))
        self.assertEqual(info["tokens"], ["binary_parse", "sentence1/2 tokenized"])
        self.assertEqual({k: (v["pairs"], v["first_line"], v["last_line"]) for k, v in meta["source_lines"].items()},
                         {"train": (8, 1, 10), "dev": (1, 11, 11), "test": (1, 12, 12)})
        self.assertEqual(meta["splits"]["train"]["labels"], {"entailment": 3, "neutral": 3, "contradiction": 2})
        self.assertEqual(meta["dropped_no_gold_label_total"], 1)
        line = self.printed_command(msg, "snli")
        self.assertTrue(line.startswith("build/bin/snli experiments/snli/inhouse_cond_atr.json --set data.dir="
                                        + os.path.join(self.out, "pairs_own")), line)
        self.check_print_config(line, "snli", os.path.join(self.out, "pairs_own"))

    def test_tsv_three_files_header_and_tokenize(self):
        tr = self.file("tr.tsv", "label\tpremise\thypothesis\r\nneutral\tA  man's hat.\tA hat\n"
                                 "Entailment\tTwo dogs\tDogs\n")
        dv = self.file("dv.tsv", "contradiction\tIt isn't.\tIt is.\n")
        te = self.file("te.tsv", "-\tx\ty\nneutral\ta\tb\n")
        code, msg = self.run_prep("--own", tr, dv, te, "--name", "t")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("t_own", "train.tsv"), "neutral\tA man's hat.\tA hat\nentailment\tTwo dogs\tDogs\n")
        self.assertEqual(self.read("t_own", "dev.tsv"), "contradiction\tIt isn't.\tIt is.\n")
        self.assertEqual(self.read("t_own", "test.tsv"), "neutral\ta\tb\n")
        meta = json.loads(self.read("t_own", "prep.json"))
        self.assertTrue(meta["source_files"]["train"]["header_line_skipped"])
        self.assertEqual(meta["source_lines"]["train"], {"file": tr, "pairs": 2, "first_line": 2, "last_line": 3})
        self.assertEqual(meta["source_files"]["test"]["dropped_no_gold_label"], 1)
        code, msg = self.run_prep("--own", tr, dv, te, "--name", "t", "--tokenize")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("t_own", "dev.tsv"), "contradiction\tIt is n't .\tIt is .\n")

    def test_bad_inputs_name_file_and_line(self):
        good = jsonl().splitlines()
        self.assert_own_refused("label.jsonl",
                                "\n".join(good[:5] + [good[5].replace('"entailment"', '"maybe"')] + good[6:]),
                                ":6: label 'maybe': expected entailment, neutral or contradiction")
        self.assert_own_refused("json.jsonl", "\n".join(good[:3] + ['{"gold_label": "neutral",'] + good[4:]),
                                ":4: not a JSON object")
        self.assert_own_refused("field.jsonl",
                                "\n".join(good[:6] + ['{"gold_label": "neutral", "sentence1": "a"}'] + good[7:]),
                                ":7: missing or non-string field 'sentence2'")
        self.assert_own_refused("cols.tsv", "neutral\ta\tb\nneutral\ta b\n",
                                ":2: 2 tab-separated field(s), expected 3: label<TAB>premise<TAB>")
        self.assert_own_refused("side.tsv", "neutral\ta\tb\nneutral\t  \tb\n", ":2: empty premise")
        self.assert_own_refused("tsvlabel.tsv", "neutral\ta\tb\n\nENTAILS\ta\tb\n", ":3: label 'ENTAILS'")
        self.assert_own_refused("utf8.tsv", b"neutral\ta\tb\nneutral\ta\t\xffb\n",
                                ":2: invalid UTF-8 at byte 10 of the line")
        self.assert_own_refused("empty.tsv", "", ": empty file")
        self.assert_own_refused("dash.tsv", "-\ta\tb\n", ": no labelled pair (1 with label '-')")


if __name__ == "__main__":
    unittest.main(verbosity=2)
