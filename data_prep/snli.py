#!/usr/bin/env python3
"""Prepare SNLI 1.0 and SICK for natural-language inference: RAW_DATA/{snli,sick} -> data/snli/{protocol}/.

Protocols (each its own folder):
  inhouse  in-house reduced protocol: train on the 1 % sample of SNLI train (5,502 pairs, 5,498 labelled;
           snli_1.0_train_0.01.*), select on dev, report test. Used because the full SNLI training set is not
           in ../shared/data (see its snli/SOURCE.md); NOT comparable with published SNLI results.
  full     the published protocol: snli_1.0_train.jsonl[.gz] (550,152 pairs), dev, test. Needs that file in
           RAW_DATA/snli; without it `--protocol full` stops saying which file to put where, and
           `--protocol all` skips it with a note.
  sick     SICK (Marelli et al. 2014) in the same form: its SemEval_set TRAIN / TRIAL / TEST as train / dev / test.

SNLI input: the official jsonl (`snli_1.0_<split>.jsonl[.gz]`) is used when present, else the token TSV
(`snli_1.0_<split>.tok.tsv[.gz]`: header, then gold_label, sentence1 tokens, sentence2 tokens, pairID). Tokens
are SNLI's own PTB-style tokenization: the `sentence{1,2}_binary_parse` fields with every `(` and `)` token
removed, original case (exactly the rule that made the .tok.tsv files, so both inputs give identical output;
when both exist, the TSV is read too and must agree pair for pair, else it is an error). Pairs whose gold_label
is `-` (no annotator majority) are dropped and counted; any other label is an error naming file and line.

SICK tokenizer (deterministic, ASCII, PTB-like to match SNLI): `n't` and the clitics 's 're 've 'll 'd 'm are
split off (isn't -> is n't, man's -> man 's), words keep inner hyphens and dots (t-shirt, 3.5), every other
non-space character is a token of its own (dog, -> dog ,). Case is kept, as for SNLI: lowercasing is the
reader's option (`data.lowercase` in the experiment), so one prepared folder serves both.

Writes per protocol folder: {train,dev,test}.tsv, one pair per line `label<TAB>premise<TAB>hypothesis` (label
entailment|neutral|contradiction, tokens separated by one space, LF, UTF-8), in source order; and prep.json
(protocol, description, source files with sha256, pairs per split and label, dropped `-` pairs, lengths,
checks). Published counts are checked (SNLI dev/test 10,000 rows, 9,842 / 9,824 labelled; the 1 % sample
5,502 / 5,498; full train 550,152 / 549,367; SICK 4,439 / 495 / 4,906); --no-check skips that. Every folder is
written to a temporary folder and renamed into place; the output is deterministic. Standard library only.

Your own data (--own): one file split 80/10/10 by pair order (first 80 % of the labelled pairs train, next 10 %
dev, last 10 % test; cut points floor(0.8 n), floor(0.9 n)), or three files train, dev, test. A file whose first
non-blank line starts with `{` is SNLI-style jsonl: gold_label plus sentence1_binary_parse / sentence2_binary_parse
(tokens as above) or, without them, sentence1 / sentence2 (raw text, tokenized with SICK's rules for letters of any
script); otherwise TSV `label<TAB>premise<TAB>hypothesis` (a first line labelled `label` or `gold_label` is a
header; tokens split at whitespace, or tokenized with --tokenize). Labels entailment / neutral / contradiction in
any case; `-` pairs dropped and counted; blank lines skipped; anything else stops naming file:line. Writes
OUT/<name>_own/ (default data/snli/<name>_own) and prints the command that trains
experiments/snli/inhouse_cond_atr.json on it.

usage: snli.py [--raw DIR] [--out data/snli] [--protocol inhouse|full|sick|all] [--no-check]
       (default: inhouse and sick)
       snli.py --own FILE [FILE FILE] [--name NAME] [--tokenize] [--out data/snli]
"""
import argparse
import hashlib
import json
import os
import re

from prep_common import (OWN_HELP, OWN_SPLIT_RULE, find, new_folder, messages, own_name, own_paths, own_splits,
                         read_stored, read_utf8_lines, stored_info, tokens_of, train_command, write_prep_json)

