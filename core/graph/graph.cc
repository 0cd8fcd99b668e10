#include "graph/graph.h"

namespace twin {

Var Graph::constant(Mat value) {
  Node n;
  n.op = "constant";
  n.value = std::move(value);
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
  Node& n = nodes_[static_cast<size_t>(id)];
  if (n.ext_grad) {
    // A dense write into a parameter: the optimiser must treat every row as touched. Sparse ops
    // (lookup) write through param_of(id)->grad directly and mark rows themselves.
    n.param->mark_all();
    return *n.ext_grad;
  }
  if (!n.grad_ready) {
    const Mat& v = n.borrowed ? *n.borrowed : n.value;
    n.grad = Mat::Zero(v.rows(), v.cols());
    n.grad_ready = true;
  }
  return n.grad;
}

bool Graph::has_grad(NodeId id) const { return nodes_[static_cast<size_t>(id)].grad_ready; }

template <typename Range>
Var Graph::record_impl(const char* op, Mat value, const Range& inputs, Backward bw) {
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
    if (n.backward && n.grad_ready) n.backward(*this, id);
  }
}

void Graph::clear() {
  nodes_.clear();
  param_nodes_.clear();
}

}  // namespace twin
