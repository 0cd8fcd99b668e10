#include "ops/fused_cells.h"

#include "ops/shape.h"

namespace twin {

namespace {

// In-place activations on a block (coefficient-wise, so aliasing is safe).
template <class B>
void sigmoid_(B&& b) {
  b = (Real(1) + (-b.array()).exp()).inverse().matrix();
}
template <class B>
void tanh_(B&& b) {
  b = b.array().tanh().matrix();
}

void check_rows(const char* op, std::initializer_list<std::pair<Var, Index>> args, Index B) {
  for (const auto& [v, cols] : args)
    TW_CHECK(v.rows() == B && v.cols() == cols, op, ": an input is ", shape_str(v), " but [", B, "x", cols,
             "] was expected");
}

// Adds d to the gradients of the inputs that need one; the last one adopts the buffer (Graph::add_grad).
void add_to(Graph& g, std::initializer_list<NodeId> ids, Mat&& d) {
  NodeId last = -1;
  for (NodeId id : ids)
    if (g.needs_grad(id)) {
      if (last >= 0) g.accumulate(last, d);
      last = id;
    }
  if (last >= 0) g.add_grad(last, std::move(d));
  else g.give(std::move(d));
}

}  // namespace

std::pair<Var, Var> split_hc(Var hc) {
  const Index h = hc.cols() / 2;
  return {slice_cols(hc, 0, h), slice_cols(hc, h, h)};
}

// Backward, with tc = tanh(c) and [dh | dc_in] the incoming gradient:
//   dc = dc_in + dh ⊙ o ⊙ (1 − tc²);  ds_i = dc c̃ i(1−i);  ds_f = dc c_prev f(1−f);  ds_o = dh tc o(1−o);
//   ds_c = dc i (1 − c̃²);  da += ds;  dq += ds;  dc_prev += dc ⊙ f
Var lstm_cell(Var a, Var q, Var c_prev) {
  Graph& g = *a.g;
  const Index B = a.rows(), H = c_prev.cols();
  check_rows("lstm_cell", {{a, 4 * H}, {q, 4 * H}, {c_prev, H}}, B);
  Mat st = g.take(B, 5 * H);   // i f o c̃ tanh(c)
  Mat y = g.take(B, 2 * H);    // h c
  st.leftCols(4 * H).noalias() = a.val() + q.val();
  sigmoid_(st.leftCols(3 * H));
  tanh_(st.middleCols(3 * H, H));
  y.rightCols(H) = (st.middleCols(H, H).array() * c_prev.val().array() +
                    st.leftCols(H).array() * st.middleCols(3 * H, H).array()).matrix();
  st.rightCols(H) = y.rightCols(H).array().tanh().matrix();
  y.leftCols(H) = (st.middleCols(2 * H, H).array() * st.rightCols(H).array()).matrix();
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("lstm_cell", std::move(y), {a, q, c_prev}, nullptr);
  }
  const NodeId s = g.stash(std::move(st));
  return g.record("lstm_cell", std::move(y), {a, q, c_prev}, [a, q, c_prev, s, H](Graph& g, NodeId self) {
    const Mat& st = g.value(s);
    const Mat& dy = g.grad(self);
    const auto i = st.leftCols(H).array(), f = st.middleCols(H, H).array(), o = st.middleCols(2 * H, H).array();
    const auto ct = st.middleCols(3 * H, H).array(), tc = st.rightCols(H).array();
    const auto dh = dy.leftCols(H).array();
    Mat dc = g.take_eval((dy.rightCols(H).array() + dh * o * (Real(1) - tc.square())).matrix());
    const auto dca = dc.array();
    Mat ds = g.take(dy.rows(), 4 * H);
    ds.leftCols(H) = (dca * ct * i * (Real(1) - i)).matrix();
    ds.middleCols(H, H) = (dca * g.value(c_prev.id).array() * f * (Real(1) - f)).matrix();
    ds.middleCols(2 * H, H) = (dh * tc * o * (Real(1) - o)).matrix();
    ds.rightCols(H) = (dca * i * (Real(1) - ct.square())).matrix();
    if (g.needs_grad(c_prev.id)) g.accumulate(c_prev.id, dca * f);
    g.give(std::move(dc));
    add_to(g, {a.id, q.id}, std::move(ds));
  });
}

