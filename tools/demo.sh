#!/usr/bin/env bash
# `make demo`: prepares PTB from $RAW_DATA (once), then trains ATR (tanh output, the variant of the LRN
# paper's ATR rows; identity-output ATR is unstable under this SGD lr 1.0 recipe) on the PTB small recipe (Zaremba et al.
# 2014) under a 5-minute budget and prints validation perplexity, training words/s, the run folder and the
# learning curve it leaves there (figures/learning_curves_lm.png).
set -euo pipefail
cd "$(dirname "$0")/.."
RAW_DATA=${RAW_DATA:-../shared/data}
MINUTES=${DEMO_MINUTES:-5}

if [ ! -f data/ptb/train.txt ]; then
  if ! ls "$RAW_DATA"/ptb/ptb.train.txt* > /dev/null 2>&1; then
    cat >&2 <<MSG
demo: the Penn Treebank is not at $RAW_DATA/ptb/.
      Put Mikolov's ptb.train.txt (or .txt.gz), ptb.valid.txt and ptb.test.txt (from simple-examples.tgz)
      into a folder <dir>/ptb/ and run:  RAW_DATA=<dir> make demo
MSG
    exit 2
  fi
  python3 data_prep/ptb.py --raw "$RAW_DATA/ptb" --out data/ptb
fi

run="runs/demo_atr_tanh_small_$(date +%Y%m%d-%H%M%S)"
echo "demo: training ATR-tanh (PTB small recipe) for up to $MINUTES minutes -> $run"
build/bin/lm experiments/lm/atr_tanh_small.json --set "train.max_minutes=$MINUTES" --set "out_dir=$run" \
  --set train.log_every=50 --set train.eval_every=250 > /dev/null
python3 - "$run" <<'PY'
import json, sys
run = sys.argv[1]
s = json.load(open(f"{run}/summary.json"))
print(f"demo: {s['steps']} steps ({s['stop_reason']}), validation perplexity {s['dev']['ppl']:.1f}, "
      f"test perplexity {s['test']['ppl']:.1f}")
print(f"demo: {s['train_units_per_s']:.0f} training words/s on {s['threads']} threads, "
      f"{s['params']:,} parameters; run folder: {run}")
PY
# The learning curve of this run (dev perplexity against steps and wall time) as a PNG beside it; matplotlib is
# Debian's (make deps), so /usr/bin/python3.
if /usr/bin/python3 plots/make_figures.py --only learning_curves --run "$run" > /dev/null; then
  echo "demo: learning curve: $run/figures/learning_curves_lm.png"
else
  echo "demo: no learning-curve figure (plots/make_figures.py --only learning_curves --run $run says why)" >&2
fi