PROG = "data_prep/snli.py"
fail, warn, note = messages(PROG)
LABELS = ("entailment", "neutral", "contradiction")
SPLITS = ("train", "dev", "test")
DESCRIPTION = {
    "inhouse": "in-house reduced protocol: train on the 1 % sample of SNLI train (5,502 pairs; 5,498 after dropping "
               "'-'), select on dev, report test. The full SNLI training set (550,152 pairs) is not available here; "
               "not comparable with published SNLI results (state this in every results table).",
    "full": "SNLI 1.0 standard protocol: train on snli_1.0_train (550,152 pairs), select on dev, report test; "
            "pairs without a gold label ('-') dropped.",
    "sick": "SICK (SemEval-2014 Task 1) entailment: TRAIN (4,439) / TRIAL (495) / TEST (4,906) as train / dev / "
            "test; a small real NLI training set standing in for SNLI train; its own benchmark, not SNLI.",
}
SNLI_FILES = {"full": {"train": "snli_1.0_train", "dev": "snli_1.0_dev", "test": "snli_1.0_test"},
              "inhouse": {"train": "snli_1.0_train_0.01", "dev": "snli_1.0_dev", "test": "snli_1.0_test"}}
# rows, labelled rows (snli/SOURCE.md; the full train figure is the published SNLI 1.0 one)
EXPECTED_SNLI = {"snli_1.0_dev": (10000, 9842), "snli_1.0_test": (10000, 9824),
                 "snli_1.0_train_0.01": (5502, 5498), "snli_1.0_train": (550152, 549367)}
EXPECTED_SICK = {"train": 4439, "dev": 495, "test": 4906}
EXPECTED_SICK_LABELS = {"entailment": 2821, "neutral": 5595, "contradiction": 1424}
SICK_SETS = {"TRAIN": "train", "TRIAL": "dev", "TEST": "test"}
SURROGATE = re.compile("[\ud800-\udfff]")  # JSON can escape one (\\ud800); UTF-8 cannot encode it
SICK_TOKEN = re.compile(r"[A-Za-z0-9]+(?=n't\b)|n't|'(?:s|re|ve|ll|d|m)\b|[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*|\S", re.IGNORECASE)
# The same rules with letters and digits of any script ([^\W_]) for a user's raw sentences (--own): identical to
# SICK_TOKEN on ASCII text, and "café" stays one token.
TEXT_TOKEN = re.compile(r"[^\W_]+(?=n't\b)|n't|'(?:s|re|ve|ll|d|m)\b|[^\W_]+(?:[-.][^\W_]+)*|\S", re.IGNORECASE)


def read_text(path):
    """(text, source info): the decompressed UTF-8 text; sha256 of the stored file and of its content."""
    stored, data = read_stored(path, fail)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        fail(f"{path}:{line}: invalid UTF-8 ({e.reason}): replace the file with a "
             f"good copy")
    return text, stored_info(path, stored, data)


def lines_of(text):
    ls = text.split("\n")
    if ls and ls[-1] == "":
        ls.pop()
    return [l[:-1] if l.endswith("\r") else l for l in ls]


def parse_tokens(binary_parse):
    return [w for w in binary_parse.split() if w not in ("(", ")")]


class Source:
    """One input file as rows (line number, gold label, premise tokens, hypothesis tokens)."""

    def __init__(self, path, rows, info):
        self.path, self.rows, self.info = path, rows, info


def read_snli_jsonl(path):
    text, info = read_text(path)
    rows = []
    for i, line in enumerate(lines_of(text), 1):
        where = f"{path}:{i}"
        try:
            d = json.loads(line)
            row = (i, d["gold_label"], parse_tokens(d["sentence1_binary_parse"]),
                   parse_tokens(d["sentence2_binary_parse"]))
        except json.JSONDecodeError as e:
            fail(f"{where}: not a JSON object ({e.msg} at column {e.colno}): expected one SNLI jsonl record per line")
        except (KeyError, TypeError, AttributeError) as e:
            fail(f"{where}: missing or non-string field {e}: expected the official fields gold_label, "
                 f"sentence1_binary_parse, sentence2_binary_parse")
        except (ValueError, RecursionError) as e:  # an integer of over 4300 digits; nesting deeper than the stack
            why = "nested too deeply" if isinstance(e, RecursionError) else str(e).split(":")[0]
            fail(f"{where}: unreadable JSON ({why}): expected one SNLI jsonl record per line")
        m = SURROGATE.search(" ".join(row[2] + row[3]))
        if m:
            fail(f"{where}: a binary parse holds the escape \\u{ord(m.group()):04x}, a lone UTF-16 surrogate, which "
                 f"is not a character (the output could not be written as UTF-8): replace the file with a good copy")
        rows.append(row)
    return Source(path, rows, info)


