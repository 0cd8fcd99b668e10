// The skeleton of an example-list task with a data and a model section (classify, snli, cws, ner, nmt): on top
// of IdBatchedTask's batches and MPI shares (train/id_batched_task.h), this owns what every such task had
// written the same way (issue 54):
//   - the two sections, parsed from the experiment in the order data, model (so the first bad key named is
//     the same as before), each by the task's own parse function;
//   - the parameter store, seeded with run.seed before the task builds its model in it;
//   - params() and resolved() (the typed sections for config.resolved.json; a task with another section,
//     NMT's decode, or a derived value, classify's counted num_labels, declares its own).
// A task derives ExampleTask<Itself, ItsDataConfig, ItsModelConfig> and calls
//   ExampleTask(root, run, parse_<task>_data, parse_<task>_model)
// from its constructor, then reads its data and builds its model from data_ and mcfg_ into store_.
// ExampleListTask (below) adds the three example lists and their evaluation.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/json_reader.h"
#include "graph/param.h"
#include "train/config.h"
#include "train/id_batched_task.h"

namespace twin {

template <class Derived, class DataConfig, class ModelConfig>
class ExampleTask : public IdBatchedTask<Derived> {
 public:
  ParamStore& params() { return store_; }
  nlohmann::json resolved() const { return {{"data", to_json(data_)}, {"model", to_json(mcfg_)}}; }

 protected:
  template <class ParseData, class ParseModel>
  ExampleTask(JsonReader& root, const RunConfig& run, ParseData parse_data, ParseModel parse_model)
      : data_(parse_section(root, "data", parse_data)),
        mcfg_(parse_section(root, "model", parse_model)),
        store_(run.seed) {}

  DataConfig data_;
  ModelConfig mcfg_;
  ParamStore store_;

 private:
  template <class Parse>
  static auto parse_section(JsonReader& root, const char* name, Parse parse) {
    JsonReader r = root.child(name);
    return parse(r);
  }
};

// An ExampleTask whose data are three lists of one Example type (classify, cws, ner, snli). It owns the lists,
// the batching hooks IdBatchedTask calls (Length(example): the length an example is batched by; the options
// are data_.train_options()), train.batch_size's refusal (the batch size is data.batch_size), and evaluate():
// Derived's `Scored score(const std::vector<Example>&) const` (Scored has a `metrics` object holding
// Derived::kPrimary, higher is better) scores the split, and the Scored of the last dev and test evaluations
// stay in last_dev_ and last_test_ for finish() to write out. Derived also names itself (kName) and what a
// batch counts (kBatchUnits), for the refusal's text.
template <class Derived, class DataConfig, class ModelConfig, class Example, class Scored, auto Length>
class ExampleListTask : public ExampleTask<Derived, DataConfig, ModelConfig> {
 public:
  static UnreadKeys unread_train_keys() {
    return {{"batch_size", std::string("the ") + Derived::kName + " task batches by data.batch_size (" +
                               Derived::kBatchUnits + " per batch)"}};
  }
  size_t train_size() const { return train_.size(); }
  int train_length(size_t id) const { return static_cast<int>(Length(train_[id])); }
  BatchingOptions train_batching() const { return this->data_.train_options(); }
  Metrics evaluate(Split split) {
    const bool dev = split == Split::kDev;
    Scored s = static_cast<const Derived&>(*this).score(dev ? dev_ : test_);
    Metrics m = metrics_from(s.metrics, Derived::kPrimary, /*higher_is_better=*/true);
    (dev ? last_dev_ : last_test_) = std::move(s);
    return m;
  }

 protected:
  using ExampleTask<Derived, DataConfig, ModelConfig>::ExampleTask;
  // The three lists from read(file name), in the order train, dev, test (the order errors name them in).
  template <class Read>
  void read_splits(const std::string& train, const std::string& dev, const std::string& test, Read read) {
    train_ = read(train);
    dev_ = read(dev);
    test_ = read(test);
  }

  std::vector<Example> train_, dev_, test_;
  Scored last_dev_, last_test_;   // of the last evaluate() of each split
};

}  // namespace twin
