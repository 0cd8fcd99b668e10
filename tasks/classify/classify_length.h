// The classify task's length policy (issue 52: documents of thousands of tokens, IMDB and 20 Newsgroups, beside
// SST's sentences). Keys of the `data` section:
//   data.max_length     tokens kept per example; 0 (the default) = the whole text, as for sentences
//   data.truncate       which tokens a longer example keeps: "head" (the first max_length), "tail" (the last
//                       max_length) or "head+tail" (the first truncate_head and the last max_length -
//                       truncate_head: Sun et al. 2019, "How to Fine-Tune BERT for Text Classification?", found
//                       head+tail best on IMDB, keeping 128 + 382 of 510 tokens)
//   data.truncate_head  head+tail only: the tokens kept from the start, 0 < truncate_head < max_length
// The policy is applied when a split is read (train, dev and test alike, so the model is evaluated on what it
// was trained on; the vocabulary is built from the kept training tokens) and by `classify predict` to its input
// (the run's config carries the policy). Memory is bounded by the batching keys (data.batch_tokens,
// data.eval_batch_tokens: data/batching_config.h), not by this: max_length is about what the model reads.
// Strict: truncate or truncate_head without the max_length they apply to is an error naming the key, not a
// silently ignored setting.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/config_table.h"
#include "base/names.h"

namespace twin::classify {

enum class Truncate { kHead, kTail, kHeadTail };
inline constexpr NameTable<Truncate, 3> kTruncateNames{{{Truncate::kHead, "head"},
                                                        {Truncate::kTail, "tail"},
                                                        {Truncate::kHeadTail, "head+tail"}}};

struct LengthPolicy {
  int max_length = 0;                   // tokens kept per example; 0 = all
  Truncate truncate = Truncate::kHead;  // which ones, when an example is longer
  int truncate_head = 0;                // head+tail: kept from the start; the rest of max_length from the end

  bool truncates() const { return max_length > 0; }
};

// "" when the policy is consistent, else the key and what is wrong (the table's rule).
std::pair<std::string, std::string> length_policy_problem(const LengthPolicy& p);

// The three rows and their rule, added to a task's `data` table; `at` reaches the policy inside the struct.
template <class S>
void add_length_policy_rows(ConfigTable<S>& t, std::function<LengthPolicy&(S&)> at) {
  t.integer("max_length", [at](S& s) -> int& { return at(s).max_length; }, 0, 1 << 30,
            "tokens kept per example (documents); 0 = the whole text")
      .choice("truncate", [at](S& s) -> Truncate& { return at(s).truncate; }, kTruncateNames,
              "which tokens a longer example keeps: the first, the last, or the first truncate_head and the last "
              "max_length - truncate_head")
      .integer("truncate_head", [at](S& s) -> int& { return at(s).truncate_head; }, 0, 1 << 30,
               "head+tail: tokens kept from the start (0 < truncate_head < max_length)");
  t.rule([at](const S& s) { return length_policy_problem(at(const_cast<S&>(s))); });
}

// Cuts `tokens` to the policy in place; returns how many tokens were dropped (0 when it fits or max_length is 0).
long truncate_tokens(std::vector<std::string>& tokens, const LengthPolicy& p);

// A plain description for logs and summaries: "whole texts", "the first 512 tokens", "the last 512 tokens",
// "the first 128 and the last 384 tokens".
std::string describe(const LengthPolicy& p);

}  // namespace twin::classify
