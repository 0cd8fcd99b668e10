#include "ops/dnnl_rnn.h"

#if defined(TW_HAVE_DNNL) && !defined(TW_REAL_DOUBLE)
#define TW_DNNL_RNN 1
#include "base/dnnl_engine.h"
#include <omp.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#endif

#include "base/check.h"

namespace twin {

#ifdef TW_DNNL_RNN
namespace {
using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

int gate_count(DnnlRnnCell c) { return c == DnnlRnnCell::kLstm ? 4 : 3; }
// lbr_gru has a fourth bias block (inside r ⊙ (h U_h + b')), held at 0 here.
int bias_blocks(DnnlRnnCell c) { return c == DnnlRnnCell::kGruResetAfter ? 4 : gate_count(c); }

// The suite's gate blocks <-> oneDNN's (dnnl_rnn.h): LSTM i f o c̃ <-> i f c̃ o, GRU z <-> u = 1 − z (negated
// pre-activations). An involution, so one function maps both ways (weights in, gradients out).
void map_gates(Mat& m, DnnlRnnCell cell, Index h) {
  if (cell == DnnlRnnCell::kLstm) m.middleCols(2 * h, h).swap(m.middleCols(3 * h, h));
  else m.leftCols(h) *= Real(-1);
}

// The primitives of one shape: cell, T, B, I, H, reverse, training, threads (oneDNN may plan its work split for
// the thread count when a primitive is made, as in gemm_dnnl.cc).
using Key = std::tuple<int, Index, Index, Index, Index, bool, bool, int>;
struct Prims {
  dnnl::primitive fwd, bwd;
  memory::desc src_layer, dst_layer, iter, wl_user, wi_user, bias;   // our layouts (tnc, ldnc, ldigo, ldgo)
  memory::desc fwd_wl, fwd_wi, workspace;                            // what the forward primitive asked for
  memory::desc bwd_wl, bwd_wi, diff_wl, diff_wi;                     // and the backward one
};

// Weights are described as format_tag::any so that each primitive picks its layout (the backward one wants them
// transposed); ours are reordered into it when it differs.
template <class Fwd, class Bwd, class MakeBwd>
void build(Prims& p, const typename Fwd::desc& fd, const MakeBwd& make_bwd, bool training) {
  const typename Fwd::primitive_desc fpd(fd, dnnl_cpu_engine());
  p.fwd = Fwd(fpd);
  p.fwd_wl = fpd.weights_layer_desc();
  p.fwd_wi = fpd.weights_iter_desc();
  p.workspace = fpd.workspace_desc();
  if (!training) return;
  const typename Bwd::primitive_desc bpd(make_bwd(), dnnl_cpu_engine(), fpd);
  p.bwd = Bwd(bpd);
  p.bwd_wl = bpd.weights_layer_desc();
  p.bwd_wi = bpd.weights_iter_desc();
  p.diff_wl = bpd.diff_weights_layer_desc();
  p.diff_wi = bpd.diff_weights_iter_desc();
}

std::shared_ptr<const Prims> make(const Key& key) {
  const auto [c, T, B, I, H, reverse, training, threads] = key;
  (void)threads;   // oneDNN reads it from OpenMP; in the key so that another count gets its own primitives
  const auto cell = static_cast<DnnlRnnCell>(c);
  const Index G = gate_count(cell);
  auto p = std::make_shared<Prims>();
  p->src_layer = memory::desc({T, B, I}, kF32, Tag::tnc);
  p->dst_layer = memory::desc({T, B, H}, kF32, Tag::tnc);
  p->iter = memory::desc({1, 1, B, H}, kF32, Tag::ldnc);
  p->wl_user = memory::desc({1, 1, I, G, H}, kF32, Tag::ldigo);
  p->wi_user = memory::desc({1, 1, H, G, H}, kF32, Tag::ldigo);
  p->bias = memory::desc({1, 1, bias_blocks(cell), H}, kF32, Tag::ldgo);
  const memory::desc wl({1, 1, I, G, H}, kF32, Tag::any), wi({1, 1, H, G, H}, kF32, Tag::any);
  const auto dir = reverse ? dnnl::rnn_direction::unidirectional_right2left
                           : dnnl::rnn_direction::unidirectional_left2right;
  const auto prop = training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  const auto bwd = dnnl::prop_kind::backward;
  const memory::desc &s = p->src_layer, &d = p->dst_layer, &it = p->iter, &b = p->bias;
  switch (cell) {
    case DnnlRnnCell::kLstm:
      build<dnnl::lstm_forward, dnnl::lstm_backward>(
          *p, dnnl::lstm_forward::desc(prop, dir, s, it, it, wl, wi, b, d, it, it),
          [&] { return dnnl::lstm_backward::desc(bwd, dir, s, it, it, wl, wi, b, d, it, it, s, it, it, wl, wi, b, d, it, it); },
          training);
      break;
    case DnnlRnnCell::kGruResetAfter:
      build<dnnl::lbr_gru_forward, dnnl::lbr_gru_backward>(
          *p, dnnl::lbr_gru_forward::desc(prop, dir, s, it, wl, wi, b, d, it),
          [&] { return dnnl::lbr_gru_backward::desc(bwd, dir, s, it, wl, wi, b, d, it, s, it, wl, wi, b, d, it); },
          training);
      break;
    case DnnlRnnCell::kGruResetBefore:
      build<dnnl::gru_forward, dnnl::gru_backward>(
          *p, dnnl::gru_forward::desc(prop, dir, s, it, wl, wi, b, d, it),
          [&] { return dnnl::gru_backward::desc(bwd, dir, s, it, wl, wi, b, d, it, s, it, wl, wi, b, d, it); },
          training);
      break;
  }
  return p;
}

std::mutex g_rnn_mutex;
std::shared_ptr<const Prims> lookup(const Key& key) {
  static std::map<Key, std::shared_ptr<const Prims>> cache;
  const std::lock_guard<std::mutex> lock(g_rnn_mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    // Classification batches vary in length: bound the cache (a closure in flight keeps its own entry alive).
    if (cache.size() >= 64) cache.clear();
    it = cache.emplace(key, make(key)).first;
  }
  return it->second;
}

memory wrap(const memory::desc& d, const Real* data) {
  return memory(d, dnnl_cpu_engine(), const_cast<Real*>(data));
}

// `user` itself when the primitive takes our layout, else a reordered copy in the layout it asked for.
memory in_layout(const memory& user, const memory::desc& want) {
  if (user.get_desc() == want) return user;
  memory m(want, dnnl_cpu_engine());
  dnnl::reorder(user, m).execute(dnnl_thread_stream(), const_cast<memory&>(user), m);
  return m;
}

// A zeroed buffer in the layout the backward primitive writes its weight gradient in (it accumulates into it).
memory zeroed(const memory::desc& d) {
  memory m(d, dnnl_cpu_engine());
  std::memset(m.get_data_handle(), 0, d.get_size());
  return m;
}

// grad(v) += m when v needs a gradient; the buffer goes back to the pool otherwise.
void add_if(Graph& g, Var v, Mat&& m) {
  if (v.valid() && g.needs_grad(v.id)) g.add_grad(v.id, std::move(m));
  else g.give(std::move(m));
}

void check_shape(Var v, Index rows, Index cols, const char* what) {
  TW_CHECK(v.valid() && v.rows() == rows && v.cols() == cols, "dnnl_rnn_layer: ", what, " is ",
           v.valid() ? shape_str(v) : std::string("missing"), " but [", rows, "x", cols, "] was expected");
}
}  // namespace

bool dnnl_rnn_available() { return true; }

Var dnnl_rnn_layer(DnnlRnnCell cell, Var x, const DnnlRnnParams& p, Var h0, Var c0, Index batch, bool reverse) {
  Graph& g = *x.g;
  TW_CHECK(batch > 0 && x.rows() % batch == 0 && x.rows() > 0, "dnnl_rnn_layer: input ", shape_str(x),
           " is not [T*B, I] with B=", batch);
  const bool lstm = cell == DnnlRnnCell::kLstm, before = cell == DnnlRnnCell::kGruResetBefore;
  const Index B = batch, T = x.rows() / B, I = x.cols(), H = h0.cols(), G = gate_count(cell);
  check_shape(p.w, I, G * H, "W");
  check_shape(p.u, H, (before ? 2 : G) * H, "U");
  if (before) check_shape(p.u_h, H, H, "U_h");
  if (p.b.valid()) check_shape(p.b, 1, G * H, "b");
  check_shape(h0, B, H, "h0");
  if (lstm) check_shape(c0, B, H, "c0");
  const bool training = g.training();
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  std::shared_ptr<const Prims> pr = lookup(Key{static_cast<int>(cell), T, B, I, H, reverse, training, threads});

  // Our parameters in oneDNN's gate order (dnnl_rnn.h): W, [U | U_h], b with lbr_gru's fourth block at 0.
  Mat wl = g.take_eval(p.w.val());
  map_gates(wl, cell, H);
  Mat wi = g.take(H, G * H);
  if (before) wi << p.u.val(), p.u_h.val();
  else wi = p.u.val();
  map_gates(wi, cell, H);
  Mat bias = g.take_zero(1, bias_blocks(cell) * H);
  if (p.b.valid()) bias.leftCols(G * H) = p.b.val();
  map_gates(bias, cell, H);

  const Index rows_h = T * B * H, rows_c = (T + 1) * B * H;   // offsets of h_last and c_last in y
  Mat y = g.take((T + (lstm ? 2 : 1)) * B, H);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC_LAYER, wrap(pr->src_layer, x.val().data())},
      {DNNL_ARG_SRC_ITER, wrap(pr->iter, h0.val().data())},
      {DNNL_ARG_WEIGHTS_LAYER, in_layout(wrap(pr->wl_user, wl.data()), pr->fwd_wl)},
      {DNNL_ARG_WEIGHTS_ITER, in_layout(wrap(pr->wi_user, wi.data()), pr->fwd_wi)},
      {DNNL_ARG_BIAS, wrap(pr->bias, bias.data())},
      {DNNL_ARG_DST_LAYER, wrap(pr->dst_layer, y.data())},
      {DNNL_ARG_DST_ITER, wrap(pr->iter, y.data() + rows_h)}};
  if (lstm) {
    args.emplace(DNNL_ARG_SRC_ITER_C, wrap(pr->iter, c0.val().data()));
    args.emplace(DNNL_ARG_DST_ITER_C, wrap(pr->iter, y.data() + rows_c));
  }
  memory ws;   // what forward_training keeps for the backward (the gates of every step)
  if (training) {
    ws = memory(pr->workspace, dnnl_cpu_engine());
    args.emplace(DNNL_ARG_WORKSPACE, ws);
  }
  pr->fwd.execute(dnnl_thread_stream(), args);
  const char* name = lstm ? "dnnl_lstm" : "dnnl_gru";
  std::vector<Var> inputs{x, p.w, p.u, h0};
  for (Var v : {p.u_h, p.b, c0})
    if (v.valid()) inputs.push_back(v);
  if (!training) {
    g.give(std::move(wl));
    g.give(std::move(wi));
    g.give(std::move(bias));
    return g.record(name, std::move(y), inputs, nullptr);
  }
  const NodeId s_wl = g.stash(std::move(wl)), s_wi = g.stash(std::move(wi)), s_b = g.stash(std::move(bias));
  return g.record(name, std::move(y), inputs, [=](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    const Mat& yv = g.value(self);
    Mat dx = g.take(T * B, I), dh0 = g.take(B, H), dc0 = g.take(B, lstm ? H : 0);
    Mat dbias = g.take_zero(1, bias_blocks(cell) * H);
    memory dwl = zeroed(pr->diff_wl), dwi = zeroed(pr->diff_wi);
    std::unordered_map<int, memory> a{
        {DNNL_ARG_SRC_LAYER, wrap(pr->src_layer, g.value(x.id).data())},
        {DNNL_ARG_SRC_ITER, wrap(pr->iter, g.value(h0.id).data())},
        {DNNL_ARG_WEIGHTS_LAYER, in_layout(wrap(pr->wl_user, g.value(s_wl).data()), pr->bwd_wl)},
        {DNNL_ARG_WEIGHTS_ITER, in_layout(wrap(pr->wi_user, g.value(s_wi).data()), pr->bwd_wi)},
        {DNNL_ARG_BIAS, wrap(pr->bias, g.value(s_b).data())},
        {DNNL_ARG_DST_LAYER, wrap(pr->dst_layer, yv.data())},
        {DNNL_ARG_DST_ITER, wrap(pr->iter, yv.data() + rows_h)},
        {DNNL_ARG_WORKSPACE, ws},
        {DNNL_ARG_DIFF_SRC_LAYER, wrap(pr->src_layer, dx.data())},
        {DNNL_ARG_DIFF_SRC_ITER, wrap(pr->iter, dh0.data())},
        {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl},
        {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi},
        {DNNL_ARG_DIFF_BIAS, wrap(pr->bias, dbias.data())},
        {DNNL_ARG_DIFF_DST_LAYER, wrap(pr->dst_layer, dy.data())},
        {DNNL_ARG_DIFF_DST_ITER, wrap(pr->iter, dy.data() + rows_h)}};
    if (lstm) {
      a.emplace(DNNL_ARG_SRC_ITER_C, wrap(pr->iter, g.value(c0.id).data()));
      a.emplace(DNNL_ARG_DST_ITER_C, wrap(pr->iter, yv.data() + rows_c));
      a.emplace(DNNL_ARG_DIFF_SRC_ITER_C, wrap(pr->iter, dc0.data()));
      a.emplace(DNNL_ARG_DIFF_DST_ITER_C, wrap(pr->iter, dy.data() + rows_c));
    }
    pr->bwd.execute(dnnl_thread_stream(), a);
    // The weight gradients in our layout and gate order.
    Mat gw = g.take(I, G * H), gu = g.take(H, G * H);
    memory gw_m = wrap(pr->wl_user, gw.data()), gu_m = wrap(pr->wi_user, gu.data());
    dnnl::reorder(dwl, gw_m).execute(dnnl_thread_stream(), dwl, gw_m);
    dnnl::reorder(dwi, gu_m).execute(dnnl_thread_stream(), dwi, gu_m);
    map_gates(gw, cell, H);
    map_gates(gu, cell, H);
    map_gates(dbias, cell, H);
    add_if(g, p.w, std::move(gw));
    if (before) {
      add_if(g, p.u, g.take_eval(gu.leftCols(2 * H)));
      add_if(g, p.u_h, g.take_eval(gu.rightCols(H)));
      g.give(std::move(gu));
    } else {
      add_if(g, p.u, std::move(gu));
    }
    if (p.b.valid()) add_if(g, p.b, g.take_eval(dbias.leftCols(G * H)));
    g.give(std::move(dbias));
    add_if(g, x, std::move(dx));
    add_if(g, h0, std::move(dh0));
    if (lstm) add_if(g, c0, std::move(dc0));
    else g.give(std::move(dc0));
  });
}
#else
bool dnnl_rnn_available() { return false; }
Var dnnl_rnn_layer(DnnlRnnCell, Var, const DnnlRnnParams&, Var, Var, Index, bool) {
  TW_FAIL("dnnl_rnn_layer: this build has no oneDNN (install libdnnl-dev, configure with -DTW_WITH_DNNL=ON; float "
          "builds only)");
}
#endif

}  // namespace twin
