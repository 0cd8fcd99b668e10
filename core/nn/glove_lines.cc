#include "nn/glove_lines.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "base/check.h"

namespace twin {

namespace {

void split_fields(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < n && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
}

bool is_integer(std::string_view tok) {
  if (tok.empty()) return false;
  for (char c : tok)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

bool parse_finite_real(std::string_view tok, Real& out) {
  const char* first = tok.data();
  const char* last = tok.data() + tok.size();
  if (first != last && *first == '+') ++first;   // from_chars rejects a leading '+'
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (ec == std::errc::result_out_of_range && ptr == last) {
    // Under- or overflow of Real: let strtod round it (to 0 or inf; inf is rejected below).
    out = static_cast<Real>(std::strtod(std::string(tok).c_str(), nullptr));
  } else if (ec != std::errc() || ptr != last) {
    return false;
  }
  return std::isfinite(out);
}

GloveLines::GloveLines(Index dim, Where where) : dim_(dim), dim_given_(dim > 0), where_(std::move(where)) {}

bool GloveLines::read(std::string_view line) {
  ++line_no_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  split_fields(line, fields_);
  values_.clear();
  word_.clear();
  if (fields_.empty()) return false;
  if (!seen_content_) {
    seen_content_ = true;
    if (fields_.size() == 2 && is_integer(fields_[0]) && is_integer(fields_[1])) {   // word2vec header "count dim"
      const Index d = std::atoll(std::string(fields_[1]).c_str());
      TW_CHECK(!dim_given_ || d == dim_, where(), ": the header says dimension ", fields_[1],
               " but the embedding table has D=", dim_);
      dim_ = d;
      dim_line_ = line_no_;
      return false;
    }
  }
  const auto n = static_cast<Index>(fields_.size());
  if (dim_ == 0) {   // the first vector line sets D (its word taken to be one piece)
    dim_ = n - 1;
    dim_line_ = line_no_;
  }
  const std::string expected =
      dim_given_ ? detail::cat(dim_, " (the embedding dimension)") : detail::cat(dim_, " (as line ", dim_line_, ")");
  TW_CHECK(dim_ > 0 && n >= dim_ + 1, where(), ": '", fields_[0], "' has ", n - 1, " values, expected ", expected);
  // Extra leading pieces belong to the word; if one of them is a number, the line far more likely has too
  // many values.
  const Index word_pieces = n - dim_;
  for (Index k = 1; k < word_pieces; ++k) {
    Real unused;
    TW_CHECK(!parse_finite_real(fields_[static_cast<size_t>(k)], unused), where(), ": '", fields_[0], "' has ", n - 1,
             " values, expected ", expected);
  }
  word_.assign(fields_[0]);
  for (Index k = 1; k < word_pieces; ++k) word_.append(" ").append(fields_[static_cast<size_t>(k)]);
  values_.assign(fields_.begin() + word_pieces, fields_.end());
  return true;
}

void GloveLines::parse_values(Real* out) const {
  for (size_t d = 0; d < values_.size(); ++d)
    TW_CHECK(parse_finite_real(values_[d], out[d]), where(), ": value ", d + 1, " of '", word_, "' is '", values_[d],
             "', not a finite number");
}

}  // namespace twin