def read_snli_tsv(path):
    text, info = read_text(path)
    lines = lines_of(text)
    if not lines or lines[0].split("\t")[:3] != ["gold_label", "sentence1_tokens", "sentence2_tokens"]:
        fail(f"{path}:1: expected the header gold_label<TAB>sentence1_tokens<TAB>sentence2_tokens<TAB>pairID")
    rows = []
    for i, line in enumerate(lines[1:], 2):
        f = line.split("\t")
        if len(f) != 4:
            fail(f"{path}:{i}: {len(f)} tab-separated fields, expected 4 (gold_label, sentence1_tokens, "
                 f"sentence2_tokens, pairID)")
        rows.append((i, f[0], f[1].split(), f[2].split()))
    return Source(path, rows, info)


def read_snli(raw, stem, no_check):
    """The pairs of one SNLI file (jsonl preferred, token TSV otherwise); None when neither exists."""
    jp, tp = find(raw, stem + ".jsonl"), find(raw, stem + ".tok.tsv")
    if jp is None and tp is None:
        return None
    src = read_snli_jsonl(jp) if jp else read_snli_tsv(tp)
    src.info["form"] = "jsonl (tokens: binary parse without parentheses)" if jp else "tok.tsv"
    if jp and tp:  # both forms present: they must give the same pairs
        other = read_snli_tsv(tp)
        a = [r[1:] for r in src.rows]
        b = [r[1:] for r in other.rows]
        if a != b:
            k = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            fail(f"{jp} and {tp} disagree at pair {k + 1} ({len(a)} vs {len(b)} pairs): the token TSV should be "
                 f"the jsonl's binary parses without parentheses; replace the bad copy")
        src.info["tok_tsv_agrees"] = {"path": os.path.abspath(tp), "sha256": other.info["sha256"], "identical_pairs": True}
    pairs, dropped = [], 0
    for ln, label, p, h in src.rows:
        where = f"{src.path}:{ln}"
        if label == "-":
            dropped += 1
            continue
        if label not in LABELS:
            fail(f"{where}: gold_label {label!r}: expected one of {', '.join(LABELS)} or '-' (no gold label)")
        if not p or not h:
            fail(f"{where}: empty {'premise' if not p else 'hypothesis'}: every pair needs tokens on both sides")
        pairs.append((label, p, h))
    exp = EXPECTED_SNLI.get(stem)
    got = (len(src.rows), len(pairs))
    if exp and not no_check and got != exp:
        fail(f"{src.path}: {got[0]} rows, {got[1]} labelled; expected {exp[0]} / {exp[1]} (the published SNLI 1.0 counts): not the "
             f"published file (replace it, or --no-check)")
    src.info.update({"rows": len(src.rows), "dropped_no_gold_label": dropped,
                     "published_counts_checked": bool(exp) and not no_check})
    return pairs, dropped, src.info


def tokenize_sick(s):
    return SICK_TOKEN.findall(s)


