#include "train/predict_cli.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "base/check.h"
#include "data/text.h"
#include "train/cli.h"
#include "train/run_dir.h"

namespace twin {

namespace fs = std::filesystem;

namespace {
const char* kSynopsis = " <run> [--input FILE] [--output FILE] [--batch N] [--threads N]\n";
}  // namespace

std::string usage_text(const PredictMode& m) {
  return std::string("usage: ") + m.name + kSynopsis +
         "  <run>   a trained run folder (model.best.bin, config.resolved.json)\n"
         "  input   " + m.in + " (--input FILE, else stdin)\n"
         "  output  " + m.out + " (--output FILE, else stdout)\n";
}

std::string modes_text(const PredictMode& m) {
  return std::string("Modes:\n  ") + m.name + kSynopsis + "      in: " + m.in + "\n      out: " + m.out + "\n";
}

std::optional<PredictArgs> parse_predict_args(int argc, char** argv, const std::string& usage) {
  PredictArgs p;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      TW_CHECK(i + 1 < argc, a, " needs a value\n", usage);
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf("%s", usage.c_str());
      return std::nullopt;
    } else if (a == "--input") {
      p.input = value();
    } else if (a == "--output") {
      p.output = value();
    } else if (a == "--batch") {
      p.batch = static_cast<int>(parse_int_flag(a, value(), 1, 100000, "a number of sentences"));
    } else if (a == "--threads") {
      p.threads = static_cast<int>(parse_int_flag(a, value(), 1, 256, "a number"));
    } else if (a.rfind("--", 0) == 0) {
      TW_FAIL("unknown option '", a, "'\n", usage);
    } else {
      TW_CHECK(p.run.empty(), "more than one run folder given ('", p.run, "' and '", a, "')\n", usage);
      p.run = a;
    }
  }
  TW_CHECK(!p.run.empty(), "no run folder given\n", usage);
  return p;
}

nlohmann::json load_run_config(const std::string& run_dir, const std::string& task, const std::string& marker,
                               const std::string& model_marker) {
  const std::string cfg_path = run_dir + "/config.resolved.json", model_path = run_dir + "/model.best.bin";
  TW_CHECK(fs::is_directory(run_dir), "no run folder ", run_dir, " (HINT: give the out_dir of a trained ", task, " run)");
  TW_CHECK(fs::exists(cfg_path), "no ", cfg_path, " (HINT: ", run_dir, " is not a run folder of the ", task, " task)");
  TW_CHECK(fs::exists(model_path), "no trained model at ", model_path, " (HINT: a run writes it at its first dev ",
           "evaluation)");
  nlohmann::json cfg;
  try {
    cfg = nlohmann::json::parse(read_file(cfg_path));
  } catch (const nlohmann::json::exception& e) {
    TW_FAIL(cfg_path, " is not valid JSON (", e.what(), ")");
  }
  TW_CHECK(cfg.is_object() && cfg.contains("data") && cfg.contains("model") && cfg["data"].contains(marker),
           cfg_path, ": not the resolved config of a", task == "lm" ? "n " : " ", task, " run (no data.", marker, ")");
  TW_CHECK(model_marker.empty() || cfg["model"].contains(model_marker), cfg_path, ": not the resolved config of a ",
           task, " run (no model.", model_marker, ")");
  return cfg;
}

std::vector<std::string> read_input_lines(const PredictArgs& a) {
  return a.input.empty() ? read_stdin_lines(input_name(a)) : read_lines(a.input);
}

std::string input_name(const PredictArgs& a) { return a.input.empty() ? "<stdin>" : a.input; }

std::string done_line(const char* mode, std::size_t n, const char* noun, const PredictArgs& a) {
  return std::string(mode) + ": " + std::to_string(n) + " " + noun + ", " + (a.output.empty() ? "to stdout" : a.output);
}

void write_output(const PredictArgs& a, const std::string& text) {
  if (a.output.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
  else write_text_atomic(a.output, text);
}

int run_mode(const char* label, int (*mode_main)(int, char**), int argc, char** argv) {
  return run_with_exit_codes(label, [&] { return mode_main(argc, argv); });
}

}  // namespace twin
