#!/usr/bin/env python3
"""data_prep/cws.py --protocol pkupd (protocol (d), PKU People's Daily 1998-01 train, SIGHAN-2005 PKU test) on
hand-made inputs: a People's Daily file of 21 paragraphs (one of them a test sentence) and a PKU gold test file.
Checks the exact outputs, the overlap count, the 90/10 dev cut by line order, the paragraph split rule (only over
200 characters, after sentence-final words with their closing quotes, never inside a word), and each refusal of
bad input (exit 2, file:line, nothing written). The real-data test runs when ../shared/data (or $RAW_DATA) holds
the files. Standard library only; runs the script as a user would (a subprocess), in a temporary folder."""
import json
import os
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "cws.py")
RAW_DATA = os.path.abspath(os.environ.get("RAW_DATA", os.path.join(ROOT, "..", "shared", "data")))

GOLD = ["图片  新闻", "迈向  充满  希望  的  新  世纪", ""]   # the PKU file ends with an empty line too
# A paragraph of 236 characters (over the 200 limit): the first sentence ends with a standalone 。, the
# second with 。 and a closing quote, the third with a word that ends in ！, the last has no final mark.
FILL = ["中华人民共和国"] * 8   # 56 characters of one repeated 7-character word
LONG = (FILL + ["我们", "。"], FILL + ["说", "。", "”"], FILL + ["好", "万岁！"], FILL + ["再", "见"])
LONG_LINE = "  ".join(w for s in LONG for w in s)
EXACT_200 = ["中华人民共和国"] * 28 + ["一", "二", "。", "三"]   # 196 + 4 = 200 characters: not split
PD = ([f"第{i}  段  文字  。" for i in range(1, 18)]   # lines 1..17
      + ["图片  新闻"]                                  # line 18: a test sentence, dropped
      + [LONG_LINE, "  ".join(w for w in EXACT_200), "最后  一  段"])   # lines 19, 20, 21