// Backward: dz = dh (h̃ − h_prev);  da_h = dh z (1 − h̃²);  da_z = dz z(1−z);  da_r = da_h q_h r(1−r);
//   da = [da_z da_r da_h];  dq = [da_z da_r da_h ⊙ r];  dh_prev += dh ⊙ (1 − z)
Var gru_cell(Var a, Var q, Var h_prev) {
  Graph& g = *a.g;
  const Index B = a.rows(), H = h_prev.cols();
  check_rows("gru_cell", {{a, 3 * H}, {q, 3 * H}, {h_prev, H}}, B);
  Mat st = g.take(B, 3 * H);   // z r h̃
  st.leftCols(2 * H).noalias() = a.val().leftCols(2 * H) + q.val().leftCols(2 * H);
  sigmoid_(st.leftCols(2 * H));
  st.rightCols(H) = (a.val().rightCols(H).array() + st.middleCols(H, H).array() * q.val().rightCols(H).array())
                        .tanh()
                        .matrix();
  const auto hp = h_prev.val().array();
  Mat y = g.take_eval((hp + st.leftCols(H).array() * (st.rightCols(H).array() - hp)).matrix());
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("gru_cell", std::move(y), {a, q, h_prev}, nullptr);
  }
  const NodeId s = g.stash(std::move(st));
  return g.record("gru_cell", std::move(y), {a, q, h_prev}, [a, q, h_prev, s, H](Graph& g, NodeId self) {
    const Mat& st = g.value(s);
    const auto dh = g.grad(self).array();
    const auto z = st.leftCols(H).array(), r = st.middleCols(H, H).array(), ht = st.rightCols(H).array();
    const auto hp = g.value(h_prev.id).array();
    Mat da = g.take(dh.rows(), 3 * H);
    da.rightCols(H) = (dh * z * (Real(1) - ht.square())).matrix();
    da.leftCols(H) = (dh * (ht - hp) * z * (Real(1) - z)).matrix();
    da.middleCols(H, H) =
        (da.rightCols(H).array() * g.value(q.id).rightCols(H).array() * r * (Real(1) - r)).matrix();
    if (g.needs_grad(h_prev.id)) g.accumulate(h_prev.id, dh * (Real(1) - z));
    if (g.needs_grad(q.id)) {
      Mat dq = g.take(da.rows(), 3 * H);
      dq.leftCols(2 * H) = da.leftCols(2 * H);
      dq.rightCols(H) = (da.rightCols(H).array() * r).matrix();
      g.add_grad(q.id, std::move(dq));
    }
    add_to(g, {a.id}, std::move(da));
  });
}

namespace {
// grad(id)[:, c0 : c0 + n] += block, the other columns untouched (zero at a first touch).
template <class Block>
void add_cols(Graph& g, NodeId id, Index c0, const Block& block) {
  const Graph::GradOut o = g.grad_out(id);
  if (o.fresh) o.m.setZero();
  o.m.middleCols(c0, block.cols()) += block;
}
}  // namespace

// Backward:  dr = drh h_prev r(1−r) (into the r columns of a and s);  dh_prev += drh ⊙ r
Var gru_reset_hidden(Var a, Var s, Var h_prev) {
  Graph& g = *a.g;
  const Index B = a.rows(), H = h_prev.cols();
  check_rows("gru_reset_hidden", {{a, 3 * H}, {s, 2 * H}, {h_prev, H}}, B);
  Mat r = g.take_eval(a.val().middleCols(H, H) + s.val().rightCols(H));
  sigmoid_(r);
  Mat y = g.take_eval((r.array() * h_prev.val().array()).matrix());
  if (!g.training()) {
    g.give(std::move(r));
    return g.record("gru_reset_hidden", std::move(y), {a, s, h_prev}, nullptr);
  }
  const NodeId rid = g.stash(std::move(r));
  return g.record("gru_reset_hidden", std::move(y), {a, s, h_prev}, [a, s, h_prev, rid, H](Graph& g, NodeId self) {
    const auto r = g.value(rid).array();
    const auto drh = g.grad(self).array();
    Mat dr = g.take_eval((drh * g.value(h_prev.id).array() * r * (Real(1) - r)).matrix());
    if (g.needs_grad(h_prev.id)) g.accumulate(h_prev.id, drh * r);
    if (g.needs_grad(s.id)) add_cols(g, s.id, H, dr);
    if (g.needs_grad(a.id)) add_cols(g, a.id, H, dr);
    g.give(std::move(dr));
  });
}

