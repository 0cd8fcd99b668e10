// The pieces of the oneDNN reference LM (onednn_lm.h) below the model: the engine and stream, the parameter
// updates as plain OpenMP loops, and one LSTM or GRU layer on oneDNN's RNN primitives (forward_training with its
// workspace, backward, forward_inference), with its carried state. Included by onednn_lm.cc only, in a float build
// with oneDNN (TW_HAVE_DNNL).
#pragma once
#include <algorithm>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <unordered_map>
#include <vector>

#include "base/real.h"

namespace twin::speed::onednn_ref {

using dnnl::memory;
using Dims = memory::dims;
using Tag = memory::format_tag;
using Args = std::unordered_map<int, memory>;
constexpr auto kF32 = memory::data_type::f32;
constexpr float kLr = 0.1f, kClip = 5.0f;   // as speed_bench.cc
constexpr int kWindowPool = 4;

using Buf = std::vector<float>;

struct Ctx {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream s{eng};
  memory wrap(const memory::desc& d, float* p) { return memory(d, eng, p); }
  // `user` itself when the primitive takes that layout, else a copy reordered into the one it asked for.
  memory in_layout(memory user, const memory::desc& want) {
    if (user.get_desc() == want) return user;
    memory m(want, eng);
    dnnl::reorder(user, m).execute(s, user, m);
    return m;
  }
};

constexpr float kInit = 0.1f;   // U(−0.1, 0.1), as the suite's speed LM
inline void uniform(Buf& b, std::mt19937& rng, float scale) {
  std::uniform_real_distribution<float> u(-scale, scale);
  for (float& v : b) v = u(rng);
}

inline double sum_squares(const Buf& b) {
  double s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
  for (size_t i = 0; i < b.size(); ++i) s += static_cast<double>(b[i]) * b[i];
  return s;
}

inline void sgd(Buf& w, const Buf& g, float step) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < w.size(); ++i) w[i] -= step * g[i];
}

// One LSTM or GRU layer: parameters in user layout, its primitives, and the carried states (train, infer).
struct Layer {
  bool lstm = true;
  Index I = 0, H = 0, G = 0, Gb = 0;
  Buf w, u, b, dw, du, db;                 // ldigo [I][G][H], [H][G][H]; ldgo [Gb][H]
  memory::desc src, dst, iter, wl_user, wi_user, bias;
  dnnl::primitive fwd, bwd, inf;
  memory::desc fwd_wl, fwd_wi, bwd_wl, bwd_wi, diff_wl, diff_wi, inf_wl, inf_wi, ws_desc;
  memory ws;
  Buf h[2], c[2], hi[2], ci[2];            // carried train / infer states (double-buffered: dst != src)
  Buf zero, dsink, dcsink;                 // diff_dst_iter (detached: 0); diff_src_iter and _c (unused)
  Buf y, dx;                               // [T·B, H] output; [T·B, I] input gradient

  Layer(Ctx& cx, bool is_lstm, Index T, Index B, Index in, Index hid, std::mt19937& rng, float init) {
    lstm = is_lstm;
    I = in, H = hid, G = lstm ? 4 : 3, Gb = 4;   // LSTM: 4 gates; lbr_gru: 3 gates + the bias inside r ⊙ (.)
    w.resize(I * G * H), u.resize(H * G * H), b.assign(Gb * H, 0.f);
    uniform(w, rng, init), uniform(u, rng, init);
    dw.resize(w.size()), du.resize(u.size()), db.resize(b.size());
    for (int k = 0; k < 2; ++k) h[k].assign(B * H, 0.f), c[k].assign(B * H, 0.f), hi[k] = h[k], ci[k] = c[k];
    zero.assign(B * H, 0.f), dsink.resize(B * H), dcsink.resize(B * H), y.resize(T * B * H), dx.resize(T * B * I);
    src = memory::desc({T, B, I}, kF32, Tag::tnc);
    dst = memory::desc({T, B, H}, kF32, Tag::tnc);
    iter = memory::desc({1, 1, B, H}, kF32, Tag::ldnc);
    wl_user = memory::desc({1, 1, I, G, H}, kF32, Tag::ldigo);
    wi_user = memory::desc({1, 1, H, G, H}, kF32, Tag::ldigo);
    bias = memory::desc({1, 1, Gb, H}, kF32, Tag::ldgo);
    const memory::desc wl({1, 1, I, G, H}, kF32, Tag::any), wi({1, 1, H, G, H}, kF32, Tag::any);
    const auto dir = dnnl::rnn_direction::unidirectional_left2right;
    const auto tr = dnnl::prop_kind::forward_training, in_ = dnnl::prop_kind::forward_inference;
    const auto bk = dnnl::prop_kind::backward;
    const memory::desc &s = src, &d = dst, &it = iter, &bi = bias;
    if (lstm) {
      const dnnl::lstm_forward::primitive_desc f(
          dnnl::lstm_forward::desc(tr, dir, s, it, it, wl, wi, bi, d, it, it), cx.eng);
      const dnnl::lstm_backward::primitive_desc g(
          dnnl::lstm_backward::desc(bk, dir, s, it, it, wl, wi, bi, d, it, it, s, it, it, wl, wi, bi, d, it, it), cx.eng,
          f);
      const dnnl::lstm_forward::primitive_desc n(
          dnnl::lstm_forward::desc(in_, dir, s, it, it, wl, wi, bi, d, it, it), cx.eng);
      take<dnnl::lstm_forward, dnnl::lstm_backward>(f, g, n);
    } else {
      const dnnl::lbr_gru_forward::primitive_desc f(dnnl::lbr_gru_forward::desc(tr, dir, s, it, wl, wi, bi, d, it),
                                                    cx.eng);
      const dnnl::lbr_gru_backward::primitive_desc g(
          dnnl::lbr_gru_backward::desc(bk, dir, s, it, wl, wi, bi, d, it, s, it, wl, wi, bi, d, it), cx.eng, f);
      const dnnl::lbr_gru_forward::primitive_desc n(dnnl::lbr_gru_forward::desc(in_, dir, s, it, wl, wi, bi, d, it),
                                                    cx.eng);
      take<dnnl::lbr_gru_forward, dnnl::lbr_gru_backward>(f, g, n);
    }
    ws = memory(ws_desc, cx.eng);
  }

