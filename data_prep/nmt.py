#!/usr/bin/env python3
"""Prepare Multi30k en-de (WMT16 task 1) and newstest2014 for the NMT task:
RAW_DATA/{multi30k,wmt14_en_de} -> data/multi30k/.

Checks every file it reads (present, line and whitespace-token counts of SOURCE.md, en/de sides aligned,
empty lines reported) and writes, per split train/val/test2016/test2017/mscoco2017, {split}.tok.{en,de}
(the official lowercased, normalised, Moses-tokenised text, byte-identical) and {split}.raw.{en,de} (the
original text, for sacreBLEU); newstest2014.raw.{en,de} (copied) and newstest2014.tok.{en,de} (made by
moses_tok.py, a port of the same Moses pipeline); counts.json; README.txt; and SentencePiece BPE models
learnt with spm_train on the tok training text: bpe{N}/joint.{model,vocab} (or en.*, de.* with
--separate) plus spm_train.cmd. It verifies that spm_encode | spm_decode gives back every val line.
Output is written to a temporary folder and renamed into place. Standard library only (+ spm_* tools).

--self-test only measures the tokenizer port: it runs it on every raw Multi30k file and compares with
the official tok files line by line (exit 1 below the threshold); it writes nothing.

Your own data (--own-src / --own-tgt): any sentence-aligned parallel text, one sentence per line, UTF-8, the
languages named by --src-lang / --tgt-lang (they become the file suffixes). One pair of files is split 80/10/10
by line order (first 80 % of the pairs train, next 10 % dev, last 10 % test; cut points floor(0.8 n),
floor(0.9 n)); three pairs are train, dev, test. Checked: both sides of a pair have the same number of lines
(else an error naming both files and counts); a line empty (or whitespace-only) on one side only is an error
naming file:line; lines empty on both sides are skipped and counted; invalid UTF-8 names file:line. Writes
OUT/<name>_own/ (default data/nmt/<name>_own): {train,dev,test}.raw.{src,tgt} (your text; sacreBLEU references)
and {train,dev,test}.tok.{src,tgt} (through moses_tok.py as for Multi30k: lowercased, Moses-normalised and
tokenised; languages other than en/de use Moses's English non-breaking prefixes, as Moses does; the tokenizer
suits space-delimited scripts), bpe{N}/joint.{model,vocab} (or <src>.*, <tgt>.* with --separate) learnt with
exactly the spm_train command above on train.tok.*, spm_train.cmd, spm_train.log, and prep.json (source files
with sha256, line ranges, pairs and tokens per split, skipped lines, BPE sha256 and the encode|decode results);
then prints the `--set` flags that train experiments/nmt/atr.json on it.

usage: nmt.py [--raw DIR] [--out DIR] [--vocab-size N] [--separate] [--byte-fallback] [--no-check]
              [--self-test]
       nmt.py --own-src FILE [FILE FILE] --own-tgt FILE [FILE FILE] --src-lang L --tgt-lang L [--name NAME]
              [--vocab-size N] [--separate] [--byte-fallback] [--out data/nmt]
"""
import argparse
import collections
import json
import os
import shutil
import sys
import time

import moses_tok
from nmt_common import PROG, fail, file_sha256, lines_of, require_spm_tools, roundtrip, sha256, spm_train, \
    spm_version, warn
from nmt_own import own_main
from prep_common import decode_utf8, new_folder, read_maybe_gz

LANGS = ("en", "de")
# our split name -> Multi30k file stem; lines; tok tokens en, de; raw tokens en, de (multi30k/SOURCE.md)
SPLITS = {
    "train": ("train", 29000, 377534, 360706, 345020, 322336),
    "val": ("val", 1014, 13308, 12828, 12167, 11567),
    "test2016": ("test_2016_flickr", 1000, 12968, 12103, 11877, 10905),
    "test2017": ("test_2017_flickr", 1000, 11376, 10758, 10526, 9600),
    "mscoco2017": ("test_2017_mscoco", 461, 5239, 5158, 4843, 4605),
}
NEWS = ("newstest2014", 3003, 59325, 54865)  # wmt14_en_de/SOURCE.md: lines; raw tokens en, de
# Measured agreement of moses_tok.py with the official tok files: 100% of the lines of all ten files
# (58,000 train lines included). Any file below this fails the self-test (and val fails a normal run).
MIN_AGREEMENT = 0.999


