#!/usr/bin/env python3
"""Prepare document classification data for the classify task (issue 52): the IMDB movie reviews (Maas et al.
2011, binary) and 20 Newsgroups bydate (20 topics), read straight from their archives with tarfile:
RAW_DATA/imdb/aclImdb_v1_labeled.tar.gz -> data/imdb/, RAW_DATA/20newsgroups/20news-bydate.tar.gz -> data/20ng/.

One script for both corpora: they differ only in how the archive is read (member names, decoding, 20NG's
header/footer/quote removal); the tokeniser, the dev split, the checks, the statistics and the writer are shared,
so the two folders are prepared by the same rules.

Output per folder, as data/sst/sst2 (tasks/classify/classify_data.cc reads a line as `<label> <tokens>`, tokens
split at ASCII whitespace): {train,dev,test}.txt, one document per line, `<label> <tokens>` (label 0..K-1, tokens
separated by one space, LF, UTF-8); {train,dev,test}.ids, the archive member of each line (same order);
labels.txt (`index<TAB>class name`: IMDB 0 neg, 1 pos; 20NG the 20 newsgroup names in sorted order, as
scikit-learn's target_names); prep.json (source archives with sha256, checks, rules, per-split documents, label
counts and length statistics in tokens). Written to a temporary folder renamed into place (prep_common.new_folder).

Splits: test = the official test set; dev = 10 % of the official training set, per class (stratified): the
round(n_c / 10) (half up) training documents of class c whose sha256("dev:" + member name) is smallest; train = the
rest. The choice depends only on the member names, never on Python's random module or the archive order.
Lines are in (label, numeric document id) order; the classify task shuffles the training data itself.

Text rules (both corpora): CRLF and lone CR -> LF; C1 control characters U+0080-U+009F (Windows-1252
punctuation mis-decoded as Latin-1 upstream, e.g. U+0096 for an en dash) are mapped through cp1252, the five
cp1252 leaves undefined dropped; NFC; other control characters -> space; format characters (Unicode Cf, e.g. a
soft hyphen) dropped. IMDB: `<br />` line breaks (any `<br>`, `<br/>`, any case) -> space; UTF-8 required.
20NG: each post decoded as UTF-8 when valid, else Latin-1 (scikit-learn decodes every post as Latin-1; on the
bydate files the two agree: no post is non-ASCII UTF-8), the Latin-1 posts counted; by default headers, footers
and quotes are removed with scikit-learn's rules (fetch_20newsgroups remove=('headers', 'footers', 'quotes'),
same order); --keep headers,footers,quotes keeps some of them (written to 20ng_keep_<parts>/ so the default folder
is never replaced by different data). A post left with no tokens is written as the one token <empty> (counted),
so the official test set stays whole. Not lowercased (the task's data.lowercase does that).
Tokens: TOKEN_RE below, i.e. numbers with inner . , : (3.5, 1,000, 10:30), words of letters/digits/underscore
with inner apostrophes or hyphens (don't, well-made), and every other non-space character on its own, a run of
the same one kept together (!!!, ..., ----).

Bad input stops with exit code 2, one message naming the archive and member, nothing written: a missing or
unreadable archive, a sha256 other than SOURCE.md's, a missing class folder (IMDB pos/neg), a review file not
named <id>_<rating>.txt, an empty document, invalid UTF-8 in IMDB, a 20NG test class absent from training, the
published counts (IMDB 12,500 per class and split; 20NG 11,314 / 7,532 in 20 classes with SOURCE.md's per-class
counts), IMDB ratings (neg 1-4, pos 7-10) and the manifest's per-file sha256. --no-check skips the sha256, count,
rating and manifest checks only.

usage: docs.py [--raw DIR] [--out data] [--corpus imdb|20ng|all] [--keep headers,footers,quotes] [--no-check]
"""
import argparse
import collections
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import unicodedata
import zlib

from prep_common import messages, new_folder, train_command, write_prep_json

