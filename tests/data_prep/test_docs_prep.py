#!/usr/bin/env python3
"""data_prep/docs.py on hand-made IMDB and 20 Newsgroups archives (tarfile, a few documents per class): the exact
output lines (tokens, <br /> and cp1252 C1 characters, 20NG headers/footers/quotes removed or kept, Latin-1
posts, a post left empty), labels.txt, the .ids files, prep.json counts, the dev split (the rule, and the same in
two runs); each refusal (missing class folder, empty review, invalid UTF-8, wrong sha256, a bad member name, a
20NG test class absent from training, a missing or damaged archive) exits 2 naming the archive member and writes
nothing. On the real corpora (when $RAW_DATA, default ../shared/data, has them): the IMDB archive's sha256,
counts and manifest (about 10 s, no output), and a full 20NG run (about 20 s); set DOCS_PREP_FULL=1 to also
prepare IMDB whole (about 50 s). CLASSIFY_BIN (default build/bin/classify) checks the printed command with
--print-config when it exists. Standard library only; runs the script as a user would (a subprocess)."""
import gzip
import hashlib
import io
import json
import os
import shlex
import subprocess
import sys
import tarfile
import time
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "docs.py")
sys.path.insert(0, os.path.join(ROOT, "data_prep"))
CLASSIFY = os.environ.get("CLASSIFY_BIN", os.path.join(ROOT, "build", "bin", "classify"))
REAL_RAW = os.path.join(ROOT, os.environ.get("RAW_DATA", "../shared/data"))


def write_tar(path, members):
    """A .tar.gz of {member name: bytes} (sorted, fixed mtime: the same bytes every time)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(members[name]), 0
            tf.addfile(info, io.BytesIO(members[name]))
    with open(path, "wb") as f:
        f.write(gzip.compress(buf.getvalue(), mtime=0))


def dev_pick(names, k):
    """The script's dev rule, restated: the k names with the smallest sha256('dev:' + name)."""
    return set(sorted(names, key=lambda n: hashlib.sha256(("dev:" + n).encode()).hexdigest())[:k])


def changed(members, changes):
    """members with each change applied: name -> bytes (added or replaced) or None (removed)."""
    for k, v in changes.items():
        if v is None:
            del members[k]
        else:
            members[k] = v
    return members


def imdb_members(**changes):
    """5 train and 2 test reviews per class, README and an unsup review (skipped); changes: name -> bytes or None
    (removed)."""
    m = {"aclImdb/README": b"readme", "aclImdb/train/unsup/0_0.txt": b"unlabelled"}
    for i in range(5):
        m[f"aclImdb/train/neg/{i}_{1 + i % 4}.txt"] = f"Bad film number {i}.<br /><br />Avoid!!".encode()
        m[f"aclImdb/train/pos/{i}_{7 + i % 4}.txt"] = f"Good film number {i}, see it".encode()
    m["aclImdb/test/neg/10_4.txt"] = "Not good, not 3.5 stars.".encode()
    m["aclImdb/test/neg/2_2.txt"] = "Awful.<br />I hated it\u0085 don't".encode()
    m["aclImdb/test/pos/1_10.txt"] = "A well-made<BR/>film \u2014 10/10 \u201cwow\u201d".encode()
    m["aclImdb/test/pos/3_7.txt"] = "inter\u00adnational\ttreat\x08ok".encode()
    return changed(m, changes)


POST = ("From: a@b.c\nSubject: topic {i}\n\n"                              # headers, blank line
        "In article <x@y> z@w writes:\n> quoted line\nOwn words {i} here.\n"  # quotes, body
        "\n--\nSig\n")                                                       # footer


def ng_members(**changes):
    """5 train and 1-2 test posts in 3 newsgroups; one Latin-1 post, one CRLF post, one left empty by the
    removal."""
    m = {}
    for cls in ("sci.space", "alt.atheism", "rec.autos"):
        for i in range(5):
            m[f"20news-bydate-train/{cls}/{100 + i}"] = POST.format(i=i).encode()
        m[f"20news-bydate-test/{cls}/7"] = POST.format(i=7).encode()
    m["20news-bydate-test/rec.autos/20"] = b"From: x\r\nSubject: y\r\n\r\nCaf\xe9 cr\xe8me\r\n"  # Latin-1, CRLF
    m["20news-bydate-test/sci.space/9"] = b"From: q\n\n> only a quote\n"
    return changed(m, changes)