def read(folder, name, how):
    """Decompressed bytes of folder/name or folder/name.gz."""
    for p in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.isfile(p):
            data = read_maybe_gz(p, fail, f"; replace it with a good copy ({how})")
            decode_utf8(data, p, fail, f"replace it with a good copy ({how})")
            return p, data
    fail(f"missing {os.path.join(folder, name)} (or .gz): {how}, or point --raw / RAW_DATA at the folder "
         f"that holds multi30k/ and wmt14_en_de/")


def load(raw):
    """{(split, kind, lang): (path, bytes)} for kind in raw/tok, and the newstest2014 files."""
    m30k = os.path.join(raw, "multi30k")
    files = {}
    for split, (stem, *_) in SPLITS.items():
        for lang in LANGS:
            files[split, "raw", lang] = read(os.path.join(m30k, "raw"), f"{stem}.{lang}",
                                             f"copy data/task1/raw/{stem}.{lang}.gz of https://github.com/"
                                             f"multi30k/dataset into {m30k}/raw/ (see {m30k}/SOURCE.md)")
            files[split, "tok", lang] = read(os.path.join(m30k, "tok"), f"{stem}.lc.norm.tok.{lang}",
                                             f"copy data/task1/tok/{stem}.lc.norm.tok.{lang} of https://"
                                             f"github.com/multi30k/dataset into {m30k}/tok/ (see SOURCE.md)")
    wmt = os.path.join(raw, "wmt14_en_de")
    for lang in LANGS:
        files[NEWS[0], "raw", lang] = read(wmt, f"{NEWS[0]}.{lang}", f"extract the <seg> lines of WMT14 "
                                           f"test-full newstest2014-deen as described in {wmt}/SOURCE.md")
    return files


def check(files, no_check):
    """Alignment (always), SOURCE.md counts (unless no_check), empty lines. Returns {name: line numbers}."""
    def expect(what, path, got, want, source):
        if not no_check and got != want:
            fail(f"{path}: {got} {what}, expected {want} (see {source}): not the published file; replace "
                 f"it, or use --no-check for another corpus")

    empty = {}
    groups = [(s, k) for s in SPLITS for k in ("raw", "tok")] + [(NEWS[0], "raw")]
    for split, kind in groups:
        (pe, data_en), (pd, data_de) = files[split, kind, "en"], files[split, kind, "de"]
        ne, nd = len(lines_of(data_en)), len(lines_of(data_de))
        if ne != nd:
            fail(f"misaligned: {pe} has {ne} lines but {pd} has {nd}; the two sides must be line-parallel "
                 f"(replace the damaged file)")
        if split in SPLITS:
            n, tokens = SPLITS[split][1], SPLITS[split][2:4] if kind == "tok" else SPLITS[split][4:6]
            source = "multi30k/SOURCE.md"
        else:
            n, tokens, source = NEWS[1], NEWS[2:], "wmt14_en_de/SOURCE.md"
        for (p, data), want in zip((files[split, kind, "en"], files[split, kind, "de"]), tokens):
            expect("lines", p, len(lines_of(data)), n, source)
            expect("whitespace tokens", p, len(data.split()), want, source)
        if kind == "tok":
            pr, nr = files[split, "raw", "en"][0], len(lines_of(files[split, "raw", "en"][1]))
            if nr != ne:
                fail(f"misaligned: {pr} has {nr} lines but {pe} (its tokenised version) has {ne}")
        blank = {lang: [i + 1 for i, l in enumerate(lines_of(files[split, kind, lang][1])) if not l.split()]
                 for lang in LANGS}
        both = sorted(set(blank["en"]) & set(blank["de"]))
        for lang in LANGS:
            only = [i for i in blank[lang] if i not in both]
            if only:
                warn(f"{files[split, kind, lang][0]}: empty line(s) {only} with a non-empty other side: the "
                     f"loader drops such pairs from training and keeps them in test sets")
            empty[f"{split}.{kind}.{lang}"] = blank[lang]
        if both:
            print(f"{PROG}: {split} {kind}: empty on both sides at line(s) {both}")
    n_empty = sum(map(len, empty.values()))
    print(f"{PROG}: checked {len(files)} files: en/de aligned"
          + ("" if no_check else ", line and token counts as in SOURCE.md")
          + (f", {n_empty} empty lines (see above)" if n_empty else ", no empty lines"))
    return empty


