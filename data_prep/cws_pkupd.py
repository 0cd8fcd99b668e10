"""CWS protocol (d) for data_prep/cws.py: "PKU People's Daily 1998-01 train, SIGHAN-2005 PKU test"
(../shared/data/pku_peoples_daily_199801/SOURCE.md, ../shared/data/README.md).

Train and dev come from 199801.seg.utf8[.gz] (the PKU-annotated People's Daily of January 1998, ids and POS tags
removed, one paragraph per line, words separated by two spaces, LF): its lines whose text (the words joined
without separators) equals the text of a SIGHAN-2005 PKU gold test sentence are dropped first (counted), the
remaining paragraphs are cut by line order, the first 90 % train and the last 10 % dev (cut point floor(0.9 n),
as protocol (a) cuts the bakeoff's training file; the file is in date order, so dev is the end of the month),
and then a paragraph longer than MAX_CHARS characters is split after every sentence-final word (see
split_paragraph); a resulting sentence whose text is a test sentence is dropped too (counted). Test = the PKU gold
test file as the other pku protocols read it. OOV against the words of the train split.

Every line is checked, since a file that went through another conversion would otherwise be read silently
wrong: invalid UTF-8 (GBK bytes, say), a run of spaces other than exactly two (an empty word, or a space inside
one), leading or trailing spaces, any other whitespace or control character, a POS tag left in (`中国/ns`),
a compound bracket (`[中央/n`, `电台/n]nt`) or a paragraph id (`19980101-01-001-001`): each stops naming
file:line. The sha256 and counts of the shared copy are checked unless --no-check. Standard library only."""
import hashlib
import os
import re

from cws_read import BAD, SHOW, counts, decode, fail, lines_of, read_bytes
from prep_common import find

PD_FILE = "199801.seg.utf8"
# pku_peoples_daily_199801/SOURCE.md: the .gz as stored, its content, and the counts of the content
PD_SHA256_GZ = "ef0130c5260e181cacb7ced83dccb0ca4ecfb9691d67fd4bfcc896dab287b81a"
PD_SHA256 = "c4c7854413c5488304fa403a5aca865887920c71a039f7851f1acd0559889c2b"
PD_COUNTS = (19484, 1121447, 1841657)   # lines, words, characters
MAX_CHARS = 200   # longer paragraphs are split at sentence ends; 192 of the 1,944 PKU test lines are longer
DESCRIPTION_PKUPD = (
    "protocol (d), PKU People's Daily 1998-01 train, SIGHAN-2005 PKU test: the PKU-annotated People's Daily of "
    "January 1998 (not the bakeoff's pku_training.utf8, an earlier revision of its annotation) less its lines "
    "whose text is a PKU test sentence, the first 90 % of its paragraphs by line order train and the last 10 % "
    f"dev, paragraphs over {MAX_CHARS} characters split at sentence ends; test = the SIGHAN-2005 PKU gold test "
    "file; OOV against the train split's words. Not the bakeoff's closed track.")
# Sentence-final marks (full-width and ASCII; U+FF61 is the half-width ideographic full stop) and the closing
# quotes/brackets that stay with the sentence they close (`……。”` ends after the ”).
FINAL = "。！？!?｡"
CLOSING = "”’」』）)》〉】"
SPLIT_RULE = (f"a paragraph of more than {MAX_CHARS} characters is split after every word that ends with one "
              f"of {FINAL} (a sentence-final mark standing as its own word or ending a word), the closing "
              f"quotes or brackets {CLOSING} that follow it (as whole words) staying with it; a split is always "
              f"between two words, never inside one; a paragraph without such a word stays whole")
TAG = re.compile(r"/[A-Za-z]+$")             # a POS tag left at the end of a word: 中国/ns
BRACKET = re.compile(r"^\[.|.\][A-Za-z]+$")   # a compound bracket: [中央/n ... 电台/n]nt (or with tags gone)
PARA_ID = re.compile(r"^\d{8}-\d{2}-\d{3}-\d{3}")   # the paragraph id the conversion drops
SPACES = re.compile(" +")