  template <class Fwd, class Bwd>
  void take(const typename Fwd::primitive_desc& f, const typename Bwd::primitive_desc& g,
            const typename Fwd::primitive_desc& n) {
    fwd = Fwd(f), bwd = Bwd(g), inf = Fwd(n);
    fwd_wl = f.weights_layer_desc(), fwd_wi = f.weights_iter_desc(), ws_desc = f.workspace_desc();
    bwd_wl = g.weights_layer_desc(), bwd_wi = g.weights_iter_desc();
    diff_wl = g.diff_weights_layer_desc(), diff_wi = g.diff_weights_iter_desc();
    inf_wl = n.weights_layer_desc(), inf_wi = n.weights_iter_desc();
  }

  // x: [T·B, I]; writes y and the next carried state.
  void forward(Ctx& cx, float* x, bool training) {
    Buf* hs = training ? h : hi;
    Buf* cs = training ? c : ci;
    Args a{{DNNL_ARG_SRC_LAYER, cx.wrap(src, x)},
           {DNNL_ARG_SRC_ITER, cx.wrap(iter, hs[0].data())},
           {DNNL_ARG_WEIGHTS_LAYER, cx.in_layout(cx.wrap(wl_user, w.data()), training ? fwd_wl : inf_wl)},
           {DNNL_ARG_WEIGHTS_ITER, cx.in_layout(cx.wrap(wi_user, u.data()), training ? fwd_wi : inf_wi)},
           {DNNL_ARG_BIAS, cx.wrap(bias, b.data())},
           {DNNL_ARG_DST_LAYER, cx.wrap(dst, y.data())},
           {DNNL_ARG_DST_ITER, cx.wrap(iter, hs[1].data())}};
    if (lstm) {
      a.emplace(DNNL_ARG_SRC_ITER_C, cx.wrap(iter, cs[0].data()));
      a.emplace(DNNL_ARG_DST_ITER_C, cx.wrap(iter, cs[1].data()));
    }
    if (training) a.emplace(DNNL_ARG_WORKSPACE, ws);
    (training ? fwd : inf).execute(cx.s, a);
    // The new state becomes the next step's input; the old one (still the src of this step's backward) moves to
    // slot 1, which backward() reads as the src state.
    std::swap(hs[0], hs[1]);
    if (lstm) std::swap(cs[0], cs[1]);
  }

  // dy: [T·B, H] (the loss's gradient w.r.t. y); x: this step's input. Fills dx, dw, du, db.
  void backward(Ctx& cx, float* x, float* dy) {
    std::fill(dw.begin(), dw.end(), 0.f), std::fill(du.begin(), du.end(), 0.f), std::fill(db.begin(), db.end(), 0.f);
    memory dwl = cx.wrap(wl_user, dw.data()), dwi = cx.wrap(wi_user, du.data());
    memory dwl_p = cx.in_layout(dwl, diff_wl), dwi_p = cx.in_layout(dwi, diff_wi);   // zeros, in its layout
    Args a{{DNNL_ARG_SRC_LAYER, cx.wrap(src, x)},
           {DNNL_ARG_SRC_ITER, cx.wrap(iter, h[1].data())},
           {DNNL_ARG_WEIGHTS_LAYER, cx.in_layout(cx.wrap(wl_user, w.data()), bwd_wl)},
           {DNNL_ARG_WEIGHTS_ITER, cx.in_layout(cx.wrap(wi_user, u.data()), bwd_wi)},
           {DNNL_ARG_BIAS, cx.wrap(bias, b.data())},
           {DNNL_ARG_DST_LAYER, cx.wrap(dst, y.data())},
           {DNNL_ARG_DST_ITER, cx.wrap(iter, h[0].data())},
           {DNNL_ARG_WORKSPACE, ws},
           {DNNL_ARG_DIFF_SRC_LAYER, cx.wrap(src, dx.data())},
           {DNNL_ARG_DIFF_SRC_ITER, cx.wrap(iter, dsink.data())},
           {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl_p},
           {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi_p},
           {DNNL_ARG_DIFF_BIAS, cx.wrap(bias, db.data())},
           {DNNL_ARG_DIFF_DST_LAYER, cx.wrap(dst, dy)},
           {DNNL_ARG_DIFF_DST_ITER, cx.wrap(iter, zero.data())}};
    if (lstm) {
      a.emplace(DNNL_ARG_SRC_ITER_C, cx.wrap(iter, c[1].data()));
      a.emplace(DNNL_ARG_DST_ITER_C, cx.wrap(iter, c[0].data()));
      a.emplace(DNNL_ARG_DIFF_SRC_ITER_C, cx.wrap(iter, dcsink.data()));
      a.emplace(DNNL_ARG_DIFF_DST_ITER_C, cx.wrap(iter, zero.data()));
    }
    bwd.execute(cx.s, a);
    if (dwl_p != dwl) dnnl::reorder(dwl_p, dwl).execute(cx.s, dwl_p, dwl);
    if (dwi_p != dwi) dnnl::reorder(dwi_p, dwi).execute(cx.s, dwi_p, dwi);
  }
};

}  // namespace twin::speed::onednn_ref
