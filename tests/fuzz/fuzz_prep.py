#!/usr/bin/env python3
"""Mutation fuzzer for the Python corpus readers of data_prep/ (the C++ readers have libFuzzer: run.sh).

The contract under test (data_prep/README.md): bad input ends in the script's fail() -- SystemExit(2) after a
one-line message naming the file (and the line, for bad UTF-8) -- never in a traceback or a silently wrong
result. Each target writes a mutated input under the name its reader expects (plain or .gz; the gzip stream
itself is mutated too), calls the reader as the script's main() does and sorts the outcome: a normal return
whose result passes the target's invariants, or a clean fail(); anything else (another exception, a message
that does not name the file, a broken invariant, a hang) is a finding: its input is saved under
<out>/<reader>/ and its traceback printed, once per distinct place. Mutations are libFuzzer-like (bit flips,
byte insert / erase / duplicate, dictionary tokens, long runs, line and input splicing) from a seeded
generator, so the input sequence is reproducible; an input with a new kind of error message joins the pool, a
cheap stand-in for coverage feedback. Standard library only.

  tests/fuzz/fuzz_prep.py [--seconds 10] [--seed 1] [--readers sst,ptb] [--out fuzz-findings/prep]
  tests/fuzz/fuzz_prep.py --readers sst --replay fuzz-findings/prep/sst/<file>   # run one saved input
Exit 0: no finding; 1: findings; 2: bad options.
"""
import argparse
import contextlib
import gzip
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import unittest.mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "data_prep"))
import cws  # noqa: E402
import cws_pkupd  # noqa: E402
import cws_read  # noqa: E402
import glove  # noqa: E402
import nmt  # noqa: E402
import ptb  # noqa: E402
import snli  # noqa: E402
import sst  # noqa: E402

MAX_LEN = 1 << 16
KINDS = ("ok", "rejected", "finding")
VALUES = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|0x[0-9a-f]+|\d+")  # out of a message: its pattern
HANG_SECONDS = 10  # one call on a 64 KB input takes milliseconds; much longer is a hang (e.g. regex blow-up)
TOKENS = [b"\t", b"\r", b"\r\n", b"\n", b"\n\n", b" ", b"\x00", b"\x0b", b"\x1c", b"\x7f", b"\xff", b"\xc3",
          b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xef\xbb\xbf", b"\xc2\xa0", b"\xc2\x85",
          b"\xe2\x80\xa8", b"\xe3\x80\x80", b"\xe4\xb8\x8a", b"{", b"}", b"[", b"]", b'"', b"\\", b"\\u0000",
          b"\\ud800", b"\\udfff", b"null", b"true", b"(", b")", b"-", b"+", b"0", b"-1", b"1e999", b"NaN",
          b"99999999999999999999", b"9" * 5000, b"\x1f\x8b\x08"]


def snli_record(label, a, b):
    paren = lambda s: "( " + " ".join(f"( {w} )" if i % 3 == 0 else w for i, w in enumerate(s.split())) + " )"
    return json.dumps({"annotator_labels": [label], "captionID": "1.jpg#2", "gold_label": label,
                       "pairID": "1.jpg#2r1n", "sentence1": a, "sentence1_binary_parse": paren(a),
                       "sentence1_parse": "(ROOT (S))", "sentence2": b, "sentence2_binary_parse": paren(b),
                       "sentence2_parse": "(ROOT (S))"})


PAIRS = [("neutral", "Two women are embracing while holding to go packages .", "The sisters are hugging ."),
         ("-", "A dog runs .", "An animal moves ."),
         ("contradiction", "A man in a blue shirt isn't sleeping .", "Nobody is awake .")]
SICK_HEAD = "\t".join(["pair_ID", "sentence_A", "sentence_B", "entailment_label", "relatedness_score",
                       "entailment_AB", "entailment_BA", "sentence_A_original", "sentence_B_original",
                       "sentence_A_dataset", "sentence_B_dataset", "SemEval_set"])
sick_row = lambda i, a, b, lab, s: "\t".join([str(i), a, b, lab, "4.5", "A_neutral_B", "B_neutral_A", a, b,
                                              "FLICKR", "FLICKR", s])
CWS_WORDS = ["迈向", "充满", "希望", "的", "新", "世纪", "——", "二○○一年", "新年", "贺词", "（", "附", "图片", "1",
             "张", "）", "女士", "们", "，", "先生", "：", "ＧＤＰ", "a"]
