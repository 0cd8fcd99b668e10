// `nmt average <run> [--last K] [--out FILE]`: the mean of a run's last K snapshots (train.keep_snapshots), saved
// with the newest snapshot's config so that `nmt translate` opens it like any parameter file.
#include <cstdio>
#include <filesystem>
#include <optional>

#include "nmt_cli.h"
#include "train/checkpoint.h"
#include "train/snapshots.h"

namespace twin::nmt {

CommandSpec average_command() {
  CommandSpec c("nmt average", "<run>", "run folder");
  c.operand_doc = "a run folder with snapshots/ (train.keep_snapshots)";
  c.options = {{"--last", "K", "the last K snapshots (default: all)"},
               {"--out", "FILE", "the averaged parameters (default: <run>/model.avg.bin)"}};
  c.summary = "mean of the last K snapshots -> <run>/model.avg.bin";
  return c;
}

int average_main(int argc, char** argv) {
  const std::optional<ParsedArgs> p = parse_args_or_help(average_command(), argc, argv);
  if (!p) return 0;
  const std::string run = p->operands.front();
  std::string out = p->text("--out");
  const int last = static_cast<int>(p->integer("--last", 1, 10000, 0));   // as translate's counts: 1 to 10000
  std::vector<std::string> snaps = list_snapshots(run);
  TW_CHECK(!snaps.empty(), run, " has no snapshots/model.step*.bin (HINT: train with train.keep_snapshots = K)");
  if (last > 0 && static_cast<size_t>(last) < snaps.size()) snaps.erase(snaps.begin(), snaps.end() - last);
  if (out.empty()) out = (std::filesystem::path(run) / "model.avg.bin").string();
  auto m = load_model(snaps.back());   // architecture and config from the newest snapshot
  average_params(snaps, *m->store);
  const nlohmann::json header = read_checkpoint_header(snaps.back());
  nlohmann::json cfg = header.value("config", nlohmann::json::object());
  save_params(out, *m->store, cfg);
  std::fprintf(stderr, "nmt average: %zu snapshots -> %s\n", snaps.size(), out.c_str());
  for (const auto& s : snaps) std::fprintf(stderr, "  %s\n", s.c_str());
  return 0;
}

}  // namespace twin::nmt
