// `ner tag`: a trained tagger applied to new text (issue 29).
//   build/bin/ner tag <run> [--input FILE] [--output FILE] [--batch N] [--threads N]
// reads one tokenised sentence per line (tokens separated by spaces; stdin by default) and writes CoNLL-style
// lines: `token<TAB>tag` per token and a blank line after each sentence, the tags in BIO (IOB2), the scheme of
// the run's predictions/ files and of data_prep/ner.py's files, whatever data.scheme the CRF was trained in (its
// BIOES or IOB1 output is converted by conlleval's chunk rules, eval/spans.h). An empty line is an empty
// sentence (just the blank line). Words outside the vocabulary are fed as <unk> (lowercased first when the run
// was trained with data.lowercase), as in training. The model is <run>/model.best.bin with the run's
// config.resolved.json; the vocabularies are the run's vocab.words.txt, vocab.chars.txt and tags.txt (written
// when training finishes) or, for runs that predate them, rebuilt from the training split the config names
// (the same deterministic build the run used; a note says so).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ner_data.h"
#include "ner_model.h"
#include "train/kept_vocabs.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::ner {

// The mode's command line (train/predict_cli.h).
int tag_main(int argc, char** argv);   // argv[0] is "tag"
inline constexpr PredictMode kTagMode{"ner tag",
    "one tokenised sentence per line (tokens separated by spaces)",
    "CoNLL lines: token<TAB>tag per token (BIO tags), a blank line after each sentence",
    tag_main};

// A NER run's parts (train/trained_run.h): what NerTask trains and `ner tag` loads, built one way.
// Its vocabularies are kept as NerVocab's files (vocab.words.txt, vocab.chars.txt and tags.txt).
struct NerParts : RunPartsOf<NerVocab, NerModel, parse_ner_data, parse_ner_model, ner_data_table, ner_model_table>,
                  WordCharParts<NerVocab> {
  static constexpr RunKind kRun{"ner", "scheme"};
  static std::unique_ptr<Model> make(const ModelConfig& m, const Data& d, const Vocabs& v, ParamStore& store);
  static Vocabs load_vocabs(Data& d, const std::string& run_dir);
};

// A trained NER model loaded from a run folder.
struct Tagger : TrainedRun<Tagger, NerParts> {
  // The tokens of each line; `source` names the input in errors ("<source>:<line>: invalid UTF-8 ...").
  static std::vector<std::vector<std::string>> read_sentences(const std::vector<std::string>& lines,
                                                              const std::string& source);
  // One BIO tag list per sentence (empty for an empty sentence), in the batches `batching` cuts.
  std::vector<std::vector<std::string>> tag(const std::vector<std::vector<std::string>>& sentences,
                                            const BatchingOptions& batching) const;
};

}  // namespace twin::ner