class DocsPrep(CorpusPrepCase):
    SCRIPT = SCRIPT

    def make(self, imdb=None, ng=None):
        for sub, name, members in (("imdb", "aclImdb_v1_labeled.tar.gz", imdb or imdb_members()),
                                   ("20newsgroups", "20news-bydate.tar.gz", ng or ng_members())):
            os.makedirs(os.path.join(self.raw, sub), exist_ok=True)
            write_tar(os.path.join(self.raw, sub, name), members)

    def run_prep(self, *extra, check=False):
        return super().run_prep(*extra, *([] if check else ["--no-check"]))

    def assert_fails(self, needles, *extra, check=False):
        self.assert_refused(*self.run_prep(*extra, check=check), needles)
        self.assertEqual(os.listdir(self.out) if os.path.isdir(self.out) else [], [], "nothing may be written")

    def test_imdb_output(self):
        self.make()
        code, msg = self.run_prep("--corpus", "imdb")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("imdb/test.txt"),
                         "0 Awful . I hated it \u2026 don't\n"          # <br /> gone, U+0085 -> cp1252's ellipsis
                         "0 Not good , not 3.5 stars .\n"               # numeric id order: 2 before 10
                         "1 A well-made film \u2014 10 / 10 \u201c wow \u201d\n"
                         "1 international treat ok\n")                  # soft hyphen dropped, a control -> space
        self.assertEqual(self.read("imdb/test.ids").split("\n")[:2], ["aclImdb/test/neg/2_2.txt",
                                                                      "aclImdb/test/neg/10_4.txt"])
        self.assertEqual(self.read("imdb/labels.txt"), "0\tneg\n1\tpos\n")
        train_ids = self.read("imdb/train.ids").split()
        dev_ids = self.read("imdb/dev.ids").split()
        for cls in ("neg", "pos"):  # 5 per class -> round(0.5) = 1 in dev (half up)
            names = [n for n in train_ids + dev_ids if f"/{cls}/" in n]
            self.assertEqual({n for n in dev_ids if f"/{cls}/" in n}, dev_pick(names, 1))
        self.assertNotIn("aclImdb/train/unsup/0_0.txt", train_ids + dev_ids)
        self.assertIn("0 Bad film number 0 . Avoid !!\n", self.read("imdb/train.txt") + self.read("imdb/dev.txt"))
        meta = json.loads(self.read("imdb/prep.json"))
        self.assertEqual([meta["splits"][s]["documents"] for s in ("train", "dev", "test")], [8, 2, 4])
        self.assertEqual(meta["splits"]["test"]["labels"], [2, 2])
        self.assertEqual(meta["splits"]["test"]["tokens"]["total"], 7 + 7 + 10 + 3)
        self.assertEqual(meta["splits"]["test"]["tokens"]["max"], 10)
        self.assertEqual(meta["reading"]["unsup_skipped"], 1)
        self.assertEqual(meta["cleaning_counts"]["c1_mapped_cp1252"], 1)
        self.assertEqual(meta["checks"], {"sha256": False, "published_counts": False, "manifest": False})
        self.assertFalse(os.path.exists(os.path.join(self.out, "20ng")))
        self.check_print_config(msg, os.path.join(self.out, "imdb"))

    def test_dev_split_is_the_same_in_two_runs(self):
        self.make()
        self.assertEqual(self.run_prep()[0], 0)
        first = {f: self.read(c, f) for c in ("imdb", "20ng") for f in ("train.txt", "dev.txt", "prep.json")}
        self.assertEqual(self.run_prep()[0], 0)
        self.assertEqual({f: self.read(c, f) for c in ("imdb", "20ng") for f in ("train.txt", "dev.txt",
                                                                                 "prep.json")}, first)

    def test_20ng_output(self):
        self.make()
        code, msg = self.run_prep("--corpus", "20ng")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("20ng/labels.txt"), "0\talt.atheism\n1\trec.autos\n2\tsci.space\n")
        # headers, the signature after "--" and the two quote lines are gone (scikit-learn's rules)
        self.assertEqual(self.read("20ng/test.txt"),
                         "0 Own words 7 here .\n1 Own words 7 here .\n1 Caf\u00e9 cr\u00e8me\n"
                         "2 Own words 7 here .\n2 <empty>\n")
        meta = json.loads(self.read("20ng/prep.json"))
        self.assertEqual(meta["reading"]["decoded_latin1"], 1)
        self.assertEqual(meta["reading"]["latin1_members"], ["20news-bydate-test/rec.autos/20"])
        self.assertEqual(meta["reading"]["posts_with_cr"], 1)
        self.assertEqual(meta["empty_after_removal"]["members"], ["20news-bydate-test/sci.space/9"])
        self.assertEqual(meta["removed"], {"headers": True, "footers": True, "quotes": True})
        self.assertEqual([meta["splits"][s]["documents"] for s in ("train", "dev", "test")], [12, 3, 5])
        self.assertEqual(meta["splits"]["dev"]["labels"], [1, 1, 1])
        self.check_print_config(msg, os.path.join(self.out, "20ng"))

    def test_20ng_keep_headers_goes_to_its_own_folder(self):
        self.make()
        code, msg = self.run_prep("--corpus", "20ng", "--keep", "headers,quotes")
        self.assertEqual(code, 0, msg)
        self.assertFalse(os.path.exists(os.path.join(self.out, "20ng")))
        self.assertEqual(self.read("20ng_keep_headers_quotes/test.txt").split("\n")[0],
                         "0 From : a @ b . c Subject : topic 7 In article < x @ y > z @ w writes : > quoted line "
                         "Own words 7 here .")
        meta = json.loads(self.read("20ng_keep_headers_quotes/prep.json"))
        self.assertEqual(meta["removed"], {"headers": False, "footers": True, "quotes": False})
        self.assert_refused(*self.run_prep("--corpus", "20ng", "--keep", "signature"), ["--keep signature"])

    def test_imdb_missing_class_folder(self):
        self.make(imdb=imdb_members(**{f"aclImdb/train/neg/{i}_{1 + i % 4}.txt": None for i in range(5)}))
        self.assert_fails(["aclImdb_v1_labeled.tar.gz", "no member aclImdb/train/neg/*.txt", "pos/ and neg/"])

    def test_imdb_empty_review(self):
        self.make(imdb=imdb_members(**{"aclImdb/train/pos/2_9.txt": b"<br /><br /> \n"}))
        self.assert_fails(["member aclImdb/train/pos/2_9.txt", "empty review"])

    def test_imdb_invalid_utf8(self):
        self.make(imdb=imdb_members(**{"aclImdb/test/neg/2_2.txt": b"caf\xe9"}))
        self.assert_fails(["member aclImdb/test/neg/2_2.txt", "invalid UTF-8 at byte 3", "0xe9"])

    def test_imdb_bad_file_name(self):
        self.make(imdb=imdb_members(**{"aclImdb/test/pos/review.txt": b"fine"}))
        self.assert_fails(["member aclImdb/test/pos/review.txt", "<id>_<rating>.txt"])

    def test_wrong_sha256_unless_no_check(self):
        self.make()
        self.assert_fails(["aclImdb_v1_labeled.tar.gz: sha256", "expected 93748be5a1e8", "--no-check"], check=True)
        self.assert_fails(["20news-bydate.tar.gz: sha256", "expected f934583ecd65"], "--corpus", "20ng", check=True)

    def test_20ng_test_class_absent_from_training(self):
        self.make(ng=ng_members(**{"20news-bydate-test/comp.graphics/1": b"From: a\n\nbody\n"}))
        self.assert_fails(["member 20news-bydate-test/comp.graphics/1", "no folder 20news-bydate-train/comp.graphics/"])

    def test_20ng_empty_post_and_bad_name(self):
        self.make(ng=ng_members(**{"20news-bydate-train/rec.autos/101": b" \n\n"}))
        self.assert_fails(["member 20news-bydate-train/rec.autos/101", "empty post"])
        self.make(ng=ng_members(**{"20news-bydate-train/rec.autos/.DS_Store": b"x"}))
        self.assert_fails(["member 20news-bydate-train/rec.autos/.DS_Store", "numeric id"])

    def test_bad_20ng_writes_no_imdb_either(self):
        self.make(ng=ng_members(**{"20news-bydate-train/rec.autos/101": b""}))
        self.assert_fails(["member 20news-bydate-train/rec.autos/101"])  # --corpus all: imdb was fine

    def test_missing_and_damaged_archive(self):
        self.make()
        os.remove(os.path.join(self.raw, "imdb", "aclImdb_v1_labeled.tar.gz"))
        self.assert_fails(["missing", "imdb/aclImdb_v1_labeled.tar.gz", "SOURCE.md"])
        with open(os.path.join(self.raw, "imdb", "aclImdb_v1_labeled.tar.gz"), "wb") as f:
            f.write(b"\x1f\x8b\x08\x00not really gzip")
        self.assert_fails(["cannot read", "aclImdb_v1_labeled.tar.gz"])

    def test_failed_run_keeps_the_previous_output(self):
        self.make()
        self.assertEqual(self.run_prep("--corpus", "imdb")[0], 0)
        before = self.read("imdb/train.txt")
        self.make(imdb=imdb_members(**{"aclImdb/train/pos/2_9.txt": b""}))
        self.assertEqual(self.run_prep("--corpus", "imdb")[0], 2)
        self.assertEqual(self.read("imdb/train.txt"), before)
        self.assertEqual(sorted(os.listdir(self.out)), ["imdb"])

    def check_print_config(self, msg, folder):
        """The printed training command, with --print-config (reads and checks the data like a run), exit 0."""
        if not os.access(CLASSIFY, os.X_OK):
            print(f"\n  (skipped the --print-config check: no {CLASSIFY}; set CLASSIFY_BIN)", file=sys.stderr)
            return
        line = next(l.strip() for l in msg.splitlines() if l.strip().startswith("build/bin/classify "))
        args = shlex.split(line)
        p = subprocess.run([CLASSIFY] + args[1:] + ["--set", f"out_dir={self.tmp.name}/run", "--print-config"],
                           cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(json.loads(p.stdout)["data"]["dir"], folder)


@unittest.skipUnless(os.path.isfile(os.path.join(REAL_RAW, "imdb", "aclImdb_v1_labeled.tar.gz"))
                     and os.path.isfile(os.path.join(REAL_RAW, "20newsgroups", "20news-bydate.tar.gz")),
                     f"the real corpora are not in {REAL_RAW} (RAW_DATA)")
class RealCorpora(CorpusPrepCase):
    SCRIPT = SCRIPT

    def test_imdb_archive_sha256_counts_and_manifest(self):
        import docs  # in-process: read and check only (the full run is DOCS_PREP_FULL=1)
        start = time.time()
        folder = os.path.join(REAL_RAW, "imdb")
        archive = os.path.join(folder, "aclImdb_v1_labeled.tar.gz")
        members, info = docs.read_archive(archive, {"sha256": docs.CORPORA["imdb"]["sha256"]})
        found, _ = docs.imdb_documents(archive, members)
        docs.check_counts("imdb", archive, found)
        manifest = docs.check_manifest("imdb", os.path.join(folder, "manifest.tsv.gz"), archive, members, found)
        self.assertEqual(manifest["documents_checked"], 50000)
        print(f"\n  (IMDB archive checked in {time.time() - start:.1f} s)", file=sys.stderr)

    def test_20ng_full_run(self):
        start = time.time()
        p = subprocess.run([sys.executable, SCRIPT, "--raw", REAL_RAW, "--out", self.out, "--corpus", "20ng"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        meta = json.loads(self.read("20ng/prep.json"))
        self.assertEqual([meta["splits"][s]["documents"] for s in ("train", "dev", "test")], [10182, 1132, 7532])
        self.assertEqual(meta["num_labels"], 20)
        self.assertEqual(meta["checks"], {"sha256": True, "published_counts": True, "manifest": True})
        self.assertEqual(meta["reading"]["decoded_latin1"], 73)
        print(f"\n  (20NG prepared in {time.time() - start:.1f} s)", file=sys.stderr)

    @unittest.skipUnless(os.environ.get("DOCS_PREP_FULL") == "1", "IMDB whole takes about 50 s: DOCS_PREP_FULL=1")
    def test_imdb_full_run(self):
        p = subprocess.run([sys.executable, SCRIPT, "--raw", REAL_RAW, "--out", self.out, "--corpus", "imdb"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        meta = json.loads(self.read("imdb/prep.json"))
        self.assertEqual([meta["splits"][s]["documents"] for s in ("train", "dev", "test")], [22500, 2500, 25000])
        self.assertEqual([meta["splits"][s]["labels"] for s in ("dev", "test")], [[1250, 1250], [12500, 12500]])


if __name__ == "__main__":
    unittest.main(verbosity=2)
