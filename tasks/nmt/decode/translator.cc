#include "decode/translator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <numeric>

#include "base/profile.h"
#include "base/threads.h"
#include "data/batch.h"
#include "decode/ensemble.h"
#include "ops/ops.h"

namespace twin::nmt {

NmtScorer::NmtScorer(const NmtModel& model, const std::vector<Ids>& sources) : model_(model) {
  TW_CHECK(!sources.empty(), "NmtScorer: no source sentence");
  for (const Ids& s : sources) {
    TW_CHECK(!s.empty() && s.back() == kEos, "NmtScorer: every source must end with EOS");
    lengths_.push_back(static_cast<int>(s.size()) - 1);
  }
  const SeqBatch src = pad_batch(sources, kPad);
  Graph g(Mode::kInfer);
  Encoded e = model_.encode(g, src, rng_);
  K_ = e.keys.K.val();
  V_ = e.keys.V.val();
  S_ = e.keys.S;
  B_ = e.keys.B;
  mask_ = e.keys.mask.size() ? e.keys.mask : Mat::Ones(B_, S_);
  for (const CellState& st : e.init) {
    h_.push_back(st.h.val());
    c_.push_back(st.c.valid() ? st.c.val() : Mat());
  }
}

namespace {
Mat gather_rows(const Mat& m, const std::vector<int>& rows) {
  Mat out(static_cast<Index>(rows.size()), m.cols());
  for (size_t r = 0; r < rows.size(); ++r) out.row(static_cast<Index>(r)) = m.row(rows[r]);
  return out;
}
}  // namespace

Mat NmtScorer::step(const std::vector<int>& parent, const Ids& prev) {
  const auto R = static_cast<Index>(parent.size());
  TW_CHECK(R > 0 && prev.size() == parent.size(), "NmtScorer::step: ", parent.size(), " parents, ", prev.size(),
           " tokens");
  std::vector<int> sent(parent.size());
  for (size_t r = 0; r < parent.size(); ++r) {
    const int p = parent[r];
    TW_CHECK(p >= 0 && p < (first_ ? static_cast<int>(B_) : static_cast<int>(row_sent_.size())),
             "NmtScorer::step: parent ", p, " out of range");
    sent[r] = first_ ? p : row_sent_[static_cast<size_t>(p)];
  }
  // Attention memory of each row's sentence, time-major [S*R, .] like a batch of R sentences. Rebuilt only when
  // the rows' sentences change (a hypothesis ends, or the first step): beam search keeps the same sentence per
  // row from step to step, and copying the memory at every step was most of beam 10's decoding time (issue 56).
  // (Before g_.clear(), so that the profile does not count it into the first op's time; the last step's graph
  // still borrows mem_K_ and mem_V_, but nothing reads it any more.)
  const Stopwatch gather_time;
  if (sent != mem_sent_) {
    mem_K_.resize(S_ * R, K_.cols());
    mem_V_.resize(S_ * R, V_.cols());
    for (Index t = 0; t < S_; ++t)
      for (Index r = 0; r < R; ++r) {
        mem_K_.row(t * R + r) = K_.row(t * B_ + sent[static_cast<size_t>(r)]);
        mem_V_.row(t * R + r) = V_.row(t * B_ + sent[static_cast<size_t>(r)]);
      }
    mem_sent_ = sent;
  }
  Mat mask(R, S_);
  for (Index r = 0; r < R; ++r) mask.row(r) = mask_.row(sent[static_cast<size_t>(r)]);
  // TWIN_PROFILE=1 (speed nmt): the decoder's work outside the graph's ops, under names of their own.
  if (profile::enabled())
    profile::add_forward("decode: gather memory", gather_time.seconds());

  g_.clear();
  Encoded enc;
  enc.keys.K = g_.borrow(mem_K_);
  enc.keys.V = g_.borrow(mem_V_);
  enc.keys.mask = std::move(mask);
  enc.keys.S = S_;
  enc.keys.B = R;
  DecState st;
  for (size_t l = 0; l < h_.size(); ++l) {
    CellState cs;
    cs.h = g_.constant(gather_rows(h_[l], parent));
    if (c_[l].size()) cs.c = g_.constant(gather_rows(c_[l], parent));
    st.push_back(cs);
  }
  Var y = model_.embed_target(g_, prev, rng_);                                   // [R, E]
  if (record_) {
    rec1_.values.clear();
    rec2_.values.clear();
  }
  DecOut o = model_.step(enc, model_.project_target(y), st, record_ ? &rec1_ : nullptr, record_ ? &rec2_ : nullptr);
  const Var logits = model_.logits(y, o.s, o.ctx, rng_);
  const Stopwatch softmax_time;
  Mat logp = log_softmax_rows(logits.val());                                     // [R, V]
  if (profile::enabled()) profile::add_forward("decode: log_softmax", softmax_time.seconds());
  for (size_t l = 0; l < h_.size(); ++l) {
    h_[l] = o.state[l].h.val();
    if (c_[l].size()) c_[l] = o.state[l].c.val();
  }
  alpha_ = o.alpha.val();
  row_sent_ = std::move(sent);
  first_ = false;
  return logp;
}

namespace {
// Counts the rows and calls of the scorer it wraps (DecodeStats::decoder_rows, decoder_steps); with
// SearchConfig::fixed_length, forbids EOS (its log-probability -inf) so that no hypothesis ends before its max length.
class CountingScorer final : public StepScorer {
 public:
  CountingScorer(StepScorer& inner, DecodeStats* stats, int forbidden_eos)
      : inner_(inner), stats_(stats), forbidden_eos_(forbidden_eos) {}
  int vocab_size() const override { return inner_.vocab_size(); }
  int num_sentences() const override { return inner_.num_sentences(); }
  int source_length(int s) const override { return inner_.source_length(s); }
  Mat step(const std::vector<int>& parent, const Ids& prev) override {
    if (stats_) stats_->decoder_rows += static_cast<long>(parent.size()), ++stats_->decoder_steps;
    Mat lp = inner_.step(parent, prev);
    if (forbidden_eos_ >= 0 && forbidden_eos_ < lp.cols())
      lp.col(forbidden_eos_).setConstant(-std::numeric_limits<Real>::infinity());
    return lp;
  }
  const Mat* last_attention() const override { return inner_.last_attention(); }

