// A trained run folder opened for a prediction mode (`classify predict`, `snli predict`, `lm score`,
// `cws segment`, `ner tag`): the data.* and model.* sections as the run resolved them, its vocabularies and
// its model with model.best.bin's parameters. One route for every mode, so that they check a run folder the
// same way (train/predict_cli.h's load_run_config) and build the model as training did.
#pragma once
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "base/json_reader.h"
#include "graph/param.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"

namespace twin {

// What a mode's loader fills; the task's struct derives from it and adds its own methods.
template <class DataConfig, class ModelConfig, class Vocabs, class Model>
struct TrainedModel {
  DataConfig data;
  ModelConfig model_cfg;
  Vocabs vocab;
  std::unique_ptr<ParamStore> store;
  std::unique_ptr<Model> model;
};

// t.data and t.model_cfg from <run_dir>/config.resolved.json, by the task's own section parsers, after
// load_run_config's checks (the folder, the config and model.best.bin exist; data.<marker> and, when given,
// model.<model_marker> are there, so a run of another task is refused by name).
template <class T, class ParseData, class ParseModel>
void read_run_sections(T& t, const std::string& run_dir, const std::string& task, const std::string& marker,
                       ParseData parse_data, ParseModel parse_model, const std::string& model_marker = "") {
  const nlohmann::json cfg = load_run_config(run_dir, task, marker, model_marker);
  JsonReader root(cfg, run_dir + "/config.resolved.json");
  JsonReader dr = root.child("data");
  t.data = parse_data(dr);
  JsonReader mr = root.child("model");
  t.model_cfg = parse_model(mr);
}

// The run's vocabularies: load() when <run_dir>/<kept> exists. A run that finished before its vocabularies were
// kept gets rebuild() instead, with a note on stderr ("<mode>: <run> keeps no <kept>; rebuilding the <noun> from
// <source>"): the build is deterministic, so the run's training split gives the same ids (the parameter shapes
// that load_run_model checks then catch a mismatch).
template <class Load, class Rebuild>
void load_run_vocab(const std::string& run_dir, const char* mode, const std::string& kept, const char* noun,
                    const std::string& source, Load load, Rebuild rebuild) {
  if (std::filesystem::exists(run_dir + "/" + kept)) return load();
  std::fprintf(stderr, "%s: %s keeps no %s; rebuilding the %s from %s\n", mode, run_dir.c_str(), kept.c_str(), noun,
               source.c_str());
  rebuild();
}

// t.model = make(store) on a fresh store, then model.best.bin's parameters (strict: every name and shape
// checked, so a vocabulary that does not fit the trained model is an error naming the parameter).
template <class T, class Make>
void load_run_model(T& t, const std::string& run_dir, Make make) {
  t.store = std::make_unique<ParamStore>(1);
  t.model = make(*t.store);
  load_params(run_dir + "/model.best.bin", *t.store, LoadMode::kStrict);
}

}  // namespace twin
