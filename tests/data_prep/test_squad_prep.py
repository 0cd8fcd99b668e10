#!/usr/bin/env python3
"""data_prep/squad.py on a hand-made SQuAD folder: the tokeniser and its byte offsets, answers mapped to token spans
checked by hand (aligned, not aligned, leading space, relocated in train, answer_start -1 dropped and counted), the
heldout split by article, dev ids kept, the GloVe subset and its coverage; and the bad inputs of issue 53 point 7
(not JSON, no data / paragraphs / qas, an answer outside its context, an empty context, a duplicate id), each exit
2 naming the file and the item, with a previous output left as it was. Runs the script as a user would."""
import gzip
import json
import os
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "squad.py")

CTX1 = "Levi's Stadium hosted Super Bowl 50 in 2016."
CTX2 = "The golden anniversary: gold-themed gold, 24\u201310."
CTX3 = "Caf\u00e9 owners met in Paris."


def qa(qid, question, *answers):
    return {"id": qid, "question": question, "answers": [{"text": t, "answer_start": s} for t, s in answers]}


def train_data():
    return {"version": "1.0-explorer-html", "data": [
        {"title": "A1", "paragraphs": [{"context": CTX1, "qas": [
            qa("t1", "Where was it?", ("Levi's Stadium", 0)),      # aligned: Levi ' s Stadium = tokens 0..3
            qa("t2", "When?", (" 2016", 38)),                      # leading space: still aligned, token 9
            qa("t3", "Lost?", ("nowhere", -1))]}]},                # no offset: dropped, question dropped
        {"title": "A2", "paragraphs": [{"context": CTX2, "qas": [
            qa("t4", "What?", ("gold", 4))]}]},                    # inside 'golden': relocated to 'gold' at 24
        {"title": "A3", "paragraphs": [{"context": CTX3, "qas": [
            qa("t5", "Where?", ("Paris", 19))]}]}]}


def dev_data():
    return {"version": "1.1", "data": [{"title": "D1", "paragraphs": [{"context": CTX3, "qas": [
        qa("56be4db0acb8001400a502ec", "Who met?", ("Caf\u00e9 owners", 0), ("owners", 5)),
        qa("56be4db0acb8001400a502ed", "Which?", ("af\u00e9", 1))]}]}]}   # starts inside 'Café': not aligned


GLOVE = "caf\u00e9 0.5 0.5\nparis 1 2\nstadium 3 4\nwhere 5 6\nunused 7 8\n"


