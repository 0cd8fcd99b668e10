// build/bin/speed <experiments/speed/name.json> [--set key=value ...] [--quiet] [--profile]
// --profile (or TWIN_PROFILE=1) prints, per configuration, the time of every op and every matrix product
// per step (graph/profile.h); profiling itself costs a clock read per op, so use it apart from the figures.
// Runs the speed task (speed_bench.h) and writes <out>.json and <out>.md; prints the markdown table.
// Every user error is one line on stderr and exit code 2.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/check.h"
#include "graph/profile.h"
#include "speed_bench.h"
#include "train/experiment.h"

int main(int argc, char** argv) {
  using namespace twin;
  const char* usage = "usage: speed <experiment.json> [--set key=value ...] [--quiet] [--profile]";
  try {
    std::string config;
    std::vector<std::string> overrides;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--set")) {
        TW_CHECK(i + 1 < argc, "--set needs key=value; ", usage);
        overrides.emplace_back(argv[++i]);
      } else if (!std::strcmp(argv[i], "--quiet")) {
        quiet = true;
      } else if (!std::strcmp(argv[i], "--profile")) {
        profile::set_enabled(true);
      } else if (argv[i][0] == '-' || !config.empty()) {
        TW_FAIL("unexpected argument '", argv[i], "'; ", usage);
      } else {
        config = argv[i];
      }
    }
    TW_CHECK(!config.empty(), "no experiment file given; ", usage);
    Experiment exp = Experiment::load(config, overrides);
    JsonReader r = exp.reader();
    const speed::SpeedConfig cfg = speed::parse_speed_config(r);
    const speed::SpeedReport rep = speed::run_speed(cfg, !quiet);
    speed::write_speed_report(cfg, rep);
    std::printf("%s\nwrote %s.json and %s.md\n", speed::report_markdown(cfg, rep).c_str(), cfg.out.c_str(),
                cfg.out.c_str());
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "speed: error: %s\n", e.what());
    return 2;
  }
}