CWS_LINES = [" ".join(random.Random(i).sample(CWS_WORDS, 3 + i % 5)) for i in range(12)]
EN = ["Gutach: Increased safety for pedestrians", "They are not even 100 metres apart: On Tuesday, the new "
      "B 33 pedestrian lights in Dorfparkplatz became operational - within view of the Town Hall.",
      "\"It's \u201cfine\u201d\u2026\" - he said... (28.5 %) & <b> [ok] Nr. 5 e.g. U.S.A. Don't!"]
text = lambda lines, sep="\n": "".join(l + sep for l in lines).encode("utf-8")
SEEDS = {
    "snli_jsonl": [text(snli_record(*p) for p in PAIRS), text([snli_record(*PAIRS[0])], "\r\n")],
    "snli_tsv": [text(["gold_label\tsentence1_tokens\tsentence2_tokens\tpairID"]
                      + [f"{l}\t{a}\t{b}\t1.jpg#{i}r1n" for i, (l, a, b) in enumerate(PAIRS)])],
    "sick": [text([SICK_HEAD, sick_row(1, "A man isn't wearing a t-shirt, 3.5 times.", "A man's shirt", "NEUTRAL",
                                       "TRAIN"), sick_row(2, "A dog.", "A cat.", "CONTRADICTION", "TRIAL"),
                   sick_row(3, "A dog.", "An animal.", "ENTAILMENT", "TEST")])],
    "cws_gold": [text([l.replace(" ", "  ") + "  " for l in CWS_LINES], "\r\n"),
                 b"\xef\xbb\xbf" + text(CWS_LINES + ["", "\u3000"])],
    "cws_words": [text(CWS_WORDS), text(w + "\r" for w in CWS_WORDS + [" "])],
    "cws_input": [text(l.replace(" ", "") for l in CWS_LINES)],
    "cws_train": [text(CWS_LINES * 2)],
    # not the gold lines (those would be dropped as test sentences), and one paragraph long enough to be split
    "cws_pd": [text((l + " 新").replace(" ", "  ") for l in CWS_LINES + [" 。 ".join(CWS_LINES * 4)])],
    "glove": [text(["the 0.1 0.2 0.3", "cat 1e-05 +0.5 -2", ". . . 1 2 3"]), text(["2 3", "a 1 2 3", "b 4 5 6"],
                                                                                   "\r\n")],
    "sst": [text(["1 a stirring , funny film", "0 a gob of drivel", "1 its 2\u00a01\\/2 - hour running time"]),
            text(["1  two  spaces\r", "0\ttab separated "])],
    "ptb": [text([" aer banknote berlitz <unk> ", " pierre <unk> N years old will join the board "]),
            text(["a b <unk>", "c"], "\r\n")],
    "nmt": [text(EN), text(EN[:1] + [""] + EN[2:], "\r\n")],
}
FILES = {"snli_jsonl": "snli_1.0_dev.jsonl", "snli_tsv": "snli_1.0_dev.tok.tsv", "sick": "SICK.txt",
         "cws_gold": "gold/msr_test_gold.utf8", "cws_words": "gold/msr_training_words.utf8",
         "cws_input": "testing/msr_test.utf8", "cws_train": "training/msr_training.utf8",
         "cws_pd": "pd/199801.seg.utf8", "glove": "glove.txt",
         "sst": "stsa.binary.train", "ptb": "ptb.train.txt", "nmt": "newstest2014.en"}
# Words of each format for the dictionary (libFuzzer's -dict): field names, labels, separators.
WORDS = {"snli_jsonl": [b'"gold_label": ', b'"sentence1_binary_parse": ', b'"sentence2_binary_parse": ', b'""',
                        b"[[[[", b'"entailment"', b'"-"'],
         "snli_tsv": [b"entailment", b"neutral", b"\t\t", b"gold_label\tsentence1_tokens\tsentence2_tokens"],
         "sick": [b"ENTAILMENT", b"TRAIN", b"TRIAL", b"TEST", b"\t\t", b"n't", b"'s"],
         "cws_pd": ["  ", "/ns", "[", "]nt", "。", "”", "19980101-01-001-001"],
         "glove": [b" ", b"\t", b"1e-05", b"inf", b"nan", b"+", b"3 3\n", b"the "],
         "sst": [b"4 ", b"5 ", b"00", b"\xd9\xa3"], "nmt": ["...", "DOTMULTI", "&apos;", "Σ", "'", ","]}


