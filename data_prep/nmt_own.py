"""data_prep/nmt.py --own-src / --own-tgt: your own sentence-aligned parallel text (the module docstring of
nmt.py says what is checked and what is written). One pair of files is split 80/10/10 by line order, three pairs
are train, dev, test; both sides go through moses_tok.py as Multi30k's do, and a BPE model is learnt with the same
spm_train command (nmt_common.py)."""
import os
import time

import moses_tok
from nmt_common import PROG, fail, file_sha256, require_spm_tools, roundtrip, sha256, spm_train, spm_version, warn
from prep_common import OWN_SPLIT_RULE, new_folder, own_name, own_paths, own_splits, read_utf8_lines, \
    tokens_of, train_command, write_prep_json

OWN_SPLITS = ("train", "dev", "test")
LANG_CODE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


def read_own_pair(src, tgt):
    """(pairs [(src line, tgt line, line number)], line numbers, info) of two line-parallel files."""
    ls, info_s = read_utf8_lines(src, fail)
    lt, info_t = read_utf8_lines(tgt, fail)
    if len(ls) != len(lt):
        fail(f"misaligned: {src} has {len(ls)} lines but {tgt} has {len(lt)}; the two sides must be line-parallel "
             f"(one sentence per line, in the same order)")
    pairs, nos, both = [], [], []
    for i, (a, b) in enumerate(zip(ls, lt), 1):
        ea, eb = not tokens_of(a), not tokens_of(b)
        if ea and eb:
            both.append(i)
            continue
        if ea or eb:
            empty, other = (src, tgt) if ea else (tgt, src)
            fail(f"{empty}:{i}: empty line, but line {i} of {other} is not: misaligned or a missing translation "
                 f"(remove the line from both files, or fill it)")
        pairs.append((a, b))
        nos.append(i)
    if not pairs:
        fail(f"{src}: no sentence pair (every line is empty on both sides)")
    return pairs, nos, {"src": info_s, "tgt": info_t, "pairs": len(pairs), "empty_on_both_sides_skipped": len(both),
                        "first_such_lines": both[:10]}


def own_job(args, name):
    srcs, tgts = own_paths(args.own_src, fail, "--own-src"), own_paths(args.own_tgt, fail, "--own-tgt")
    if len(srcs) != len(tgts):
        fail(f"--own-src has {len(srcs)} file(s) but --own-tgt {len(tgts)}: give one pair, or three (train, dev, test)")
    keys = {f"{a} | {b}": (a, b) for a, b in zip(srcs, tgts)}
    splits, ranges, infos = own_splits(list(keys), lambda k: read_own_pair(*keys[k]), fail)
    return splits, ranges, infos


