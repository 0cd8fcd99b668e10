#!/usr/bin/env python3
"""data_prep/nmt.py --own-src/--own-tgt (issue 29): any sentence-aligned parallel text split 80/10/10 by line order
(or three file pairs) into OUT/<name>_own/ with {split}.raw.* (the user's lines), {split}.tok.* (moses_tok.py, as
for Multi30k) and a joint SentencePiece BPE model learnt with nmt.py's spm_train command; lines empty on both sides
skipped; misaligned files, a line empty on one side only, invalid UTF-8, an empty file and bad language options
stop with exit code 2 naming file (and line) and leave nothing behind. The printed training command is run with
--print-config when build/bin/nmt exists. Needs spm_train, spm_encode, spm_decode (Debian sentencepiece): without
them it prints why and exits 77, as the plots tests do when matplotlib is missing. Standard library only."""
import json
import os
import shutil
import sys
import unittest

from own_case import OwnPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "nmt.py")

EN = "the a man woman dog cat runs walks sees eats red blue big small house street park in on with and".split()
FR = "le la un homme femme chien chat court marche voit mange rouge bleu grand petit maison rue parc dans sur et".split()
LITERAL = [("Le chat (noir) dort.", "The cat (black) sleeps."),                 # 26: dev
           ("Deux « petits » chiens.", 'Two "small" dogs.'),                   # 27
           ("L'homme mange, vite!", "The man's dog eats, quickly!"),            # 28
           ("Le chien rouge court.", "The red dog runs."),                      # 29: test
           ("Une femme voit la maison.", "A woman sees the house."),            # 30
           ("Il marche dans le parc.", "He walks in the park.")]                # 31


def corpus():
    """31 lines: 24 generated pairs (lines 1-4, 6-25), line 5 empty on both sides, the 6 literal pairs."""
    gen = []
    for i in range(24):
        idx = [(i * 5 + j * 3) % len(EN) for j in range(3 + i % 5)]
        gen.append((" ".join(FR[k] for k in idx).capitalize() + ".", " ".join(EN[k] for k in idx).capitalize() + "."))
    pairs = gen[:4] + [("", "  ")] + gen[4:] + LITERAL
    return [p[0] for p in pairs], [p[1] for p in pairs]


