// build/bin/lm <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--dump-gates N]   train + evaluate
// build/bin/lm score <run> [--input FILE] [--output FILE] [--batch N]                         score new text
#include <cstdio>
#include <filesystem>
#include <string>

#include "lm_score.h"
#include "lm_task.h"

int main(int argc, char** argv) {
  using namespace twin;
  if (argc > 1 && std::string(argv[1]) == "score") {
    try {
      return lm::score_main(argc - 1, argv + 1);
    } catch (const Error& e) {
      std::fprintf(stderr, "lm score: error: %s\n", e.what());
      return 2;
    } catch (const std::filesystem::filesystem_error& e) {
      std::fprintf(stderr, "lm score: error: %s\n", e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lm score: internal error: %s\n", e.what());
      return 70;
    }
  }
  return run_main<lm::LmTask>(argc, argv, "lm");
}
