// `cws segment`: a trained segmenter applied to new text (issue 29).
//   build/bin/cws segment <run> [--input FILE] [--output FILE] [--batch N] [--threads N]
// reads raw UTF-8 text, one sentence per line (stdin by default), and writes each line's words separated by
// two spaces (the bakeoff format the run's own segmented/ files use), one line out per line in. Whitespace in
// the input is dropped before segmenting (the model sees characters only); an empty line stays empty. The
// model is <run>/model.best.bin with the run's config.resolved.json; the character vocabulary is the run's
// vocab.chars.txt (written when training finishes) or, for runs that predate it, rebuilt from the training
// split the config names (the same deterministic build the run used; a note says so).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cws_data.h"
#include "cws_model.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::cws {

// The mode's command line (train/predict_cli.h).
int segment_main(int argc, char** argv);   // argv[0] is "segment"
inline constexpr PredictMode kSegmentMode{"cws segment",
    "raw UTF-8 text, one sentence per line",
    "each line's words separated by two spaces",
    segment_main};

// A trained CWS model loaded from a run folder.
struct Segmenter : TrainedModel<CwsDataConfig, CwsModelConfig, CwsVocab, CwsModel> {

  static Segmenter load(const std::string& run_dir);
  // One word list per line (empty for a line without characters); `where(i)` names line i in errors.
  std::vector<std::vector<std::string>> segment(const std::vector<std::string>& lines, int batch,
                                                const std::string& source) const;
};

// The vocabulary files a run keeps beside its model (written by CwsTask::finish).
void save_vocab(const CwsVocab& v, const std::string& run_dir, bool bigrams);

}  // namespace twin::cws
