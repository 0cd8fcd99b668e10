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

CommandSpec predict_command(const PredictMode& m) {
  CommandSpec c(m.name, "<run>", "run folder");
  c.operand_doc = "a trained run folder (model.best.bin, config.resolved.json)";
  c.options = {{"--input", "FILE", std::string(m.in) + " (default: stdin)"},
               {"--output", "FILE", std::string(m.out) + " (default: stdout)"},
               {"--batch", "N", "examples per batch (default: the mode's own; the labelling modes use the run's\n"
                                "data.eval_batch_size, as its evaluation did)"},
               {"--threads", "N", "threads (default 1)"}};
  c.summary = std::string("in: ") + m.in + "\nout: " + m.out;
  return c;
}

CommandMode as_mode(const PredictMode& m) {
  const std::string name = m.name;
  return {name.substr(name.find(' ') + 1), predict_command(m), m.main};
}

std::optional<PredictArgs> parse_predict_args(int argc, char** argv, const PredictMode& m) {
  const std::optional<ParsedArgs> p = parse_args_or_help(predict_command(m), argc, argv);
  if (!p) return std::nullopt;
  PredictArgs a;
  a.run = p->operands.front();
  a.input = p->text("--input");
  a.output = p->text("--output");
  a.batch = static_cast<int>(p->integer("--batch", 1, 100000, 0, "a number of sentences"));
  a.threads = static_cast<int>(p->integer("--threads", 1, 256, 1, "a number"));
  return a;
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