// Backward:  dz = dh (h̃ − h_prev) z(1−z) (into the z columns of a and s);  du = dh z (1 − h̃²) (into a_h and s_h);
//   dh_prev += dh ⊙ (1 − z)
Var gru_rb_update(Var a, Var s, Var s_h, Var h_prev) {
  Graph& g = *a.g;
  const Index B = a.rows(), H = h_prev.cols();
  check_rows("gru_rb_update", {{a, 3 * H}, {s, 2 * H}, {s_h, H}, {h_prev, H}}, B);
  Mat st = g.take(B, 2 * H);   // z h̃
  st.leftCols(H).noalias() = a.val().leftCols(H) + s.val().leftCols(H);
  sigmoid_(st.leftCols(H));
  st.rightCols(H) = (a.val().rightCols(H) + s_h.val()).array().tanh().matrix();
  const auto hp = h_prev.val().array();
  Mat y = g.take_eval((hp + st.leftCols(H).array() * (st.rightCols(H).array() - hp)).matrix());
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("gru_rb_update", std::move(y), {a, s, s_h, h_prev}, nullptr);
  }
  const NodeId sid = g.stash(std::move(st));
  return g.record("gru_rb_update", std::move(y), {a, s, s_h, h_prev}, [a, s, s_h, h_prev, sid, H](Graph& g, NodeId self) {
    const Mat& st = g.value(sid);
    const auto dh = g.grad(self).array();
    const auto z = st.leftCols(H).array(), ht = st.rightCols(H).array();
    const auto hp = g.value(h_prev.id).array();
    Mat d = g.take(dh.rows(), 2 * H);   // dz du
    d.leftCols(H) = (dh * (ht - hp) * z * (Real(1) - z)).matrix();
    d.rightCols(H) = (dh * z * (Real(1) - ht.square())).matrix();
    if (g.needs_grad(h_prev.id)) g.accumulate(h_prev.id, dh * (Real(1) - z));
    if (g.needs_grad(s_h.id)) g.accumulate(s_h.id, d.rightCols(H).array());
    if (g.needs_grad(s.id)) add_cols(g, s.id, 0, d.leftCols(H));
    if (g.needs_grad(a.id)) {
      const Graph::GradOut o = g.grad_out(a.id);
      if (o.fresh) {
        o.m.leftCols(H) = d.leftCols(H);
        o.m.middleCols(H, H).setZero();
        o.m.rightCols(H) = d.rightCols(H);
      } else {
        o.m.leftCols(H) += d.leftCols(H);
        o.m.rightCols(H) += d.rightCols(H);
      }
    }
    g.give(std::move(d));
  });
}

