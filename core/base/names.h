// Name tables for choice settings (issue 28): every choice string of a config is parsed once into an enum class
// through one table, and the same table writes it back (config.resolved.json), lists the allowed values in
// errors and generates the key reference. So a value has one spelling, in one place.
//
//   enum class OptimKind { kSgd, kAdam };
//   inline constexpr NameTable<OptimKind, 2> kOptimNames{{{OptimKind::kSgd, "sgd"}, {OptimKind::kAdam, "adam"}}};
//   name_of(kOptimNames, OptimKind::kAdam) == "adam";  value_of(kOptimNames, "sgd") == OptimKind::kSgd
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace twin {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

// The spelling of v ("?" for a value the table lacks, which a complete table never does).
template <class E, std::size_t N>
constexpr std::string_view name_of(const NameTable<E, N>& t, E v) {
  for (const auto& [e, n] : t)
    if (e == v) return n;
  return "?";
}

// The value spelled s, or nothing.
template <class E, std::size_t N>
constexpr std::optional<E> value_of(const NameTable<E, N>& t, std::string_view s) {
  for (const auto& [e, n] : t)
    if (n == s) return e;
  return std::nullopt;
}

// Every spelling, in table order (the order errors and the key reference list them).
template <class E, std::size_t N>
std::vector<std::string> names_of(const NameTable<E, N>& t) {
  std::vector<std::string> out;
  for (const auto& p : t) out.emplace_back(p.second);
  return out;
}

// "a | b | c"
template <class E, std::size_t N>
std::string names_joined(const NameTable<E, N>& t, const char* sep = " | ") {
  std::string out;
  for (const auto& p : t) out += (out.empty() ? "" : sep) + std::string(p.second);
  return out;
}

}  // namespace twin