def read_sick(raw, no_check):
    path = find(raw, "SICK.txt")
    if path is None:
        fail(f"missing {os.path.join(raw, 'SICK.txt')} (or .gz): put SICK.txt of the SICK distribution "
             f"(Marelli et al. 2014) there (see ../shared/data/sick/SOURCE.md)")
    text, info = read_text(path)
    lines = lines_of(text)
    head = lines[0].split("\t") if lines else []
    if len(head) != 12 or head[1:4] != ["sentence_A", "sentence_B", "entailment_label"] or head[11] != "SemEval_set":
        fail(f"{path}:1: expected the 12-column SICK header (pair_ID, sentence_A, sentence_B, entailment_label, "
             f"..., SemEval_set)")
    splits = {s: [] for s in SPLITS}
    for i, line in enumerate(lines[1:], 2):
        f = line.split("\t")
        if len(f) != 12:
            fail(f"{path}:{i}: {len(f)} tab-separated fields, expected 12")
        label, split = f[3].lower(), SICK_SETS.get(f[11])
        if label not in LABELS:
            fail(f"{path}:{i}: entailment_label {f[3]!r}: expected ENTAILMENT, NEUTRAL or CONTRADICTION")
        if split is None:
            fail(f"{path}:{i}: SemEval_set {f[11]!r}: expected TRAIN, TRIAL or TEST")
        p, h = tokenize_sick(f[1]), tokenize_sick(f[2])
        if not p or not h:
            fail(f"{path}:{i}: empty sentence: every pair needs tokens on both sides")
        splits[split].append((label, p, h))
    got = {k: len(v) for k, v in splits.items()}
    if not no_check and got != EXPECTED_SICK:
        fail(f"{path}: {got} pairs per split; expected {EXPECTED_SICK} (sick/SOURCE.md; or --no-check)")
    labels = {l: sum(1 for v in splits.values() for x in v if x[0] == l) for l in LABELS}
    if not no_check and labels != EXPECTED_SICK_LABELS:
        fail(f"{path}: labels {labels}; expected {EXPECTED_SICK_LABELS} (sick/SOURCE.md; or --no-check)")
    info.update({"rows": len(lines) - 1, "published_counts_checked": not no_check})
    return splits, info


def stats(pairs):
    lp = [len(p) for _, p, _ in pairs]
    lh = [len(h) for _, _, h in pairs]
    return {"pairs": len(pairs), "labels": {l: sum(1 for x in pairs if x[0] == l) for l in LABELS},
            "premise_tokens": {"total": sum(lp), "max": max(lp), "mean": round(sum(lp) / len(lp), 3)},
            "hypothesis_tokens": {"total": sum(lh), "max": max(lh), "mean": round(sum(lh) / len(lh), 3)}}


def write_folder(out, name, meta, splits):
    final = os.path.join(out, name)
    with new_folder(out, name, final) as tmp:
        meta["splits"] = {}
        for split in SPLITS:
            pairs = splits[split]
            body = "".join(f"{l}\t{' '.join(p)}\t{' '.join(h)}\n" for l, p, h in pairs).encode("utf-8")
            with open(os.path.join(tmp, split + ".tsv"), "wb") as f:
                f.write(body)
            meta["splits"][split] = dict(stats(pairs), file=split + ".tsv", sha256=hashlib.sha256(body).hexdigest())
        meta["format"] = ("{train,dev,test}.tsv: one pair per line, label<TAB>premise<TAB>hypothesis; label one of "
                          "entailment, neutral, contradiction; tokens separated by one space; LF; UTF-8; source order")
        write_prep_json(tmp, meta)
    s = meta["splits"]
    note(f"wrote {final}: " + ", ".join(f"{k} {v['pairs']}" for k, v in s.items()) + " pairs"
         + (f" ({meta['dropped_no_gold_label_total']} '-' pairs dropped)" if "dropped_no_gold_label_total" in meta else ""))


def job_snli(raw, protocol, no_check):
    """(meta, splits), or a message string when the training file is missing."""
    files = SNLI_FILES[protocol]
    splits, sources, dropped = {}, {}, {}
    for split in SPLITS:
        got = read_snli(raw, files[split], no_check)
        if got is None:
            want = os.path.join(raw, files[split] + ".jsonl")
            if split == "train" and protocol == "full":
                return (f"protocol 'full' needs the SNLI 1.0 training set, which is missing: put snli_1.0_train.jsonl "
                        f"of snli_1.0.zip (https://nlp.stanford.edu/projects/snli/) at {want} (or {want}.gz). "
                        f"Without it, use --protocol inhouse (the 1 % training sample, already in {raw})")
            fail(f"missing {want} (or .gz, or {files[split]}.tok.tsv[.gz]): put the SNLI 1.0 file there "
                 f"(see ../shared/data/snli/SOURCE.md)")
        splits[split], dropped[split], sources[split] = got
    meta = {"protocol": protocol, "description": DESCRIPTION[protocol], "source_files": sources,
            "tokens": "SNLI's binary parse fields with the ( and ) tokens removed (PTB-style tokens, original case)",
            "dropped_no_gold_label": dropped, "dropped_no_gold_label_total": sum(dropped.values())}
    return meta, splits