def agreement(files, split, lang):
    """(identical lines, total, [(line number, raw, ours, official)]) of moses_tok.py on one raw file."""
    pipe = moses_tok.Pipeline(lang)
    raw = lines_of(files[split, "raw", lang][1])
    ref = lines_of(files[split, "tok", lang][1])
    diffs = []
    for i, (r, t) in enumerate(zip(raw, ref)):
        ours = pipe(r.decode("utf-8"))[:-1].encode("utf-8")
        if ours != t:
            diffs.append((i + 1, r, ours, t))
    return len(raw) - len(diffs), len(raw), diffs


def self_test(files):
    t0, worst = time.time(), 1.0
    kinds = collections.Counter()
    for split in SPLITS:
        for lang in LANGS:
            same, n, diffs = agreement(files, split, lang)
            worst = min(worst, same / n)
            print(f"{PROG}: self-test {split}.{lang}: {same}/{n} lines identical ({100 * same / n:.2f}%)")
            for ln, r, ours, ref in diffs:
                a, b = ours.split(), ref.split()
                k = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]), min(len(a), len(b)))
                kinds[f"{b' '.join(a[k:k + 2]).decode()}  (official: {b' '.join(b[k:k + 2]).decode()})"] += 1
            for ln, r, ours, ref in diffs[:5]:
                print(f"    line {ln}: raw {r.decode()!r}\n      ours     {ours.decode()!r}\n"
                      f"      official {ref.decode()!r}")
    for kind, c in kinds.most_common(20):
        print(f"{PROG}: self-test difference x{c}: ours {kind}")
    ok = worst >= MIN_AGREEMENT
    print(f"{PROG}: self-test {'passed' if ok else 'FAILED'}: lowest agreement {100 * worst:.2f}% "
          f"(threshold {100 * MIN_AGREEMENT:.1f}%), {time.time() - t0:.1f} s")
    sys.exit(0 if ok else 1)


def write_text(tmp, files, empty, args, t0):
    """The tok/raw copies and newstest2014.tok.*; returns counts (for counts.json)."""
    out = {}
    for split in SPLITS:
        for kind in ("tok", "raw"):
            for lang in LANGS:
                out[f"{split}.{kind}.{lang}"] = files[split, kind, lang][1]
    for lang in LANGS:  # newstest2014: copy the raw text, tokenise it like Multi30k
        raw, pipe = files[NEWS[0], "raw", lang][1], moses_tok.Pipeline(lang)
        out[f"{NEWS[0]}.raw.{lang}"] = raw
        out[f"{NEWS[0]}.tok.{lang}"] = "".join(pipe(line.decode("utf-8")) for line in lines_of(raw)).encode()
    counts = {"raw": os.path.abspath(args.raw), "files": {}, "tokenizer_agreement_val": {},
              "empty_lines": {k: v for k, v in empty.items() if v}}
    for name, data in out.items():
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(data)
        counts["files"][name] = {"lines": len(lines_of(data)), "tokens": len(data.split()),
                                 "sha256": sha256(data)}
    for lang in LANGS:
        same, n, _ = agreement(files, "val", lang)
        counts["tokenizer_agreement_val"][lang] = same / n
        if same / n < MIN_AGREEMENT:
            fail(f"moses_tok.py reproduces only {same}/{n} lines of the official val.{lang} tok file; "
                 f"run {PROG} --self-test to see the differences")
    print(f"{PROG}: tokenised newstest2014 ({NEWS[1]} lines per side); moses_tok.py reproduces "
          + ", ".join(f"{100 * v:.2f}% of val.{k}" for k, v in counts["tokenizer_agreement_val"].items())
          + f" official tok lines ({time.time() - t0:.1f} s)")
    return counts


