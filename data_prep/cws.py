#!/usr/bin/env python3
"""Prepare SIGHAN 2005 (icwb2-data) MSR and PKU for Chinese word segmentation:
RAW_DATA/sighan2005 -> data/cws/{corpus}_{protocol}/.

The protocols (the folder is {corpus}_{protocol}, gsd_ud for ud):
  standard  protocol (a), the published one: training/{corpus}_training.utf8 (or .gz) split by line order,
            first 90 % train, last 10 % dev (as in the ATR paper, Appendix A.2.3); test = the official gold
            test file gold/{corpus}_test_gold.utf8; OOV against the official training word list
            gold/{corpus}_training_words.utf8 (or, without it, the words of the whole training file). The
            training files are not in ../shared/data (see its sighan2005/SOURCE.md): put them in place and
            this runs unchanged.
  ud        protocol (c): Universal Dependencies Chinese GSD 1.4 (RAW_DATA/ud_chinese_gsd, --ud) with its own
            train/dev/test, read from the CoNLL-U FORM column (data_prep/cws_ud.py) -> data/cws/gsd_ud/; OOV
            against the train split's words.
  pkupd     protocol (d), "PKU People's Daily 1998-01 train, SIGHAN-2005 PKU test": RAW_DATA/
            pku_peoples_daily_199801/199801.seg.utf8.gz (--pd) less its lines whose text is a PKU test sentence,
            first 90 % of its paragraphs train, last 10 % dev, paragraphs over 200 characters split at sentence
            ends; test = the PKU gold test file; OOV against the train split's words (data_prep/cws_pkupd.py)
            -> data/cws/pku_pkupd/. PKU only.
  inhouse   in-house protocol (b): the gold test file split 80/10/10 by line order (first 80 % train, next
            10 % dev, last 10 % test); OOV against the train split's words. Needs only the gold test file.
            Its numbers are NOT comparable with published SIGHAN 2005 results.

Reading the bakeoff format: one sentence per line, words separated by any run of ASCII whitespace or U+3000
(ideographic space), as the score script and the C++ reader (core/eval/segmentation.h read_segmented) do; CRLF or LF;
a UTF-8 byte-order mark at the start is dropped. Invalid UTF-8 is an error naming the file, line and byte
offset; so is any other whitespace or control character (U+00A0, U+2003, NUL, ...), because the C++ reader
would keep it as part of a word. Empty
and whitespace-only lines are skipped (they hold no sentence): their count and first line numbers are printed
and recorded in prep.json, and the splits are taken over the remaining sentences in file order.

Writes per protocol folder: {train,dev,test}.seg (words separated by one ASCII space, LF, UTF-8),
{train,dev,test}.bmes (one line per sentence: the tag letters B/M/E/S, one per character, no separators),
train_words.txt (the OOV reference word list, one per line, sorted by code point) and prep.json (protocol,
source files with sha256, counts per split, OOV rates, skipped lines, checks). Each folder is written to a
temporary folder and renamed into place, so a failure never leaves a half-written one; the output is
deterministic (same input, same bytes). The .seg files and train_words.txt can be given to the official
bakeoff `score` script as truth and dictionary. Standard library only.

Your own data (--own): a segmented corpus in the same format, one file split 80/10/10 by line order (cut points
floor(0.8 n), floor(0.9 n) over its non-empty lines) or three files train, dev, test, every line checked as above
-> OUT/<name>_own/ (default data/cws/<name>_own) with the same files; OOV against the train split's words. It
prints the command that trains experiments/cws/msr_atr.json on the result. (--segmented FILE is its earlier name.)

usage: cws.py [--raw DIR] [--ud DIR] [--pd DIR] [--out DIR] [--corpus msr|pku|all]
              [--protocol inhouse|standard|ud|pkupd|all] [--no-check]
       cws.py --own FILE [FILE FILE] [--name NAME] [--out data/cws]
"""
import argparse
import hashlib
import os

