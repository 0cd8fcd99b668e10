// A task's trained model, described once for training and prediction alike (issue 54: each prediction mode used
// to rebuild its model by mirroring its task's training constructor, and NMT's translate a third way). A task
// describes its model's parts in one struct (the concept RunParts states them):
//   struct CwsParts
//       : RunPartsOf<CwsVocab, CwsModel, parse_cws_data, parse_cws_model, cws_data_table, cws_model_table> {
//     // (from RunPartsOf: Data, ModelConfig, Vocabs, Model; the sections' parsers and tables, for --print-keys)
//     static constexpr RunKind kRun{"cws", "bigrams"};                 // the task, and data.<marker> its runs have
//     static std::unique_ptr<Model> make(const ModelConfig&, const Data&, const Vocabs&, ParamStore&);
//     static void save_vocabs(const Vocabs&, const Data&, const std::string& run_dir);    // beside the model
//     static Vocabs load_vocabs(Data&, const std::string& run_dir);   // the kept files, or rebuilt (load_run_vocab)
//   };
// Training (train/example_task.h's TaskOnParts) parses the sections with the same parsers, makes the model with
// Parts::make from the vocabularies it builds from its training data and keeps them with Parts::save_vocabs.
// Prediction opens the run with TrainedRun<Self, Parts>::load(path): the same sections, Parts::load_vocabs,
// Parts::make, then the trained parameters (strict: every name and shape checked, so vocabularies that do not fit
// the model are an error naming the parameter). One route for every task; where the sections come from is the
// RunKind's to say: a run folder's config.resolved.json (with model.best.bin), or, for a task whose modes take
// any parameter file (NMT: averaged models, snapshots), the config each parameter file carries.
#pragma once
#include <concepts>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/json_reader.h"
#include "graph/param.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"

namespace twin {

struct RunKind {
  const char* task;                      // "cws": named in the errors
  const char* data_marker;               // a data.* key every run of the task has ("" for a parameter-file kind)
  const char* model_marker = "";         // and a model.* key, where the data keys alone do not tell (snli vs classify)
  bool param_files = false;              // true: a run folder or any parameter file, whose embedded config is read
};

template <class P>
concept RunParts = requires(typename P::Data& d, const typename P::ModelConfig& m, const typename P::Vocabs& v,
                            ParamStore& s, JsonReader& r, const std::string& dir) {
  { P::kRun } -> std::convertible_to<RunKind>;
  { P::data_table() };
  { P::model_table() };
  { P::parse_data(r) } -> std::same_as<typename P::Data>;
  { P::parse_model(r) } -> std::same_as<typename P::ModelConfig>;
  { P::make(m, d, v, s) } -> std::same_as<std::unique_ptr<typename P::Model>>;
  P::save_vocabs(v, d, dir);
  { P::load_vocabs(d, dir) } -> std::same_as<typename P::Vocabs>;
};

// What every RunParts starts with: its vocabularies' and model's types, and its two sections' parsers and tables
// (Data and ModelConfig are what the parsers return).
template <class VocabsT, class ModelT, auto ParseData, auto ParseModel, auto DataTable, auto ModelTable>
struct RunPartsOf {
  using Data = std::invoke_result_t<decltype(ParseData), JsonReader&>;
  using ModelConfig = std::invoke_result_t<decltype(ParseModel), JsonReader&>;
  using Vocabs = VocabsT;
  using Model = ModelT;
  static constexpr auto parse_data = ParseData;
  static constexpr auto parse_model = ParseModel;
  static constexpr auto data_table = DataTable;
  static constexpr auto model_table = ModelTable;
};

// The config a trained model was made from, and the parameter file to load.
struct RunSource {
  nlohmann::json config;
  std::string config_name;   // how errors name it
  std::string model_file;
  std::string run_dir;       // where its vocabularies are kept
};
// kind.param_files: `path` is a run folder (its model.best.bin) or a parameter file, and the config is the one
// the file embeds. Otherwise `path` is a run folder, checked by load_run_config (train/predict_cli.h).
RunSource open_run_source(const std::string& path, const RunKind& kind);

// A trained model opened for a prediction mode; the mode's struct derives it (CRTP: load() gives that struct) and
// adds its own methods.
template <class Self, RunParts Parts>
struct TrainedRun {
  typename Parts::Data data;
  typename Parts::ModelConfig model_cfg;
  typename Parts::Vocabs vocab;
  std::unique_ptr<ParamStore> store;
  std::unique_ptr<typename Parts::Model> model;
  RunSource source;   // its config (a task's other sections: NMT's decode.*) and parameter file

  static Self load(const std::string& path) {
    Self t;
    t.source = open_run_source(path, Parts::kRun);
    JsonReader root(t.source.config, t.source.config_name);
    JsonReader dr = root.child("data");
    t.data = Parts::parse_data(dr);
    JsonReader mr = root.child("model");
    t.model_cfg = Parts::parse_model(mr);
    t.vocab = Parts::load_vocabs(t.data, t.source.run_dir);
    t.store = std::make_unique<ParamStore>(1);
    t.model = Parts::make(t.model_cfg, t.data, t.vocab, *t.store);
    load_params(t.source.model_file, *t.store, LoadMode::kStrict);
    return t;
  }
};

// The run's vocabularies, for a Parts::load_vocabs: load() when <run_dir>/<kept> exists. A run that finished before
// its vocabularies were kept gets rebuild() instead, with a note on stderr ("<mode>: <run> keeps no <kept>;
// rebuilding the <noun> from <source>"): the build is deterministic, so the run's training split gives the same ids
// (the parameter shapes that TrainedRun::load checks then catch a mismatch).
template <class Load, class Rebuild>
auto load_run_vocab(const std::string& run_dir, const char* mode, const std::string& kept, const char* noun,
                    const std::string& source, Load load, Rebuild rebuild) {
  if (std::filesystem::exists(run_dir + "/" + kept)) return load();
  std::fprintf(stderr, "%s: %s keeps no %s; rebuilding the %s from %s\n", mode, run_dir.c_str(), kept.c_str(), noun,
               source.c_str());
  return rebuild();
}

}  // namespace twin