PROG = "data_prep/docs.py"
fail, warn, note = messages(PROG)
SPLITS = ("train", "dev", "test")

# (numbers with inner . , :) | (words, inner ' ’ -) | (any other non-space character, a run of the same kept).
# \s and \w are Unicode: every separator the C++ reader knows (ASCII whitespace, U+3000) is \s, so its tokens are
# exactly these.
TOKEN_RE = re.compile(r"\d+(?:[.,:]\d+)+|\w+(?:['\u2019-]\w+)*|([^\w\s])\1*")
BR_RE = re.compile(r"<br\s*/?>", re.IGNORECASE)
EMPTY_TOKEN = "<empty>"
DEV_RULE = ("per class, the round(n_c / 10) (half up) official training documents with the smallest "
            "sha256('dev:' + archive member name) (hex order); train = the other training documents; "
            "test = the official test set")
TOKEN_RULE = ("NFC text split by the regex " + TOKEN_RE.pattern + " (Python re, Unicode): numbers with inner . , :, "
              "words with inner apostrophes/hyphens, any other non-space character alone (a run of the same one "
              "together); case kept")
CLEAN_RULE = ("CRLF and CR -> LF; U+0080-U+009F mapped through cp1252 (undefined ones dropped); NFC; other "
              "control characters -> space; format characters (Cf) dropped")

IMDB_TRAIN = {"neg": 12500, "pos": 12500}
NG_CLASSES = {  # train / test posts per class, ../shared/data/20newsgroups/SOURCE.md (the published bydate counts)
    "alt.atheism": (480, 319), "comp.graphics": (584, 389), "comp.os.ms-windows.misc": (591, 394),
    "comp.sys.ibm.pc.hardware": (590, 392), "comp.sys.mac.hardware": (578, 385), "comp.windows.x": (593, 395),
    "misc.forsale": (585, 390), "rec.autos": (594, 396), "rec.motorcycles": (598, 398),
    "rec.sport.baseball": (597, 397), "rec.sport.hockey": (600, 399), "sci.crypt": (595, 396),
    "sci.electronics": (591, 393), "sci.med": (594, 396), "sci.space": (593, 394),
    "soc.religion.christian": (599, 398), "talk.politics.guns": (546, 364), "talk.politics.mideast": (564, 376),
    "talk.politics.misc": (465, 310), "talk.religion.misc": (377, 251),
}
CORPORA = {
    "imdb": {"raw": "imdb", "archive": "aclImdb_v1_labeled.tar.gz",
             "sha256": "93748be5a1e8d260e8521db8209ec1c8f9b3a4177e4da69461d8389ed611b8a6",
             "expected": {"train": IMDB_TRAIN, "test": IMDB_TRAIN},
             "description": "IMDB Large Movie Review Dataset v1.0 (Maas et al. 2011), labelled reviews, binary "
                            "polarity (0 = neg: rating <= 4, 1 = pos: rating >= 7); dev = 10 % of the official "
                            "train set; test = the official test set",
             "manifest_prefix": "aclImdb/"},
    "20ng": {"raw": "20newsgroups", "archive": "20news-bydate.tar.gz",
             "sha256": "f934583ecd65eae06e4d23af0fcb72ade56b76bad2279c0aed7d520aa6527b02",
             "expected": {"train": {c: n[0] for c, n in NG_CLASSES.items()},
                          "test": {c: n[1] for c, n in NG_CLASSES.items()}},
             "description": "20 Newsgroups, bydate version (Lang 1995; split by J. Rennie), 20 topics (labels = "
                            "the newsgroups in sorted order); dev = 10 % of the official train set; test = the "
                            "official test set",
             "manifest_prefix": ""},
}
IMDB_MEMBER = re.compile(r"aclImdb/(train|test)/([^/]+)/([^/]+)")
IMDB_NAME = re.compile(r"([0-9]+)_([0-9]+)\.txt")
NG_MEMBER = re.compile(r"20news-bydate-(train|test)/([^/]+)/([^/]+)")
NG_PARTS = ("headers", "footers", "quotes")
# scikit-learn's sklearn/datasets/_twenty_newsgroups.py (searched line by line, hence the ^ anchors)
NG_QUOTE_RE = re.compile(r"(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)")