def write_bpe(tmp, args):
    """bpe{N}/: spm_train, then the encode|decode check (val must come back exactly). Returns its info."""
    bpe = f"bpe{args.vocab_size}"
    os.mkdir(os.path.join(tmp, bpe))
    models = {"en": ["en"], "de": ["de"]} if args.separate else {"joint": list(LANGS)}
    t1 = time.time()
    spm_train(tmp, bpe, models, args, LANGS)
    info = {"dir": bpe, "mode": "separate" if args.separate else "joint", "vocab_size": args.vocab_size,
            "byte_fallback": args.byte_fallback, "spm": spm_version(), "sha256": {}, "roundtrip": {}}
    for name, langs in models.items():
        for ext in ("model", "vocab"):
            info["sha256"][f"{name}.{ext}"] = file_sha256(os.path.join(tmp, bpe, f"{name}.{ext}"))
        for split in list(SPLITS) + [NEWS[0]]:
            for lang in langs:
                n, same, unk = roundtrip(tmp, f"{bpe}/{name}.model", f"{split}.tok.{lang}")
                info["roundtrip"][f"{split}.tok.{lang}"] = {"lines": n, "identical": same, "with_unk": unk}
                if split == "val" and same != n:
                    fail(f"spm_encode | spm_decode with {bpe}/{name}.model changes {n - same} of the {n} "
                         f"lines of val.tok.{lang}: the BPE model does not reproduce the tok text")
    print(f"{PROG}: spm_train {bpe} {info['mode']} in {time.time() - t1:.1f} s (with the checks); "
          f"encode|decode gives back every val line; other files: " + ", ".join(
              f"{k} {v['identical']}/{v['lines']} ({v['with_unk']} with <unk>)"
              for k, v in info["roundtrip"].items() if v["identical"] != v["lines"] or v["with_unk"]))
    for name, digest in info["sha256"].items():  # determinism: compare with the previous run's files
        old = os.path.join(args.out, bpe, name)
        if os.path.isfile(old):
            if file_sha256(old) == digest:
                print(f"{PROG}: {bpe}/{name} sha256 {digest[:16]}... identical to the previous run")
            else:
                warn(f"{bpe}/{name} sha256 {digest[:16]}... DIFFERS from the previous run (changed input or "
                     f"settings, or spm_train is not deterministic)")
    return info


def carry_over(out, tmp, bpe, counts):
    """Keep the other bpe*/ folders of the previous output when they were trained on the same train text."""
    try:
        with open(os.path.join(out, "counts.json")) as f:
            prev = json.load(f)
    except (OSError, ValueError):
        return
    same = all(prev.get("files", {}).get(f"train.tok.{lang}", {}).get("sha256") ==
               counts["files"][f"train.tok.{lang}"]["sha256"] for lang in LANGS)
    for d in sorted(os.listdir(out)):
        if d.startswith("bpe") and d != bpe and os.path.isdir(os.path.join(out, d)):
            if same:
                shutil.copytree(os.path.join(out, d), os.path.join(tmp, d))
                print(f"{PROG}: kept {out}/{d} from the previous run (same training text)")
            else:
                warn(f"dropped {out}/{d}: it was trained on other train.tok files")


def write(files, empty, args, t0):
    parent = os.path.dirname(os.path.abspath(args.out)) or "."
    with new_folder(parent, "multi30k", args.out) as tmp:
        counts = write_text(tmp, files, empty, args, t0)
        counts["bpe"] = write_bpe(tmp, args)
        carry_over(args.out, tmp, counts["bpe"]["dir"], counts)
        with open(os.path.join(tmp, "counts.json"), "w") as f:
            json.dump(counts, f, indent=1)
        with open(os.path.join(tmp, "README.txt"), "w") as f:
            f.write(readme(counts))