class SquadPrep(CorpusPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--no-check", "--heldout-articles", "1")
    RAW_SUBDIR = "squad"

    def setUp(self):
        super().setUp()
        self.glove = os.path.join(self.tmp.name, "g.txt")
        with open(self.glove, "w", encoding="utf-8") as f:
            f.write(GLOVE)

    def write(self, train=None, dev=None, train_text=None):
        with gzip.open(os.path.join(self.raw, "squad", "train-v1.0-explorer.json.gz"), "wt", encoding="utf-8") as f:
            f.write(train_text if train_text is not None else json.dumps(train or train_data()))
        with open(os.path.join(self.raw, "squad", "dev-v1.1.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(dev or dev_data()))

    def prep(self):
        return self.run_prep("--glove", self.glove, "--dim", "2")

    def lines(self, split):
        return [json.loads(l) for l in self.read(split + ".jsonl").splitlines()]

    def test_tokens_offsets_spans_and_counts(self):
        self.write()
        code, msg = self.prep()
        self.assertEqual(code, 0, msg)
        train = self.lines("train")
        self.assertEqual(len(train), 2)     # A1 and A2; A3 is the held-out article
        p = train[0]
        self.assertEqual(p["tokens"], ["Levi", "'", "s", "Stadium", "hosted", "Super", "Bowl", "50", "in", "2016", "."])
        self.assertEqual(p["offsets"][:4], [[0, 4], [4, 5], [5, 6], [7, 14]])
        self.assertEqual([q["id"] for q in p["qas"]], ["t1", "t2"])    # t3 had no offset: dropped
        self.assertEqual(p["qas"][0]["answers"], [{"text": "Levi's Stadium", "char_start": 0, "span": [0, 3],
                                                   "aligned": True}])
        self.assertEqual(p["qas"][0]["question_tokens"], ["Where", "was", "it", "?"])
        self.assertEqual(p["qas"][1]["answers"][0]["span"], [9, 9])
        self.assertTrue(p["qas"][1]["answers"][0]["aligned"])
        g = train[1]
        self.assertEqual(g["tokens"][:8], ["The", "golden", "anniversary", ":", "gold", "-", "themed", "gold"])
        self.assertEqual(g["qas"][0]["answers"][0], {"text": "gold", "char_start": 24, "span": [4, 4],
                                                     "aligned": True})
        self.assertEqual(g["offsets"][-4:-1], [[42, 44], [44, 47], [47, 49]])   # 24, the en dash (3 bytes), 10
        held = self.lines("heldout")
        self.assertEqual([q["id"] for q in held[0]["qas"]], ["t5"])
        self.assertEqual(held[0]["qas"][0]["answers"][0]["span"], [4, 4])
        dev = self.lines("dev")[0]
        self.assertEqual(dev["tokens"][:2], ["Caf\u00e9", "owners"])
        self.assertEqual(dev["offsets"][:2], [[0, 5], [6, 12]])    # é is two bytes
        self.assertEqual([q["id"] for q in dev["qas"]], ["56be4db0acb8001400a502ec", "56be4db0acb8001400a502ed"])
        self.assertEqual([a["span"] for a in dev["qas"][0]["answers"]], [[0, 1], [1, 1]])
        self.assertEqual(dev["qas"][1]["answers"][0], {"text": "af\u00e9", "char_start": 1, "span": [0, 0],
                                                      "aligned": False})
        meta = json.loads(self.read("prep.json"))
        c = meta["source_files"]["train"]["counts"]
        self.assertEqual((c["no_offset"], c["relocated"], c["not_aligned"], c["questions_dropped"]), (1, 1, 0, 1))
        self.assertEqual(meta["source_files"]["train"]["first_ids"]["no_offset"], ["t3"])
        self.assertEqual(meta["source_files"]["dev"]["counts"]["not_aligned"], 1)
        self.assertEqual(meta["splits"]["dev"]["questions"], 2)
        self.assertIn("no offset", msg.replace("without offset", "no offset"))
        gl = json.loads(self.read("glove.json"))
        self.assertEqual(self.read("glove.6B.100d.txt"), "caf\u00e9 0.5 0.5\nparis 1 2\nstadium 3 4\nwhere 5 6\n")
        cov = gl["coverage"]["heldout"]["ascii_lowercased"]   # Café owners met in Paris . Where ? -> café, paris, where
        self.assertEqual((cov["tokens"], cov["tokens_with_vector"]), (8, 3))

    def test_not_json_names_the_file(self):
        self.write(train_text='{"data": [')
        self.assert_fails(["train-v1.0-explorer.json.gz:1: not JSON"])

    def test_missing_layout_keys_name_the_item(self):
        self.write(train={"version": "x"})
        self.assert_fails(["train-v1.0-explorer.json.gz: top level: no 'data'"])
        self.write(train={"data": [{"title": "x"}]})
        self.assert_fails(["train-v1.0-explorer.json.gz: data[0]: no 'paragraphs'"])
        self.write(dev={"data": [{"paragraphs": [{"context": "c"}]}]})
        self.assert_fails(["dev-v1.1.json: data[0].paragraphs[0]: no 'qas'"])

    def test_answer_outside_its_context(self):
        d = dev_data()
        d["data"][0]["paragraphs"][0]["qas"][0]["answers"][1]["answer_start"] = 40
        self.write(dev=d)
        self.assert_fails(["dev-v1.1.json: data[0].paragraphs[0].qas[0] (id 56be4db0acb8001400a502ec).answers[1]: "
                           "answer 'owners' at answer_start 40 is not in its context"])

    def test_empty_context(self):
        t = train_data()
        t["data"][1]["paragraphs"][0]["context"] = "  \n "
        self.write(train=t)
        self.assert_fails(["train-v1.0-explorer.json.gz: data[1].paragraphs[0]: empty context"])

    def test_duplicate_id(self):
        t = train_data()
        t["data"][2]["paragraphs"][0]["qas"][0]["id"] = "t1"
        self.write(train=t)
        self.assert_fails(["data[2].paragraphs[0].qas[0] (id t1): duplicate id, first at data[0].paragraphs[0].qas[0]"])

    def test_lone_surrogate_escape_is_an_error(self):
        # json.loads accepts "\ud800"; writing the UTF-8 output would then raise UnicodeEncodeError
        self.write(train_text=json.dumps(train_data()).replace("Where was it?", "Where\\ud800?"))
        self.assert_fails(["data[0].paragraphs[0].qas[0] (id t1).question: the text holds the escape \\ud800"])

    def test_failed_run_keeps_the_previous_output(self):
        self.write()
        self.assertEqual(self.prep()[0], 0)
        before = self.read("dev.jsonl")
        self.write(train_text="not json")
        self.assertEqual(self.prep()[0], 2)
        self.assertEqual(self.read("dev.jsonl"), before)


if __name__ == "__main__":
    unittest.main(verbosity=2)
