#include "graph/graph.h"

#include <limits>

#include "base/threads.h"

#include "base/profile.h"
#include "base/gemm.h"

namespace twin {

Mat Graph::take(Index rows, Index cols) {
  ++stats_.takes;
  auto it = pool_.find(rows * cols);
  if (it != pool_.end() && !it->second.empty()) {
    Mat m = std::move(it->second.back().m);
    it->second.pop_back();
    m.resize(rows, cols);   // same element count: no reallocation
    if (poison_takes_) m.setConstant(std::numeric_limits<Real>::quiet_NaN());
    return m;
  }
  ++stats_.misses;
  evict(rows * cols);
  Mat m(rows, cols);
  if (poison_takes_) m.setConstant(std::numeric_limits<Real>::quiet_NaN());
  return m;
}

void Graph::evict(Index elements) {
  Index freed = 0;
  for (auto it = pool_.rbegin(); it != pool_.rend() && freed < elements; ++it)
    std::erase_if(it->second, [&](const Pooled& p) {
      if (freed >= elements || p.stamp >= batch_) return false;
      freed += it->first;
      return true;
    });
}

Mat Graph::take_zero(Index rows, Index cols) {
  Mat m = take(rows, cols);
  m.setZero();
  stats_.zero_filled += m.size();
  return m;
}

void Graph::give(Mat&& m) {
  if (m.size() > 0) pool_[m.size()].push_back({std::move(m), batch_});
}

std::size_t Graph::value_bytes(NodeId id) const {
  const Node& n = nodes_[static_cast<size_t>(id)];
  return n.borrowed ? 0 : static_cast<std::size_t>(n.value.size()) * sizeof(Real);
}

std::size_t Graph::grad_bytes(NodeId id) const {
  const Node& n = nodes_[static_cast<size_t>(id)];
  return n.ext_grad ? 0 : static_cast<std::size_t>(n.grad.size()) * sizeof(Real);
}

std::size_t Graph::pooled_bytes() const {
  std::size_t bytes = 0;
  for (const auto& [size, v] : pool_) bytes += static_cast<std::size_t>(size) * v.size() * sizeof(Real);
  return bytes;
}

void Graph::defer_weight_grad(NodeId w, const Mat* x, const Mat* dy) {
  TW_DCHECK(x->rows() == dy->rows(), "defer_weight_grad: x and dy row counts differ");
  for (Deferred& d : deferred_)
    if (d.w == w) {
      d.xy.emplace_back(x, dy);
      deferred_reads_.insert({x, dy});
      return;
    }
  deferred_.push_back({w, {{x, dy}}});
  deferred_reads_.insert({x, dy});
}

// dW += [x_1; x_2; ...]ᵀ [dy_1; dy_2; ...]: gathering the thin per-step rows costs one copy and turns T
// products of 20 rows (Eigen, ~35 GFLOP/s) into one of T·20 rows (BLAS, ~125 GFLOP/s; torch_speed.md).
void Graph::flush_deferred() {
  for (const Deferred& d : deferred_) {
    Mat& dw = grad(d.w);
    if (d.xy.size() == 1) {
      gemm(*d.xy[0].first, true, *d.xy[0].second, false, dw, 1, 1);
      continue;
    }
    Index n = 0;
    for (const auto& [x, dy] : d.xy) n += x->rows();
    Mat xs = take(n, d.xy[0].first->cols()), dys = take(n, d.xy[0].second->cols());
    Index off = 0;
    for (const auto& [x, dy] : d.xy) {
      xs.middleRows(off, x->rows()) = *x;
      dys.middleRows(off, dy->rows()) = *dy;
      off += x->rows();
    }
    gemm(xs, true, dys, false, dw, 1, 1);
    give(std::move(xs));
    give(std::move(dys));
  }
  deferred_.clear();
  deferred_reads_.clear();
}

Var Graph::constant(Mat value) {
  Node n;
  n.op = "constant";
  n.value = std::move(value);
  nodes_.push_back(std::move(n));
  return {this, static_cast<NodeId>(nodes_.size() - 1)};
}

Var Graph::borrow(const Mat& value) {
  Node n;
  n.op = "constant";
  n.borrowed = &value;
  nodes_.push_back(std::move(n));
  return {this, static_cast<NodeId>(nodes_.size() - 1)};
}

Var Graph::param(Param& p) {
  auto it = param_nodes_.find(&p);
  if (it != param_nodes_.end()) return {this, it->second};
  Node n;
  n.op = "param";
  n.borrowed = &p.value;
  n.param = &p;
  n.needs_grad = training() && p.trainable;
  if (n.needs_grad) {
    TW_CHECK(p.grad.rows() == p.value.rows() && p.grad.cols() == p.value.cols(),
             "parameter '", p.name, "' has a gradient of the wrong shape");
    n.ext_grad = &p.grad;
    n.grad_ready = true;
  }
  nodes_.push_back(std::move(n));
  const auto id = static_cast<NodeId>(nodes_.size() - 1);
  param_nodes_[&p] = id;
  return {this, id};
}

Mat& Graph::grad(NodeId id) {
  const GradOut o = grad_out(id);
  if (o.fresh) {   // a reader or a partial writer: the untouched gradient is zero
    o.m.setZero();
    stats_.zero_filled += o.m.size();
  }
  return o.m;
}

Graph::GradOut Graph::grad_out(NodeId id) {
  Node& n = nodes_[static_cast<size_t>(id)];
  if (n.ext_grad) {
    // A dense write into a parameter: the optimiser must treat every row as touched. Sparse ops
    // (lookup) write through param_of(id)->grad directly and mark rows themselves.
    n.param->mark_all();
    return {*n.ext_grad, false};
  }
  TW_CHECK(!n.grad_released, "Graph::grad: the gradient of node ", id, " (", n.op,
           ") was released when its backward had run (HINT: keep_gradients() before backward() to read it)");
  if (n.grad_ready) return {n.grad, false};
  const Mat& v = n.borrowed ? *n.borrowed : n.value;
  n.grad = take(v.rows(), v.cols());
  n.grad_ready = true;
  return {n.grad, true};
}

Mat Graph::release(NodeId stash_id) {
  Node& n = nodes_[static_cast<size_t>(stash_id)];
  TW_CHECK(!n.borrowed && !n.needs_grad, "Graph::release: node ", stash_id, " (", n.op, ") is not a stash");
  return std::move(n.value);
}

void Graph::add_grad(NodeId id, Mat&& m) {
  Node& n = nodes_[static_cast<size_t>(id)];
  const Mat& v = n.borrowed ? *n.borrowed : n.value;
  TW_CHECK(m.rows() == v.rows() && m.cols() == v.cols(), "Graph::add_grad: ", shape_str(m), " for node ", id,
           " (", n.op, ") of ", shape_str(v));
  if (!n.ext_grad && !n.grad_ready) {
    TW_CHECK(!n.grad_released, "Graph::add_grad: the gradient of node ", id, " (", n.op, ") was released");
    n.grad = std::move(m);
    n.grad_ready = true;
    return;
  }
  grad(id) += m;
  give(std::move(m));
}


template <typename Range>
Var Graph::record_impl(const char* op, Mat value, const Range& inputs, Backward bw) {
  if (profile::enabled()) {
    const auto now = std::chrono::steady_clock::now();
    profile::add_forward(op, std::chrono::duration<double>(now - prof_last_).count());
    prof_last_ = now;
  }
  Node n;
  n.op = op;
  n.value = std::move(value);
  if (training()) {
    for (const Var& v : inputs) {
      TW_DCHECK(v.g == this, "op ", op, " mixes graphs");
      if (nodes_[static_cast<size_t>(v.id)].needs_grad) {
        n.needs_grad = true;
        break;
      }
    }
  }
  if (n.needs_grad) n.backward = std::move(bw);
  nodes_.push_back(std::move(n));
  return {this, static_cast<NodeId>(nodes_.size() - 1)};
}

Var Graph::record(const char* op, Mat value, std::initializer_list<Var> inputs, Backward bw) {
  return record_impl(op, std::move(value), inputs, std::move(bw));
}

Var Graph::record(const char* op, Mat value, const std::vector<Var>& inputs, Backward bw) {
  return record_impl(op, std::move(value), inputs, std::move(bw));
}

void Graph::backward(Var loss) {
  TW_CHECK(loss.g == this, "backward: loss belongs to another graph");
  TW_CHECK(training(), "backward: graph is in inference mode");
  const Mat& l = value(loss.id);
  TW_CHECK(l.rows() == 1 && l.cols() == 1, "backward: loss must be 1x1, got ", shape_str(l));
  if (!needs_grad(loss.id)) return;  // nothing trainable upstream
  grad(loss.id)(0, 0) += Real(1);
  for (NodeId id = loss.id; id >= 0; --id) {
    Node& n = nodes_[static_cast<size_t>(id)];
    if (!n.backward || !n.grad_ready) continue;
    if (!profile::enabled()) {
      n.backward(*this, id);
    } else {
      const Stopwatch sw;
      n.backward(*this, id);
      profile::add_backward(n.op, sw.seconds());
    }
    release_grad(n);
  }
  const Stopwatch sw;
  flush_deferred();
  if (profile::enabled()) profile::add_backward("deferred weight gradients", sw.seconds());
  new_tape_for_reused();   // the optimizer may step now
}

ReusedOperand* Graph::reused_param(NodeId w, bool trans) {
  Param* p = param_of(w);
  if (p == nullptr) return nullptr;
  std::unique_ptr<ReusedOperand>& r = reused_[{p, trans}];
  if (!r) r = std::make_unique<ReusedOperand>(value(w), trans);
  return r.get();
}

void Graph::new_tape_for_reused() {
  for (auto& [key, r] : reused_) r->new_tape();
}

void Graph::release_grad(Node& n) {
  if (keep_grads_ || n.ext_grad || n.grad.size() == 0) return;
  if (deferred_reads_.count(&n.grad)) return;
  give(std::move(n.grad));
  n.grad_released = true;
}

void Graph::clear() {
  // Free what this whole batch left untaken (pooled before it began), keep what it gave back.
  for (auto it = pool_.begin(); it != pool_.end();) {
    std::erase_if(it->second, [this](const Pooled& p) { return p.stamp < batch_; });
    it = it->second.empty() ? pool_.erase(it) : std::next(it);
  }
  stats_ = {};
  for (Node& n : nodes_) {
    n.backward = nullptr;   // closures may own buffers; release them before the nodes go
    if (!n.borrowed) give(std::move(n.value));
    if (!n.ext_grad) give(std::move(n.grad));
  }
  for (const auto& [size, v] : pool_) stats_.recycled += static_cast<long>(v.size());
  ++batch_;
  nodes_.clear();
  param_nodes_.clear();
  deferred_.clear();
  deferred_reads_.clear();
  new_tape_for_reused();
  prof_last_ = std::chrono::steady_clock::now();
}

}  // namespace twin