from cws_read import PROG, SEP, SHOW, Bakeoff, counts, decode, fail, git_blob, lines_of, note, read_bytes, \
    read_word_list, warn
from cws_pkupd import PD_FILE, job_pkupd
from cws_ud import job_ud
from prep_common import OWN_HELP, OWN_SPLIT_RULE, find, new_folder, own_name, own_paths, own_splits, \
    train_command, write_prep_json

CORPORA = ("msr", "pku")
PROTOCOLS = ("inhouse", "standard")
DESCRIPTION = {
    "inhouse": "in-house protocol (b): the gold test file split 80/10/10 by line order (first 80 % of its "
               "sentences train, next 10 % dev, last 10 % test); OOV counted against the train split's words. "
               "Used because the SIGHAN 2005 training sets are not available here; not comparable with "
               "published SIGHAN 2005 results (state this in every results table).",
    "standard": "standard protocol (a): the SIGHAN 2005 training file split by line order, first 90 % of its "
                "sentences train and last 10 % dev (as in the ATR paper); test = the official gold test file; "
                "OOV counted against the official training word list (or, without it, the words of the whole "
                "training file).",
}
# gold test files: sentences, words, characters (sighan2005/SOURCE.md, = the published bakeoff statistics)
EXPECTED_GOLD = {"msr": (3985, 106873, 184355), "pku": (1944, 104372, 172733)}
EXPECTED_WORD_TYPES = {"msr": 88119, "pku": 55303}
# git blob ids of the training files recorded in the icwb2-data tree (sighan2005/SOURCE.md)
TRAINING_BLOB = {"msr": "4ce7619c3dbe2380cc70c5c294d4d5add695f8f6", "pku": "1f4268102eda1de03165a8807a74200f54e20063"}
SPLITS = ("train", "dev", "test")
# The experiment the printed command trains on a user's own corpus (the in-house recipe of the CWS tables).
OWN_EXPERIMENT = "experiments/cws/msr_atr.json"


def oov(sentences, known):
    n = sum(len(s) for s in sentences)
    k = sum(1 for s in sentences for w in s if w not in known)
    return k, (k / n if n else 0.0)


def bmes(words):
    return "".join("S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E" for w in words)


def check_gold(corpus, gold, no_check):
    got = tuple(counts(gold.sentences).values())
    if not no_check and got != EXPECTED_GOLD[corpus]:
        fail(f"{gold.path}: {got[0]} sentences, {got[1]} words, {got[2]} characters; expected "
             f"{' / '.join(map(str, EXPECTED_GOLD[corpus]))} (sighan2005/SOURCE.md): not the published gold file (replace it, or use "
             f"--no-check for another corpus)")


def check_input(raw, corpus, gold):
    """The unsegmented test input should be the gold text without separators, line by line; returns a summary
    (None without the input file). The official MSR files differ on a few lines where an opening quote sits at
    the end of one line in the gold file but at the start of the next in the input, so the whole texts are
    compared too: a difference there is a warning, line differences alone only a note."""
    p = find(os.path.join(raw, "testing"), f"{corpus}_test.utf8")
    if p is None:
        return None
    text, _ = decode(p, read_bytes(p))
    inp = [l for l in (SEP.sub("", l) for l in lines_of(text)) if l]
    gold_text = ["".join(s) for s in gold.sentences]
    bad = [gold.line_nos[i] for i in range(min(len(inp), len(gold_text))) if inp[i] != gold_text[i]]
    same_text = "".join(inp) == "".join(gold_text)
    if not same_text:
        warn(f"{p} is not the text of {gold.path}: the characters differ (first differing gold lines: "
             f"{bad[:SHOW]})")
    elif bad or len(inp) != len(gold_text):
        note(f"{p}: same characters as {gold.path}, but {len(bad)} line(s) break elsewhere (gold lines "
             f"{bad[:SHOW]}{' ...' if len(bad) > SHOW else ''}); the gold file is what is used")
    return {"file": os.path.abspath(p), "same_characters": same_text,
            "lines": len(inp), "gold_lines_breaking_elsewhere": len(bad), "first_such_gold_lines": bad[:SHOW]}


