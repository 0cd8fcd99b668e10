"""Which word embeddings a run started from, read from its resolved config (issue 52): random, or the GloVe 6B
100d vectors frozen or fine-tuned, and how much of the corpus the vectors covered. The tables keep runs of
different embeddings apart (a GloVe run is never pooled with the random-embedding runs of its corpus), and the
seeds protocols check a run's config against the embeddings they stand for. Standard library only.
"""
import os
import re

from run_files import RunError, read_json

MODES = ("frozen", "finetune")   # tools/glove_mode.py's names of the two GloVe modes
TEXT = {"random": "random embeddings", "frozen": "GloVe 6B 100d frozen", "finetune": "GloVe 6B 100d fine-tuned"}
# The experiment files quote data_prep/glove.py's glove.json: "91.5 % of training tokens covered" (SNLI and the
# documents add "lowercased", the case their runs read the text in).
TOKEN_COVERAGE = re.compile(r"(\d+(?:\.\d+)?) % of training tokens covered")


def mode_of_config(cfg):
    """"random" when data.embeddings is empty or absent (CWS has no such key: characters start random), else
    "frozen" or "finetune" by model.freeze_embeddings."""
    data = cfg.get("data", {}) if isinstance(cfg.get("data"), dict) else {}
    if not data.get("embeddings"):
        return "random"
    model = cfg.get("model", {}) if isinstance(cfg.get("model"), dict) else {}
    return "frozen" if model.get("freeze_embeddings") else "finetune"


def run_mode(d):
    """mode_of_config of run folder d, None when it has no readable config.resolved.json (nothing to check)."""
    try:
        return mode_of_config(read_json(os.path.join(d, "config.resolved.json")))
    except RunError:
        return None


def group(base, cfg):
    """A table's section name for a run of corpus `base`: the corpus for random embeddings, else
    <corpus>_glove_<mode> (so e.g. inhouse and inhouse_glove_frozen are listed apart, side by side)."""
    mode = mode_of_config(cfg)
    return base if mode == "random" else f"{base}_glove_{mode}"


def token_coverage(source):
    """The share of training tokens with a vector (%) an experiment's `source` text quotes, or None."""
    text = " ".join(source) if isinstance(source, list) else str(source or "")
    m = TOKEN_COVERAGE.search(text)
    return float(m.group(1)) if m else None


def vocabulary_coverage(summary):
    """(vocabulary rows loaded from the vectors file, vocabulary size or None), or None for a run without the
    count (random embeddings write 0; the SNLI task records no vocabulary size)."""
    found = summary.get("embedding_rows_from_file")
    if not isinstance(found, int) or isinstance(found, bool) or found <= 0:
        return None
    vocab = summary.get("vocab")
    return found, vocab if isinstance(vocab, int) and not isinstance(vocab, bool) and vocab > 0 else None


def vocabulary_text(summary):
    """"12,345 of 15,000 words (82.3 %)", "12,345 words" or "–"."""
    cov = vocabulary_coverage(summary)
    if cov is None:
        return "–"
    found, vocab = cov
    return f"{found:,} of {vocab:,} words ({100 * found / vocab:.1f} %)" if vocab else f"{found:,} words"