class NmtOwn(OwnPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--vocab-size", "100")

    def file(self, name, lines=None, data=None, eol="\n"):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data if data is not None else "".join(l + eol for l in lines).encode("utf-8"))
        return path

    def test_one_pair_split_tokenised_and_bpe(self):
        fr, en = corpus()
        src, tgt = self.file("story.fr", fr, eol="\r\n"), self.file("story.en", en)
        code, msg = self.run_prep("--own-src", src, "--own-tgt", tgt, "--src-lang", "fr", "--tgt-lang", "en")
        self.assertEqual(code, 0, msg)
        folder = os.path.join(self.out, "story_own")
        self.assertEqual(sorted(os.listdir(folder)), sorted(
            [f"{s}.{k}.{l}" for s in ("train", "dev", "test") for k in ("raw", "tok") for l in ("fr", "en")]
            + ["bpe100", "prep.json"]))
        self.assertEqual(sorted(os.listdir(os.path.join(folder, "bpe100"))),
                         ["joint.model", "joint.vocab", "spm_train.cmd", "spm_train.log"])
        self.assertEqual(self.read("story_own", "dev.raw.fr"),
                         "Le chat (noir) dort.\nDeux « petits » chiens.\nL'homme mange, vite!\n")
        self.assertEqual(self.read("story_own", "dev.tok.fr"),
                         "le chat ( noir ) dort .\ndeux &quot; petits &quot; chiens .\nl&apos; homme mange , vite !\n")
        self.assertEqual(self.read("story_own", "dev.tok.en"),
                         "the cat ( black ) sleeps .\ntwo &quot; small &quot; dogs .\n"
                         "the man &apos;s dog eats , quickly !\n")
        self.assertEqual(self.read("story_own", "test.tok.en"),
                         "the red dog runs .\na woman sees the house .\nhe walks in the park .\n")
        self.assertEqual(self.read("story_own", "test.raw.en"),
                         "The red dog runs.\nA woman sees the house.\nHe walks in the park.\n")
        train = self.read("story_own", "train.raw.fr").splitlines()
        self.assertEqual((len(train), train[3], train[4]), (24, fr[3], fr[5]))   # the empty line 5 skipped
        cmd = self.read("story_own", "bpe100", "spm_train.cmd").splitlines()
        self.assertEqual(cmd[-1], "spm_train --input=train.tok.fr,train.tok.en --model_prefix=bpe100/joint "
                         "--model_type=bpe --vocab_size=100 --character_coverage=1.0 --input_sentence_size=0 "
                         "--shuffle_input_sentence=false --random_seed=1 --num_threads=1 --pad_id=0 --bos_id=1 "
                         "--eos_id=2 --unk_id=3 --normalization_rule_name=identity --byte_fallback=false")
        meta = json.loads(self.read("story_own", "prep.json"))
        info = meta["source_files"]["parallel"]
        self.assertEqual((info["pairs"], info["empty_on_both_sides_skipped"], info["first_such_lines"]), (30, 1, [5]))
        self.assertEqual(len(info["src"]["sha256"]), 64)
        self.assertEqual({k: (v["pairs"], v["first_line"], v["last_line"]) for k, v in meta["source_lines"].items()},
                         {"train": (24, 1, 25), "dev": (3, 26, 28), "test": (3, 29, 31)})
        self.assertEqual(meta["splits"]["test"]["tok.en"]["tokens"], 17)  # 5 + 6 + 6
        self.assertEqual(meta["bpe"]["roundtrip"]["dev.tok.fr"]["lines"], 3)
        line = self.printed_command(msg, "nmt")
        self.assertEqual(line, f"build/bin/nmt experiments/nmt/atr.json --set data.dir={folder} --set data.src=fr "
                               f"--set data.tgt=en --set data.train=train --set data.dev=dev --set data.test=test "
                               f"--set 'data.extra_tests=[]' --set data.bpe=bpe100/joint.model "
                               f"--set out_dir=runs/nmt_story")
        data = self.check_print_config(line, "nmt", folder)["data"]
        self.assertEqual((data["dir"], data["src"], data["tgt"], data["extra_tests"]), (folder, "fr", "en", []))

    def test_three_pairs_separate_models(self):
        fr, en = corpus()
        fr, en = [l for l in fr if l], [l for l in en if l.strip()]
        files = [self.file(f"{s}.{l}", side) for s, a, b in (("tr", 0, 24), ("dv", 24, 27), ("te", 27, 30))
                 for l, side in (("fr", fr[a:b]), ("en", en[a:b]))]
        code, msg = self.run_prep("--own-src", *files[0::2], "--own-tgt", *files[1::2], "--src-lang", "fr",
                                  "--tgt-lang", "en", "--name", "three", "--separate")
        self.assertEqual(code, 0, msg)
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "three_own", "bpe100")))[:4],
                         ["en.model", "en.vocab", "fr.model", "fr.vocab"])
        self.assertEqual(self.read("three_own", "test.tok.fr"),
                         "le chien rouge court .\nune femme voit la maison .\nil marche dans le parc .\n")
        self.assertIn("--set data.bpe_src=bpe100/fr.model --set data.bpe_tgt=bpe100/en.model", msg)

    def test_bad_inputs_name_file_and_line(self):
        fr, en = corpus()
        src = self.file("a.fr", fr)
        tgt = self.file("short.en", en[:-1])
        self.assert_fails(["--own-src", src, "--own-tgt", tgt, "--src-lang", "fr", "--tgt-lang", "en"],
                          [f"misaligned: {src} has 31 lines but {tgt} has 30"])
        tgt = self.file("gap.en", en[:7] + [" "] + en[8:])
        self.assert_fails(["--own-src", src, "--own-tgt", tgt, "--src-lang", "fr", "--tgt-lang", "en"],
                          [f"{tgt}:8: empty line, but line 8 of {src} is not"])
        tgt = self.file("utf8.en", data="".join(l + "\n" for l in en).encode("utf-8").replace(b"The red", b"Th\xe9 red"))
        self.assert_fails(["--own-src", src, "--own-tgt", tgt, "--src-lang", "fr", "--tgt-lang", "en"],
                          [f"{tgt}:29: invalid UTF-8 at byte 2 of the line"])
        tgt = self.file("b.en", en)
        empty = self.file("empty.fr", [])
        self.assert_fails(["--own-src", empty, "--own-tgt", tgt, "--src-lang", "fr", "--tgt-lang", "en"],
                          [f"{empty}: empty file"])
        self.assert_fails(["--own-src", src, "--own-tgt", tgt, "--src-lang", "fr"], ["--tgt-lang is needed"])
        self.assert_fails(["--own-src", src, "--own-tgt", tgt, "--src-lang", "en", "--tgt-lang", "en"],
                          ["--src-lang and --tgt-lang are both 'en'"])
        self.assert_fails(["--own-src", src, "--own-tgt", tgt, "--src-lang", "f/r", "--tgt-lang", "en"],
                          ["--src-lang 'f/r'"])
        self.assert_fails(["--own-src", src, "--src-lang", "fr", "--tgt-lang", "en"],
                          ["--own-src and --own-tgt go together"])


if __name__ == "__main__":
    missing = [t for t in ("spm_train", "spm_encode", "spm_decode") if shutil.which(t) is None]
    if missing:
        print(f"test_nmt_own: skipped: {', '.join(missing)} not found (Debian package sentencepiece, `make deps`)")
        sys.exit(77)
    unittest.main(verbosity=2)
