// Decoding with trained NMT models (RNNSearch or DTMT): NmtScorer is the model side of beam_search.h's StepScorer (one
// batch of source sentences, decoder states gathered by back-pointer each step), and translate_corpus
// decodes a list of lines with one model or an ensemble (EnsembleScorer: mean of the probabilities).
//
// Batching: sentences are decoded in groups of `batch` sorted by length (less padding), and the output is put
// back in input order. Rows of different sentences are independent, so a sentence's translation does not
// depend on its batch (tested).
#pragma once
#include <string>
#include <vector>

#include "corpus/subword.h"
#include "decode/beam_search.h"
#include "graph/graph.h"
#include "model/nmt_model.h"

namespace twin::nmt {

class NmtScorer : public StepScorer {
 public:
  // sources: piece ids ending with EOS, each non-empty.
  NmtScorer(const NmtModel& model, const std::vector<Ids>& sources);
  int vocab_size() const override { return static_cast<int>(model_.tgt_vocab()); }
  int num_sentences() const override { return static_cast<int>(lengths_.size()); }
  int source_length(int s) const override { return lengths_[static_cast<size_t>(s)]; }
  Mat step(const std::vector<int>& parent, const Ids& prev) override;
  const Mat* last_attention() const override { return &alpha_; }

  // For gate analysis: the recorded gates of the decoder cells at the last step (when enabled).
  void record_gates(bool on) { record_ = on; }
  const GateRecord& gates1() const { return rec1_; }
  const GateRecord& gates2() const { return rec2_; }

 private:
  const NmtModel& model_;
  Graph g_{Mode::kInfer};
  Rng rng_{0};                         // dropout is off in kInfer graphs; the model API wants one
  Mat K_, V_, mask_;                   // encoder keys [S*B, A], values [S*B, D], mask [B, S]
  Mat mem_K_, mem_V_;                  // K_ and V_ per row of the last step, [S*R, A] and [S*R, D]
  std::vector<int> mem_sent_;          // the sentence of each row of mem_K_ / mem_V_
  Index S_ = 0, B_ = 0;
  std::vector<int> lengths_;           // source tokens without EOS
  std::vector<Mat> h_, c_;             // per decoder layer, [rows, H]
  std::vector<int> row_sent_;          // sentence of each current row
  bool first_ = true;
  Mat alpha_;
  bool record_ = false;
  GateRecord rec1_, rec2_;
};

struct Translation {
  std::string text;                    // best hypothesis, decoded to text
  std::vector<Hypothesis> nbest;       // best first
};

struct DecodeStats {
  double seconds = 0;
  long target_tokens = 0;              // pieces emitted (incl. EOS), for decoding words/s
  long sentences = 0;
  // Hypothesis rows the decoder advanced (the rows of every step() call, summed): the decoder's work, which
  // target tokens/s measures only when every model stops its hypotheses at the same lengths. Two models'
  // tokens/s differ with their outputs' lengths (a batch runs until its longest hypothesis ends; beam search
  // advances hypotheses that are never output); rows/s does not.
  long decoder_rows = 0;
  long decoder_steps = 0;              // step() calls
};

// models: one or more (an ensemble) with the same vocabularies. Each line is encoded with `src`, decoded with
// `tgt`. An empty line is translated too (its source is EOS alone).
std::vector<Translation> translate_corpus(const std::vector<const NmtModel*>& models, const Subword& src,
                                          const Subword& tgt, const std::vector<std::string>& lines,
                                          const SearchConfig& cfg, int batch, DecodeStats* stats = nullptr);

}  // namespace twin::nmt
