// The tape: eager define-by-run reverse-mode autodiff (DESIGN §3.2).
// An op computes its value at once and appends a Node; creation order is a topological order, so
// backward() walks the tape in reverse. No globals; several graphs may coexist. A training loop keeps one
// Graph and calls clear() between batches: clear() keeps every value and gradient buffer in a pool that the
// next batch's ops take from (take()), so a steady-state step allocates no matrix (DESIGN §8; the page
// faults of freshly mapped [N, V] buffers were 28 % of a PTB training step before the pool).
//
// Op contract (every op in core/ops follows it):
//  1. forward writes a fresh value; 2. backward ACCUMULATES (+=) into input grads, never assigns, except into
//     a gradient grad_out() reports fresh (accumulate() and gemm with GradOut::beta() do both right);
//  3. closures capture Vars and scalars by value, never Mat& (read g.value(id) inside the closure);
//  4. skip inputs with !g.needs_grad(id); 5. shapes are checked at record time with the op name;
//  6. every op name is in kAllOps (ops/op_names.h) and gradient-checked in tests.
#pragma once
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/check.h"
#include "base/gemm.h"
#include "base/real.h"
#include "graph/param.h"

namespace twin {

using NodeId = std::int32_t;
enum class Mode { kTrain, kInfer };
class Graph;

struct Var {  // a cheap handle; never outlives its Graph
  Graph* g = nullptr;
  NodeId id = -1;
  bool valid() const { return g != nullptr && id >= 0; }
  const Mat& val() const;
  Index rows() const { return val().rows(); }
  Index cols() const { return val().cols(); }
};

inline std::string shape_str(Var v) { return shape_str(v.val()); }

class Graph {
 public:
  using Backward = std::function<void(Graph&, NodeId self)>;

  explicit Graph(Mode mode = Mode::kTrain) : mode_(mode) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Var constant(Mat value);   // data, masks, carried state: no gradient flows into it
  // A constant that borrows `value` instead of copying it: the caller keeps it alive and unchanged until the
  // next clear() (a decoder's attention memory, rebuilt only when its rows change, not at every step).
  Var borrow(const Mat& value);
  Var param(Param& p);       // memoised per graph; borrows p.value, accumulates into p.grad

  const Mat& value(NodeId id) const {
    const Node& n = nodes_[static_cast<size_t>(id)];
    return n.borrowed ? *n.borrowed : n.value;
  }
  Mat& grad(NodeId id);                  // zero-initialised on first touch (a param leaf: p.grad)
  // The gradient of `id` for a backward that writes ALL of it: `fresh` when nothing has reached it yet and its
  // contents are unspecified (the caller ASSIGNS), else it holds earlier contributions (the caller adds). Most
  // gradients have one contributor, so the first touch skips grad()'s zero fill and a read of the buffer
  // (perf: memset under take_zero was 6.8 % of an R-Net training step). A partial writer (a row scatter) uses
  // grad(); a slice's backward zeroes only the columns it does not write.
  struct GradOut {
    Mat& m;
    bool fresh;
    Real beta() const { return fresh ? Real(0) : Real(1); }   // for gemm(..., m, alpha, beta())
  };
  GradOut grad_out(NodeId id);
  // grad(id) += e, an assignment at the first touch. `e` is coefficient-wise (a product goes through gemm
  // with GradOut::beta()) and must not read grad(id).
  template <typename Expr>
  void accumulate(NodeId id, const Expr& e) {
    GradOut o = grad_out(id);
    if (o.fresh) o.m.array() = e.array();
    else o.m.array() += e.array();
  }
  bool needs_grad(NodeId id) const { return nodes_[static_cast<size_t>(id)].needs_grad; }
  Param* param_of(NodeId id) const { return nodes_[static_cast<size_t>(id)].param; }
  const char* op(NodeId id) const { return nodes_[static_cast<size_t>(id)].op; }
  bool training() const { return mode_ == Mode::kTrain; }
  Mode mode() const { return mode_; }
  size_t size() const { return nodes_.size(); }

  // A [rows, cols] buffer with unspecified contents: a pooled one of the same size when there is one.
  Mat take(Index rows, Index cols);
  Mat take_zero(Index rows, Index cols);
  template <typename Expr>
  Mat take_eval(const Expr& e) {   // a pooled buffer holding the value of an Eigen expression
    Mat m = take(e.rows(), e.cols());
    m.noalias() = e;
    return m;
  }
  void give(Mat&& m);   // hand a scratch buffer back for reuse within this batch
  // Saves a buffer an op's backward needs (fused kernels' gates, softmax probabilities) as a gradient-free
  // node, so it is recycled with the graph instead of freed with the closure.
  NodeId stash(Mat m) { return constant(std::move(m)).id; }
  Mat release(NodeId stash_id);   // moves a stash's buffer out (its last reader is done with it)
  // grad(id) += m, adopting m's buffer when the gradient is untouched so far (saves a zero fill, a pass and
  // a buffer of [N, V] for the softmax).
  void add_grad(NodeId id, Mat&& m);

