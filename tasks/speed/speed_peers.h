// `speed peers`: the suite and the reference programs measured in one sitting (issue 56, point 3).
//
//   build/bin/speed peers <experiments/speed/name.json> [--set k=v ...] [--rounds N] [--torch auto|off|PYTHON]
//                         [--torch-script PATH] [--from-runs] [--quiet]
//
// For every thread count x shape x cell of the experiment, in config order, N rounds; in each round every program
// that has a form of the cell measures that one configuration in a fresh process:
//   twinrnn  this binary on the one-configuration config (`speed <config>`), the suite's own cells;
//   onednn   this binary's `speed onednn` (onednn_lm.h): oneDNN's LSTM/GRU primitives, for lstm and gru;
//   pytorch  tasks/speed/torch_reference.py under Debian's python3-torch, for the cells it has (lstm, gru, atr, lrn,
//            ran, sru), with 1 intra-op thread and the configuration's thread count for BLAS (the best setting on
//            a 2-core machine, reference/torch_speed.md); skipped with a note when torch does not import (auto).
// The programs take turns A B C, then C B A in the next round, and so on (each position is held by every program
// equally often over an even number of rounds, so a drift in the machine does not favour one side). A process
// per measurement gives every program the same start (page cache, allocator, threads) and its own peak RSS
// (wait4's ru_maxrss), and a crash of one cannot take the sitting down: a failed run is recorded with its log and
// left out of the medians; a failed run of ours stops the sitting (its error is the user's to see).
// Outputs: <out>.json (machine, config, programs, every run, the medians with min-max per program x
// configuration, and the paired per-round ratios ours / each peer), <out>.md (the tables) and <out>.csv (the
// medians); <out>.runs/ keeps every run's config, report and log, so every number re-derives from the files. An
// <out>.runs/ that already holds runs (an earlier sitting's) is an error before anything runs: never mixed.
// --from-runs measures nothing: it re-reads every kept run's report and writes the summary, ratios and tables
// again (the same experiment and out as the sitting's; its config must equal the report's echo).
// The FMA peak a configuration's "% of peak" divides by is the highest any of our processes measured at that
// thread count (each process measures its own, best of three short loops; a busier moment gives less).
#pragma once
#include <string>
#include <vector>

#include "train/args.h"

namespace twin::speed {

CommandSpec peers_command();
int peers_main(int argc, char** argv);

// The order of the programs in round r (0-based): as given in even rounds, reversed in odd ones.
std::vector<std::string> peers_round_order(const std::vector<std::string>& programs, int round);

}  // namespace twin::speed