# ---- text ----------------------------------------------------------------------------------------------------
def _c1_table():
    """str.translate table: U+0080-U+009F -> the cp1252 character of that byte (None where cp1252 has none)."""
    table = {}
    for b in range(0x80, 0xA0):
        try:
            table[b] = bytes([b]).decode("cp1252")
        except UnicodeDecodeError:
            table[b] = None
    return table


C1_TABLE = _c1_table()
C1_RE = re.compile("[\u0080-\u009f]")


# Control characters other than TAB LF VT FF CR (U+0080-U+009F are gone by then) become a space; format characters
# (Cf: soft hyphen, zero-width space, byte-order mark ...) are dropped, so "inter\u00adnational" stays one word.
CONTROL_RE = re.compile("[\u0000-\u0008\u000e-\u001f\u007f]")
FORMAT_RE = re.compile("[" + "".join(re.escape(chr(c)) for c in range(0x110000)
                                     if unicodedata.category(chr(c)) == "Cf") + "]")


class Cleaner:
    """The character rules both corpora share; counts what it changed (for prep.json)."""

    def __init__(self):
        self.counts = {"c1_mapped_cp1252": 0, "c1_dropped": 0, "controls_to_space": 0, "format_dropped": 0,
                       "documents_changed_by_nfc": 0}

    def __call__(self, text):
        c1 = C1_RE.findall(text)
        if c1:
            dropped = sum(1 for c in c1 if C1_TABLE[ord(c)] is None)
            self.counts["c1_dropped"] += dropped
            self.counts["c1_mapped_cp1252"] += len(c1) - dropped
            text = text.translate(C1_TABLE)
        if not text.isascii():
            nfc = unicodedata.normalize("NFC", text)
            if nfc != text:
                self.counts["documents_changed_by_nfc"] += 1
                text = nfc
            text, n = FORMAT_RE.subn("", text)
            self.counts["format_dropped"] += n
        text, n = CONTROL_RE.subn(" ", text)
        self.counts["controls_to_space"] += n
        return text


def tokenize(text):
    return [m.group(0) for m in TOKEN_RE.finditer(text)]


def strip_header(text):
    """scikit-learn's strip_newsgroup_header: everything before the first blank line goes."""
    return text.partition("\n\n")[2]


def strip_footer(text):
    """scikit-learn's strip_newsgroup_footer: the last blank or all-hyphens line (after stripping the text) and
    everything after it go, unless that line is the first."""
    lines = text.strip().split("\n")
    for line_num in range(len(lines) - 1, -1, -1):
        if lines[line_num].strip().strip("-") == "":
            break
    return "\n".join(lines[:line_num]) if line_num > 0 else text


def strip_quotes(text):
    """scikit-learn's strip_newsgroup_quoting: lines that quote (> or |) or introduce a quote go."""
    return "\n".join(line for line in text.split("\n") if not NG_QUOTE_RE.search(line))


# ---- archives ------------------------------------------------------------------------------------------------
def read_archive(path, check):
    """(regular members {name: bytes}, source info); the archive's sha256 against SOURCE.md's unless --no-check."""
    try:
        with open(path, "rb") as f:
            stored = f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e}")
    digest = hashlib.sha256(stored).hexdigest()
    if check["sha256"] and digest != check["sha256"]:
        fail(f"{path}: sha256 {digest}, expected {check['sha256']} (SOURCE.md): not the archive described there "
             f"(replace it, or --no-check to prepare it anyway)")
    members = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(stored), mode="r:*") as tf:
            for m in tf:
                if m.isfile():
                    members[m.name] = tf.extractfile(m).read()
    except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
        fail(f"cannot read {path}: {e} (expected a .tar.gz archive)")
    return members, {"path": os.path.abspath(path), "bytes": len(stored), "sha256": digest,
                     "sha256_checked": bool(check["sha256"]), "regular_members": len(members)}