 private:
  StepScorer& inner_;
  DecodeStats* stats_;
  int forbidden_eos_;   // -1: none
};
}  // namespace

std::vector<Translation> translate_corpus(const std::vector<const NmtModel*>& models, const Subword& src,
                                          const Subword& tgt, const std::vector<std::string>& lines,
                                          const SearchConfig& cfg, int batch, DecodeStats* stats) {
  TW_CHECK(!models.empty(), "translate: no model");
  TW_CHECK(batch > 0, "translate: batch must be > 0");
  for (const NmtModel* m : models) {
    TW_CHECK(m->src_vocab() == src.size() && m->tgt_vocab() == tgt.size(), "translate: a model has vocabularies ",
             m->src_vocab(), "/", m->tgt_vocab(), " but the subword models ", src.path(), " / ", tgt.path(), " have ",
             src.size(), "/", tgt.size(), " pieces (HINT: use the subword model the run was trained with)");
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Ids> ids(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    ids[i] = src.encode(lines[i]);
    ids[i].push_back(kEos);
  }
  std::vector<size_t> order(lines.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a].size() < ids[b].size(); });
  std::vector<Translation> out(lines.size());
  long tokens = 0;
  for (size_t start = 0; start < order.size(); start += static_cast<size_t>(batch)) {
    const size_t end = std::min(order.size(), start + static_cast<size_t>(batch));
    std::vector<Ids> group;
    for (size_t k = start; k < end; ++k) group.push_back(ids[order[k]]);
    std::vector<std::unique_ptr<NmtScorer>> scorers;
    std::vector<StepScorer*> ptrs;
    for (const NmtModel* m : models) {
      scorers.push_back(std::make_unique<NmtScorer>(*m, group));
      ptrs.push_back(scorers.back().get());
    }
    std::unique_ptr<EnsembleScorer> ens;
    StepScorer* scorer = ptrs[0];
    if (ptrs.size() > 1) {
      ens = std::make_unique<EnsembleScorer>(ptrs);
      scorer = ens.get();
    }
    CountingScorer counted(*scorer, stats, cfg.fixed_length ? cfg.eos : -1);
    std::vector<std::vector<Hypothesis>> res;
    if (cfg.beam == 1 && cfg.nbest == 1) {
      for (Hypothesis& h : greedy_search(counted, cfg)) res.push_back({std::move(h)});
    } else {
      res = beam_search(counted, cfg);
    }
    for (size_t k = start; k < end; ++k) {
      Translation& t = out[order[k]];
      t.nbest = std::move(res[k - start]);
      t.text = tgt.decode(t.nbest.front().tokens);
      tokens += static_cast<long>(t.nbest.front().tokens.size()) + 1;
    }
  }
  if (stats) {   // decoder_rows and decoder_steps were counted as the batches ran
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats->target_tokens = tokens;
    stats->sentences = static_cast<long>(lines.size());
  }
  return out;
}

}  // namespace twin::nmt
