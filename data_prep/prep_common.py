"""Helpers the data-prep scripts share: finding a plain or gzipped input, writing prep.json and putting a finished output folder in place
atomically (a run that fails leaves the previous folder as it was, never a half-written one), and the "own"
mode every script offers for a user's plain files (issue 29)."""
import contextlib
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import zlib


def messages(prog):
    """(fail, warn, note) of a data_prep script: each message starts with the script's name; fail is for bad
    input, so it exits with code 2 (no traceback)."""
    def fail(msg):
        print(f"{prog}: error: {msg}", file=sys.stderr)
        sys.exit(2)

    def warn(msg):
        print(f"{prog}: warning: {msg}", file=sys.stderr)

    def note(msg):
        print(f"{prog}: {msg}")
    return fail, warn, note


def write_prep_json(folder, meta):
    with open(os.path.join(folder, "prep.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(meta, f, indent=1, ensure_ascii=False)
        f.write("\n")


def swap_into_place(tmp, final, out, name):
    """Replaces `final` by the finished folder `tmp` (both under `out`): the old folder is moved aside, the new
    one renamed into place, then the old one deleted."""
    old = None
    if os.path.exists(final):
        old = tempfile.mkdtemp(prefix=f".{name}-old-", dir=out)
        os.rename(final, os.path.join(old, "x"))
    os.rename(tmp, final)
    if old:
        shutil.rmtree(old)


@contextlib.contextmanager
def new_folder(out, name, final):
    """`with new_folder(out, name, final) as tmp:` the block writes a fresh folder tmp under out (make_tmp), which
    then replaces final (swap_into_place); when the block fails, tmp is deleted and final left as it was."""
    tmp = make_tmp(out, name)
    try:
        yield tmp
        swap_into_place(tmp, final, out, name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def read_maybe_gz(path, fail, advice=""):
    """The bytes of path, decompressed (gzip.open) when its name ends in .gz; a file that cannot be read or a damaged
    .gz fails naming it, followed by advice."""
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read()
        with open(path, "rb") as f:
            return f.read()
    except (OSError, EOFError, zlib.error) as e:  # zlib.error: a damaged deflate stream inside the .gz
        fail(f"cannot read {path}: {e}{advice}")


def read_stored(path, fail):
    """(stored bytes, content): the file as stored and, for a .gz, decompressed (else the same bytes), for
    stored_info's two hashes; a file that cannot be read or a damaged .gz fails naming it."""
    try:
        with open(path, "rb") as f:
            stored = f.read()
        return stored, gzip.decompress(stored) if path.endswith(".gz") else stored
    except (OSError, EOFError, zlib.error) as e:  # zlib.error: a damaged deflate stream inside the .gz
        fail(f"cannot read {path}: {e}")


def stored_info(path, stored, data, **extra):
    """A source file's entry of prep.json: its path, size and sha256 as stored, then extra, then (for a .gz) the
    sha256 of its decompressed content."""
    info = {"path": os.path.abspath(path), "bytes": len(stored), "sha256": hashlib.sha256(stored).hexdigest(), **extra}
    if path.endswith(".gz"):
        info["sha256_decompressed"] = hashlib.sha256(data).hexdigest()
    return info


def find(folder, name):
    """folder/name or folder/name.gz, whichever exists, else None."""
    for p in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.isfile(p):
            return p
    return None


# ---- "own" mode: a user's plain files -> a prepared data.dir (issue 29) --------------------------------------
# Every script's own mode has the same command line: --own FILE (split 80/10/10 by order) or --own TRAIN DEV TEST,
# --name NAME (default: the one file's name without extension), --out ROOT; the result goes to ROOT/<name>_own/.
OWN_SPLITS = ("train", "dev", "test")
# The C++ readers' token separators (core/data/text.cc split_whitespace): ASCII whitespace and U+3000.
TOKEN_SEP = re.compile("[ \t\n\v\f\r\u3000]+")
OWN_SPLIT_RULE = ("with one file of n items (in file order), train = [0, floor(0.8 n)), dev = [floor(0.8 n), "
                  "floor(0.9 n)), test = the rest; with three files, train / dev / test as given")
OWN_HELP = ("your own data: one file, split 80/10/10 by order (first 80 %% train, next 10 %% dev, last 10 %% test), "
            "or three files TRAIN DEV TEST; written to OUT/<name>_own/")


def tokens_of(text):
    """Whitespace tokens as the C++ readers split them."""
    return [t for t in TOKEN_SEP.split(text) if t]


def own_name(name, paths, fail):
    """The folder name: --name, else the one input file's name without its extension(s)."""
    if name is None:
        if len(paths) != 1:
            fail("--name is needed with three files (it names the output folder <name>_own)")
        base = os.path.basename(paths[0])
        for ext in (".gz",):
            if base.endswith(ext):
                base = base[:-len(ext)]
        name = os.path.splitext(base)[0]
    if not name or not all(c.isalnum() or c in "_-." for c in name) or name.startswith("."):
        fail(f"--name {name!r}: use letters, digits, '_', '-' and '.' (it names the folder <name>_own)")
    return name


def own_paths(paths, fail, what="--own"):
    if len(paths) not in (1, 3):
        fail(f"{what} takes one file (split 80/10/10 by order) or three files (train, dev, test); got {len(paths)}")
    for p in paths:
        if not os.path.isfile(p):
            fail(f"no file {p} ({what})")
    return paths


def decode_utf8(data, path, fail, advice="the file must be UTF-8; convert it (e.g. iconv -f latin1 -t utf-8)"):
    """data (the bytes of path) as text; invalid UTF-8 stops naming file:line, the byte's offset in the line and its
    value, then `advice` (what the user should do about that file)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        start, line = data.rfind(b"\n", 0, e.start) + 1, data.count(b"\n", 0, e.start) + 1
        fail(f"{path}:{line}: invalid UTF-8 at byte {e.start - start} of the line ({e.reason}, byte "
             f"0x{data[e.start]:02x}): {advice}")


def read_utf8_lines(path, fail):
    """(lines, source info) of a user's text file: UTF-8 (a leading byte-order mark dropped), lines split at LF with
    one trailing CR dropped; invalid UTF-8 stops naming file:line and the byte; an empty file is an error."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e}")
    info = {"path": os.path.abspath(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    text = decode_utf8(data, path, fail)
    if text.startswith("\ufeff"):
        text = text[1:]
        info["utf8_bom_dropped"] = True
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [l[:-1] if l.endswith("\r") else l for l in lines]
    if not any(l.strip() for l in lines):
        fail(f"{path}: empty file (no line with text)")
    info["lines"] = len(lines)
    return lines, info


def split_by_order(items, path, fail):
    """[train, dev, test] slices of items (in order): cut points floor(0.8 n) and floor(0.9 n)."""
    n = len(items)
    a, b = n * 8 // 10, n * 9 // 10
    parts = [items[:a], items[a:b], items[b:]]
    for part, name in zip(parts, OWN_SPLITS):
        if not part:
            fail(f"{path}: the {name} split would be empty ({n} items in all; 80/10/10 by order needs at least 6, "
                 f"and realistically thousands): give more data, or three files train, dev, test")
    return parts


def line_range(line_nos):
    """First and last source line of a run of items, each a line number or a (first, last) pair."""
    if not line_nos:
        return {}
    first, last = line_nos[0], line_nos[-1]
    return {"first_line": first[0] if isinstance(first, tuple) else first,
            "last_line": last[1] if isinstance(last, tuple) else last}


def own_splits(paths, read_one, fail):
    """Reads the user's files with read_one(path) -> (items, line numbers, info) and returns
    ({split: items}, {split: source line range}, [source infos]): one file split 80/10/10 by order, or three."""
    if len(paths) == 1:
        items, line_nos, info = read_one(paths[0])
        pairs = split_by_order(list(zip(items, line_nos)), paths[0], fail)
        splits = {s: [x for x, _ in part] for s, part in zip(OWN_SPLITS, pairs)}
        ranges = {s: dict(file=paths[0], items=len(part), **line_range([l for _, l in part]))
                  for s, part in zip(OWN_SPLITS, pairs)}
        return splits, ranges, [info]
    splits, ranges, infos = {}, {}, []
    for s, p in zip(OWN_SPLITS, paths):
        items, line_nos, info = read_one(p)
        splits[s] = items
        ranges[s] = dict(file=p, items=len(items), **line_range(line_nos))
        infos.append(info)
    return splits, ranges, infos


def set_flag(key, value):
    """`--set key=value` as one shell word: strings stay plain unless they would parse as JSON (then quoted)."""
    if isinstance(value, str):
        try:
            json.loads(value)
            v = json.dumps(value, ensure_ascii=False)
        except ValueError:
            v = value
    else:
        v = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "--set " + shlex.quote(f"{key}={v}")


def train_command(task, experiment, sets):
    """The command that trains an existing experiment on the prepared folder (run from the repository root)."""
    return " ".join([f"build/bin/{task}", experiment] + [set_flag(k, v) for k, v in sets])


def make_tmp(out, name):
    """A fresh temporary folder under out (created) for the folder name, with the usual permissions."""
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=out)
    umask = os.umask(0o22)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it 0700
    return tmp
