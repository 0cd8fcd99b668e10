// What a task gives the shared trainer (DESIGN §4 "Task shape"). The trainer is a template over the task
// type, not a virtual hierarchy over batch types; this header names the pieces both sides use, and the
// concept TrainerTask states the hooks train() calls (the whole binary's are train/cli.h's Task). No hook is
// probed: a task that lacks one, or misspells it, does not compile, with the hook named in the error.
// TaskDefaults gives the hooks most tasks leave empty; a task overrides one by declaring it.
#pragma once
#include <concepts>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/config_table.h"
#include "train/args.h"
#include "graph/graph.h"
#include "train/dist.h"

namespace twin {

// The splits a task evaluates (selection on dev, the report on test). Not train: a task's score of its
// training data is its own summary key (classify's train_accuracy), so evaluate() has no train case to get wrong.
enum class Split { kDev, kTest };
const char* split_name(Split s);

using NamedMats = std::vector<std::pair<std::string, Mat>>;

struct LossOut {
  Var loss;              // the 1x1 Var backward() runs on (already reduced as the recipe says)
  double loss_sum = 0;   // for logging: the summed per-unit loss (e.g. NLL over tokens)
  double units = 0;      // tokens / sentences it was summed over; words/s counts these
};

struct Metrics {
  std::string primary_name = "loss";
  double primary = 0;
  bool higher_is_better = false;
  nlohmann::json values = nlohmann::json::object();   // every metric by name, including the primary
  bool better_than(const Metrics& o) const {
    return higher_is_better ? primary > o.primary : primary < o.primary;
  }
};

// An evaluation's Metrics from its scores: the primary is values[primary_name] (a number; an Error otherwise).
inline Metrics metrics_from(nlohmann::json values, const std::string& primary_name, bool higher_is_better) {
  Metrics m;
  m.primary_name = primary_name;
  m.higher_is_better = higher_is_better;
  m.primary = values.at(primary_name).get<double>();
  m.values = std::move(values);
  return m;
}

// The hooks train() calls:
//   ParamStore& params();
//   void set_shard(const dist::Shard&);                 // under mpirun: this rank's share of every global batch
//   size_t begin_epoch(int epoch, Rng& order_rng);      // prepares the epoch's batches, returns how many
//   LossOut loss(Graph& g, size_t batch, Rng& rng);     // builds the training loss of one batch (this rank's share)
//   nlohmann::json log_extras();                        // added to each train row of metrics.jsonl
//   const char* progress_loss_name() const;             // the progress line's name of the objective
//   Metrics evaluate(Split split);                      // full evaluation of a split (inference mode)
//   NamedMats save_state() const;  void load_state(const NamedMats&);   // e.g. LM carried hidden state
template <class T>
concept TrainerTask = requires(T& t, const T& c, Graph& g, Rng& rng, const dist::Shard& shard, const NamedMats& state) {
  { t.params() } -> std::same_as<ParamStore&>;
  t.set_shard(shard);
  { t.begin_epoch(1, rng) } -> std::same_as<size_t>;
  { t.loss(g, size_t{0}, rng) } -> std::same_as<LossOut>;
  { t.log_extras() } -> std::same_as<nlohmann::json>;
  { c.progress_loss_name() } -> std::convertible_to<const char*>;
  { t.evaluate(Split::kDev) } -> std::same_as<Metrics>;
  { c.save_state() } -> std::same_as<NamedMats>;
  t.load_state(state);
};

// The usual hooks. Not set_shard: a task that ignored its share would train every rank on the whole batch,
// so each task says what it does with one (train/id_batched_task.h does it for example-list tasks).
class TaskDefaults {
 public:
  static std::vector<OptionSpec> flags() { return {}; }            // the task's own command-line flags
  static std::vector<CommandMode> modes() { return {}; }                  // its other modes (`cws segment <run>`, ...)
  static UnreadKeys unread_train_keys() { return {}; }              // train.* keys it does not read, and why
  nlohmann::json log_extras() { return nlohmann::json::object(); }
  // "loss" or "nll" (a cross-entropy: the progress line shows its perplexity too), or e.g. "hinge" (no perplexity).
  const char* progress_loss_name() const { return "loss"; }
  NamedMats save_state() const { return {}; }
  void load_state(const NamedMats&) {}
};

}  // namespace twin