def read_manifest(path):
    """{path: (bytes, sha256)} of a SOURCE.md manifest.tsv.gz (header `path bytes sha256 agreeing_copies`)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
        fail(f"cannot read {path}: {e}")
    out = {}
    for i, line in enumerate(lines[1:], 2):
        if not line:
            continue
        f = line.split("\t")
        if len(f) < 3 or not f[1].isdigit():
            fail(f"{path}:{i}: expected `path<TAB>bytes<TAB>sha256...`")
        out[f[0]] = (int(f[1]), f[2])
    return out


def numeric_id(name):
    digits = re.match(r"[0-9]*", name).group(0)
    return (int(digits) if digits else -1, name)


def imdb_documents(archive, members):
    """{split: [(class name, member, text)]} of the labelled reviews, and the members ignored."""
    docs, ignored, unsup = {"train": [], "test": []}, [], 0
    for name in sorted(members):
        m = IMDB_MEMBER.fullmatch(name)
        if not m:
            ignored.append(name)  # README, imdb.vocab, imdbEr.txt, urls_*.txt
            continue
        split, cls, base = m.groups()
        if cls == "unsup":  # the unlabelled reviews of the official archive
            unsup += 1
            continue
        if cls not in ("pos", "neg"):
            fail(f"{archive}: member {name}: unknown class folder {cls}/: expected aclImdb/{split}/pos/ and "
                 f"aclImdb/{split}/neg/ only (unsup/ is skipped)")
        if not IMDB_NAME.fullmatch(base):
            fail(f"{archive}: member {name}: expected a review file named <id>_<rating>.txt")
        data = members[name]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            fail(f"{archive}: member {name}: invalid UTF-8 at byte {e.start} ({e.reason}, byte 0x{data[e.start]:02x}): "
                 f"the IMDB reviews are UTF-8; replace the archive with a good copy")
        docs[split].append((cls, name, BR_RE.sub(" ", text)))
    for split in ("train", "test"):
        for cls in ("neg", "pos"):
            if not any(c == cls for c, _, _ in docs[split]):
                fail(f"{archive}: no member aclImdb/{split}/{cls}/*.txt: expected the class folders pos/ and neg/ "
                     f"under aclImdb/train/ and aclImdb/test/ (the labelled IMDB reviews)")
    return docs, {"ignored_members": ignored, "unsup_skipped": unsup}


def imdb_ratings_ok(docs, archive):
    """The published label rule: neg files rated 1-4, pos files 7-10 (the rating is the file name's suffix)."""
    for split, rows in docs.items():
        for cls, name, _ in rows:
            rating = int(IMDB_NAME.fullmatch(name.rsplit("/", 1)[1]).group(2))
            if not (1 <= rating <= 4 if cls == "neg" else 7 <= rating <= 10):
                fail(f"{archive}: member {name}: rating {rating} in a {cls}/ folder: expected neg 1-4, pos 7-10 "
                     f"(not the published IMDB labels; --no-check to prepare it anyway)")


def ng_documents(archive, members, keep):
    """{split: [(class name, member, text)]} of the posts, and the decoding / removal counts."""
    docs, ignored, latin1, crlf = {"train": [], "test": []}, [], [], 0
    for name in sorted(members):
        m = NG_MEMBER.fullmatch(name)
        if not m:
            ignored.append(name)
            continue
        split, cls, base = m.groups()
        if not base.isdigit():
            fail(f"{archive}: member {name}: expected a post named by its numeric id "
                 f"(20news-bydate-{split}/<newsgroup>/<id>)")
        data = members[name]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")  # the posts are Latin-1/ASCII mail (SOURCE.md); never fails
            latin1.append(name)
        if "\r" in text:
            crlf += 1
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if not text.strip():
            fail(f"{archive}: member {name}: empty post (expected a news message: headers, blank line, body)")
        if "headers" not in keep:
            text = strip_header(text)
        if "footers" not in keep:
            text = strip_footer(text)
        if "quotes" not in keep:
            text = strip_quotes(text)
        docs[split].append((cls, name, text))
    train_classes = {c for c, _, _ in docs["train"]}
    for split in ("train", "test"):
        if not docs[split]:
            fail(f"{archive}: no member 20news-bydate-{split}/<newsgroup>/<id>: expected the folders "
                 f"20news-bydate-train/ and 20news-bydate-test/ with one folder per newsgroup")
    for cls in sorted({c for c, _, _ in docs["test"]} - train_classes):
        first = next(n for c, n, _ in docs["test"] if c == cls)
        fail(f"{archive}: member {first}: newsgroup {cls} has test posts but no folder "
             f"20news-bydate-train/{cls}/: every test class must occur in training")
    return docs, {"ignored_members": ignored, "decoded_utf8": sum(map(len, docs.values())) - len(latin1),
                  "decoded_latin1": len(latin1), "latin1_members": latin1[:20], "posts_with_cr": crlf}


def check_counts(corpus, archive, docs):
    want = CORPORA[corpus]["expected"]
    for split in ("train", "test"):
        got = {}
        for cls, _, _ in docs[split]:
            got[cls] = got.get(cls, 0) + 1
        if got != want[split]:
            diff = [f"{c}: {got.get(c, 0)} (expected {want[split].get(c, 0)})"
                    for c in sorted(set(got) | set(want[split])) if got.get(c, 0) != want[split].get(c, 0)]
            fail(f"{archive}: {split}: {sum(got.values())} documents, expected {sum(want[split].values())} "
                 f"(SOURCE.md's published counts); differing classes: {'; '.join(diff[:5])}"
                 f"{' ...' if len(diff) > 5 else ''} (replace the archive, or --no-check)")


def check_manifest(corpus, path, archive, members, docs):
    """Every document member's bytes and sha256 as listed in the manifest (none missing: the counts are checked)."""
    listed = read_manifest(path)
    prefix = CORPORA[corpus]["manifest_prefix"]
    names = [n for rows in docs.values() for _, n, _ in rows]
    for name in names:
        key = name[len(prefix):]
        if key not in listed:
            fail(f"{archive}: member {name}: not listed in {path}")
        size, digest = listed[key]
        data = members[name]
        if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
            fail(f"{archive}: member {name}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:12]}...; "
                 f"{path} lists {size} bytes, {digest[:12]}...: not the reconciled file (replace the archive, "
                 f"or --no-check)")
    return {"path": os.path.abspath(path), "documents_checked": len(names)}


# ---- splits, statistics, writing -------------------------------------------------------------------------------
def dev_split(rows, classes):
    """(train, dev) of the official training rows: DEV_RULE."""
    dev = set()
    for cls in classes:
        names = [r[1] for r in rows if r[0] == cls]
        k = (len(names) + 5) // 10
        dev.update(sorted(names, key=lambda n: hashlib.sha256(("dev:" + n).encode("utf-8")).hexdigest())[:k])
    return [r for r in rows if r[1] not in dev], [r for r in rows if r[1] in dev]


def percentile(sorted_values, p):
    """Nearest-rank percentile: the smallest value with at least p % of the values at or below it."""
    k = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[k - 1]


def length_stats(lens):
    s = sorted(lens)
    n = len(s)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"total": sum(s), "min": s[0], "max": s[-1], "mean": round(sum(s) / n, 2), "median": median,
            "percentiles": {str(p): percentile(s, p) for p in (50, 90, 95, 99)},
            "documents_over": {str(t): sum(1 for x in s if x > t) for t in (128, 256, 512, 1024)}}