def read_pd(path):
    """(paragraphs as word lists, their line numbers, source info): every line checked (module docstring)."""
    data = read_bytes(path)
    text, bom = decode(path, data)
    info = {"path": os.path.abspath(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if path.endswith(".gz"):
        with open(path, "rb") as f:
            info["sha256_stored_gzip"] = hashlib.sha256(f.read()).hexdigest()
    if bom:
        info["utf8_bom_dropped"] = True
    paras, line_nos = [], []
    for i, line in enumerate(lines_of(text), 1):
        where = f"{path}:{i}:"
        if not line:
            fail(f"{where} empty line: the converted file has one paragraph per line and no empty lines")
        m = BAD.search(line) or re.search(r"[\t\v\f\r\u3000]", line)
        if m:
            fail(f"{where} character {m.start() + 1} of the line is U+{ord(m.group()):04X}: words are separated "
                 f"by exactly two ASCII spaces, and no other whitespace or control character may appear")
        if line[0] == " " or line[-1] == " ":
            fail(f"{where} the line starts or ends with a space: an empty word (words are separated by exactly "
                 f"two spaces)")
        for s in SPACES.finditer(line):
            if len(s.group()) != 2:
                what = "an empty word" if len(s.group()) > 2 else "a space inside a word"
                fail(f"{where} {len(s.group())} spaces at character {s.start() + 1}: {what} (words are separated "
                     f"by exactly two spaces)")
        words = line.split("  ")
        if PARA_ID.match(words[0]):
            fail(f"{where} starts with a paragraph id ({words[0]!r}): not converted (the id token is dropped in "
                 f"199801.seg.utf8; see SOURCE.md)")
        for w in words:
            if BRACKET.search(w):
                fail(f"{where} word {w!r} holds a compound bracket: not converted (brackets are removed in "
                     f"199801.seg.utf8; see SOURCE.md)")
            if TAG.search(w):
                fail(f"{where} word {w!r} still has its POS tag: not converted (the /tag after each word is "
                     f"removed in 199801.seg.utf8; see SOURCE.md)")
        paras.append(words)
        line_nos.append(i)
    if not paras:
        fail(f"{path}: no paragraphs (an empty file)")
    info["lines"] = len(paras)
    return paras, line_nos, info


def split_paragraph(words, max_chars=MAX_CHARS):
    """The sentences of one paragraph (lists of its words, in order; joined they are the paragraph): split only
    when it is longer than max_chars characters, and then after every word ending with a FINAL mark, together
    with the CLOSING words right after it."""
    if sum(len(w) for w in words) <= max_chars:
        return [words]
    out, cur, i = [], [], 0
    while i < len(words):
        cur.append(words[i])
        if words[i][-1] in FINAL:
            while i + 1 < len(words) and words[i + 1] in CLOSING:
                i += 1
                cur.append(words[i])
            out.append(cur)
            cur = []
        i += 1
    if cur:
        out.append(cur)
    return out


def text_of(words):
    return "".join(words)


def max_chars(sentences):
    return max((sum(len(w) for w in s) for s in sentences), default=0)


def job_pkupd(pd_dir, gold, no_check):
    """(meta, splits, known words) of protocol (d), the shapes cws.py's other jobs return; gold is the checked
    PKU gold test file (cws_read.Bakeoff)."""
    path = find(pd_dir, PD_FILE)
    if path is None:
        fail(f"missing {os.path.join(pd_dir, PD_FILE)} (or .gz): the converted PKU People's Daily of January 1998 "
             f"(../shared/data/pku_peoples_daily_199801/SOURCE.md); --pd names its folder")
    paras, line_nos, info = read_pd(path)
    got = tuple(counts(paras).values())
    if not no_check:
        want_sha = PD_SHA256_GZ if path.endswith(".gz") else PD_SHA256
        have_sha = info["sha256_stored_gzip"] if path.endswith(".gz") else info["sha256"]
        if have_sha != want_sha or info["sha256"] != PD_SHA256:
            fail(f"{path}: sha256 {have_sha}, expected {want_sha} (pku_peoples_daily_199801/SOURCE.md): not the "
                 f"shared copy (replace it, or use --no-check for another conversion)")
        if got != PD_COUNTS:
            fail(f"{path}: {got[0]} lines, {got[1]} words, {got[2]} characters; expected "
                 f"{' / '.join(map(str, PD_COUNTS))} (SOURCE.md); use --no-check for another conversion")
    test_texts = {text_of(s) for s in gold.sentences}
    # Lines whose text is a test sentence: dropped before the cut, so neither train nor dev holds test text.
    overlap = [ln for p, ln in zip(paras, line_nos) if text_of(p) in test_texts]
    kept = [(p, ln) for p, ln in zip(paras, line_nos) if text_of(p) not in test_texts]
    pd_texts = {text_of(p) for p in paras}
    test_in_pd = [ln for s, ln in zip(gold.sentences, gold.line_nos) if text_of(s) in pd_texts]
    n = len(kept)
    cut = n * 9 // 10
    if cut == 0 or cut == n:
        fail(f"{path}: {n} paragraphs left after dropping the {len(overlap)} that are test sentences: too few to "
             f"cut 90/10 into train and dev")
    parts = {"train": kept[:cut], "dev": kept[cut:]}
    splits, source_lines, split_info = {}, {}, {}
    for name, part in parts.items():
        sents, n_split, n_dropped, dropped_lines = [], 0, 0, []
        for p, ln in part:
            pieces = split_paragraph(p)
            n_split += len(pieces) > 1
            for s in pieces:
                if len(pieces) > 1 and text_of(s) in test_texts:  # a sentence cut out of a paragraph
                    n_dropped += 1
                    dropped_lines.append(ln)
                    continue
                sents.append(s)
        splits[name] = sents
        source_lines[name] = {"file": "peoples_daily", "paragraphs": len(part), "first_line": part[0][1],
                              "last_line": part[-1][1]}
        split_info[name] = {
            "paragraphs": len(part), "paragraphs_split": n_split, "sentences_after_split": len(sents),
            "max_characters_before": max_chars([p for p, _ in part]), "max_characters_after": max_chars(sents),
            "split_sentences_dropped_as_test_sentences": n_dropped,
            "their_paragraph_lines": dropped_lines[:SHOW]}
    splits["test"] = gold.sentences
    source_lines["test"] = {"file": "test_gold", "first_line": gold.line_nos[0], "last_line": gold.line_nos[-1]}
    known = {w for s in splits["train"] for w in s}
    meta = {
        "corpus": "pku", "protocol": "pkupd", "description": DESCRIPTION_PKUPD,
        "split_rule": "the lines of 199801.seg.utf8 whose text is a PKU test sentence are dropped; of the n "
                      "paragraphs left, in file (= date) order, train = [0, floor(0.9 n)), dev = the rest; then "
                      + SPLIT_RULE + "; test = every non-empty line of the gold test file",
        "source_files": {"peoples_daily": info, "test_gold": gold.info},
        "source_lines": source_lines,
        "test_overlap": {
            "rule": "a People's Daily line is dropped when its text (words joined without separators) equals the "
                    "text of a gold test sentence; so is a sentence split out of a longer paragraph",
            "peoples_daily_lines_dropped": len(overlap), "their_distinct_texts": len({text_of(p) for p in paras
                                                                                       if text_of(p) in test_texts}),
            "first_dropped_lines": overlap[:SHOW],
            "test_sentences_occurring_as_a_line": len(test_in_pd), "first_such_test_lines": test_in_pd[:SHOW]},
        "paragraph_split": dict(rule=SPLIT_RULE, max_chars=MAX_CHARS, **split_info),
        "word_list": {"source": "the words of the train split", "word_types": len(known)},
        "skipped_lines": [gold.skipped_info()],
    }
    return meta, splits, known