// Backward, with t = tanh(a_h + r ⊙ s_h) and h̃ = t + l ⊙ a_x:  dz = dh (h̃ − h_prev) z(1−z);  dh̃ = dh z;
//   du = dh̃ (1 − t²);  dr = du s_h r(1−r);  dl = dh̃ a_x l(1−l);  da = [dz dr dl du dh̃⊙l];
//   ds = [dz dr dl du⊙r];  dh_prev += dh ⊙ (1 − z)
Var lgru_cell(Var a, Var s, Var h_prev) {
  Graph& g = *a.g;
  const Index B = a.rows(), H = h_prev.cols();
  check_rows("lgru_cell", {{a, 5 * H}, {s, 4 * H}, {h_prev, H}}, B);
  Mat st = g.take(B, 4 * H);   // z r l t
  st.leftCols(3 * H).noalias() = a.val().leftCols(3 * H) + s.val().leftCols(3 * H);
  sigmoid_(st.leftCols(3 * H));
  st.rightCols(H) = (a.val().middleCols(3 * H, H).array() +
                     st.middleCols(H, H).array() * s.val().rightCols(H).array()).tanh().matrix();
  const auto hp = h_prev.val().array();
  const auto ht = st.rightCols(H).array() + st.middleCols(2 * H, H).array() * a.val().rightCols(H).array();
  Mat y = g.take_eval((hp + st.leftCols(H).array() * (ht - hp)).matrix());
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("lgru_cell", std::move(y), {a, s, h_prev}, nullptr);
  }
  const NodeId sid = g.stash(std::move(st));
  return g.record("lgru_cell", std::move(y), {a, s, h_prev}, [a, s, h_prev, sid, H](Graph& g, NodeId self) {
    const Mat& st = g.value(sid);
    const auto dh = g.grad(self).array();
    const auto z = st.leftCols(H).array(), r = st.middleCols(H, H).array(), l = st.middleCols(2 * H, H).array();
    const auto t = st.rightCols(H).array();
    const auto ax = g.value(a.id).rightCols(H).array();
    const auto hp = g.value(h_prev.id).array();
    Mat da = g.take(dh.rows(), 5 * H);
    da.rightCols(H) = (dh * z).matrix();                                    // dh̃, for now
    const auto dht = da.rightCols(H).array();
    da.leftCols(H) = (dh * (t + l * ax - hp) * z * (Real(1) - z)).matrix();
    da.middleCols(3 * H, H) = (dht * (Real(1) - t.square())).matrix();
    da.middleCols(H, H) =
        (da.middleCols(3 * H, H).array() * g.value(s.id).rightCols(H).array() * r * (Real(1) - r)).matrix();
    da.middleCols(2 * H, H) = (dht * ax * l * (Real(1) - l)).matrix();
    da.rightCols(H).array() *= l;                                             // dH(x) = dh̃ ⊙ l
    if (g.needs_grad(h_prev.id)) g.accumulate(h_prev.id, dh * (Real(1) - z));
    if (g.needs_grad(s.id)) {
      Mat ds = g.take(da.rows(), 4 * H);
      ds.leftCols(3 * H) = da.leftCols(3 * H);
      ds.rightCols(H) = (da.middleCols(3 * H, H).array() * r).matrix();
      g.add_grad(s.id, std::move(ds));
    }
    add_to(g, {a.id}, std::move(da));
  });
}

// Backward:  dz = dh (h̃ − h_prev) z(1−z);  du = dh z (1 − h̃²);  dr = du s_h r(1−r);  ds = [dz dr du⊙r];
//   dh_prev += dh ⊙ (1 − z)
Var tgru_cell(Var s, Var h_prev) {
  Graph& g = *s.g;
  const Index B = s.rows(), H = h_prev.cols();
  check_rows("tgru_cell", {{s, 3 * H}, {h_prev, H}}, B);
  Mat st = g.take(B, 3 * H);   // z r h̃
  st.leftCols(2 * H) = s.val().leftCols(2 * H);
  sigmoid_(st.leftCols(2 * H));
  st.rightCols(H) = (st.middleCols(H, H).array() * s.val().rightCols(H).array()).tanh().matrix();
  const auto hp = h_prev.val().array();
  Mat y = g.take_eval((hp + st.leftCols(H).array() * (st.rightCols(H).array() - hp)).matrix());
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("tgru_cell", std::move(y), {s, h_prev}, nullptr);
  }
  const NodeId sid = g.stash(std::move(st));
  return g.record("tgru_cell", std::move(y), {s, h_prev}, [s, h_prev, sid, H](Graph& g, NodeId self) {
    const Mat& st = g.value(sid);
    const auto dh = g.grad(self).array();
    const auto z = st.leftCols(H).array(), r = st.middleCols(H, H).array(), ht = st.rightCols(H).array();
    const auto hp = g.value(h_prev.id).array();
    Mat ds = g.take(dh.rows(), 3 * H);
    ds.leftCols(H) = (dh * (ht - hp) * z * (Real(1) - z)).matrix();
    ds.rightCols(H) = (dh * z * (Real(1) - ht.square())).matrix();
    ds.middleCols(H, H) = (ds.rightCols(H).array() * g.value(s.id).rightCols(H).array() * r * (Real(1) - r)).matrix();
    ds.rightCols(H).array() *= r;
    if (g.needs_grad(h_prev.id)) g.accumulate(h_prev.id, dh * (Real(1) - z));
    add_to(g, {s.id}, std::move(ds));
  });
}