def invariants(name, result):
    """What a normal return must hold: the writers (and the C++ readers) depend on it."""
    def tokens(ts):
        assert ts and all(isinstance(t, str) and t and not re.search(r"[\t\n\r ]", t) for t in ts), ts
        "".join(ts).encode("utf-8")  # a lone surrogate would stop the writer with a UnicodeEncodeError
    if name in ("snli_jsonl", "snli_tsv", "sick"):
        pairs = [p for v in result[0].values() for p in v] if name == "sick" else result[0]
        for label, p, h in pairs:
            assert label in snli.LABELS, label
            tokens(p), tokens(h)
    elif name in ("cws_gold", "cws_train", "cws_words"):  # no split, word list or word is empty
        sentences = [result[0]] if name == "cws_words" else [s for v in result[1].values() for s in v or [[]]]
        for words in sentences:
            tokens(list(words))
            assert not any(cws_read.SEP.search(w) or cws_read.BAD.search(w) for w in words), words
    elif name == "cws_pd":   # every split non-empty, every word a word; the paragraph split keeps all words
        assert all(result[1][k] for k in ("train", "dev", "test"))
        for words in (s for v in result[1].values() for s in v):
            tokens(list(words))
    elif name == "glove":
        assert result[0] and all(w and "\n" not in w and "\t" not in w for w in result[0]), list(result[0])[:5]
    elif name == "sst":
        for label, ts in result[0][0]:
            assert 0 <= label < result[1], label
            tokens(ts)


class Target:
    def __init__(self, name, work):
        self.name, self.work, self.path = name, work, os.path.join(work, FILES[name])
        self.dir = os.path.dirname(self.path)
        os.makedirs(self.dir, exist_ok=True)
        self.tokens = TOKENS + [w if isinstance(w, bytes) else w.encode() for w in WORDS.get(name, [])]
        if name in ("cws_input", "cws_train", "cws_pd"):  # these read a file against the (valid) gold file
            gold = os.path.join(work, "gold", "msr_test_gold.utf8")
            os.makedirs(os.path.dirname(gold), exist_ok=True)
            with open(gold, "wb") as f:
                f.write(SEEDS["cws_gold"][0])
            self.gold = cws_read.Bakeoff(gold)
        if name == "ptb":
            for split, data in (("valid", SEEDS["ptb"][0]), ("test", SEEDS["ptb"][1])):
                with open(os.path.join(self.dir, f"ptb.{split}.txt"), "wb") as f:
                    f.write(data)
        if name == "nmt":  # check() needs every Multi30k file: 3 aligned lines each
            self.pipe = nmt.moses_tok.Pipeline("en")
            self.files = {(s, k, lang): (f"{s}.{k}.{lang}", text(EN)) for s in nmt.SPLITS for k in ("raw", "tok")
                          for lang in nmt.LANGS}

    def call(self, rng, p):
        n = self.name
        check = rng.random() < 0.1  # the published-count checks: mostly skipped, as with --no-check
        if n in ("snli_jsonl", "snli_tsv"):
            return snli.read_snli(self.dir, "snli_1.0_dev", not check)
        if n == "sick":
            return snli.read_sick(self.dir, not check)
        if n == "cws_gold":  # what main() does with a gold file under --protocol inhouse
            gold = cws_read.Bakeoff(p)
            cws.check_gold("msr", gold, not check)
            return cws.job_inhouse(self.work, "msr", gold)
        if n == "cws_words":
            return cws_read.read_word_list(p)
        if n == "cws_input":
            return cws.check_input(self.work, "msr", self.gold)
        if n == "cws_train":
            return cws.job_standard(self.work, "msr", self.gold, p, not check)
        if n == "cws_pd":   # protocol (d): the People's Daily file against the gold file (PKU's name not needed)
            return cws_pkupd.job_pkupd(self.dir, self.gold, not check)
        if n == "glove":
            return glove.read_glove(p, 3, True)
        if n == "sst":  # SST-2 or SST-5 (result: the reader's and the number of labels, for the check)
            labels = rng.choice((2, 5))
            return sst.read_split(p, labels), labels
        if n == "ptb":  # main(): the three splits read and checked, then written to out/ (valid, test: seeds)
            argv = ["ptb.py", "--raw", self.dir, "--out", os.path.join(self.work, "out")] + ["--no-check"] * (not check)
            with unittest.mock.patch.object(sys, "argv", argv):
                return ptb.main()
        if n == "nmt":  # read, the alignment / empty-line checks, and the tokenizer on every line (write_text)
            path, data = nmt.read(self.dir, FILES[n], "how to get it")
            # a de side of as many lines, half the time, so the tokenizer sees more than 3-line inputs; the
            # published counts are never checked (the small fixed files would fail them first)
            de = text(["ein Satz ."] * len(nmt.lines_of(data))) if rng.random() < 0.5 else text(EN)
            nmt.check({**self.files, (nmt.NEWS[0], "raw", "en"): (path, data),
                       (nmt.NEWS[0], "raw", "de"): ("newstest2014.de", de)}, True)
            return [self.pipe(line.decode("utf-8")) for line in nmt.lines_of(data)]

    def run(self, stored, gz, rng):
        """('ok' | 'rejected' | 'finding', detail): one execution on the stored bytes."""
        path = self.path + (".gz" if gz else "")
        for old in (self.path, self.path + ".gz"):
            if os.path.exists(old):
                os.remove(old)
        with open(path, "wb") as f:
            f.write(stored)
        out = io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):  # fail() prints, then exits
                result = self.call(rng, path)
            invariants(self.name, result)
            return "ok", None
        except SystemExit as e:
            err = out.getvalue()
            at = err.rfind(": error: ")
            msg = err[err.rfind("\n", 0, at) + 1:].rstrip("\n") if at >= 0 else err
            # bad bytes are on a line: a UTF-8 message must say which (file:line:)
            utf8_line = not re.search("utf-?8", msg.replace(path, ""), re.I) or \
                re.search(re.escape(path) + r":\d+", msg)
            if e.code == 2 and at >= 0 and path in msg and "\n" not in msg and utf8_line:
                # the message's pattern (quoted values and numbers out) tells whether the outcome is new
                return "rejected", VALUES.sub("_", msg.replace(path, "<file>"))[:160]
            return "finding", f"exit {e.code} without a one-line message naming {path} (and the line of bad " \
                              f"UTF-8):\n{err}"
        except BaseException as e:  # noqa: B036 -- also RecursionError, MemoryError, the hang alarm
            if isinstance(e, KeyboardInterrupt):
                raise
            return "finding", traceback.format_exc()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


