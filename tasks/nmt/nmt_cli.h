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
#include "train/trained_run.h"

namespace twin::nmt {

// A model opened for decoding or averaging (train/trained_run.h), with its decode.* section.
struct LoadedModel : TrainedRun<LoadedModel, NmtParts> {
  DecodeConfig decode;
};
std::unique_ptr<LoadedModel> load_model(const std::string& run_or_file);

// The two modes' command lines (train/args.h) and mains (argv[0] is "translate" / "average").
CommandSpec translate_command();
CommandSpec average_command();
int translate_main(int argc, char** argv);
int average_main(int argc, char** argv);

}  // namespace twin::nmt