// Backward: du = dh g'(u) (g' = 1 − h² for tanh);  dk = du v i(1−i);  dq = du h_prev f(1−f);  dv = du i;
//   dh_prev += du f + dk − dq
Var lrn_cell(Var qkv, Var h_prev, bool tanh_out) {
  Graph& g = *qkv.g;
  const Index B = qkv.rows(), H = h_prev.cols();
  check_rows("lrn_cell", {{qkv, 3 * H}, {h_prev, H}}, B);
  const auto hp = h_prev.val().array();
  Mat st = g.take(B, 2 * H);   // i f
  st.leftCols(H) = (qkv.val().middleCols(H, H).array() + hp).matrix();
  st.rightCols(H) = (qkv.val().leftCols(H).array() - hp).matrix();
  sigmoid_(st);
  Mat y = g.take_eval(
      (st.leftCols(H).array() * qkv.val().rightCols(H).array() + st.rightCols(H).array() * hp).matrix());
  if (tanh_out) tanh_(y);
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("lrn_cell", std::move(y), {qkv, h_prev}, nullptr);
  }
  const NodeId s = g.stash(std::move(st));
  return g.record("lrn_cell", std::move(y), {qkv, h_prev}, [qkv, h_prev, s, H, tanh_out](Graph& g, NodeId self) {
    const Mat& st = g.value(s);
    const auto i = st.leftCols(H).array(), f = st.rightCols(H).array();
    Mat du = g.take_eval(g.grad(self));
    if (tanh_out) du.array() *= Real(1) - g.value(self).array().square();
    const auto dua = du.array();
    Mat d = g.take(du.rows(), 3 * H);
    d.middleCols(H, H) = (dua * g.value(qkv.id).rightCols(H).array() * i * (Real(1) - i)).matrix();
    d.leftCols(H) = (dua * g.value(h_prev.id).array() * f * (Real(1) - f)).matrix();
    d.rightCols(H) = (dua * i).matrix();
    if (g.needs_grad(h_prev.id))
      g.accumulate(h_prev.id, dua * f + d.middleCols(H, H).array() - d.leftCols(H).array());
    g.give(std::move(du));
    add_to(g, {qkv.id}, std::move(d));
  });
}

// Backward: dc = dc_in + dh g'(c);  ds_i = dc c̃ i(1−i);  ds_f = dc c_prev f(1−f);  dc̃ = dc i;
//   da = [ds_i ds_f dc̃];  dq = [ds_i ds_f];  dc_prev += dc ⊙ f
Var ran_cell(Var a, Var q, Var c_prev, bool tanh_out) {
  Graph& g = *a.g;
  const Index B = a.rows(), H = c_prev.cols();
  check_rows("ran_cell", {{a, 3 * H}, {q, 2 * H}, {c_prev, H}}, B);
  Mat st = g.take(B, 2 * H);   // i f
  st.noalias() = a.val().leftCols(2 * H) + q.val();
  sigmoid_(st);
  Mat y = g.take(B, 2 * H);    // h c
  y.rightCols(H) = (st.leftCols(H).array() * a.val().rightCols(H).array() +
                    st.rightCols(H).array() * c_prev.val().array()).matrix();
  if (tanh_out) y.leftCols(H) = y.rightCols(H).array().tanh().matrix();
  else y.leftCols(H) = y.rightCols(H);
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("ran_cell", std::move(y), {a, q, c_prev}, nullptr);
  }
  const NodeId s = g.stash(std::move(st));
  return g.record("ran_cell", std::move(y), {a, q, c_prev}, [a, q, c_prev, s, H, tanh_out](Graph& g, NodeId self) {
    const Mat& st = g.value(s);
    const Mat& dy = g.grad(self);
    const auto i = st.leftCols(H).array(), f = st.rightCols(H).array();
    Mat dc = g.take_eval(dy.leftCols(H));
    if (tanh_out) dc.array() *= Real(1) - g.value(self).leftCols(H).array().square();
    dc += dy.rightCols(H);
    const auto dca = dc.array();
    Mat da = g.take(dy.rows(), 3 * H);
    da.leftCols(H) = (dca * g.value(a.id).rightCols(H).array() * i * (Real(1) - i)).matrix();
    da.middleCols(H, H) = (dca * g.value(c_prev.id).array() * f * (Real(1) - f)).matrix();
    da.rightCols(H) = (dca * i).matrix();
    if (g.needs_grad(c_prev.id)) g.accumulate(c_prev.id, dca * f);
    g.give(std::move(dc));
    if (g.needs_grad(q.id)) g.add_grad(q.id, g.take_eval(da.leftCols(2 * H)));
    add_to(g, {a.id}, std::move(da));
  });
}

