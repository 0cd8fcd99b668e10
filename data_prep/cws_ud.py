"""CWS protocol (c) for data_prep/cws.py: Universal Dependencies Chinese GSD (release 1.4, ../shared/data/
ud_chinese_gsd/SOURCE.md) with its own train/dev/test. A sentence is the FORM column (column 2) of its word
lines; `#` comment lines, multiword-token lines (ID `1-2`) and empty-node lines (ID `1.1`) are skipped;
sentences end at blank lines. Every line is checked: a word line without 10 TAB-separated columns, an ID that
is not an integer, a FORM that is empty or holds whitespace, invalid UTF-8: each stops the script naming file
and line. OOV is counted against the words of the GSD train split. Standard library only."""
import os

from cws_read import decode, fail, lines_of, read_bytes, source_info
from prep_common import find

# sentences, words per split (ud_chinese_gsd/SOURCE.md, verified against the release)
EXPECTED_UD = {"train": (3997, 98608), "dev": (500, 12663), "test": (500, 12012)}
UD_FILES = {"train": "zh-ud-train.conllu", "dev": "zh-ud-dev.conllu", "test": "zh-ud-test.conllu"}
DESCRIPTION_UD = ("protocol (c): Universal Dependencies Chinese GSD 1.4 (Wikipedia, traditional characters) with "
                  "its own train/dev/test; words = the FORM column; OOV counted against the train split's words")


def read_conllu(path, data):
    """(sentences as word lists, their first line numbers) of one CoNLL-U file."""
    text, _ = decode(path, data)
    sentences, starts, cur, start = [], [], [], 0
    for i, line in enumerate(lines_of(text), 1):
        if not line.strip():
            if cur:
                sentences.append(cur)
                starts.append(start)
            cur = []
            continue
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            fail(f"{path}:{i}: {len(cols)} TAB-separated columns; a CoNLL-U word line has 10")
        wid, form = cols[0], cols[1]
        if "-" in wid or "." in wid:   # multiword token or empty node: not a word of the segmentation
            continue
        if not wid.isdigit():
            fail(f"{path}:{i}: ID {wid!r} is not an integer (nor a multiword range or an empty node)")
        if not form or any(c.isspace() for c in form):
            fail(f"{path}:{i}: FORM {form!r} is empty or holds whitespace: it cannot be one segmented word")
        if not cur:
            start = i
        cur.append(form)
    if cur:
        sentences.append(cur)
        starts.append(start)
    if not sentences:
        fail(f"{path}: no sentences")
    return sentences, starts


def job_ud(ud_dir, no_check):
    """(meta, splits, known words) of protocol (c), the same shapes cws.py's other jobs return."""
    splits, sources, lines = {}, {}, {}
    for split, name in UD_FILES.items():
        path = find(ud_dir, name)
        if path is None:
            fail(f"missing {os.path.join(ud_dir, name)} (or .gz): the UD Chinese GSD 1.4 files "
                 f"(../shared/data/ud_chinese_gsd/SOURCE.md); --ud names their folder")
        data = read_bytes(path)
        sents, starts = read_conllu(path, data)
        got = (len(sents), sum(len(s) for s in sents))
        if not no_check and got != EXPECTED_UD[split]:
            fail(f"{path}: {got[0]} sentences, {got[1]} words; expected {EXPECTED_UD[split][0]}, "
                 f"{EXPECTED_UD[split][1]} (ud_chinese_gsd/SOURCE.md): not the release 1.4 file (or --no-check)")
        splits[split], sources[split] = sents, source_info(path, data)
        lines[split] = {"first_line": starts[0], "last_sentence_line": starts[-1]}
    known = {w for s in splits["train"] for w in s}
    meta = {"corpus": "gsd", "protocol": "ud", "description": DESCRIPTION_UD,
            "split_rule": "the release's own train/dev/test files",
            "source_files": sources, "source_lines": lines,
            "word_list": {"source": "the words of the train split", "word_types": len(known)},
            "reading": "FORM of every word line; comment, multiword-token and empty-node lines skipped"}
    return meta, splits, known
