// Where a step's time goes, op by op: wall time of every op's forward and backward, and of every matrix
// product by shape and route (OpenBLAS, BLIS or Eigen). Off by default and then one predictable branch per op; on with
// TWIN_PROFILE=1 in the environment or profile::set_enabled(true) (build/bin/speed --profile).
//
// Forward time of an op is the wall time since the previous op was recorded (or since Graph::clear()), so it
// includes the model code between two ops; backward time is the op's closure. Matrix products are timed
// inside gemm(), so their time is also part of the op that called them.
#pragma once
#include <string>

namespace twin::profile {

bool enabled();
void set_enabled(bool on);
void reset();

void add_forward(const char* op, double seconds);
void add_backward(const char* op, double seconds);
void add_gemm(long m, long n, long k, bool trans_a, bool trans_b, const char* route, double seconds);

// Markdown tables (ops by total time, products by time with their GFLOP/s), times per step.
std::string report(double steps);

}  // namespace twin::profile