// Backward, gc = g(c): dr = dh (gc − x_h) r(1−r);  dx_h = dh (1 − r);  dc = dc_in + dh r g'(c);
//   df = dc (c_prev − x̃) f(1−f);  dx̃ = dc (1 − f);  dc_prev += dc ⊙ f
Var sru_cell(Var a, Var c_prev, bool tanh_out) {
  Graph& g = *a.g;
  const Index B = a.rows(), H = c_prev.cols();
  check_rows("sru_cell", {{a, 4 * H}, {c_prev, H}}, B);
  Mat st = g.take(B, 3 * H);   // f r g(c)
  st.leftCols(2 * H) = a.val().leftCols(2 * H);
  sigmoid_(st.leftCols(2 * H));
  const auto xt = a.val().middleCols(2 * H, H).array(), xh = a.val().rightCols(H).array();
  Mat y = g.take(B, 2 * H);    // h c
  y.rightCols(H) = (xt + st.leftCols(H).array() * (c_prev.val().array() - xt)).matrix();
  if (tanh_out) st.rightCols(H) = y.rightCols(H).array().tanh().matrix();
  else st.rightCols(H) = y.rightCols(H);
  y.leftCols(H) = (xh + st.middleCols(H, H).array() * (st.rightCols(H).array() - xh)).matrix();
  if (!g.training()) {
    g.give(std::move(st));
    return g.record("sru_cell", std::move(y), {a, c_prev}, nullptr);
  }
  const NodeId s = g.stash(std::move(st));
  return g.record("sru_cell", std::move(y), {a, c_prev}, [a, c_prev, s, H, tanh_out](Graph& g, NodeId self) {
    const Mat& st = g.value(s);
    const Mat& dy = g.grad(self);
    const auto f = st.leftCols(H).array(), r = st.middleCols(H, H).array(), gc = st.rightCols(H).array();
    const auto dh = dy.leftCols(H).array();
    const auto xt = g.value(a.id).middleCols(2 * H, H).array(), xh = g.value(a.id).rightCols(H).array();
    Mat dc = g.take_eval((dh * r).matrix());
    if (tanh_out) dc.array() *= Real(1) - gc.square();
    dc += dy.rightCols(H);
    const auto dca = dc.array();
    Mat da = g.take(dy.rows(), 4 * H);
    da.leftCols(H) = (dca * (g.value(c_prev.id).array() - xt) * f * (Real(1) - f)).matrix();
    da.middleCols(H, H) = (dh * (gc - xh) * r * (Real(1) - r)).matrix();
    da.middleCols(2 * H, H) = (dca * (Real(1) - f)).matrix();
    da.rightCols(H) = (dh * (Real(1) - r)).matrix();
    if (g.needs_grad(c_prev.id)) g.accumulate(c_prev.id, dca * f);
    g.give(std::move(dc));
    add_to(g, {a.id}, std::move(da));
  });
}

}  // namespace twin
