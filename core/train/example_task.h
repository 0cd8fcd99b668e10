// The skeleton of a task on top of its RunParts (train/trained_run.h), written once (issue 54):
//   TaskOnParts<Parts>      for any task shape (the LM's streams too):
//     - the two sections, parsed from the experiment in the order data, model (so the first bad key named is the
//       same as before), each by the Parts's parser;
//     - the parameter store, seeded with run.seed before the task builds its model in it;
//     - the model: build_model(vocabs) is Parts::make, the route prediction takes too, and keep_vocabs(vocabs,
//       run_dir) in finish() keeps what prediction loads;
//     - params(), resolved() (the typed sections for config.resolved.json) and keys() (--print-keys); a task with
//       another section (NMT's decode) extends the last two.
//   ExampleTask<Derived, Parts>   adds IdBatchedTask's batches and MPI shares (train/id_batched_task.h) for a task
//                                 whose training data is a list of examples (NMT's sentence pairs);
//   ExampleListTask<...>          adds the three example lists and their evaluation (classify, cws, ner, snli).
// A task calls the base's constructor with (root, run), then reads its data and calls build_model(its vocabularies).
#pragma once
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/json_reader.h"
#include "graph/param.h"
#include "train/cli.h"
#include "train/config.h"
#include "train/id_batched_task.h"
#include "train/trained_run.h"

namespace twin {

template <RunParts Parts>
class TaskOnParts {
 public:
  using DataConfig = typename Parts::Data;
  using ModelConfig = typename Parts::ModelConfig;
  using Model = typename Parts::Model;
  using Vocabs = typename Parts::Vocabs;

  static std::vector<KeyDoc> keys() { return data_model_keys(Parts::data_table(), Parts::model_table()); }
  ParamStore& params() { return store_; }
  nlohmann::json resolved() const { return {{"data", to_json(data_)}, {"model", to_json(mcfg_)}}; }

 protected:
  TaskOnParts(JsonReader& root, const RunConfig& run)
      : data_(parse_section(root, "data", Parts::parse_data)),
        mcfg_(parse_section(root, "model", Parts::parse_model)),
        store_(run.seed) {}
  void build_model(const Vocabs& v) { model_ = Parts::make(mcfg_, data_, v, store_); }
  void keep_vocabs(const Vocabs& v, const std::string& run_dir) const { Parts::save_vocabs(v, data_, run_dir); }

  DataConfig data_;
  ModelConfig mcfg_;
  ParamStore store_;
  std::unique_ptr<Model> model_;

 private:
  template <class Parse>
  static auto parse_section(JsonReader& root, const char* name, Parse parse) {
    JsonReader r = root.child(name);
    return parse(r);
  }
};

template <class Derived, RunParts Parts>
class ExampleTask : public IdBatchedTask<Derived>, public TaskOnParts<Parts> {
 protected:
  ExampleTask(JsonReader& root, const RunConfig& run) : TaskOnParts<Parts>(root, run) {}
};

// An ExampleTask whose data are three lists of one Example type (classify, cws, ner, snli). It owns the lists,
// the batching hooks IdBatchedTask calls (Length(example): the length an example is batched by; the options
// are data_.train_options(), a BatchingConfig's), train.batch_size's refusal (the batch size is
// data.batch_size), and evaluate():
// Derived's `Scored score(const std::vector<Example>&) const` (Scored has a `metrics` object holding
// Derived::kPrimary, higher is better) scores the split, and the Scored of the last dev and test evaluations
// stay in last_dev_ and last_test_ for finish() to write out. Derived also names what a batch counts (kBatchUnits),
// for the refusal's text, which names the task by its Parts::kRun.task.
template <class Derived, RunParts Parts, class Example, class Scored, auto Length>
class ExampleListTask : public ExampleTask<Derived, Parts> {
 public:
  static UnreadKeys unread_train_keys() {
    return {{"batch_size", std::string("the ") + Parts::kRun.task + " task batches by data.batch_size (" +
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
  using ExampleTask<Derived, Parts>::ExampleTask;
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
