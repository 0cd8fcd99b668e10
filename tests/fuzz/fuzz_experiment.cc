// Fuzz target: the experiment-config loader (core/train/experiment.h) and every strict config parser behind it.
//
// Input: `<experiment JSON>[#--#<base JSON>[#--#<--set assignment>...]]` (kSep between parts, fuzz_util.h). The
// first part is written to exp.json, the second (when present) to base.json beside it, so `"extends":
// "base.json"` reaches the merge; further parts are --set overrides. The loaded experiment is then read the way
// run_main (core/train/cli.h) reads it, once per task: parse_run, parse_train, the task's data/model (and
// NMT's decode) sections, finish(), and the resolved JSON is dumped as config.resolved.json would be.
#include <cstddef>
#include <cstdint>

#include "base/json_reader.h"
#include "classify_data.h"
#include "classify_model.h"
#include "corpus/nmt_data.h"
#include "cws_data.h"
#include "cws_model.h"
#include "fuzz_util.h"
#include "lm_data.h"
#include "lm_model.h"
#include "model/nmt_model.h"
#include "nmt_task.h"
#include "snli_data.h"
#include "snli_model.h"
#include "train/config.h"
#include "train/experiment.h"

namespace {

using namespace twin;

// The task's own sections, parsed as its constructor parses them; returns their resolved JSON.
nlohmann::json parse_task_sections(int task, JsonReader& root) {
  JsonReader dr = root.child("data"), mr = root.child("model");
  switch (task) {
    case 0: return {{"data", lm::to_json(lm::parse_lm_data(dr))}, {"model", lm::to_json(lm::parse_lm_model(mr))}};
    case 1: {
      nlohmann::json out = {{"data", nmt::to_json(nmt::parse_nmt_data(dr))},
                            {"model", nmt::to_json(nmt::parse_nmt_model(mr))}};
      JsonReader cr = root.child("decode");
      out["decode"] = nmt::to_json(nmt::parse_decode(cr));
      return out;
    }
    case 2: return {{"data", cws::to_json(cws::parse_cws_data(dr))}, {"model", cws::to_json(cws::parse_cws_model(mr))}};
    case 3:
      return {{"data", snli::to_json(snli::parse_snli_data(dr))}, {"model", snli::to_json(snli::parse_snli_model(mr))}};
    default:
      return {{"data", classify::to_json(classify::parse_classify_data(dr))},
              {"model", classify::to_json(classify::parse_classify_model(mr))}};
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twin;
  const auto parts = fuzz::split_parts(data, size, 8);
  const std::string path = fuzz::put_file("exp.json", parts[0]);
  if (parts.size() > 1) fuzz::put_file("base.json", parts[1]);
  else fuzz::remove_file("base.json");
  std::vector<std::string> overrides;
  for (std::size_t i = 2; i < parts.size(); ++i) overrides.emplace_back(parts[i]);

  Experiment exp;
  if (!fuzz::expect_error_or_ok([&] { exp = Experiment::load(path, overrides); })) return 0;
  for (int task = 0; task < 5; ++task) {
    fuzz::expect_error_or_ok([&] {
      JsonReader root = exp.reader();
      const RunConfig run = parse_run(root);
      JsonReader tr = root.child("train");
      const TrainConfig tc = parse_train(tr);
      tr.finish();
      nlohmann::json typed = parse_task_sections(task, root);
      root.finish();
      typed["train"] = to_json(tc);
      typed["run"] = to_json(run);
      // config.resolved.json is written like this; a dump that throws would lose the run's record.
      (void)exp.resolved(typed).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    });
  }
  return 0;
}