def prepare(corpus, raw, check, keep):
    """(folder name, meta, {split: [(label, member, tokens joined by spaces, token count)]}, labels.txt bytes);
    everything checked first. A document is kept as one string, not a token list: a list per document made the
    two corpora several times larger in memory, and --corpus all holds both before writing."""
    spec = CORPORA[corpus]
    folder = os.path.join(raw, spec["raw"])
    archive = os.path.join(folder, spec["archive"])
    if not os.path.isfile(archive):
        fail(f"missing {archive}: put the archive described in {os.path.join(folder, 'SOURCE.md')} there "
             f"(--raw is the folder holding {spec['raw']}/)")
    members, source = read_archive(archive, {"sha256": spec["sha256"] if check else None})
    if corpus == "imdb":
        docs, read_info = imdb_documents(archive, members)
        if check:
            imdb_ratings_ok(docs, archive)
    else:
        docs, read_info = ng_documents(archive, members, keep)
    if check:
        check_counts(corpus, archive, docs)
    manifest = os.path.join(folder, "manifest.tsv.gz")
    if check and os.path.isfile(manifest):
        source["manifest"] = check_manifest(corpus, manifest, archive, members, docs)
    elif check:
        warn(f"no {manifest}: the per-file sha256 check is skipped")
    classes = sorted({c for c, _, _ in docs["train"]})  # the checked counts make these the published classes
    index = {c: k for k, c in enumerate(classes)}
    cleaner, empty = Cleaner(), []
    rows = {}
    for split in ("train", "test"):
        out = []
        for cls, name, text in docs[split]:
            tokens = tokenize(cleaner(text))
            if not tokens:
                if corpus == "imdb":
                    fail(f"{archive}: member {name}: empty review: no text (after removing <br /> tags)")
                tokens = [EMPTY_TOKEN]
                empty.append(name)
            out.append((index[cls], name, " ".join(tokens), len(tokens)))
        out.sort(key=lambda r: (r[0], numeric_id(r[1].rsplit("/", 1)[1])))
        rows[split] = out
    rows["train"], rows["dev"] = dev_split(rows["train"], range(len(classes)))
    name = corpus if not keep else f"{corpus}_keep_{'_'.join(p for p in NG_PARTS if p in keep)}"
    meta = {"corpus": name, "description": spec["description"], "num_labels": len(classes),
            "labels": {"index_to_label": classes, "file": "labels.txt"},
            "source_files": {"archive": source}, "reading": read_info,
            "checks": {"sha256": check, "published_counts": check, "manifest": "manifest" in source},
            "dev_split": DEV_RULE, "order": "each split in (label, numeric document id) order",
            "cleaning": CLEAN_RULE + ("; IMDB: <br /> (any <br>, <br/>, any case) -> space" if corpus == "imdb"
                                      else "; 20NG: UTF-8 when valid, else Latin-1"),
            "cleaning_counts": cleaner.counts, "tokenization": TOKEN_RULE}
    if corpus == "20ng":
        meta["removed"] = {p: p not in keep for p in NG_PARTS}
        meta["removal_rule"] = ("scikit-learn fetch_20newsgroups(remove=...) rules, in its order: headers (up to "
                                "the first blank line), footers (from the last blank or all-hyphens line), quotes "
                                "(lines matching " + NG_QUOTE_RE.pattern + "), after CRLF -> LF")
        meta["empty_after_removal"] = {"documents": len(empty), "written_as": EMPTY_TOKEN, "members": empty[:50]}
    labels_txt = "".join(f"{k}\t{c}\n" for k, c in enumerate(classes)).encode("utf-8")
    return name, meta, rows, labels_txt


