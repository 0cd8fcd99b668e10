// The task contract (core/train/task.h's TrainerTask, core/train/cli.h's Task): every task binary's task
// satisfies it, and a task that lacks a hook or misspells one does not (issue 54: before the concept, a
// misspelt optional hook was silently ignored by an `if constexpr (requires ...)` probe).
#include <gtest/gtest.h>

#include <type_traits>

#include "classify_task.h"
#include "cws_task.h"
#include "lm_task.h"
#include "ner_task.h"
#include "nmt_task.h"
#include "rc_task.h"
#include "snli_task.h"
#include "train/cli.h"

namespace twin {
namespace {

static_assert(Task<classify::ClassifyTask>);
static_assert(Task<cws::CwsTask>);
static_assert(Task<lm::LmTask>);
static_assert(Task<ner::NerTask>);
static_assert(Task<nmt::NmtTask>);
static_assert(Task<rc::RcTask>);
static_assert(Task<snli::SnliTask>);

// Every task's model parts (train/trained_run.h): the one description training and prediction build it from.
static_assert(RunParts<classify::ClassifyParts>);
static_assert(RunParts<cws::CwsParts>);
static_assert(RunParts<lm::LmParts>);
static_assert(RunParts<ner::NerParts>);
static_assert(RunParts<nmt::NmtParts>);
static_assert(RunParts<rc::RcParts>);
static_assert(RunParts<snli::SnliParts>);

// A part misspelt is refused, not skipped: here load_vocabs.
struct MisspeltLoadVocabs
    : RunPartsOf<cws::CwsVocab, cws::CwsModel, cws::parse_cws_data, cws::parse_cws_model, cws::cws_data_table,
                 cws::cws_model_table> {
  static constexpr RunKind kRun{"probe", "bigrams"};
  static std::unique_ptr<Model> make(const ModelConfig&, const Data&, const Vocabs&, ParamStore&);
  static void save_vocabs(const Vocabs&, const Data&, const std::string&);
  static Vocabs load_vocab(Data&, const std::string&);
};
static_assert(!RunParts<MisspeltLoadVocabs>);
static_assert(std::is_same_v<MisspeltLoadVocabs::Data, cws::CwsDataConfig>);   // from the parser's return type

// The smallest complete task: the trainer's hooks only (TaskDefaults gives the rest).
struct Minimal : TaskDefaults {
  ParamStore& params();
  void set_shard(const dist::Shard&);
  size_t begin_epoch(int, Rng&);
  LossOut loss(Graph&, size_t, Rng&);
  Metrics evaluate(Split);
};
static_assert(TrainerTask<Minimal>);
static_assert(!Task<Minimal>);   // no constructor from config, no keys(), resolved() or finish()

struct MisspeltBeginEpoch : TaskDefaults {
  ParamStore& params();
  void set_shard(const dist::Shard&);
  size_t begin_epch(int, Rng&);   // misspelt
  LossOut loss(Graph&, size_t, Rng&);
  Metrics evaluate(Split);
};
static_assert(!TrainerTask<MisspeltBeginEpoch>);

// Without TaskDefaults the optional hooks must be written out: a task without save_state is refused.
struct NoDefaults {
  ParamStore& params();
  void set_shard(const dist::Shard&);
  size_t begin_epoch(int, Rng&);
  LossOut loss(Graph&, size_t, Rng&);
  nlohmann::json log_extras();
  const char* progress_loss_name() const;
  Metrics evaluate(Split);
  void load_state(const NamedMats&);
};
static_assert(!TrainerTask<NoDefaults>);

// TaskDefaults has no set_shard: a task that says nothing of its share under mpirun is refused, where a
// default would have trained every rank on the whole batch.
struct NoShard : TaskDefaults {
  ParamStore& params();
  size_t begin_epoch(int, Rng&);
  LossOut loss(Graph&, size_t, Rng&);
  Metrics evaluate(Split);
};
static_assert(!TrainerTask<NoShard>);

// A hook with the wrong signature is refused too (evaluate must return Metrics).
struct WrongEvaluate : TaskDefaults {
  ParamStore& params();
  void set_shard(const dist::Shard&);
  size_t begin_epoch(int, Rng&);
  LossOut loss(Graph&, size_t, Rng&);
  double evaluate(Split);
};
static_assert(!TrainerTask<WrongEvaluate>);

TEST(TaskConcept, DefaultsAreTheEmptyHooks) {
  Minimal t;
  EXPECT_TRUE(t.save_state().empty());
  EXPECT_EQ(t.log_extras(), nlohmann::json::object());
  EXPECT_STREQ(t.progress_loss_name(), "loss");
  EXPECT_TRUE(Minimal::flags().empty());
  EXPECT_TRUE(Minimal::unread_train_keys().empty());
  EXPECT_TRUE(Minimal::modes().empty());
}

TEST(TaskConcept, SectionKeysHaveTheirHeadingRows) {
  const std::vector<KeyDoc> keys = classify::ClassifyTask::keys();
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys.front().key, "data");
  EXPECT_EQ(keys.front().doc, "the data (data.*)");
  size_t model_at = 0;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i].key == "model") model_at = i;
  ASSERT_GT(model_at, 0u);
  EXPECT_EQ(keys[model_at].type, "section");
  for (size_t i = 1; i < keys.size(); ++i) {
    if (i != model_at) {
      EXPECT_EQ(keys[i].key.rfind(i < model_at ? "data." : "model.", 0), 0u) << keys[i].key;
    }
  }
  const std::vector<KeyDoc> nmt = nmt::NmtTask::keys();
  bool decode = false;
  for (const KeyDoc& k : nmt) decode = decode || (k.key == "decode" && k.doc == "beam search (decode.*)");
  EXPECT_TRUE(decode);
}

}  // namespace
}  // namespace twin
