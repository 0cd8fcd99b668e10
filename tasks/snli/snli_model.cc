#include "snli_model.h"

#include "data/vocab.h"
#include "graph/init.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"

namespace twin::snli {

namespace {

// The rows of step t of a time-major [T*B, 1] mask as a [B, 1] constant, or an invalid Var when every
// sequence is still running at t (no carry needed, as in run_rnn).
Var step_mask(Graph& g, const Mat& mask, Index t, Index B) {
  const Mat m_t = mask.middleRows(t * B, B);
  if ((m_t.array() == 1).all()) return Var{};
  return g.constant(m_t);
}

// Carries the state of sequences that ended before step t through it unchanged.
CellState carry(const Cell& cell, const CellState& next, const CellState& prev, Var m) {
  if (!m.valid()) return next;
  CellState s;
  s.h = mask_carry(next.h, prev.h, m);
  if (cell.has_memory()) s.c = mask_carry(next.c, prev.c, m);
  return s;
}

void check_pair(const SeqBatch& premise, const SeqBatch& hypothesis) {
  TW_CHECK(premise.size() > 0 && premise.size() == hypothesis.size(), "SnliModel: premise batch of ",
           premise.size(), " and hypothesis batch of ", hypothesis.size(), " pairs");
  TW_CHECK(premise.mask.rows() == premise.steps() * premise.size() &&
               hypothesis.mask.rows() == hypothesis.steps() * hypothesis.size(),
           "SnliModel: masks must be [T*B x 1]");
}

}  // namespace

Mat exact_match_feature(const SeqBatch& a, const SeqBatch& b) {
  TW_CHECK(a.size() == b.size(), "exact_match_feature: batches of ", a.size(), " and ", b.size(), " pairs");
  const Index B = a.size();
  Mat em = Mat::Zero(a.steps() * B, 1);
  for (Index p = 0; p < B; ++p)
    for (Index t = 0; t < a.lengths[p]; ++t) {
      const auto id = a.ids(t, p);
      if (id == kPadId || id == kUnkId) continue;
      for (Index u = 0; u < b.lengths[p]; ++u)
        if (b.ids(u, p) == id) {
          em(t * B + p, 0) = 1;
          break;
        }
    }
  return em;
}

SnliModel::SnliModel(const SnliModelConfig& cfg, Index vocab, ParamStore& store) : cfg_(cfg) {
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  const int E = cfg.embed + (cfg.exact_match ? 1 : 0), H = cfg.cell.hidden;   // cell input [e_t ; em_t]
  TW_CHECK(H > 0, "model.cell.hidden must be set (> 0)");
  const int A = cfg.attn_dim ? cfg.attn_dim : H;
  emb_ = Embedding(store, "snli/emb", vocab, cfg.embed, init);
  if (cfg.freeze_embeddings) emb_.freeze();
  if (cfg.kind == SnliKind::kCond) {
    enc_fwd_ = make_cell(cfg.cell, E, store, "snli/enc/fwd");
    enc_bwd_ = make_cell(cfg.cell, E, store, "snli/enc/bwd");
    init_ = Linear(store, "snli/init", 2 * H, H, init);                                   // W_init [2H, H]
    attn_ = Attention(store, "snli/attn", 2 * H, H, A, init, /*key_bias=*/true);
    cell1_ = make_cell(cfg.cell, E, store, "snli/hyp/cell1");
    cell2_ = make_cell(cfg.cell, 2 * H, store, "snli/hyp/cell2");
  } else {
    enc_fwd_ = make_cell(cfg.cell, E, store, "snli/premise");
    cell1_ = make_cell(cfg.cell, E, store, "snli/hypothesis");
    attn_ = Attention(store, "snli/wbw", H, 2 * H, A, init, /*key_bias=*/false);   // W^y, [W^h ; W^r], w
    w_t_ = Linear(store, "snli/wbw/W_t", H, H, init, /*bias=*/false);
    w_p_ = Linear(store, "snli/wbw/W_p", H, H, init, /*bias=*/false);
    w_x_ = Linear(store, "snli/wbw/W_x", H, H, init, /*bias=*/false);
  }
  out_ = Linear(store, "snli/out", H, kSnliModelLabels, init);                            // W_o [H, 3]
}

SnliModel::~SnliModel() = default;

Var SnliModel::drop(Var x, Rng& rng) const {
  return cfg_.dropout > 0 ? dropout(x, static_cast<Real>(cfg_.dropout), rng) : x;
}

Var SnliModel::inputs(Graph& g, const SeqBatch& s, const SeqBatch& other, Rng& rng) const {
  Var x = drop(emb_.apply(g, s.ids), rng);                                             // [T*B, E]
  if (!cfg_.exact_match) return x;
  return concat_cols({x, g.constant(exact_match_feature(s, other))});                  // [T*B, E+1]
}

Var SnliModel::features_cond(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, Rng& rng,
                             std::vector<Mat>* attention) const {
  const Index B = premise.size(), T = hypothesis.steps();
  const Mat& pmask = premise.mask;
  Var xp = inputs(g, premise, hypothesis, rng);                                        // [S*B, E]
  Var xh = inputs(g, hypothesis, premise, rng);                                        // [T*B, E]
  Var h = concat_cols({run_rnn(*enc_fwd_, xp, pmask, B, Dir::kForward).h_all,
                       run_rnn(*enc_bwd_, xp, pmask, B, Dir::kBackward).h_all});      // [S*B, 2H]
  const AttnKeys keys = attn_.precompute(h, pmask, B);                                 // K [S*B, A], V = h
  CellState s;
  s.h = tanh(init_.apply(mean_rows_masked(h, pmask, B)));                              // s_0 [B, H]
  if (cell1_->has_memory()) s.c = cell1_->zero_state(g, B).c;
  Var x1 = cell1_->project_inputs(xh);                                                 // [T*B, k*H], one GEMM
  for (Index j = 0; j < T; ++j) {
    CellState s1 = cell1_->step(slice_rows(x1, j * B, B), s);                          // s̃_j
    AttnOut att = attn_.step(keys, s1.h);                                              // c_j [B, 2H]
    if (attention) attention->push_back(att.alpha.val());                              // α_j [B, S]
    CellState s2 = cell2_->step(cell2_->project_inputs(att.ctx), s1);                  // s_j
    s = carry(*cell2_, s2, s, step_mask(g, hypothesis.mask, j, B));
  }
  return s.h;                                                                          // s_N [B, H]
}

Var SnliModel::features_wbw(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, Rng& rng,
                            std::vector<Mat>* attention) const {
  const Index B = premise.size(), T = hypothesis.steps();
  const Mat& pmask = premise.mask;
  Var xp = inputs(g, premise, hypothesis, rng);                                        // [S*B, E]
  Var xh = inputs(g, hypothesis, premise, rng);                                        // [T*B, E]
  SeqOut prem = run_rnn(*enc_fwd_, xp, pmask, B, Dir::kForward);                       // Y [S*B, H]
  SeqOut hyp = run_rnn(*cell1_, xh, hypothesis.mask, B, Dir::kForward, prem.last);    // h_t [T*B, H]
  const AttnKeys keys = attn_.precompute(prem.h_all, pmask, B);                        // Y W^y [S*B, A]
  Var r = g.constant(Mat::Zero(B, cfg_.cell.hidden));                                  // r_0 [B, H]
  for (Index t = 0; t < T; ++t) {
    Var h_t = slice_rows(hyp.h_all, t * B, B);                                         // [B, H]
    AttnOut att = attn_.step(keys, concat_cols({h_t, r}));                             // Yᵀ α_t [B, H]
    if (attention) attention->push_back(att.alpha.val());                              // α_t [B, S]
    Var r_t = t == 0 ? att.ctx : att.ctx + tanh(w_t_.apply(r));                        // r_0 = 0: tanh(0) = 0
    Var m = step_mask(g, hypothesis.mask, t, B);
    r = m.valid() ? mask_carry(r_t, r, m) : r_t;
  }
  return tanh(w_p_.apply(r) + w_x_.apply(hyp.last.h));                                // h* [B, H]
}

Var SnliModel::logits(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, Rng& rng,
                      std::vector<Mat>* attention) const {
  check_pair(premise, hypothesis);
  if (attention) attention->clear();
  Var f = cfg_.kind == SnliKind::kCond ? features_cond(g, premise, hypothesis, rng, attention)
                              : features_wbw(g, premise, hypothesis, rng, attention);
  return out_.apply(drop(f, rng));                                                     // [B, 3]
}

Var SnliModel::loss(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, const Ids& labels,
                    Rng& rng) const {
  TW_CHECK(static_cast<Index>(labels.size()) == premise.size(), "SnliModel::loss: ", labels.size(),
           " labels for ", premise.size(), " pairs");
  for (auto y : labels)
    TW_CHECK(y >= 0 && y < kSnliModelLabels, "SnliModel::loss: label ", y, " outside [0, ", kSnliModelLabels, ")");
  return cross_entropy(logits(g, premise, hypothesis, rng), labels, Mat());
}

}  // namespace twin::snli
