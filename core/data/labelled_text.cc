// The shared data code of the labelled-text tasks (snli, classify), declared in data/labelled_text.h.
#include "data/labelled_text.h"

#include <filesystem>

#include "base/check.h"

namespace twin {

void read_text_data(JsonReader& r, TextDataConfig& c) {
  c.dir = r.require_string("dir");
  c.protocol = r.require_string("protocol");
  c.train = r.get_string("train", c.train);
  c.dev = r.get_string("dev", c.dev);
  c.test = r.get_string("test", c.test);
  c.lowercase = r.get_bool("lowercase", c.lowercase);
  c.min_count = r.get_int("min_count", c.min_count, 1, 1 << 30);
  c.max_vocab = r.get_int("max_vocab", c.max_vocab, 0, 1 << 30);
  if (c.max_vocab == 1 || c.max_vocab == 2) r.fail("max_vocab", "must be 0 (no limit) or more than the 2 specials");
  c.embeddings = r.get_string("embeddings", c.embeddings);
  c.batch_size = r.get_int("batch_size", c.batch_size, 1, 1 << 20);
  c.maxi_batch = r.get_int("maxi_batch", c.maxi_batch, 0, 1 << 20);
  c.eval_batch_size = r.get_int("eval_batch_size", c.eval_batch_size, 1, 1 << 20);
}

void write_text_data(const TextDataConfig& c, nlohmann::json& out) {
  out["dir"] = c.dir;
  out["protocol"] = c.protocol;
  out["train"] = c.train;
  out["dev"] = c.dev;
  out["test"] = c.test;
  out["lowercase"] = c.lowercase;
  out["min_count"] = c.min_count;
  out["max_vocab"] = c.max_vocab;
  out["embeddings"] = c.embeddings;
  out["batch_size"] = c.batch_size;
  out["maxi_batch"] = c.maxi_batch;
  out["eval_batch_size"] = c.eval_batch_size;
}

void lowercase_ascii(std::vector<std::string>& tokens) {
  for (auto& w : tokens)
    for (char& ch : w)
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
}

Vocab build_text_vocab(const TokenCounts& counts, const TextDataConfig& c) {
  return Vocab::from_counts(counts, VocabOptions{{kPadWord, kUnkWord}, kUnkWord, false, c.min_count, c.max_vocab});
}

}  // namespace twin
