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

// A CWS run's parts (train/trained_run.h): what CwsTask trains and `cws segment` loads, built one way.
struct CwsParts : RunPartsOf<CwsVocab, CwsModel, parse_cws_data, parse_cws_model, cws_data_table, cws_model_table> {
  static constexpr RunKind kRun{"cws", "bigrams"};
  static std::unique_ptr<Model> make(const ModelConfig& m, const Data& d, const Vocabs& v, ParamStore& store);
  // vocab.chars.txt and, with data.bigrams, vocab.bigrams.txt
  static void save_vocabs(const Vocabs& v, const Data& d, const std::string& run_dir);
  static Vocabs load_vocabs(Data& d, const std::string& run_dir);
};

// A trained CWS model loaded from a run folder.
struct Segmenter : TrainedRun<Segmenter, CwsParts> {
  // One word list per line (empty for a line without characters); `source` names the input in errors.
  std::vector<std::vector<std::string>> segment(const std::vector<std::string>& lines,
                                                const BatchingOptions& batching, const std::string& source) const;
};

}  // namespace twin::cws