  // Deferred weight gradient (DESIGN §8): instead of one thin product per recurrent step, an op may record
  // dW += xᵀ dy and backward() finishes with ONE product over all recorded steps per weight. `x` and `dy`
  // must stay valid until backward() ends (a node's value or gradient does). The weight's gradient is
  // complete only after backward() returns; no backward closure reads a weight gradient.
  void defer_weight_grad(NodeId w, const Mat* x, const Mat* dy);
  // A parameter's value as the right operand of many products of this tape (gemm_reused, base/gemm.h: the
  // per-step recurrent products pack it once); nullptr when `w` is not a parameter. One per parameter and
  // orientation, kept across batches (its packed buffers are reused) and told at clear() and at the end of
  // backward() that the value may change (the optimizer steps in between), so it packs again.
  ReusedOperand* reused_param(NodeId w, bool trans);

  struct PoolStats {
    long takes = 0;       // buffers asked for through take()/take_zero()/grad()
    long misses = 0;      // of which freshly allocated (no pooled buffer of that size)
    long recycled = 0;    // buffers in the pool after the last clear()
    long zero_filled = 0; // elements zeroed by take_zero() and by grad() at a first touch (grad_out() fills none)
  };
  const PoolStats& pool_stats() const { return stats_; }
  // Memory accounting (tasks/rc/rc_tape_memory.cc): the bytes of the buffers node `id` owns, its value (0 for a
  // parameter's, which is borrowed) and its gradient (0 while untouched, and for a parameter's, which the store
  // owns); and the bytes of the free buffers waiting in the pool. Buffers a backward closure owns are not seen.
  std::size_t value_bytes(NodeId id) const;
  std::size_t grad_bytes(NodeId id) const;
  std::size_t pooled_bytes() const;

  // For op implementations only. Drops `bw` in kInfer mode or when no input needs a gradient.
  Var record(const char* op, Mat value, std::initializer_list<Var> inputs, Backward bw);
  Var record(const char* op, Mat value, const std::vector<Var>& inputs, Backward bw);

  // loss must be 1x1; seeds 1 and walks the tape in reverse. A node's gradient goes back to the
  // pool as soon as its closure has run (the tape is topological: no closure that runs later reads it), except
  // the ones a deferred weight product reads, so the gradients of the whole tape never exist at once; grad() of a
  // released one throws. keep_gradients() keeps them all (tests that read an intermediate gradient).
  void backward(Var loss);
  void keep_gradients(bool keep = true) { keep_grads_ = keep; }
  // Tests: every buffer take() hands out is filled with NaN first, so an op that reads a buffer of
  // unspecified contents (a GradOut it should have assigned, a value it wrote only in part) shows NaN.
  void poison_takes(bool on = true) { poison_takes_ = on; }
  void clear();             // forget all nodes; their buffers go to the pool for the next batch

 private:
  struct Node {
    const char* op = "";
    Mat value;
    const Mat* borrowed = nullptr;  // a parameter's value, not copied
    Mat grad;
    Mat* ext_grad = nullptr;        // a parameter's grad
    Param* param = nullptr;
    bool needs_grad = false;
    bool grad_ready = false;
    bool grad_released = false;     // backward() gave the gradient back to the pool after the closure ran
    Backward backward;
  };
  template <typename Range>
  Var record_impl(const char* op, Mat value, const Range& inputs, Backward bw);

  // A deque never relocates its elements, so a `const Mat&` from Var::val() stays valid while the graph
  // grows (with a vector, holding one across the next op call read a moved-from matrix).
  std::deque<Node> nodes_;
  std::unordered_map<const Param*, NodeId> param_nodes_;
  Mode mode_;
  // Free buffers by element count (Eigen's resize() to the same count keeps the allocation), each stamped
  // with the batch that freed it. clear() drops the buffers a whole batch left untaken. A miss (no buffer of the
  // size asked for) first frees buffers that earlier batches left, of at least that many elements, largest
  // first: so a batch whose shapes differ from the previous one's (the rc task's passage lengths) reuses that
  // memory through the allocator instead of holding two batches' worth (rc_tape_memory: 5800 MiB for a step of
  // 3191), while a batch of the previous shapes misses nothing and frees nothing. This batch's own free buffers
  // stay (freeing them too broke the steady state: a freed one was missed later in the batch, every batch).
  struct Pooled {
    Mat m;
    long stamp;
  };
  std::map<Index, std::vector<Pooled>> pool_;   // ordered: evict() walks from the largest size
  void evict(Index elements);
  long batch_ = 0;
  PoolStats stats_;
  struct Deferred {
    NodeId w;
    std::vector<std::pair<const Mat*, const Mat*>> xy;   // (x, dy) per recorded product
  };
  std::vector<Deferred> deferred_;
  std::map<std::pair<const Param*, bool>, std::unique_ptr<ReusedOperand>> reused_;
  void new_tape_for_reused();
  std::unordered_set<const Mat*> deferred_reads_;   // every x and dy of deferred_: backward() keeps them
  bool keep_grads_ = false;
  bool poison_takes_ = false;
  void flush_deferred();
  void release_grad(Node& n);   // backward(): n's closure has run
  std::chrono::steady_clock::time_point prof_last_ = std::chrono::steady_clock::now();   // profile: previous op recorded
};

inline const Mat& Var::val() const { return g->value(id); }

}  // namespace twin
