"""Reading for data_prep/cws.py and cws_ud.py: the messages (fail, warn, note), plain or gzipped files with their
sha256, UTF-8 decoding that names file, line and byte, the bakeoff's segmented format (class Bakeoff: words
separated by ASCII whitespace or U+3000, as core/eval/segmentation.h read_segmented reads them) and the official
training word list. Standard library only."""
import hashlib
import os
import re

from prep_common import messages, read_maybe_gz

PROG = "data_prep/cws.py"
fail, warn, note = messages(PROG)
SEP = re.compile("[ \t\n\v\f\r\u3000]+")  # ASCII whitespace and U+3000, as core/eval/segmentation.h read_segmented
# Other whitespace (U+00A0, U+2003, ...: the C++ reader keeps it inside a word) and control characters.
BAD = re.compile(r"[^\S \t\n\v\f\r\u3000]|[\x00-\x08\x0e-\x1f\x7f-\x9f]")
STRIP = " \t\n\v\f\r\u3000"
SHOW = 10  # line numbers listed in messages and prep.json


def read_bytes(path):
    return read_maybe_gz(path, fail)


def source_info(path, data):
    info = {"path": os.path.abspath(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if path.endswith(".gz"):
        info["stored_gzip"] = True  # bytes and sha256 are of the decompressed content
    return info


def git_blob(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def decode(path, data):
    """Text of a UTF-8 file (a leading BOM dropped) and whether it had a BOM. Bad bytes: file, line, offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        fail(f"{path}:{line}: invalid UTF-8 at byte {e.start - line_start} of the line (byte {e.start} of the "
             f"file; {e.reason}, byte 0x{data[e.start]:02x}): the file must be UTF-8; convert it (the bakeoff's "
             f"CP936/Big5 .txt variants are not accepted) or replace it with a good copy")
    bom = text.startswith("\ufeff")
    return (text[1:] if bom else text), bom


def lines_of(text):
    """Lines split at LF with one trailing CR dropped; a final LF does not start another line."""
    ls = text.split("\n")
    if ls and ls[-1] == "":
        ls.pop()
    return [l[:-1] if l.endswith("\r") else l for l in ls]


class Bakeoff:
    """A segmented file: sentences (lists of words) with their 1-based line numbers, and the skipped lines."""

    def __init__(self, path):
        self.path = path
        data = read_bytes(path)
        self.info = source_info(path, data)
        self.data = data
        text, self.bom = decode(path, data)
        self.sentences, self.line_nos, self.skipped = [], [], []
        for i, line in enumerate(lines_of(text), 1):
            m = BAD.search(line)
            if m:
                ch = m.group()
                fail(f"{path}:{i}: character {m.start() + 1} of the line is U+{ord(ch):04X}, a whitespace or "
                     f"control character: words may only be separated by ASCII whitespace and U+3000 (the "
                     f"C++ reader keeps anything else inside a word); fix the line")
            words = SEP.split(line.strip(STRIP))
            if words == [""]:
                self.skipped.append(i)
                continue
            self.sentences.append(words)
            self.line_nos.append(i)
        self.info["lines"] = len(self.sentences) + len(self.skipped)
        if self.bom:
            self.info["utf8_bom_dropped"] = True
        if not self.sentences:
            fail(f"{path}: no sentences (every line is empty): not a segmented bakeoff file")

    def skipped_info(self):
        return {"file": os.path.abspath(self.path), "empty_or_whitespace_only_lines": len(self.skipped),
                "first_line_numbers": self.skipped[:SHOW],
                "handling": "skipped: such a line holds no sentence; the splits are over the other lines"}


def read_word_list(path):
    """The official training word list: one word per line; surrounding whitespace trimmed (as the bakeoff
    score script does), empty lines ignored; a line with whitespace inside is an error."""
    data = read_bytes(path)
    text, _ = decode(path, data)
    words, dups, empty = set(), 0, 0
    for i, line in enumerate(lines_of(text), 1):
        w = line.strip(STRIP)
        if not w:
            empty += 1
            continue
        if SEP.search(w) or BAD.search(w):
            fail(f"{path}:{i}: {w!r} has whitespace or a control character inside: the list must hold one word "
                 f"per line")
        dups += w in words
        words.add(w)
    if not words:  # (as a segmented file without sentences) an empty list would make every word OOV
        fail(f"{path}: no words (every line is empty): not a word list")
    info = source_info(path, data)
    info.update({"lines": len(lines_of(text)), "word_types": len(words), "duplicate_lines": dups,
                 "empty_lines": empty})
    return words, info


def counts(sentences):
    return {"sentences": len(sentences), "words": sum(len(s) for s in sentences),
            "characters": sum(len(w) for s in sentences for w in s)}
