#include "train/replicas.h"

#include <cmath>

namespace twin {

namespace {
// The loss per unit the trainer logs and checks (a task without units gives its sum).
double per_unit(const LossOut& lo) { return lo.units > 0 ? lo.loss_sum / lo.units : lo.loss_sum; }
}  // namespace

void Replicas::start_alike(ParamStore& store, Progress& p) const {
  if (!parallel_) return;
  dist::broadcast_params(store);
  std::string st = p.to_json().dump();
  dist::broadcast(st);
  if (!root_) p = Progress::from_json(nlohmann::json::parse(st));
}

Rng& Replicas::step_rng(Progress& p, std::uint64_t seed) {
  if (!parallel_) return p.step_rng;
  rank_rng_ = detail::rank_step_rng(seed, p.step, dist::rank());
  return rank_rng_;
}

double Replicas::backward(Graph& g, LossOut& lo, ParamStore& store, bool& stop_asked) const {
  if (!parallel_) {
    const double loss = per_unit(lo);
    if (std::isfinite(loss)) g.backward(lo.loss);   // a non-finite loss ends the run: no update follows
    return loss;
  }
  // Before the finiteness check, on every rank: each must take part in the sums below.
  if (lo.loss.valid()) g.backward(lo.loss);   // invalid: this rank had no share of the batch
  dist::allreduce_grads(store);
  double agreed[3] = {lo.loss_sum, lo.units, stop_asked ? 1.0 : 0.0};
  dist::allreduce_sum(agreed, 3);
  lo.loss_sum = agreed[0];
  lo.units = agreed[1];
  stop_asked = agreed[2] > 0;
  return per_unit(lo);
}

NamedMats Replicas::whole_task_state(NamedMats mine) const {
  if (!parallel_) return mine;
  NamedMats all;
  for (const auto& [n, m] : mine) {
    Mat g = dist::gather_rows(m);
    if (root_) all.emplace_back(n, std::move(g));
  }
  return all;
}

double Replicas::from_root(double x) const {
  if (parallel_) dist::broadcast(&x, 1);
  return x;
}

Metrics Replicas::metrics_from_root(const Metrics& m) {
  std::string s = nlohmann::json{{"name", m.primary_name}, {"primary", m.primary}, {"higher", m.higher_is_better},
                                 {"values", m.values}}.dump();
  dist::broadcast(s);
  const nlohmann::json j = nlohmann::json::parse(s);
  Metrics out;
  out.primary_name = j.at("name").get<std::string>();
  out.primary = j.at("primary").is_number() ? j.at("primary").get<double>() : std::nan("");   // NaN dumps as null
  out.higher_is_better = j.at("higher").get<bool>();
  out.values = j.at("values");
  return out;
}

namespace detail {

Rng rank_step_rng(std::uint64_t seed, long step, int rank) {
  // splitmix64 of the three: nearby (seed, step, rank) give unrelated streams.
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL ^ (static_cast<std::uint64_t>(step) << 16) ^
                    static_cast<std::uint64_t>(rank) * 0xD1B54A32D192ED03ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return Rng(z ^ (z >> 31));
}

}  // namespace detail
}  // namespace twin
