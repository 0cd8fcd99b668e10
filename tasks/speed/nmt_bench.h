// speed nmt: the NMT speed benchmark (the ATR paper's Table 4 on this machine), run as
//   build/bin/speed nmt <experiment.json> [--set k=v ...] [--cells atr,gru,lstm] [--steps N] [--sentences N]
//                       [--threads N] [--out PREFIX] [--shaped-corpus V [--shaped-len L] [--shaped-pairs N]]
// It was `build/bin/nmt bench` until issue 28 put every benchmark in this folder and binary; nmt bench now
// says where it went. What it measures: nmt_bench.cc.
#pragma once
#include "train/args.h"

namespace twin::speed {

CommandSpec nmt_bench_command();   // its command line (usage, errors, --help)
// argv[0] is "nmt". Returns 0; throws twin::Error on bad flags or a bad experiment.
int nmt_bench_main(int argc, char** argv);

}  // namespace twin::speed