def readme(counts):
    b = counts["bpe"]
    agree = min(counts["tokenizer_agreement_val"].values())
    models = ", ".join(b["sha256"])
    return f"""Multi30k en-de (WMT16 multimodal task 1) and WMT14 newstest2014, prepared by data_prep/nmt.py
from {counts['raw']} (see multi30k/SOURCE.md and wmt14_en_de/SOURCE.md there). One sentence per line,
UTF-8, LF; the en and de files of a split are line-parallel.

{{split}}.tok.{{en,de}}  split = train (29,000 lines), val (1,014), test2016 (test_2016_flickr, 1,000),
    test2017 (test_2017_flickr, 1,000), mscoco2017 (test_2017_mscoco, 461): the official *.lc.norm.tok
    files of github.com/multi30k/dataset, byte-identical (lowercased, Moses normalize-punctuation and
    tokenizer with escaping: &apos; &quot; &amp; ...). Train on these; tokenised BLEU uses them as references.
{{split}}.raw.{{en,de}}  the original text of the same splits (cased, untokenised): sacreBLEU references.
newstest2014.raw.{{en,de}}  WMT14 newstest2014 (3,003 lines), copied.
newstest2014.tok.{{en,de}}  the same through data_prep/moses_tok.py, a Python port of the Multi30k pipeline
    (it reproduces {agree:.2%} of the official val tok lines), so models trained on the tok files can
    translate it.
counts.json  lines, whitespace tokens and sha256 per file, empty lines, tokenizer and BPE checks.
{b['dir']}/  SentencePiece BPE, {b['mode']}, vocabulary {b['vocab_size']} ({b['spm']}): {models}.
    Ids pad=0 bos=1 eos=2 unk=3; normalization identity, so spm_encode | spm_decode gives back the tok
    text (checked on val; extra spaces are removed and characters unseen in train become <unk>, see
    counts.json "roundtrip"). spm_train.cmd holds the exact command (run in this folder), spm_train.log
    its output.
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=os.environ.get("RAW_DATA", "../shared/data"),
                    help="folder holding multi30k/ and wmt14_en_de/ (default $RAW_DATA or ../shared/data)")
    ap.add_argument("--out", default=None, help="the Multi30k folder (default data/multi30k); with --own-src the "
                                                "root of <name>_own/ (default data/nmt)")
    ap.add_argument("--vocab-size", type=int, default=8000, help="BPE vocabulary size (default 8000)")
    ap.add_argument("--separate", action="store_true", help="one BPE model per language, not a joint one")
    ap.add_argument("--byte-fallback", action="store_true",
                    help="spm --byte_fallback: unseen characters become byte pieces instead of <unk>")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the SOURCE.md line and token counts (other corpora)")
    ap.add_argument("--self-test", action="store_true",
                    help="only measure moses_tok.py against the official tok files (writes nothing)")
    ap.add_argument("--own-src", nargs="+", metavar="FILE",
                    help="your own parallel text, source side: one file (split 80/10/10 by line order with its "
                         "--own-tgt partner) or three files train, dev, test; written to OUT/<name>_own/ (default "
                         "data/nmt/<name>_own)")
    ap.add_argument("--own-tgt", nargs="+", metavar="FILE", help="the target side, line-parallel with --own-src")
    ap.add_argument("--src-lang", help="with --own-src: source language code (file suffix and tokenizer language)")
    ap.add_argument("--tgt-lang", help="with --own-tgt: target language code")
    ap.add_argument("--name", help="with --own-src: the folder name (default: the source file's name without "
                                   "extension)")
    args = ap.parse_args()
    t0 = time.time()
    if args.vocab_size < 100:
        fail(f"--vocab-size {args.vocab_size} is too small")
    if args.own_src or args.own_tgt:
        return own_main(args)
    args.out = args.out or "data/multi30k"
    if not args.self_test:
        require_spm_tools()
    files = load(args.raw)
    empty = check(files, args.no_check)
    if args.self_test:
        self_test(files)
    write(files, empty, args, t0)
    print(f"{PROG}: wrote {args.out} in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
