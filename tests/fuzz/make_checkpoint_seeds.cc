// Writes the seed corpus of fuzz_checkpoint with the project's own save functions, so the seeds are exactly
// what a run writes: `make_checkpoint_seeds <dir>` -> params (model.best.bin), optim state, a training
// checkpoint (checkpoint.last.bin with progress) and progress.json, each prefixed with the harness's mode byte
// (fuzz_checkpoint.cc). Rerun it when the checkpoint format changes.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "checkpoint_fixture.h"
#include "train/checkpoint.h"
#include "train/run_dir.h"
#include "train/trainer.h"

namespace {

// <dir>/<name> = mode byte + the bytes of `src` (then src is removed).
void seed(const std::string& dir, const std::string& name, unsigned char mode, const std::string& src) {
  const std::string bytes = twin::read_file(src);
  std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
  out.put(static_cast<char>(mode));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  std::filesystem::remove(src);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace twin;
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_checkpoint_seeds <corpus dir>\n");
    return 2;
  }
  const std::string dir = argv[1], tmp = dir + "/tmp.bin";
  std::filesystem::create_directories(dir);
  ParamStore store(1);
  fuzz::add_fixture_params(store);
  const nlohmann::json config = {{"name", "fuzz_seed"}, {"model", {{"embed", 3}}}};
  save_params(tmp, store, config);
  seed(dir, "params_strict", 0, tmp);
  save_params(tmp, store, config);
  seed(dir, "params_partial", 2, tmp);
  save_params(tmp, store, config);
  seed(dir, "params_as_named_mats", 4, tmp);

  auto opt = fuzz::fixture_optimizer();
  opt->init(store);
  save_named_mats(tmp, opt->state(), {{"optimizer", "adam"}});
  seed(dir, "optim_state", 4, tmp);

  Progress p;
  p.epoch = 2;
  p.batch = 3;
  p.step = 17;
  p.units = 340;
  p.lr = 0.01;
  p.has_best = true;
  p.best.primary_name = "ppl";
  p.best.primary = 123.5;
  p.best.values = {{"ppl", 123.5}};
  const std::string last = dir + "/checkpoint.last.bin";
  NamedMats task_state = {{"lm/h0", Mat::Constant(2, 3, Real(0.25))}};
  detail::save_last(last, store, *opt, task_state, p, config);
  seed(dir, "last_resume", 6, last);
  seed(dir, "progress_json", 6, dir + "/progress.json");
  std::printf("wrote the fuzz_checkpoint seeds to %s\n", dir.c_str());
  return 0;
}
