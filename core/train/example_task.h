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
#pragma once
#include <nlohmann/json.hpp>

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

}  // namespace twin