def split_by_order(path, sentences, line_nos, fractions):
    """Consecutive slices by sentence order (of the file at path): cut points floor(n * cumulative fraction)."""
    n, cuts, acc = len(sentences), [0], 0
    for f in fractions[:-1]:
        acc += f
        cuts.append(n * acc // 10)
    cuts.append(n)
    parts = [(sentences[a:b], line_nos[a:b]) for a, b in zip(cuts, cuts[1:])]
    for (s, _), name in zip(parts, SPLITS):
        if not s:
            fail(f"{path}: the {name} split is empty ({n} sentences in all): the input is too small to split")
    return parts


def job_inhouse(raw, corpus, gold):
    parts = split_by_order(gold.path, gold.sentences, gold.line_nos, (8, 1, 1))
    splits = {name: s for name, (s, _) in zip(SPLITS, parts)}
    known = {w for s in splits["train"] for w in s}
    src_lines = {name: [ln[0], ln[-1]] for name, (_, ln) in zip(SPLITS, parts)}
    return {
        "corpus": corpus, "protocol": "inhouse", "description": DESCRIPTION["inhouse"],
        "split_rule": "non-empty lines of the gold test file in file order; with n sentences, train = "
                      "[0, floor(0.8 n)), dev = [floor(0.8 n), floor(0.9 n)), test = the rest",
        "source_files": {"test_gold": gold.info},
        "source_lines": {name: {"file": "test_gold", "first_line": a, "last_line": b}
                         for name, (a, b) in src_lines.items()},
        "word_list": {"source": "the words of the train split", "word_types": len(known)},
        "skipped_lines": [gold.skipped_info()],
    }, splits, known


def job_own(paths, name):
    """The user's segmented corpus (one sentence per line, words separated by spaces): one file split 80/10/10 by
    line order like protocol (b), or three files train, dev, test taken as they are; OOV against the train
    split's words. Into OUT/<name>_own/."""
    skipped = []

    def read_one(path):
        corpus = Bakeoff(path)  # every line checked as for the bakeoff files; a file without sentences stops here
        if corpus.skipped:
            note(f"{path}: skipping {len(corpus.skipped)} empty or whitespace-only line(s): {corpus.skipped[:SHOW]}")
        skipped.append(corpus.skipped_info())
        return corpus.sentences, corpus.line_nos, corpus.info

    splits, ranges, infos = own_splits(paths, read_one, fail)
    known = {w for s in splits["train"] for w in s}
    what = (f"{os.path.basename(paths[0])} split 80/10/10 by line order" if len(paths) == 1 else
            "train / dev / test files " + ", ".join(os.path.basename(p) for p in paths))
    return {
        "corpus": name, "protocol": "own", "mode": "own",
        "description": f"your own segmented corpus '{name}': {what}; OOV against the train split's words",
        "split_rule": OWN_SPLIT_RULE + " (items: sentences, the non-empty lines)",
        "source_files": dict(zip(("segmented",) if len(paths) == 1 else SPLITS, infos)),
        "source_lines": {k: {"file": v["file"], "sentences": v["items"], "first_line": v["first_line"],
                             "last_line": v["last_line"]} for k, v in ranges.items()},
        "word_list": {"source": "the words of the train split", "word_types": len(known)},
        "skipped_lines": skipped,
    }, splits, known


def job_standard(raw, corpus, gold, train_path, no_check):
    train = Bakeoff(train_path)
    blob = git_blob(train.data)
    if blob != TRAINING_BLOB[corpus]:
        warn(f"{train_path}: git blob {blob}, the icwb2-data one is {TRAINING_BLOB[corpus]}: not the published "
             f"file byte for byte (line ends or encoding changed?); continuing")
    train.info["git_blob"] = blob
    train.info["git_blob_matches_icwb2_data"] = blob == TRAINING_BLOB[corpus]
    parts = split_by_order(train_path, train.sentences, train.line_nos, (9, 1))
    splits = {"train": parts[0][0], "dev": parts[1][0], "test": gold.sentences}
    file_words = {w for s in train.sentences for w in s}
    wl = find(os.path.join(raw, "gold"), f"{corpus}_training_words.utf8")
    sources = {"training": train.info, "test_gold": gold.info}
    if wl:
        known, info = read_word_list(wl)
        sources["training_words"] = info
        if not no_check and len(known) != EXPECTED_WORD_TYPES[corpus]:
            fail(f"{wl}: {len(known)} words, expected {EXPECTED_WORD_TYPES[corpus]} (sighan2005/SOURCE.md); "
                 f"use --no-check for another list")
        only_file = sorted(file_words - known)
        only_list = sorted(known - file_words)
        if only_file or only_list:
            warn(f"{wl} and the words of {train_path} differ: {len(only_file)} words only in the training file "
                 f"(e.g. {only_file[:5]}), {len(only_list)} only in the list (e.g. {only_list[:5]}); the list is "
                 f"used, as in the bakeoff")
        word_list = {"source": "the official training word list " + os.path.basename(wl), "word_types": len(known),
                     "training_file_words_not_in_list": len(only_file), "list_words_not_in_training_file":
                     len(only_list)}
    else:
        known = file_words
        word_list = {"source": "the words of the whole training file (no official list found at "
                               f"{os.path.join(raw, 'gold', corpus + '_training_words.utf8')})",
                     "word_types": len(known)}
    train_split_words = {w for s in splits["train"] for w in s}
    word_list["oov_rate_against_train_split_words"] = {name: oov(splits[name], train_split_words)[1]
                                                      for name in ("dev", "test")}
    return {
        "corpus": corpus, "protocol": "standard", "description": DESCRIPTION["standard"],
        "split_rule": "non-empty lines of the training file in file order; with n sentences, train = "
                      "[0, floor(0.9 n)), dev = the rest; test = every non-empty line of the gold test file",
        "source_files": sources,
        "source_lines": {"train": {"file": "training", "first_line": parts[0][1][0], "last_line": parts[0][1][-1]},
                         "dev": {"file": "training", "first_line": parts[1][1][0], "last_line": parts[1][1][-1]},
                         "test": {"file": "test_gold", "first_line": gold.line_nos[0],
                                  "last_line": gold.line_nos[-1]}},
        "word_list": word_list,
        "skipped_lines": [train.skipped_info(), gold.skipped_info()],
    }, splits, known


def missing_training(raw, corpus):
    want = os.path.join(raw, "training", f"{corpus}_training.utf8")
    return (f"protocol (a) 'standard' needs the SIGHAN 2005 {corpus.upper()} training set, which is missing: put "
            f"training/{corpus}_training.utf8 of icwb2-data.zip (http://sighan.cs.uchicago.edu/bakeoff2005/) at "
            f"{want} (or {want}.gz; `git hash-object` of the plain file should give {TRAINING_BLOB[corpus]}). "
            f"Without it, use the in-house protocol (b): --protocol inhouse (needs only "
            f"{os.path.join(raw, 'gold', corpus + '_test_gold.utf8')})")


def write_job(out, meta, splits, known):
    name = f"{meta['corpus']}_{meta['protocol']}"
    final = os.path.join(out, name)
    with new_folder(out, name, final) as tmp:
        meta["splits"] = {}
        for split, sents in splits.items():
            seg = "".join(" ".join(s) + "\n" for s in sents)
            tags = [bmes(s) for s in sents]
            for s, t in zip(sents, tags):
                assert len(t) == sum(len(w) for w in s)
            with open(os.path.join(tmp, f"{split}.seg"), "w", encoding="utf-8", newline="\n") as f:
                f.write(seg)
            with open(os.path.join(tmp, f"{split}.bmes"), "w", encoding="ascii", newline="\n") as f:
                f.writelines(t + "\n" for t in tags)
            n_oov, rate = oov(sents, known)
            meta["splits"][split] = dict(counts(sents), oov_words=n_oov, oov_rate=rate,
                                         sha256_seg=hashlib.sha256(seg.encode("utf-8")).hexdigest())
        words = sorted(known)
        with open(os.path.join(tmp, "train_words.txt"), "w", encoding="utf-8", newline="\n") as f:
            f.writelines(w + "\n" for w in words)
        meta["word_list"]["file"] = "train_words.txt"
        meta["format"] = ("*.seg: one sentence per line, words separated by one ASCII space, LF, UTF-8; *.bmes: "
                          "one line per sentence, one tag letter B/M/E/S per character (B/M/E: begin/middle/end "
                          "of a multi-character word, S: a one-character word), no separators; oov_rate = words "
                          "of the split not in train_words.txt / words of the split")
        write_prep_json(tmp, meta)
    s = meta["splits"]
    note(f"wrote {final}: " + ", ".join(
        f"{k} {v['sentences']} sentences / {v['words']} words / {v['characters']} chars" for k, v in s.items())
        + f"; {len(words)} reference words; OOV rate dev {100 * s['dev']['oov_rate']:.2f} %, "
          f"test {100 * s['test']['oov_rate']:.2f} %")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=os.path.join(os.environ.get("RAW_DATA", "../shared/data"), "sighan2005"),
                    help="folder holding gold/, testing/ and (for --protocol standard) training/ "
                         "(default $RAW_DATA/sighan2005 or ../shared/data/sighan2005)")
    ap.add_argument("--ud", default=os.path.join(os.environ.get("RAW_DATA", "../shared/data"), "ud_chinese_gsd"),
                    help="folder holding zh-ud-{train,dev,test}.conllu (protocol ud; default $RAW_DATA/ud_chinese_gsd)")
    ap.add_argument("--pd", default=os.path.join(os.environ.get("RAW_DATA", "../shared/data"),
                                                 "pku_peoples_daily_199801"),
                    help=f"folder holding {PD_FILE}[.gz] (protocol pkupd; default $RAW_DATA/pku_peoples_daily_199801)")
    ap.add_argument("--out", default="data/cws", help="output root; each protocol gets {corpus}_{protocol}/")
    ap.add_argument("--corpus", choices=CORPORA + ("all",), default="all")
    ap.add_argument("--protocol", choices=PROTOCOLS + ("ud", "pkupd", "all"), default="inhouse",
                    help="inhouse (default): protocol (b), the gold test file split 80/10/10; standard: "
                         "protocol (a), needs training/{corpus}_training.utf8; ud: protocol (c); pkupd: protocol "
                         "(d), PKU People's Daily 1998-01 train, SIGHAN-2005 PKU test (PKU only); all: every "
                         "one, standard and pkupd skipped with a note when their training file is absent")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the published-count checks (sentences/words/characters of the gold files, "
                         "word types of the lists): for other corpora in the same format")
    ap.add_argument("--own", nargs="+", metavar="FILE",
                    help=OWN_HELP + " (data/cws/<name>_own by default). A segmented corpus: one sentence per line, "
                         "words separated by spaces (or U+3000), UTF-8; every line checked as for the bakeoff files")
    ap.add_argument("--segmented", metavar="FILE", help="the same as --own FILE (its earlier name)")
    ap.add_argument("--name", help="with --own: the folder name (default: the one file's name without extension)")
    a = ap.parse_args()
    if a.segmented:
        if a.own:
            fail("--segmented FILE is --own FILE by its earlier name: give one of them")
        a.own = [a.segmented]
    if a.own:
        name = own_name(a.name, own_paths(a.own, fail), fail)
        meta, splits, known = job_own(a.own, name)
        write_job(a.out, meta, splits, known)
        final = os.path.join(a.out, f"{name}_own")
        print(f"{PROG}: train on it (from the repository root):\n  " + train_command(
            "cws", OWN_EXPERIMENT,
            [("data.dir", final), ("data.protocol", f"own data {name}"), ("out_dir", f"runs/cws_{name}")]))
        return
    corpora = CORPORA if a.corpus == "all" else (a.corpus,)
    protocols = PROTOCOLS if a.protocol == "all" else (a.protocol,)
    jobs = []  # everything is read and checked before anything is written
    if a.protocol in ("ud", "all"):
        if not os.path.isdir(a.ud):
            fail(f"no folder {a.ud}: --ud is the folder holding zh-ud-{{train,dev,test}}.conllu (UD Chinese GSD 1.4)")
        meta, splits, known = job_ud(a.ud, a.no_check)
        meta["checks"] = {"published_counts_checked": not a.no_check}
        jobs.append((meta, splits, known))
        if a.protocol == "ud":
            protocols, corpora = (), ()
    if a.protocol == "pkupd":
        if a.corpus == "msr":
            fail("--protocol pkupd is PKU only (PKU People's Daily train, SIGHAN-2005 PKU test): use --corpus pku")
        protocols, corpora = ("pkupd",), ("pku",)
    elif a.protocol == "all":
        protocols = PROTOCOLS + (("pkupd",) if "pku" in corpora else ())
    if corpora and not os.path.isdir(a.raw):
        fail(f"no folder {a.raw}: --raw is the SIGHAN 2005 folder itself (holding gold/{{msr,pku}}_test_gold.utf8 "
             f"of icwb2-data.zip, testing/ and optionally training/); RAW_DATA is the folder that holds sighan2005/")

    for corpus in corpora:
        gp = find(os.path.join(a.raw, "gold"), f"{corpus}_test_gold.utf8")
        if gp is None:
            fail(f"missing {os.path.join(a.raw, 'gold', corpus + '_test_gold.utf8')}: copy gold/{corpus}_test_gold"
                 f".utf8 of icwb2-data.zip (http://sighan.cs.uchicago.edu/bakeoff2005/) there (see SOURCE.md)")
        gold = Bakeoff(gp)
        check_gold(corpus, gold, a.no_check)
        if gold.skipped:
            note(f"{gp}: skipping {len(gold.skipped)} empty or whitespace-only line(s): {gold.skipped[:SHOW]}")
        test_input = check_input(a.raw, corpus, gold)
        for protocol in protocols:
            if protocol == "inhouse":
                meta, splits, known = job_inhouse(a.raw, corpus, gold)
            elif protocol == "pkupd":
                if corpus != "pku":
                    continue
                if a.protocol == "all" and find(a.pd, PD_FILE) is None:
                    note(f"skipping pku_pkupd: no {os.path.join(a.pd, PD_FILE)}[.gz] (--pd)")
                    continue
                meta, splits, known = job_pkupd(a.pd, gold, a.no_check)
            else:
                tp = find(os.path.join(a.raw, "training"), f"{corpus}_training.utf8")
                if tp is None:
                    if a.protocol == "all":
                        note(f"skipping {corpus}_standard: {missing_training(a.raw, corpus)}")
                        continue
                    fail(missing_training(a.raw, corpus))
                meta, splits, known = job_standard(a.raw, corpus, gold, tp, a.no_check)
                for s in meta["skipped_lines"][:1]:
                    if s["empty_or_whitespace_only_lines"]:
                        note(f"{tp}: skipping {s['empty_or_whitespace_only_lines']} empty or whitespace-only "
                             f"line(s): {s['first_line_numbers']}")
            meta["checks"] = {"published_counts_checked": not a.no_check, "test_input_vs_gold": test_input}
            jobs.append((meta, splits, known))
    if not jobs:
        fail("nothing to do")
    for meta, splits, known in jobs:
        write_job(a.out, meta, splits, known)


if __name__ == "__main__":
    main()
