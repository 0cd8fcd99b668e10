#include "rnn/gates.h"

namespace twin {

namespace {
void check_gates(const std::vector<Mat>& i, const std::vector<Mat>& f, Index t) {
  TW_CHECK(!i.empty() && i.size() == f.size(), "contribution weights: ", i.size(), " input-gate steps but ", f.size(),
           " forget-gate steps (HINT: run_rnn with record_gates = true)");
  TW_CHECK(t >= 0 && t < static_cast<Index>(i.size()), "contribution weights: step ", t, " outside [0, ", i.size(),
           ")");
  for (size_t s = 0; s < i.size(); ++s)
    TW_CHECK(i[s].rows() == i[0].rows() && i[s].cols() == i[0].cols() && f[s].rows() == i[0].rows() &&
                 f[s].cols() == i[0].cols(),
             "contribution weights: gate shapes differ at step ", s);
}
}  // namespace

std::vector<Mat> contribution_weights(const std::vector<Mat>& i, const std::vector<Mat>& f, Index t, Dir dir) {
  check_gates(i, f, t);
  const Index steps = static_cast<Index>(i.size());
  const auto at = [](const std::vector<Mat>& v, Index s) -> const Mat& { return v[static_cast<size_t>(s)]; };
  std::vector<Mat> g(i.size(), Mat::Zero(i[0].rows(), i[0].cols()));
  Mat prod = Mat::Ones(i[0].rows(), i[0].cols());   // Π of the forget gates between k and t
  g[static_cast<size_t>(t)] = at(i, t);
  if (dir == Dir::kForward) {
    for (Index k = t - 1; k >= 0; --k) {
      prod.array() *= at(f, k + 1).array();
      g[static_cast<size_t>(k)] = (at(i, k).array() * prod.array()).matrix();
    }
  } else {
    for (Index k = t + 1; k < steps; ++k) {
      prod.array() *= at(f, k - 1).array();
      g[static_cast<size_t>(k)] = (at(i, k).array() * prod.array()).matrix();
    }
  }
  return g;
}

Mat unrolled_state(const std::vector<Mat>& i, const std::vector<Mat>& f, const std::vector<Mat>& v, Index t,
                   Dir dir) {
  TW_CHECK(v.size() == i.size(), "unrolled_state: ", v.size(), " values for ", i.size(), " gate steps");
  const std::vector<Mat> g = contribution_weights(i, f, t, dir);
  Mat h = Mat::Zero(i[0].rows(), i[0].cols());
  for (size_t k = 0; k < g.size(); ++k) {
    TW_CHECK(v[k].rows() == h.rows() && v[k].cols() == h.cols(), "unrolled_state: value ", shape_str(v[k]),
             " at step ", k, " but gates are ", shape_str(h));
    h.array() += g[k].array() * v[k].array();
  }
  return h;
}

Mat final_state_weights(const std::vector<Mat>& i, const std::vector<Mat>& f, const std::vector<Index>& lengths,
                        Dir dir) {
  check_gates(i, f, 0);
  const Index steps = static_cast<Index>(i.size()), batch = i[0].rows();
  TW_CHECK(static_cast<Index>(lengths.size()) == batch, "final_state_weights: ", lengths.size(),
           " lengths for a batch of ", batch);
  Mat w = Mat::Zero(steps, batch);
  for (Index b = 0; b < batch; ++b) {
    const Index n = lengths[static_cast<size_t>(b)];
    TW_CHECK(n >= 1 && n <= steps, "final_state_weights: length ", n, " outside [1, ", steps, "]");
    const std::vector<Mat> g = contribution_weights(i, f, dir == Dir::kForward ? n - 1 : 0, dir);
    for (Index k = 0; k < n; ++k) w(k, b) = g[static_cast<size_t>(k)].row(b).mean();
  }
  return w;
}

Mat dependency_matrix(const std::vector<Mat>& i, const std::vector<Mat>& f, Index b, Index length, Dir dir) {
  check_gates(i, f, 0);
  TW_CHECK(b >= 0 && b < i[0].rows(), "dependency_matrix: sequence ", b, " outside the batch of ", i[0].rows());
  TW_CHECK(length >= 1 && length <= static_cast<Index>(i.size()), "dependency_matrix: length ", length,
           " outside [1, ", i.size(), "]");
  Mat d = Mat::Zero(length, length);
  for (Index t = 0; t < length; ++t) {
    const std::vector<Mat> g = contribution_weights(i, f, t, dir);
    for (Index k = 0; k < length; ++k) d(t, k) = g[static_cast<size_t>(k)].row(b).mean();
  }
  return d;
}

}  // namespace twin
