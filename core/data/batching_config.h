// The batching keys of an example-list task's `data` section, declared once (issue 54: they were declared in
// four tables with four sets of fields): data.batch_size (examples per training batch), data.maxi_batch (the
// length-sorting window, in batches), data.eval_batch_size, and the token caps data.batch_tokens and
// data.eval_batch_tokens (issue 52: documents of thousands of tokens; a batch of B examples padded to the
// longest, T, holds B * T positions, and B * T <= the cap bounds its memory whatever the lengths; 0 = no cap,
// the batches of before). A task's data config derives from BatchingConfig, adds its rows with add_batching_rows
// and hands train_options() to the trainer's batching (train/id_batched_task.h) and eval_options() to
// eval_batches (data/batch.h). NMT batches by tokens (data.batch_tokens, data.max_sentences) and the LM by
// streams (train.batch_size), so their keys stay their own.
#pragma once
#include <functional>

#include "base/config_table.h"
#include "data/batch.h"

namespace twin {

struct BatchingConfig {
  // The tasks differ in the default batch size (SNLI 128 pairs, CWS 128 sentences, classify 32, NER 10), so
  // each says its own and no default can be taken by mistake.
  explicit BatchingConfig(int default_batch_size) : batch_size(default_batch_size) {}

  int batch_size;             // examples per training batch
  int maxi_batch = 20;        // length-sorting window, in batches
  int eval_batch_size = 256;  // examples per evaluation (or decoding) batch
  int batch_tokens = 0;       // > 0: a training batch also holds at most this many padded positions (B * T)
  int eval_batch_tokens = 0;  // > 0: the same cap on evaluation (or decoding) batches

  // Training: shuffled, sorted by length inside windows of maxi_batch batches (make_batches), cut at
  // batch_size examples or batch_tokens padded positions, whichever comes first.
  BatchingOptions train_options() const {
    return {.batch_size = batch_size, .max_tokens = batch_tokens, .maxi_batch = maxi_batch};
  }
  // Evaluation and prediction (eval_batching): `batch` examples per batch (a mode's --batch; <= 0 means
  // eval_batch_size) and at most eval_batch_tokens padded positions.
  BatchingOptions eval_options(int batch = 0) const {
    BatchingOptions o = eval_batching(batch > 0 ? batch : eval_batch_size);
    o.max_tokens = eval_batch_tokens;
    return o;
  }
};

// Adds the three rows to a task's `data` table; `at` reaches the BatchingConfig inside the task's struct.
// `unit` names what is batched ("examples", "sentences") and `eval_use` what the eval batches are for
// ("evaluation", "decoding"), for --print-keys and experiments/KEYS.md.
template <class S>
void add_batching_rows(ConfigTable<S>& t, std::function<BatchingConfig&(S&)> at, const std::string& unit,
                       const std::string& eval_use) {
  auto field = [at](int BatchingConfig::*m) {
    return [at, m](S& s) -> int& { return at(s).*m; };
  };
  t.integer("batch_size", field(&BatchingConfig::batch_size), 1, 1 << 20, unit + " per training batch")
      .integer("maxi_batch", field(&BatchingConfig::maxi_batch), 0, 1 << 20, "length-sorting window, in batches")
      .integer("eval_batch_size", field(&BatchingConfig::eval_batch_size), 1, 1 << 20,
               unit + " per " + eval_use + " batch")
      .integer("batch_tokens", field(&BatchingConfig::batch_tokens), 0, 1 << 30,
               "padded positions per training batch at most (examples x the longest one's length); 0 = no cap")
      .integer("eval_batch_tokens", field(&BatchingConfig::eval_batch_tokens), 0, 1 << 30,
               "padded positions per " + eval_use + " batch at most; 0 = no cap");
}

}  // namespace twin
