// Scalar and matrix types, decided once for the whole project.
// Real is float, or double when built with TW_REAL_DOUBLE (the twin_core_f64 library used by gradient tests).
// Only 2-D row-major matrices: rows are examples, columns features, y = x W + b, W: [in, out].
// Sequences are time-major stacked: [T*B, D], step t is rows [t*B, (t+1)*B).
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace twin {

#ifdef TW_REAL_DOUBLE
using Real = double;
#else
using Real = float;
#endif

using Index = Eigen::Index;
using Mat = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVec = Eigen::Matrix<Real, 1, Eigen::Dynamic, Eigen::RowMajor>;
using IdMat = Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;  // token ids [T, B]
using Ids = std::vector<std::int32_t>;

inline std::string shape_str(const Mat& m) {
  return "[" + std::to_string(m.rows()) + "x" + std::to_string(m.cols()) + "]";
}

}  // namespace twin
