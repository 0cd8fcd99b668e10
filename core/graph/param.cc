#include "graph/param.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "base/check.h"

namespace twin {

std::string join_name(const std::string& scope, const std::string& name) {
  if (scope.empty()) return name;
  if (name.empty()) return scope;
  return scope + "/" + name;
}

Param& ParamStore::add(const std::string& name, Index rows, Index cols, const Init& init) {
  TW_CHECK(!name.empty(), "ParamStore::add: empty parameter name");
  TW_CHECK(rows > 0 && cols > 0, "ParamStore::add: parameter '", name, "' has shape [", rows, "x", cols, "]");
  TW_CHECK(!by_name_.count(name), "ParamStore::add: duplicate parameter name '", name, "'");
  auto p = std::make_unique<Param>();
  p->name = name;
  p->value = Mat::Zero(rows, cols);
  if (init) init(p->value, init_rng_);
  p->grad = Mat::Zero(rows, cols);
  Param& ref = *p;
  by_name_[name] = p.get();
  params_.push_back(std::move(p));
  return ref;
}

Param* ParamStore::find(const std::string& name) {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const Param* ParamStore::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Param& ParamStore::get(const std::string& name) {
  if (Param* p = find(name)) return *p;
  std::ostringstream os;
  os << "no parameter named '" << name << "'; the store has " << params_.size() << " parameters";
  for (size_t i = 0; i < params_.size() && i < 8; ++i) os << (i ? ", " : ": ") << params_[i]->name;
  TW_FAIL(os.str());
}

std::vector<Param*> ParamStore::trainable() {
  std::vector<Param*> out;
  for (auto& p : params_)
    if (p->trainable) out.push_back(p.get());
  return out;
}

void ParamStore::zero_grad() {
  for (auto& p : params_) {
    if (!p->all_touched && !p->touched.empty()) {
      for (Index r = 0; r < p->grad.rows(); ++r)
        if (p->touched[static_cast<size_t>(r)]) p->grad.row(r).setZero();
    } else {
      p->grad.setZero();
    }
    p->touched.clear();
    p->all_touched = false;
  }
}

Index ParamStore::total_size() const {
  Index n = 0;
  for (const auto& p : params_) n += p->size();
  return n;
}

std::string ParamStore::table() const {
  size_t w = 4;
  for (const auto& p : params_) w = std::max(w, p->name.size());
  std::ostringstream os;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-*s %16s %12s\n", static_cast<int>(w), "name", "shape", "count");
  os << buf;
  for (const auto& p : params_) {
    std::string shape = "[" + std::to_string(p->value.rows()) + ", " + std::to_string(p->value.cols()) + "]";
    std::snprintf(buf, sizeof buf, "%-*s %16s %12lld%s\n", static_cast<int>(w), p->name.c_str(), shape.c_str(),
                  static_cast<long long>(p->size()), p->trainable ? "" : "  (frozen)");
    os << buf;
  }
  std::snprintf(buf, sizeof buf, "%-*s %16s %12lld\n", static_cast<int>(w), "total", "", static_cast<long long>(total_size()));
  os << buf;
  return os.str();
}

}  // namespace twin
