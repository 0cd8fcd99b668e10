#include "classify_length.h"

namespace twin::classify {

std::pair<std::string, std::string> length_policy_problem(const LengthPolicy& p) {
  if (p.max_length == 0 && p.truncate != Truncate::kHead)
    return {"truncate", "applies to data.max_length, which is 0 (the whole text): set max_length, or drop truncate"};
  if (p.truncate == Truncate::kHeadTail) {
    if (p.truncate_head <= 0 || p.truncate_head >= p.max_length)
      return {"truncate_head", "must be in [1, max_length - 1] with truncate \"head+tail\" (max_length is " +
                                   std::to_string(p.max_length) + ", truncate_head " +
                                   std::to_string(p.truncate_head) + ")"};
  } else if (p.truncate_head != 0) {
    return {"truncate_head", "is read with truncate \"head+tail\" only (truncate is \"" +
                                 std::string(name_of(kTruncateNames, p.truncate)) + "\")"};
  }
  return {"", ""};
}

long truncate_tokens(std::vector<std::string>& tokens, const LengthPolicy& p) {
  const size_t n = tokens.size(), keep = static_cast<size_t>(p.max_length);
  if (keep == 0 || n <= keep) return 0;
  switch (p.truncate) {
    case Truncate::kHead:
      tokens.resize(keep);
      break;
    case Truncate::kTail:
      tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(n - keep));
      break;
    case Truncate::kHeadTail: {
      // tokens [0, head) and [n - (keep - head), n): erase the middle.
      const size_t head = static_cast<size_t>(p.truncate_head);
      tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(head),
                   tokens.begin() + static_cast<std::ptrdiff_t>(n - (keep - head)));
      break;
    }
  }
  return static_cast<long>(n - keep);
}

std::string describe(const LengthPolicy& p) {
  if (p.max_length == 0) return "whole texts";
  const std::string n = std::to_string(p.max_length);
  switch (p.truncate) {
    case Truncate::kHead: return "the first " + n + " tokens";
    case Truncate::kTail: return "the last " + n + " tokens";
    case Truncate::kHeadTail: break;
  }
  return "the first " + std::to_string(p.truncate_head) + " and the last " +
         std::to_string(p.max_length - p.truncate_head) + " tokens";
}

}  // namespace twin::classify
