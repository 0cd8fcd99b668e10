"""Helpers the figure scripts share (plots/make_figures.py and the modules it calls): the Agg backend and a
font fallback list for CJK / German text, reading run-folder files with errors that name what was wrong,
the report of written and skipped figures, and deterministic saving (PNG + PDF)."""
import contextlib
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)
from matplotlib import font_manager  # noqa: E402

# DejaVu Sans first (Latin, German umlauts, Greek, the SentencePiece "▁"), then a CJK font (Debian
# fonts-wqy-microhei, in the Makefile's DEB_PACKAGES). matplotlib >= 3.6 falls back glyph by glyph.
FONTS = ["DejaVu Sans", "WenQuanYi Micro Hei"]
DPI = 150
# Fixed metadata: no creation date or software version, so rerunning on the same data rewrites the same bytes.
PNG_META = {"Software": None}
PDF_META = {"CreationDate": None, "Producer": None, "Creator": None}


class Bad(Exception):
    """A malformed input: the message says what was wrong, path (when known) which file."""

    def __init__(self, msg, path=None):
        super().__init__(msg)
        self.path = path


@contextlib.contextmanager
def reading(path):
    """Any exception raised inside becomes Bad naming path (unless it already names a file)."""
    try:
        yield
    except Bad as e:
        e.path = e.path or path
        raise
    except Exception as e:  # noqa: BLE001
        raise Bad(describe(e), path) from None


def setup_fonts():
    """Sets the font fallback list; warns once on stderr when a listed font is not installed."""
    found = []
    for name in FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
            found.append(name)
        except ValueError:
            print(f"make_figures: warning: font '{name}' not installed (Debian: fonts-wqy-microhei); "
                  "CJK characters will render as boxes", file=sys.stderr)
    matplotlib.rcParams["font.family"] = found or ["DejaVu Sans"]
    matplotlib.rcParams["svg.hashsalt"] = "twinrnn"
    matplotlib.rcParams["axes.titlesize"] = "medium"


def describe(e):
    """A one-line description of an exception raised while reading or plotting one input."""
    if isinstance(e, Bad):
        return str(e)
    if isinstance(e, KeyError):
        return f"missing key {e.args[0]!r}"
    return f"{type(e).__name__}: {e}"


def load_json(path):
    """The parsed JSON file; Bad (missing, unreadable, not JSON) otherwise."""
    if not os.path.exists(path):
        raise Bad("file missing")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise Bad(f"bad JSON (line {e.lineno}, column {e.colno}: {e.msg})")
    except (OSError, UnicodeDecodeError) as e:
        raise Bad(f"unreadable ({e})")


def need(obj, key, kind=None, what=None):
    """obj[key], checked to be a kind (e.g. list, dict); Bad names the key otherwise."""
    if not isinstance(obj, dict):
        raise Bad(f"{what or 'value'} is {type(obj).__name__}, not an object")
    if key not in obj:
        raise Bad(f"missing key '{key}'" + (f" in {what}" if what else ""))
    v = obj[key]
    if kind is not None and not isinstance(v, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise Bad(f"'{key}'" + (f" in {what}" if what else "") + f" is {type(v).__name__}, not {names}")
    return v


def numbers(seq, what):
    """seq as a list of floats; Bad when an element is not a number."""
    if not isinstance(seq, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in seq):
        raise Bad(f"{what} is not a list of numbers")
    return [float(x) for x in seq]


class Report:
    """What was written and skipped; problems (malformed inputs) also go to stderr at once, by path."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.written = []     # figure names
        self.skipped = []     # (path, why)
        self.problems = 0
        self.manifest = {}    # figure name -> {"sources": [...], facts shown in the figure}

    def problem(self, path, what):
        if (path, what) in self.skipped:
            return   # the same file read for another figure
        self.problems += 1
        self.skipped.append((path, what))
        print(f"make_figures: skipped {path}: {what}", file=sys.stderr)

    def note(self, path, what):
        self.skipped.append((path, what))

    def guard(self, path, fn, *args, **kwargs):
        """fn(*args, **kwargs), or None after reporting the exception against path (never a traceback)."""
        try:
            return fn(*args, **kwargs)
        except Bad as e:
            self.problem(e.path or path, str(e))
        except Exception as e:  # noqa: BLE001  any failure on one input skips that input only
            self.problem(path, describe(e))
        return None

    def save(self, fig, name, sources, **facts):
        os.makedirs(self.out_dir, exist_ok=True)
        base = os.path.join(self.out_dir, name)
        try:
            fig.savefig(base + ".png", dpi=DPI, metadata=PNG_META)
            fig.savefig(base + ".pdf", dpi=DPI, metadata=PDF_META)
        finally:
            plt.close(fig)
        self.written.append(name)
        self.manifest[name] = {"sources": sorted(sources), **facts}

    def write_manifest(self):
        path = os.path.join(self.out_dir, "figures.json")
        body = {"figures": self.manifest, "skipped": [{"path": p, "why": w} for p, w in self.skipped]}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(body, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        return path

    def summary(self):
        lines = [f"make_figures: wrote {len(self.written)} figures (.png and .pdf) to {self.out_dir}/:"]
        lines += [f"  {n}" for n in self.written]
        if self.skipped:
            lines.append(f"make_figures: skipped {len(self.skipped)} ({self.problems} malformed, reported on stderr):")
            lines += [f"  {p}: {w}" for p, w in self.skipped]
        return "\n".join(lines)


def run_dirs(runs):
    """Sorted run folders under runs (directories only)."""
    if not os.path.isdir(runs):
        raise Bad("folder missing")
    return [os.path.join(runs, n) for n in sorted(os.listdir(runs)) if os.path.isdir(os.path.join(runs, n))]


def pick_sentence(lengths, index=None, lo=8, hi=16):
    """Index of the sentence to draw: `index` when given (Bad if out of range), else the first whose length is
    in [lo, hi], else the one closest to that range (the shortest above it or the longest below it)."""
    if not lengths:
        raise Bad("no sentences")
    if index is not None:
        if not 0 <= index < len(lengths):
            raise Bad(f"--sentence {index} out of range (0..{len(lengths) - 1})")
        return index
    for k, n in enumerate(lengths):
        if lo <= n <= hi:
            return k
    return min(range(len(lengths)), key=lambda k: (max(lo - lengths[k], lengths[k] - hi), k))


def plain_text(ax, x, y, s, **kw):
    """ax.text without mathtext parsing (tokens like '$' stay literal)."""
    return ax.text(x, y, s, parse_math=False, **kw)
