// The nmt binary's modes besides training (DESIGN: "modes: train | translate | average"):
//   nmt translate <run|model.bin> [more models: an ensemble] [--beam N] [--nbest N] [--normalize none|length|gnmt]
//                 [--alpha A] [--batch N] [--split NAME | --input FILE] [--output FILE] [--attention FILE] [--scores FILE.json]
//   nmt average <run> [--last K] [--out FILE]
// (The speed benchmark, once `nmt bench`, is `speed nmt`: tasks/speed/nmt_bench.h.)
// A model is a run folder (its model.best.bin) or any parameter file (model.avg.bin, snapshots/...); each file
// carries the experiment config it was trained with, which gives the architecture, data and subword models.
#pragma once
#include <memory>
#include <string>

#include "nmt_task.h"

namespace twin::nmt {

struct LoadedModel {
  std::string file;
  NmtDataConfig data;
  NmtModelConfig model;
  DecodeConfig decode;
  SubwordPair subwords;
  std::unique_ptr<ParamStore> store;
  std::unique_ptr<RnnSearch> net;
};
std::unique_ptr<LoadedModel> load_model(const std::string& run_or_file);

// The two modes' command lines (train/args.h) and mains (argv[0] is "translate" / "average").
CommandSpec translate_command();
CommandSpec average_command();
int translate_main(int argc, char** argv);
int average_main(int argc, char** argv);

}  // namespace twin::nmt