def own_write(args, name, splits, ranges, infos):
    src, tgt = args.src_lang, args.tgt_lang
    out = args.out or "data/nmt"
    folder = name + "_own"
    final = os.path.join(out, folder)
    t0 = time.time()
    with new_folder(out, folder, final) as tmp:
        stats = {}
        for split in OWN_SPLITS:
            stats[split] = {"pairs": len(splits[split])}
            for k, lang in ((0, src), (1, tgt)):
                pipe = moses_tok.Pipeline(lang)
                raw = [p[k] for p in splits[split]]
                tok = [pipe(line)[:-1] for line in raw]
                emptied = [i for i, t in enumerate(tok) if not t.strip()]
                if emptied:
                    warn(f"{split}.tok.{lang}: {len(emptied)} line(s) empty after tokenisation (the binary drops such "
                         f"pairs from training and keeps them in test sets)")
                for form, lines in (("raw", raw), ("tok", tok)):
                    data = "".join(l + "\n" for l in lines).encode("utf-8")
                    with open(os.path.join(tmp, f"{split}.{form}.{lang}"), "wb") as f:
                        f.write(data)
                    stats[split][f"{form}.{lang}"] = {"tokens": len(data.split()), "sha256": sha256(data)}
        bpe = f"bpe{args.vocab_size}"
        os.mkdir(os.path.join(tmp, bpe))
        models = {src: [src], tgt: [tgt]} if args.separate else {"joint": [src, tgt]}
        spm_train(tmp, bpe, models, args, (src, tgt), final)
        info = {"dir": bpe, "mode": "separate" if args.separate else "joint", "vocab_size": args.vocab_size,
                "byte_fallback": args.byte_fallback, "spm": spm_version(), "sha256": {}, "roundtrip": {},
                "command": f"{bpe}/spm_train.cmd"}
        for model, langs in models.items():
            for ext in ("model", "vocab"):
                info["sha256"][f"{model}.{ext}"] = file_sha256(os.path.join(tmp, bpe, f"{model}.{ext}"))
            for split in OWN_SPLITS:
                for lang in langs:
                    n, same, unk = roundtrip(tmp, f"{bpe}/{model}.model", f"{split}.tok.{lang}")
                    info["roundtrip"][f"{split}.tok.{lang}"] = {"lines": n, "identical": same, "with_unk": unk}
        changed = {k: v for k, v in info["roundtrip"].items() if v["identical"] != v["lines"] or v["with_unk"]}
        if changed:
            warn("spm_encode | spm_decode changes some lines (extra spaces are removed; characters unseen in train "
                 "become <unk>): " + ", ".join(f"{k} {v['identical']}/{v['lines']} identical, {v['with_unk']} "
                                               f"with <unk>" for k, v in changed.items()))
        what = (f"{os.path.basename(args.own_src[0])} / {os.path.basename(args.own_tgt[0])} split 80/10/10 by line "
                f"order" if len(args.own_src) == 1 else "train / dev / test file pairs")
        meta = {"set": folder, "mode": "own", "description": f"your own parallel text '{name}' {src}-{tgt}: {what}",
                "languages": {"src": src, "tgt": tgt},
                "source_files": dict(zip(("parallel",) if len(infos) == 1 else OWN_SPLITS, infos)),
                "split_rule": OWN_SPLIT_RULE + " (items: line pairs not empty on both sides)",
                "source_lines": {k: {"files": v["file"], "pairs": v["items"], "first_line": v["first_line"],
                                     "last_line": v["last_line"]} for k, v in ranges.items()},
                "splits": stats, "bpe": info,
                "format": "{split}.raw.{lang}: the source lines (CR and a byte-order mark dropped); {split}.tok.{lang}: "
                          "the same through data_prep/moses_tok.py (lowercase | normalize-punctuation -l lang | "
                          "tokenizer -l lang, escaping); one sentence per line, LF, UTF-8, line-parallel"}
        write_prep_json(tmp, meta)
    print(f"{PROG}: wrote {final} in {time.time() - t0:.1f} s: " + ", ".join(
        f"{k} {v['pairs']} pairs" for k, v in stats.items()) + f"; {bpe} {info['mode']} BPE")
    bpe_sets = ([("data.bpe_src", f"{bpe}/{src}.model"), ("data.bpe_tgt", f"{bpe}/{tgt}.model")] if args.separate
                else [("data.bpe", f"{bpe}/joint.model")])
    print(f"{PROG}: train on it (from the repository root):\n  " + train_command(
        "nmt", "experiments/nmt/atr.json",
        [("data.dir", final), ("data.src", src), ("data.tgt", tgt), ("data.train", "train"), ("data.dev", "dev"),
         ("data.test", "test"), ("data.extra_tests", [])] + bpe_sets + [("out_dir", f"runs/nmt_{name}")]))


def own_main(args):
    require_spm_tools()
    if not args.own_src or not args.own_tgt:
        fail("--own-src and --own-tgt go together: the source-language file(s) and the target-language file(s)")
    for opt, lang in (("--src-lang", args.src_lang), ("--tgt-lang", args.tgt_lang)):
        if not lang:
            fail(f"{opt} is needed with --own-src/--own-tgt: the language code (e.g. en, fr), used as the file "
                 f"suffix and by the tokenizer")
        if not all(c in LANG_CODE for c in lang):
            fail(f"{opt} {lang!r}: use letters, digits, '_' and '-' (it is a file suffix)")
    if args.src_lang == args.tgt_lang:
        fail(f"--src-lang and --tgt-lang are both {args.src_lang!r}: the two sides need different suffixes")
    name = own_name(args.name, args.own_src, fail)
    splits, ranges, infos = own_job(args, name)
    own_write(args, name, splits, ranges, infos)
