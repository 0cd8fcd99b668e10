#include "base/profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace twin::profile {

namespace {
bool env_enabled() {
  const char* v = std::getenv("TWIN_PROFILE");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}
bool g_enabled = env_enabled();

struct OpTimes {
  long fwd_calls = 0, bwd_calls = 0;
  double fwd = 0, bwd = 0;
};
using GemmKey = std::tuple<long, long, long, bool, bool, std::string>;   // m, n, k, trans_a, trans_b, route
struct GemmTimes {
  long calls = 0;
  double seconds = 0;
};

std::mutex g_mu;   // products may be issued from several threads (beam search over an ensemble)
std::map<std::string, OpTimes> g_ops;
std::map<GemmKey, GemmTimes> g_gemm;

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}
}  // namespace

bool enabled() { return g_enabled; }
void set_enabled(bool on) { g_enabled = on; }

void reset() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_ops.clear();
  g_gemm.clear();
}

void add_forward(const char* op, double seconds) {
  std::lock_guard<std::mutex> lock(g_mu);
  OpTimes& t = g_ops[op];
  ++t.fwd_calls;
  t.fwd += seconds;
}

void add_backward(const char* op, double seconds) {
  std::lock_guard<std::mutex> lock(g_mu);
  OpTimes& t = g_ops[op];
  ++t.bwd_calls;
  t.bwd += seconds;
}

void add_gemm(long m, long n, long k, bool trans_a, bool trans_b, const char* route, double seconds) {
  std::lock_guard<std::mutex> lock(g_mu);
  GemmTimes& t = g_gemm[{m, n, k, trans_a, trans_b, route}];
  ++t.calls;
  t.seconds += seconds;
}

std::string report(double steps) {
  std::lock_guard<std::mutex> lock(g_mu);
  const double per = steps > 0 ? 1e3 / steps : 1e3;   // ms per step
  std::string out = "| op | forward calls | forward ms | backward calls | backward ms | total ms |\n|---|---:|---:|---:|---:|---:|\n";
  std::vector<std::pair<std::string, OpTimes>> ops(g_ops.begin(), g_ops.end());
  std::sort(ops.begin(), ops.end(),
            [](const auto& a, const auto& b) { return a.second.fwd + a.second.bwd > b.second.fwd + b.second.bwd; });
  double total = 0;
  for (const auto& [name, t] : ops) {
    total += t.fwd + t.bwd;
    out += "| " + name + fmt(" | %.0f | %.2f", static_cast<double>(t.fwd_calls) / steps, t.fwd * per) +
           fmt(" | %.0f | %.2f", static_cast<double>(t.bwd_calls) / steps, t.bwd * per) +
           fmt(" | %.2f |\n", (t.fwd + t.bwd) * per);
  }
  out += fmt("| all ops | | | | | %.2f |\n", total * per);
  out += "\n| product m x k x n | op(A) op(B) | route | calls | ms | GFLOP/s |\n|---|---|---|---:|---:|---:|\n";
  std::vector<std::pair<GemmKey, GemmTimes>> gs(g_gemm.begin(), g_gemm.end());
  std::sort(gs.begin(), gs.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double gtotal = 0, gflop = 0;
  for (const auto& [key, t] : gs) {
    const auto& [m, n, k, ta, tb, route] = key;
    const double flop = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(t.calls);
    gtotal += t.seconds;
    gflop += flop;
    out += fmt("| %.0fx%.0fx%.0f", static_cast<double>(m), static_cast<double>(k), static_cast<double>(n)) + " | " +
           (ta ? "T" : "N") + (tb ? "T" : "N") + " | " + route +
           fmt(" | %.0f | %.2f | %.1f |\n", static_cast<double>(t.calls) / steps, t.seconds * per,
               t.seconds > 0 ? flop / t.seconds / 1e9 : 0);
  }
  out += fmt("| all products | | | | %.2f | %.1f |\n", gtotal * per, gtotal > 0 ? gflop / gtotal / 1e9 : 0);
  return out;
}

}  // namespace twin::profile