def job_sick(raw, no_check):
    splits, info = read_sick(raw, no_check)
    meta = {"protocol": "sick", "description": DESCRIPTION["sick"], "source_files": {"sick": info},
            "split_rule": "SemEval_set column: TRAIN -> train, TRIAL -> dev, TEST -> test; file order",
            "tokens": "data_prep/snli.py tokenize_sick: n't and 's 're 've 'll 'd 'm split off, words keep inner "
                      "- and ., other punctuation one token each; original case",
            "labels": "entailment_label lowercased", "dropped_no_gold_label_total": 0}
    return meta, splits


def tokenize_text(s):
    return TEXT_TOKEN.findall(s)


def read_own_nli(path, tokenize):
    """(pairs, line numbers, source info) of a user's NLI file: SNLI-style jsonl (a first non-blank line starting
    with '{') or TSV label<TAB>premise<TAB>hypothesis. Blank lines are skipped and `-` labels dropped (both counted);
    anything else bad stops naming file:line."""
    lines, info = read_utf8_lines(path, fail)
    first = next(i for i, l in enumerate(lines, 1) if l.strip())
    form = "jsonl" if lines[first - 1].lstrip().startswith("{") else "tsv"
    pairs, line_nos, dropped, blank, how = [], [], 0, [], set()
    for i, line in enumerate(lines, 1):
        where = f"{path}:{i}"
        if not line.strip():
            blank.append(i)
            continue
        if form == "jsonl":
            try:
                d = json.loads(line)
            except json.JSONDecodeError as e:
                fail(f"{where}: not a JSON object ({e.msg} at column {e.colno}): expected one record per line with "
                     f"gold_label, sentence1, sentence2 (the file's first line is JSON, so it is read as jsonl)")
            except (ValueError, RecursionError) as e:
                why = "nested too deeply" if isinstance(e, RecursionError) else str(e).split(":")[0]
                fail(f"{where}: unreadable JSON ({why}): expected one record per line")
            if not isinstance(d, dict):
                fail(f"{where}: a JSON {type(d).__name__}, expected an object with gold_label, sentence1, sentence2")
            if "sentence1_binary_parse" in d and "sentence2_binary_parse" in d:
                keys, tok, kind = ("sentence1_binary_parse", "sentence2_binary_parse"), parse_tokens, "binary_parse"
            else:
                keys, tok, kind = ("sentence1", "sentence2"), tokenize_text, "sentence1/2 tokenized"
            for k in ("gold_label",) + keys:
                if not isinstance(d.get(k), str):
                    fail(f"{where}: missing or non-string field {k!r}: expected gold_label and sentence1, sentence2 "
                         f"(or SNLI's sentence1_binary_parse, sentence2_binary_parse)")
            label, p, h = d["gold_label"], tok(d[keys[0]]), tok(d[keys[1]])
        else:
            f = line.split("\t")
            if len(f) != 3:
                fail(f"{where}: {len(f)} tab-separated field(s), expected 3: label<TAB>premise<TAB>hypothesis")
            if i == first and f[0].strip().lower() in ("label", "gold_label"):
                info["header_line_skipped"] = True
                continue
            kind = "TSV tokenized" if tokenize else "TSV whitespace tokens"
            label, p, h = f[0], *((tokenize_text(x) if tokenize else tokens_of(x)) for x in f[1:])
        how.add(kind)
        label = label.strip()
        if label == "-":
            dropped += 1
            continue
        if label.lower() not in LABELS:
            fail(f"{where}: label {label!r}: expected entailment, neutral or contradiction (any case), or '-' (no "
                 f"gold label: dropped)")
        if not p or not h:
            fail(f"{where}: empty {'premise' if not p else 'hypothesis'}: every pair needs tokens on both sides")
        m = SURROGATE.search(" ".join(p + h))
        if m:
            fail(f"{where}: the text holds the escape \\u{ord(m.group()):04x}, a lone UTF-16 surrogate, which is not "
                 f"a character: fix the record")
        pairs.append((label.lower(), p, h))
        line_nos.append(i)
    if not pairs:
        fail(f"{path}: no labelled pair ({dropped} with label '-'): nothing to train or test on")
    info.update({"form": form, "tokens": sorted(how), "pairs": len(pairs), "dropped_no_gold_label": dropped,
                 "blank_lines_skipped": len(blank), "first_blank_lines": blank[:10]})
    return pairs, line_nos, info


