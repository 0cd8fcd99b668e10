#!/usr/bin/env python3
"""`make tables`: every results table from the committed run folders (results/runs/) and the speed task's
JSON files (results/speed/) alone, each as markdown with a CSV beside it (standard library only):

  lm.md / lm.csv                      PTB language model (plots/lm_table.py)
  nmt.md / nmt.csv, nmt_ensembles.csv NMT, ATR paper Tables 2/4 (plots/nmt_table.py; + results/nmt_extra/*.json)
  dtmt.md / dtmt.csv                  DTMT (issue 57): the DTMT runs, the depth study and the shallow GRU / ATR
                                      baselines, with "deep transition beats shallow" judged by claims.md's rule
                                      (plots/dtmt_table.py; names the issue's queued runs not committed yet)
  cws.md / cws.csv                    CWS, Table 7 (plots/cws_table.py)
  ner.md / ner.csv                    NER, the LRN paper's sixth task (plots/ner_table.py)
  snli.md / snli.csv                  NLI, Table 6 (plots/snli_table.py; says so when no run is committed yet)
  rc.md / rc.csv                      reading comprehension, R-Net on SQuAD, the LRN paper's sixth task
                                      (plots/rc_table.py; says so when no run is committed yet; its paired tests
                                      from the runs' stats/test.tsv, else from ./data/squad when prepared)
  classify.md                         sentence classification, SST-2/SST-5 (plots/classify_table.py)
  claims.md / claims.csv              the three papers' claims, each with our evidence and a verdict by a stated
                                      rule (plots/claims_table.py)
  tuned.md / tuned.csv                the cells after the same tuning budget (plots/tune_table.py), from the
                                      tools/tune.py sweeps in --sweeps (default <runs>/../sweeps)
  speed.md / speed.csv, speed_all.csv (+ speed_memory.csv)  speed, Table 4 on a CPU, from the one sitting of
                                      <speed>/lm_peers.json (plots/speed_sitting.py; ours, oneDNN, PyTorch, the
                                      goals, memory); without it from lm.json + lm_torch.json (+ speed_torch.csv)
  speed_peers.md / speed_peers.csv    ours, oneDNN and PyTorch in one sitting with issue 56's goals
                                      (plots/peers_table.py), when <speed>/peers.json (`speed peers`) is there
  scale.md (tables between its markers)  data-parallel scaling (plots/scale_table.py), from <runs>/../scale/runs
                                      when that folder and <out>/scale.md are there
  scale_plan.md                       the WMT14-scale MPI plan (plots/scale_plan.py), when <speed>/nmt_wmt14_shape.json
                                      (speed nmt --shaped-corpus) is there
  table1.md / table1.csv              Table 1, WM / MT counted from the cells (plots/table1_table.py)
  cells.md / cells.csv, cells_paper.csv  the cross-task comparison (plots/cells_table.py), also written into
                                      README.md between its `<!-- cells table begin ... -->` / `end` markers
                                      (and lm_table.readme_block between `<!-- lm recipe begin ... -->` / `end`)

usage: make_tables.py [--runs results/runs] [--speed results/speed] [--nmt-extra DIR] [--out results]
                      [--readme README.md | --no-readme]

--nmt-extra defaults to nmt_extra/ beside the --runs folder (results/nmt_extra). A run folder or file that
cannot be read is reported on stderr (its path and what is wrong) and left out, and the tables are written
from what remains (exit status 0; without a usable <speed>/lm.json, speed.md and table1.md are not written,
which is reported too). Exit status 1 only when a table failed in a way the loaders did not foresee (reported,
the other tables still written), 2 on bad options (a --runs or --speed folder that does not exist).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cells_table  # noqa: E402
import claims_table  # noqa: E402
import classify_table  # noqa: E402
import cws_table  # noqa: E402
import dtmt_table  # noqa: E402
import lm_table  # noqa: E402
import ner_table  # noqa: E402
import nmt_table  # noqa: E402
import rc_table  # noqa: E402
import scale_plan  # noqa: E402
import scale_table  # noqa: E402
import snli_table  # noqa: E402
import peers_table  # noqa: E402
import speed_table  # noqa: E402
import seeds_table  # noqa: E402
import table1_table  # noqa: E402
import tune_table  # noqa: E402

SCRIPT = "make_tables.py"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="results/runs", help="run folders (<task>_<name>/)")
    ap.add_argument("--speed", default="results/speed", help="the speed task's lm_peers.json (one sitting) or lm.json, lm_torch.json, lm_rss.json")
    ap.add_argument("--nmt-extra", default=None, help="nmt translate --scores files (default: <runs>/../nmt_extra)")
    ap.add_argument("--out", default="results", help="where the tables go")
    ap.add_argument("--sweeps", default=None, help="tools/tune.py sweep folders (default: <runs>/../sweeps)")
    ap.add_argument("--readme", default="README.md", help="the README whose cells-table block is rewritten")
    ap.add_argument("--no-readme", action="store_true", help="leave the README alone")
    ap.add_argument("--reference", default="../shared/reference/torch_speed.md",
                    help="PyTorch numbers for speed.md when <speed>/lm_torch.json is missing")
    a = ap.parse_args()
    for opt, d in (("--runs", a.runs), ("--speed", a.speed)):
        if not os.path.isdir(d):
            ap.error(f"{opt} {d}: no such directory")
    extra = a.nmt_extra if a.nmt_extra is not None else os.path.join(os.path.dirname(os.path.normpath(a.runs)),
                                                                     "nmt_extra")
    out = lambda name: os.path.join(a.out, name)

    failed = []

    def step(name, fn):
        """Runs one table; a failure the loaders did not foresee is reported, not a traceback."""
        try:
            return fn()
        except Exception as e:  # noqa: BLE001  (the last net: the loaders report bad input themselves)
            print(f"{SCRIPT}: {name} not written: {type(e).__name__}: {e}", file=sys.stderr)
            failed.append(name)
            return None

    lm = step("lm runs", lambda: lm_table.load(a.runs)) or []
    nmt = step("nmt runs", lambda: nmt_table.load(a.runs)) or []
    cws = step("cws runs", lambda: cws_table.load(a.runs)) or []
    snli = step("snli runs", lambda: snli_table.load(a.runs)) or []
    speed = step("speed files", lambda: speed_table.load_dir(a.speed, SCRIPT))
    step("lm.md", lambda: lm_table.write(lm, out("lm.md")))
    step("nmt.md", lambda: nmt_table.write(nmt, nmt_table.load_extra(extra), out("nmt.md"),
                                           os.path.join(a.speed, "nmt.csv")))
    step("dtmt.md", lambda: dtmt_table.write(dtmt_table.load(a.runs), out("dtmt.md"), a.runs))
    step("cws.md", lambda: cws_table.write(cws, out("cws.md")))
    ner = step("ner runs", lambda: ner_table.load(a.runs)) or []
    step("ner.md", lambda: ner_table.write(ner, out("ner.md")))
    step("snli.md", lambda: snli_table.write(snli, out("snli.md")))
    rc = step("rc runs", lambda: rc_table.load(a.runs)) or []
    step("rc.md", lambda: rc_table.write(rc, out("rc.md")))
    step("classify.md", lambda: classify_table.build(a.runs, out("classify.md")))
    if speed is None or speed["ours"] is None:   # reported by the loader; the other tables still stand
        print(f"{SCRIPT}: speed.md and table1.md not written (no usable {os.path.join(a.speed, 'lm_peers.json')} "
              f"or {os.path.join(a.speed, 'lm.json')})",
              file=sys.stderr)
    else:
        step("speed.md", lambda: speed_table.write(speed, out("speed.md"), a.reference))
        step("table1.md", lambda: table1_table.write(speed, out("table1.md")))
    peers = os.path.join(a.speed, "peers.json")
    if os.path.exists(peers):
        step("speed_peers.md", lambda: peers_table.main(["--peers", peers, "--out", out("speed_peers.md")]))
    shape = os.path.join(a.speed, "nmt_wmt14_shape.json")
    if os.path.exists(shape):
        step("scale_plan.md", lambda: scale_plan.build(shape, out("scale_plan.md")))
    scale_runs = os.path.join(os.path.dirname(os.path.normpath(a.runs)), "scale", "runs")
    if os.path.isdir(scale_runs) and os.path.exists(out("scale.md")):
        step("scale.md", lambda: scale_table.build(scale_runs, out("scale.md")))
    sweeps = a.sweeps if a.sweeps is not None else os.path.join(os.path.dirname(os.path.normpath(a.runs)), "sweeps")
    step("tuned.md", lambda: tune_table.main(["--sweeps", sweeps, "--out", out("tuned.md")]))
    step("claims.md", lambda: claims_table.main(["--runs", a.runs, "--sweeps", sweeps, "--speed", a.speed,
                                                 "--out", out("claims.md")]))
    seeds = step("seeded runs", lambda: seeds_table.load(a.runs)) or {}
    step("seeds.md", lambda: seeds_table.write(seeds, out("seeds.md")))
    step("cells.md", lambda: cells_table.write(lm, nmt, cws, snli, speed, a.runs, out("cells.md"),
                                               None if a.no_readme else a.readme, seeds, rc))
    if failed:
        print(f"{SCRIPT}: not written: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