def write_folder(out, name, meta, rows, labels_txt):
    final = os.path.join(out, name)
    with new_folder(out, name, final) as tmp:
        meta["splits"] = {}
        train_counts = collections.Counter()
        for _, _, text, _ in rows["train"]:
            train_counts.update(text.split(" "))
        for split in SPLITS:
            body = "".join(f"{label} {text}\n" for label, _, text, _ in rows[split]).encode("utf-8")
            ids = "".join(f"{member}\n" for _, member, _, _ in rows[split]).encode("utf-8")
            for fname, data in ((split + ".txt", body), (split + ".ids", ids)):
                with open(os.path.join(tmp, fname), "wb") as f:
                    f.write(data)
            meta["splits"][split] = {
                "file": split + ".txt", "sha256": hashlib.sha256(body).hexdigest(), "documents": len(rows[split]),
                "labels": [sum(1 for r in rows[split] if r[0] == k) for k in range(meta["num_labels"])],
                "tokens": length_stats([n for _, _, _, n in rows[split]])}
            if "empty_after_removal" in meta:  # 20NG: how many of the split's lines are the <empty> placeholder
                meta["splits"][split]["empty_documents"] = sum(1 for r in rows[split] if r[2] == EMPTY_TOKEN)
        meta["train_vocabulary"] = {"types": len(train_counts),
                                    "types_seen_twice": sum(1 for v in train_counts.values() if v >= 2)}
        with open(os.path.join(tmp, "labels.txt"), "wb") as f:
            f.write(labels_txt)
        meta["format"] = ("{train,dev,test}.txt: one document per line, `<label> <tokens>`, label 0..K-1 "
                          "(labels.txt), tokens separated by one space, LF, UTF-8; {split}.ids: the archive member "
                          "of each line")
        write_prep_json(tmp, meta)
    return final


