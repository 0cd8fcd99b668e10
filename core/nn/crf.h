// Linear-chain CRF, shared by the sequence labellers (CWS over BMES tags: ATR paper, Zhang et al. 2018,
// Appendix A.2.3, and the authors' code; NER over BIO/BIOES tags: Lample et al. 2016): a BiRNN gives emission
// scores, a learned K x K matrix scores transitions.
//
//   path score    s(y) = Σ_t emis[t, y_t] + Σ_{t>0} trans(y_{t-1}, y_t)  [+ start(y_0) + end(y_{T-1})]
//   hinge loss    max_{y'} [ s(y') + η·Hamming(y', y) ] − s(y)      (η = 0.2 in the paper; always ≥ 0)
//                 by cost-augmented Viterbi; its subgradient is ∂s(y*) − ∂s(y), y* the augmented argmax
//   NLL           log Z − s(y),  log Z = log Σ_{y'} exp s(y')          (forward algorithm, log-sum-exp)
//                 gradient: marginals by forward–backward minus the gold indicator counts
//   decoding      argmax_y s(y) by Viterbi, optionally restricted to the paths a CrfConstraint allows
//
// trans(i, j) scores tag i followed by tag j. The start/end vectors are optional (the authors' code has
// none): a null pointer or an invalid Var (Var{}) leaves them out. Batched ops read the engine's time-major
// padded layout: emissions [T*B, K], row t*B + b is position t of sentence b, valid for t < lengths[b];
// padding rows are never read and get no gradient. Sentences are independent and processed in parallel;
// every result is identical for any thread count. A sentence of length 0 contributes 0 (its one empty
// path scores 0). Scores are accumulated in double.
#pragma once
#include <vector>

#include "base/names.h"
#include "base/real.h"
#include "graph/graph.h"

namespace twin {

// The training objective of a CRF tagger: the max-margin hinge (the ATR paper's CWS) or the CRF negative
// log-likelihood (Lample et al.'s NER).
enum class CrfObjective { kHinge, kNll };
inline constexpr NameTable<CrfObjective, 2> kCrfObjectiveNames{
    {{CrfObjective::kHinge, "hinge"}, {CrfObjective::kNll, "nll"}}};

// Hard constraints for decoding: 0/1 masks (1 = allowed). allowed [K,K] (allowed(i,j): j may follow i),
// start_ok [1,K] and end_ok [1,K] (an empty matrix allows every tag). Disallowed moves score −∞.
// The task builds it from its tag grammar (CWS: tasks/cws/bmes.h's bmes_constraint()).
struct CrfConstraint {
  Mat allowed;
  Mat start_ok;
  Mat end_ok;
};

// s(tags) for one sentence: emis [T,K], trans [K,K], start/end [1,K] or nullptr; tags.size() == T.
double path_score(const Mat& emis, const Mat& trans, const Mat* start, const Mat* end, const std::vector<int>& tags);

// The best path of one sentence (ties go to the lower tag index). With gold != nullptr it is cost-augmented:
// it maximises s(y') + cost * Hamming(y', *gold). With a constraint, only allowed paths are considered; an
// Error when none is.
std::vector<int> viterbi(const Mat& emis, const Mat& trans, const Mat* start, const Mat* end,
                         const CrfConstraint* constraint = nullptr, const std::vector<int>* gold = nullptr,
                         double cost = 0);

// log Z = log Σ_y exp s(y) over all K^T paths of one sentence (forward algorithm, log-sum-exp stable).
double log_partition(const Mat& emis, const Mat& trans, const Mat* start, const Mat* end);

// Σ_b [max_{y'} (s(y') + eta·Hamming(y', gold[b])) − s(gold[b])] as a [1,1] Var, with gradients into
// emissions, trans, start and end (the subgradient along the augmented best path found in forward and the
// gold path). With a constraint, y' ranges over allowed paths and every gold path must be allowed.
Var crf_hinge_loss(Var emissions, const std::vector<Index>& lengths, Var trans, Var start, Var end,
                   const std::vector<std::vector<int>>& gold, Real eta, const CrfConstraint* constraint = nullptr);

// Σ_b [log Z_b − s(gold[b])] as a [1,1] Var (CRF negative log-likelihood), gradients by forward–backward.
Var crf_nll(Var emissions, const std::vector<Index>& lengths, Var trans, Var start, Var end,
            const std::vector<std::vector<int>>& gold);

// Viterbi decoding of a batch in the time-major padded layout (inference): one tag sequence of length
// lengths[b] per sentence.
std::vector<std::vector<int>> crf_decode(const Mat& emissions, const std::vector<Index>& lengths, const Mat& trans,
                                         const Mat* start, const Mat* end, const CrfConstraint* constraint = nullptr);

}  // namespace twin