def job_own(paths, name, tokenize):
    splits, ranges, infos = own_splits(paths, lambda p: read_own_nli(p, tokenize), fail)
    what = (f"{os.path.basename(paths[0])} split 80/10/10 by pair order" if len(paths) == 1 else
            "train / dev / test files " + ", ".join(os.path.basename(p) for p in paths))
    dropped = sum(i["dropped_no_gold_label"] for i in infos)
    meta = {"protocol": "own", "name": name, "description": f"your own NLI data '{name}': {what}",
            "source_files": dict(zip(("nli",) if len(paths) == 1 else SPLITS, infos)),
            "split_rule": OWN_SPLIT_RULE + " (items: labelled pairs, after dropping '-' labels and blank lines)",
            "source_lines": {k: {"file": v["file"], "pairs": v["items"], "first_line": v["first_line"],
                                 "last_line": v["last_line"]} for k, v in ranges.items()},
            "tokens": "jsonl: SNLI's sentence{1,2}_binary_parse without the ( ) tokens when present, else sentence1/2 "
                      "through data_prep/snli.py tokenize_text (SICK's rules, letters of any script); TSV: the "
                      "fields' whitespace tokens (--tokenize: tokenize_text); original case",
            "labels": "gold_label / first field, lowercased; '-' dropped", "dropped_no_gold_label_total": dropped}
    return name + "_own", meta, splits


def main():
    raw_root = os.environ.get("RAW_DATA", "../shared/data")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=raw_root,
                    help="folder holding snli/ and sick/ (default $RAW_DATA or ../shared/data)")
    ap.add_argument("--out", default="data/snli", help="output root; each protocol gets its own folder")
    ap.add_argument("--protocol", choices=("inhouse", "full", "sick", "all"), default=None,
                    help="default: inhouse and sick; all: also full, skipped with a note when its file is absent")
    ap.add_argument("--no-check", action="store_true", help="skip the published-count checks")
    ap.add_argument("--own", nargs="+", metavar="FILE",
                    help=OWN_HELP + " (data/snli/<name>_own by default). Each file SNLI-style jsonl (gold_label, "
                         "sentence1, sentence2; '-' dropped) or TSV label<TAB>premise<TAB>hypothesis")
    ap.add_argument("--name", help="with --own: the folder name (default: the one file's name without extension)")
    ap.add_argument("--tokenize", action="store_true",
                    help="with --own: tokenize TSV text with tokenize_text (SICK's rules) instead of splitting it at "
                         "whitespace (jsonl sentence1/2 are always tokenized)")
    a = ap.parse_args()
    if a.own:
        name = own_name(a.name, own_paths(a.own, fail), fail)
        folder, meta, splits = job_own(a.own, name, a.tokenize)
        write_folder(a.out, folder, meta, splits)
        note("train on it (from the repository root):\n  " + train_command(
            "snli", "experiments/snli/inhouse_cond_atr.json",
            [("data.dir", os.path.join(a.out, folder)), ("data.protocol", f"own data {name}"),
             ("out_dir", f"runs/snli_{name}")]))
        return
    protocols = ("inhouse", "sick") if a.protocol is None else \
        ("inhouse", "full", "sick") if a.protocol == "all" else (a.protocol,)
    jobs = []  # everything is read and checked before anything is written
    for protocol in protocols:
        sub = os.path.join(a.raw, "sick" if protocol == "sick" else "snli")
        if not os.path.isdir(sub):
            fail(f"no folder {sub}: --raw is the folder that holds snli/ and sick/ (RAW_DATA)")
        if protocol == "sick":
            jobs.append((protocol,) + job_sick(sub, a.no_check))
            continue
        got = job_snli(sub, protocol, a.no_check)
        if isinstance(got, str):
            if a.protocol == "all":
                note(f"skipping full: {got}")
                continue
            fail(got)
        jobs.append((protocol,) + got)
    for protocol, meta, splits in jobs:
        write_folder(a.out, protocol, meta, splits)


if __name__ == "__main__":
    main()