class CwsPkupdPrep(CorpusPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--protocol", "pkupd", "--no-check")
    RAW, RAW_SUBDIR = "sighan2005", "gold"

    def setUp(self):
        super().setUp()
        self.pd = os.path.join(self.tmp.name, "pd")
        os.makedirs(self.pd)
        self.write_gold(GOLD)
        self.write_pd(PD)

    def write_gold(self, lines):
        with open(os.path.join(self.raw, "gold", "pku_test_gold.utf8"), "wb") as f:
            f.write("".join(l + "\r\n" for l in lines).encode("utf-8"))

    def write_pd(self, lines, data=None):
        with open(os.path.join(self.pd, "199801.seg.utf8"), "wb") as f:
            f.write(data if data is not None else "".join(l + "\n" for l in lines).encode("utf-8"))

    def run_prep(self, *extra):
        return super().run_prep("--pd", self.pd, *extra)

    def assert_fails(self, needles, *extra):
        super().assert_fails(needles, *extra)
        self.assertFalse(os.path.exists(os.path.join(self.out, "pku_pkupd")), "nothing may be written")

    def test_outputs_overlap_dev_cut_and_split(self):
        code, msg = self.run_prep()
        self.assertEqual(code, 0, msg)
        # 20 paragraphs left after line 18 is dropped: train = the first floor(0.9 * 20) = 18, dev = the last 2
        train = self.read("pku_pkupd", "train.seg").splitlines()
        self.assertEqual(train[:2], ["第1 段 文字 。", "第2 段 文字 。"])
        self.assertNotIn("图片 新闻", train)
        long_pieces = [" ".join(s) for s in LONG]
        self.assertEqual(train[17:], long_pieces, "the 240-character paragraph, split into its 4 sentences")
        self.assertEqual(len(train), 17 + 4)
        self.assertEqual(self.read("pku_pkupd", "dev.seg"), " ".join(EXACT_200) + "\n最后 一 段\n")
        self.assertEqual(self.read("pku_pkupd", "test.seg"), "图片 新闻\n迈向 充满 希望 的 新 世纪\n")
        self.assertEqual(self.read("pku_pkupd", "test.bmes"), "BEBE\nBEBEBESSBE\n")
        self.assertEqual(self.read("pku_pkupd", "dev.bmes").splitlines()[1], "BESS")
        words = self.read("pku_pkupd", "train_words.txt").splitlines()
        self.assertEqual(words, sorted({w for l in train for w in l.split()}))
        meta = json.loads(self.read("pku_pkupd", "prep.json"))
        ov = meta["test_overlap"]
        self.assertEqual((ov["peoples_daily_lines_dropped"], ov["first_dropped_lines"],
                          ov["test_sentences_occurring_as_a_line"], ov["first_such_test_lines"]), (1, [18], 1, [1]))
        ps = meta["paragraph_split"]
        self.assertEqual((ps["train"]["paragraphs"], ps["train"]["paragraphs_split"],
                          ps["train"]["sentences_after_split"], ps["train"]["max_characters_before"],
                          ps["train"]["max_characters_after"]), (18, 1, 21, 236, 60))
        self.assertEqual((ps["dev"]["paragraphs"], ps["dev"]["paragraphs_split"]), (2, 0))
        self.assertEqual(meta["source_lines"]["dev"], {"file": "peoples_daily", "paragraphs": 2,
                                                      "first_line": 20, "last_line": 21})
        s = meta["splits"]
        self.assertEqual((s["dev"]["sentences"], s["test"]["sentences"], s["test"]["words"]), (2, 2, 8))
        self.assertEqual(s["test"]["oov_words"], 8, "no test word is a training word here")
        self.assertEqual(meta["protocol"], "pkupd")
        self.assertIn("PKU People's Daily 1998-01 train, SIGHAN-2005 PKU test", meta["description"])

    def test_split_is_never_inside_a_word(self):
        # 。 inside a word ("。。好") does not end it; only a word ENDING with a final mark splits, and the text of
        # the pieces joined is the paragraph's
        para = FILL * 4 + ["。。好", "对"] + FILL + ["啊。"] + ["是"]
        self.write_pd(PD[:17] + ["  ".join(para)] + PD[17:])
        code, msg = self.run_prep()
        self.assertEqual(code, 0, msg)
        train = self.read("pku_pkupd", "train.seg").splitlines()
        pieces = train[17:19]
        self.assertEqual(pieces, [" ".join(FILL * 4 + ["。。好", "对"] + FILL + ["啊。"]), "是"])
        self.assertEqual("".join(pieces).replace(" ", ""), "".join(para))

    def test_refusals_name_file_and_line(self):
        pd_path = os.path.join(self.pd, "199801.seg.utf8")
        for line, needle in (("中国/ns  人民", "word '中国/ns' still has its POS tag"),
                             ("[中央/n  电台/n]nt", "compound bracket"),
                             ("19980101-01-001-001  迈向", "starts with a paragraph id"),
                             ("迈向   充满", "3 spaces at character 3: an empty word"),
                             ("迈向 充满", "1 spaces at character 3: a space inside a word"),
                             ("  迈向", "starts or ends with a space"),
                             ("迈向\t充满", "U+0009"),
                             ("迈向\u00a0充满", "U+00A0"),
                             ("", "empty line")):
            self.write_pd(PD[:4] + [line] + PD[4:])
            self.assert_fails([f"{pd_path}:5:", needle])
        self.write_pd(None, data="迈向  充满\n".encode("utf-8") + "中国  人民\n".encode("gbk"))
        self.assert_fails([f"{pd_path}:2: invalid UTF-8"])

    def test_msr_and_missing_file(self):
        self.assert_fails(["--protocol pkupd is PKU only"], "--corpus", "msr")
        os.remove(os.path.join(self.pd, "199801.seg.utf8"))
        self.assert_fails(["missing", "199801.seg.utf8", "--pd"])


@unittest.skipUnless(os.path.isfile(os.path.join(RAW_DATA, "pku_peoples_daily_199801", "199801.seg.utf8.gz"))
                     and os.path.isfile(os.path.join(RAW_DATA, "sighan2005", "gold", "pku_test_gold.utf8")),
                     "the shared People's Daily and SIGHAN-2005 files are not here")
class CwsPkupdRealData(CorpusPrepCase):
    """The shared files: sha256 and counts checked by the script, the counts of the result fixed here."""
    SCRIPT = SCRIPT

    def test_real_data(self):
        code, msg = super(CorpusPrepCase, self).run_prep(
            "--raw", os.path.join(RAW_DATA, "sighan2005"), "--pd", os.path.join(RAW_DATA, "pku_peoples_daily_199801"),
            "--protocol", "pkupd")
        self.assertEqual(code, 0, msg)
        meta = json.loads(self.read("pku_pkupd", "prep.json"))
        ov = meta["test_overlap"]
        self.assertEqual((ov["peoples_daily_lines_dropped"], ov["their_distinct_texts"],
                          ov["test_sentences_occurring_as_a_line"]), (187, 13, 28))
        s = meta["splits"]
        self.assertEqual([(s[k]["sentences"], s[k]["words"]) for k in ("train", "dev", "test")],
                         [(27666, 1017535), (2870, 103463), (1944, 104372)])
        self.assertEqual(meta["source_lines"]["dev"]["first_line"], 17532)
        self.assertEqual((s["dev"]["oov_words"], s["test"]["oov_words"]), (3809, 6229))

    def test_sha256_of_another_file_is_refused(self):
        # the real gold file passes its count check, so the People's Daily check is what stops this
        pd = os.path.join(self.tmp.name, "pd")
        os.makedirs(pd)
        with open(os.path.join(pd, "199801.seg.utf8"), "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in PD))
        code, msg = super(CorpusPrepCase, self).run_prep(
            "--raw", os.path.join(RAW_DATA, "sighan2005"), "--pd", pd, "--protocol", "pkupd")
        self.assert_refused(code, msg, [os.path.join(pd, "199801.seg.utf8") + ": sha256", "expected c4c78544"])
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main(verbosity=2)