class Hang(Exception):
    """The alarm's exception. Not TimeoutError: that is an OSError, which the readers report as unreadable."""


def on_alarm(*_):
    raise Hang(f"hang: one call took over {HANG_SECONDS} s")


def mutate(rng, data, pool, tokens):
    """A libFuzzer-style stack of 1-8 mutations."""
    for _ in range(rng.choice((1, 1, 2, 2, 3, 4, 8))):
        n, i = len(data), rng.randint(0, len(data))
        op = rng.randrange(11)
        if op == 0 and n:  # flip a bit
            i = rng.randrange(n)
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
        elif op == 1 and n:  # set a byte
            i = rng.randrange(n)
            data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
        elif op == 2:  # erase a run
            data = data[:i] + data[i + rng.choice((1, 1, 2, 4, 16, 256)):]
        elif op == 3:  # insert random bytes
            data = data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))) + data[i:]
        elif op in (4, 5):  # insert or overwrite with a dictionary token
            t = rng.choice(tokens)
            data = data[:i] + t + data[i + (len(t) if op == 5 else 0):]
        elif op == 6 and n:  # duplicate a chunk elsewhere
            a = rng.randrange(n)
            data = data[:i] + data[a:a + rng.randint(1, 64)] + data[i:]
        elif op == 7:  # a long run of one token or byte (deep nesting, huge numbers, long lines)
            t = rng.choice(tokens[:24] + [bytes([rng.randrange(256)])])
            data = data[:i] + t * rng.choice((2, 3, 16, 200, 1100, 5000)) + data[i:]
        elif op == 8:  # line surgery: delete, swap, or insert a copy, a blank or another input's line
            ls = data.split(b"\n")
            a, b, k = rng.randrange(len(ls)), rng.randrange(len(ls)), rng.randrange(5)
            if k == 0:
                ls[a:a + 1] = []
            elif k == 1:
                ls[a], ls[b] = ls[b], ls[a]
            else:
                ls.insert(a, [ls[b], rng.choice((b"", b"\r", b" ")), rng.choice(rng.choice(pool).split(b"\n"))][k - 2])
            data = b"\n".join(ls)
        elif op == 9:  # cross-over with another input
            other = rng.choice(pool)
            data = data[:i] + other[rng.randint(0, len(other)):]
        elif op == 10:  # a BOM in front, or a truncation
            data = b"\xef\xbb\xbf" + data if rng.random() < 0.3 else data[:i]
    return data[:MAX_LEN]