def main():
    raw_root = os.environ.get("RAW_DATA", "../shared/data")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=raw_root,
                    help="folder holding imdb/ and 20newsgroups/ (default $RAW_DATA, else ../shared/data)")
    ap.add_argument("--out", default="data", help="output root: writes OUT/imdb/ and OUT/20ng/")
    ap.add_argument("--corpus", choices=("imdb", "20ng", "all"), default="all")
    ap.add_argument("--keep", default="",
                    help="20NG: comma-separated parts of each post to keep (headers, footers, quotes; default none, "
                         "as scikit-learn's remove=('headers', 'footers', 'quotes')); written to 20ng_keep_<parts>/")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the archive sha256, published-count and manifest checks")
    a = ap.parse_args()
    keep = {p for p in a.keep.split(",") if p}
    if keep - set(NG_PARTS):
        fail(f"--keep {a.keep}: expected a comma-separated subset of {','.join(NG_PARTS)}")
    if keep and a.corpus != "20ng":
        fail("--keep is for --corpus 20ng only")
    if not os.path.isdir(a.raw):
        fail(f"no folder {a.raw}: --raw is the folder holding imdb/ and 20newsgroups/ ($RAW_DATA)")
    corpora = ("imdb", "20ng") if a.corpus == "all" else (a.corpus,)
    prepared = []
    for corpus in corpora:  # every corpus is read and checked before any folder is written
        start = time.time()
        result = prepare(corpus, a.raw, not a.no_check, keep)
        prepared.append((corpus, time.time() - start) + result)
    for corpus, seconds, name, meta, rows, labels_txt in prepared:
        start = time.time()
        final = write_folder(a.out, name, meta, rows, labels_txt)
        s = meta["splits"]
        note(f"wrote {final}: " + ", ".join(
            f"{k} {v['documents']} documents / {v['tokens']['total']} tokens (median {v['tokens']['median']}, "
            f"p90 {v['tokens']['percentiles']['90']}, max {v['tokens']['max']})" for k, v in s.items())
            + f"; read and checked in {seconds:.1f} s, written in {time.time() - start:.1f} s")
        if corpus == "20ng":
            note(f"{meta['reading']['decoded_latin1']} posts decoded as Latin-1; "
                 f"{meta['empty_after_removal']['documents']} left empty by the removal, written as {EMPTY_TOKEN}")
        protocol = (f"{name}: {s['train']['documents']} / {s['dev']['documents']} / {s['test']['documents']} "
                    f"(dev = 10 % of the official train set by hash, test = official), docs.py tokens, lowercased")
        note("train on it (from the repository root):\n  " + train_command(
            "classify", "experiments/classify/sst2_atr.json",
            [("data.dir", final), ("data.num_labels", meta["num_labels"]), ("data.protocol", protocol),
             ("data.lowercase", True), ("out_dir", f"runs/classify_{name}")]))

if __name__ == "__main__":
    main()
