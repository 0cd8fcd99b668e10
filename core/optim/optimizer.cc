#include "optim/optimizer.h"

#include <cmath>
#include <map>

#include "base/check.h"

namespace twin {

namespace {
constexpr long kStepSplit = 1L << 20;  // the step counter is stored as two floats, each exact below 2^24

bool row_sparse(const Param& p) { return !p.all_touched && !p.touched.empty(); }
}  // namespace

std::string Optimizer::entry_name(const std::string& slot, const std::string& param) const {
  return name() + "/" + slot + "/" + param;
}

std::vector<Mat>& Optimizer::slots_for(const Param& p) {
  auto it = slot_index_.find(p.name);
  if (it != slot_index_.end()) return slots_[it->second].mats;
  Slots s{p.name, {}};
  for (size_t i = 0; i < slot_names().size(); ++i)
    s.mats.push_back(Mat::Constant(p.value.rows(), p.value.cols(), slot_init()));
  slot_index_[p.name] = slots_.size();
  slots_.push_back(std::move(s));
  return slots_.back().mats;
}

void Optimizer::init(const ParamStore& store) {
  for (const auto& p : store.all())
    if (p->trainable) slots_for(*p);
  initialised_ = true;
}

void Optimizer::step(ParamStore& store, Real lr) {
  ++steps_;
  initialised_ = true;
  const Real wd = static_cast<Real>(cfg_.weight_decay);
  for (const auto& up : store.all()) {
    Param& p = *up;
    if (!p.trainable) continue;
    std::vector<Mat>& slots = slots_for(p);
    TW_DCHECK(slots.empty() || slots[0].rows() == p.value.rows(), "slot shape of ", p.name);
    if (wd != 0) {
      // Decay makes every row's gradient nonzero, so the update is dense.
      scratch_ = p.grad + wd * p.value;
      update(p, scratch_, false, slots, lr);
    } else {
      update(p, p.grad, row_sparse(p), slots, lr);
    }
    if (p.max_abs > 0) p.value = p.value.cwiseMax(-p.max_abs).cwiseMin(p.max_abs);   // the projection onto the box
  }
}

NamedMats Optimizer::state() const {
  NamedMats out;
  Mat step(1, 2);
  step << static_cast<Real>(steps_ / kStepSplit), static_cast<Real>(steps_ % kStepSplit);
  out.emplace_back(name() + "/step", step);
  const auto names = slot_names();
  for (const Slots& s : slots_)
    for (size_t i = 0; i < names.size(); ++i) out.emplace_back(entry_name(names[i], s.param), s.mats[i]);
  return out;
}

void Optimizer::load_state(const NamedMats& entries) {
  TW_CHECK(initialised_, "optimiser '", name(), "': call init(store) (or step) before load_state, so the ",
           "loaded state can be checked against the model's parameters");
  std::map<std::string, const Mat*> given;
  for (const auto& [n, m] : entries)
    TW_CHECK(given.emplace(n, &m).second, "optimiser state: duplicate entry '", n, "'");
  const NamedMats expected = state();
  for (const auto& [n, m] : expected) {
    auto it = given.find(n);
    TW_CHECK(it != given.end(), "optimiser state: missing entry '", n, "' ", shape_str(m), " (", entries.size(),
             " entries given; HINT: was it saved by a different optimiser or model?)");
    TW_CHECK(it->second->rows() == m.rows() && it->second->cols() == m.cols(), "optimiser state: entry '", n,
             "' has shape ", shape_str(*it->second), ", expected ", shape_str(m));
  }
  if (given.size() != expected.size()) {
    std::map<std::string, bool> want;
    for (const auto& e : expected) want[e.first] = true;
    for (const auto& [n, m] : given)
      TW_CHECK(want.count(n), "optimiser state: unexpected entry '", n, "' (optimiser '", name(),
               "' has no such slot or the model has no trainable parameter of that name)");
  }
  // Everything checked: now assign.
  const Mat& st = *given.at(name() + "/step");
  const double hi = st(0, 0), lo = st(0, 1);
  // hi < 2^24: the float the counter is saved in is exact below it, and hi * kStepSplit then fits a long (a
  // larger hi overflowed the cast, undefined behaviour; tests/test_fuzz_regressions.cc).
  TW_CHECK(hi >= 0 && hi < 16777216.0 && lo >= 0 && lo < kStepSplit && hi == std::floor(hi) && lo == std::floor(lo),
           "optimiser state: entry '", name(), "/step' = [", hi, ", ", lo, "] is not a valid step counter");
  steps_ = static_cast<long>(hi) * kStepSplit + static_cast<long>(lo);
  const auto names = slot_names();
  for (Slots& s : slots_)
    for (size_t i = 0; i < names.size(); ++i) s.mats[i] = *given.at(entry_name(names[i], s.param));
}

void check_optim(const OptimConfig& c) { optim_table().check(c, "optim"); }

std::unique_ptr<Optimizer> make_optimizer(const OptimConfig& cfg) {
  check_optim(cfg);
  switch (cfg.name) {
    case OptimKind::kSgd: return make_sgd(cfg);
    case OptimKind::kAdam: return make_adam(cfg);
    case OptimKind::kAdagrad: return make_adagrad(cfg);
    case OptimKind::kAdadelta: return make_adadelta(cfg);
  }
  TW_FAIL("optim.name: no optimiser for this value");
}

}  // namespace twin