def fuzz(name, work, seconds, seed, out):
    """Runs one target; returns (seconds, executions, ok, rejected, distinct findings)."""
    rng = random.Random(f"{seed}:{name}")  # a string seed is hashed with sha512: same sequence every run
    target = Target(name, work)
    # good: accepted inputs (mostly mutated further, so that one mutation reaches past the first line);
    # pool: also the inputs that gave a new error message
    good, pool, seen, found, counts = list(SEEDS[name]), list(SEEDS[name]), set(), {}, dict.fromkeys(KINDS, 0)
    t0, execs = time.monotonic(), 0
    while execs < len(SEEDS[name]) or time.monotonic() - t0 < seconds:
        textual = True  # the reader sees `data` (plain, or intact gzip of it): it may join the pool
        if execs < len(SEEDS[name]):  # the seeds first, unchanged: a rejected seed is a harness bug
            data, gz, stored = pool[execs], False, pool[execs]
        else:
            data = mutate(rng, rng.choice(good if rng.random() < 0.7 else pool), pool, target.tokens)
            r = rng.random()
            gz, textual = r >= 0.6, r < 0.9  # compressed: the text's mutations, sometimes the stream's own
            stored = data if not gz else gzip.compress(data, mtime=0) if textual else \
                mutate(rng, gzip.compress(rng.choice(pool), mtime=0), pool, TOKENS)
        kind, detail = target.run(stored, gz, rng)
        if execs < len(SEEDS[name]) and kind != "ok":
            kind, detail = "finding", f"valid seed {execs} not accepted: {detail}"
        execs += 1
        counts[kind] += 1
        if kind == "finding":
            # one saved input and one printed traceback per distinct place: the frames and the exception type,
            # or the pattern of a bad message
            tb = detail.strip().splitlines()
            message = VALUES.sub("_", re.sub(re.escape(target.path) + r"(\.gz)?", "", tb[-1]))
            where = "\n".join(l for l in tb if l.startswith("  File"))[-300:] + tb[-1].split(":")[0] \
                if tb[0].startswith("Traceback") else message
            sig = hashlib.sha1(where.encode()).hexdigest()[:12]
            if sig not in found:
                os.makedirs(os.path.join(out, name), exist_ok=True)
                found[sig] = os.path.join(out, name, f"{sig}-{os.path.basename(FILES[name])}{'.gz' * gz}")
                with open(found[sig], "wb") as f:
                    f.write(stored)
                if len(found) <= 10:  # the rest only saved, so that the summary stays readable
                    print(f"FINDING {name} at execution {execs}, {time.monotonic() - t0:.1f} s (saved {found[sig]}, "
                          f"{len(stored)} bytes):\n{detail.rstrip()}\n", flush=True)
        elif textual and len(pool) < 5000:
            if kind == "ok" and rng.random() < 0.05:
                good.append(data)
                pool.append(data)
            elif kind == "rejected" and detail not in seen:  # a new error message
                seen.add(detail)
                pool.append(data)
    return time.monotonic() - t0, execs, counts["ok"], counts["rejected"], len(found)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10, help="seconds per reader (default 10)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the mutation sequence (default 1)")
    ap.add_argument("--readers", default=",".join(FILES), help="comma-separated, of: " + ", ".join(FILES))
    ap.add_argument("--out", default=os.path.join(ROOT, "fuzz-findings", "prep"), help="where findings go")
    ap.add_argument("--replay", metavar="FILE", help="run this one input through the (single) reader")
    a = ap.parse_args()
    names = [n for n in a.readers.split(",") if n]
    bad = [n for n in names if n not in FILES]
    if bad or not names or a.seconds < 0 or (a.replay and len(names) != 1):
        ap.error(f"unknown reader(s) {bad}" if bad else "--replay needs exactly one --readers name"
                 if a.replay else "--seconds must be >= 0 and --readers non-empty")
    work = tempfile.mkdtemp(prefix="fuzz_prep-")
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        if a.replay:  # (the run's own draws -- count checks, SST label set -- come from --seed, not the file)
            with open(a.replay, "rb") as f:
                stored = f.read()
            kind, detail = Target(names[0], work).run(stored, a.replay.endswith(".gz"), random.Random(a.seed))
            print(kind, detail or "")
            return 1 if kind == "finding" else 0
        total = 0
        print(f"{'reader':<12} {'seconds':>8} {'executions':>12} {'accepted':>9} {'rejected':>9} {'findings':>9}",
              flush=True)
        for n in names:
            secs, execs, ok, rejected, found = fuzz(n, os.path.join(work, n), a.seconds, a.seed, a.out)
            total += found
            print(f"{n:<12} {secs:8.1f} {execs:12d} {ok:9d} {rejected:9d} {found:9d}", flush=True)
        return 1 if total else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
