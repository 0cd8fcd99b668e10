// The command line the prediction modes share (`cws segment`, `lm score`, `ner tag`, `classify predict`,
// `snli predict`):
//   <task> <mode> <run> [--input FILE] [--output FILE] [--batch N] [--threads N]
// one input line per example from a file or stdin, the output to a file (written atomically) or stdout, and the
// trained run folder they load (its config.resolved.json and model.best.bin), checked with the same messages.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/threads.h"
#include "data/batch.h"
#include "eval/labels.h"
#include "graph/graph.h"
#include "train/args.h"

namespace twin {

// A prediction mode, described once: its command line (predict_command: its usage, errors and --help) and its
// entry in its task's --help and dispatch (as_mode, listed by the task's modes()) come from this, so they cannot
// drift apart.
struct PredictMode {
  const char* name;                    // "<task> <mode>", e.g. "snli predict"
  const char* in;                      // what one input line holds
  const char* out;                     // what the output holds
  int (*main)(int argc, char** argv);  // argv[0] is the mode's word
};
CommandSpec predict_command(const PredictMode& m);
CommandMode as_mode(const PredictMode& m);   // the word after the task's name selects it

struct PredictArgs {
  std::string run, input, output;   // input/output "": stdin/stdout
  int batch = 0;                    // 0: the mode's default
  int threads = 1;
};

// argv[0] is the mode. --help prints the mode's help and gives nothing (exit 0); misuse is an Error ending in its
// usage line.
std::optional<PredictArgs> parse_predict_args(int argc, char** argv, const PredictMode& m);
// The run's resolved config, after checking that the folder, config.resolved.json and model.best.bin exist and
// that the config has data.<marker> and, when given, model.<model_marker> (so a run of another task is refused
// naming what is missing; snli and classify share every data key but classify's num_labels, so snli also names
// a model key).
nlohmann::json load_run_config(const std::string& run_dir, const std::string& task, const std::string& marker,
                               const std::string& model_marker = "");
std::vector<std::string> read_input_lines(const PredictArgs& a);            // "" -> stdin; UTF-8 checked (data/text.h)
std::string input_name(const PredictArgs& a);                               // the file, or "<stdin>" in errors
void write_output(const PredictArgs& a, const std::string& text);           // "" -> stdout

// What a mode made of its input lines: the output text (to --output or stdout) and its closing line on stderr.
struct ModeOutput {
  std::string text;
  std::string report;   // without the newline; "" prints nothing
};
// "<mode>: <n> <noun>, to stdout" (or ", <output file>"), the usual closing line.
std::string done_line(const char* mode, std::size_t n, const char* noun, const PredictArgs& a);

// The main of every prediction mode: parses the mode's arguments (--help: its help, exit 0), sets the thread
// count, opens the trained run (Loaded::load(run folder)), reads the input lines (UTF-8 checked), lets
// run(loaded, lines, args) make the output, writes it and prints the closing line. One body, so the modes
// cannot drift apart in how they read, write and fail.
template <class Loaded, class Run>
int lines_mode_main(int argc, char** argv, const PredictMode& mode, Run run) {
  const std::optional<PredictArgs> a = parse_predict_args(argc, argv, mode);
  if (!a) return 0;
  set_num_threads(a->threads);
  const Loaded loaded = Loaded::load(a->run);
  const std::vector<std::string> lines = read_input_lines(*a);
  const ModeOutput out = run(loaded, lines, *a);
  write_output(*a, out.text);
  if (!out.report.empty()) std::fprintf(stderr, "%s\n", out.report.c_str());
  return 0;
}

// One label per example, in input order, in eval_batches by `length` cut as `batching` says (no dropout), with
// logits(g, ids) -> [B, C] the logits of the examples `ids` built in g: what a task's evaluation and its predict
// mode both label with, so that the predict mode gives a run's own predictions again.
template <class Example, class Length, class Logits>
std::vector<LabelProbability> label_examples(const std::vector<Example>& examples, Length length,
                                             const BatchingOptions& batching, Logits logits) {
  std::vector<LabelProbability> out(examples.size());
  Graph g(Mode::kInfer);
  for (const std::vector<int>& ids : eval_batches(examples, length, batching)) {
    g.clear();
    argmax_rows(logits(g, ids), ids, out);
  }
  return out;
}

// The main of a mode that gives one label per input line (`classify predict`, `snli predict`): loads
// Predictor::load(run), reads the examples with read(predictor, lines, input name), labels them with
// predictor.predict(examples, batching) (the run's data.eval_options(): --batch examples, else its
// data.eval_batch_size, and its data.eval_batch_tokens), writes
// "<name(label)>\t<probability>" per line and reports on stderr. One body, so the modes cannot drift apart.
template <class Predictor, class Read, class Name>
int label_lines_main(int argc, char** argv, const PredictMode& mode, const char* noun, Read read, Name name) {
  return lines_mode_main<Predictor>(
      argc, argv, mode, [&](const Predictor& pred, const std::vector<std::string>& lines, const PredictArgs& a) {
        const auto examples = read(pred, lines, input_name(a));
        const std::vector<LabelProbability> out =
            pred.predict(examples, pred.data.eval_options(a.batch));
        return ModeOutput{label_probability_lines(out, name), done_line(mode.name, out.size(), noun, a)};
      });
}
// Runs a mode's main with the task binaries' error convention (train/exit_codes.h): "<label>: error: ..." and
// exit 2 for bad input, "<label>: internal error: ..." and 70 for anything else.
int run_mode(const char* label, int (*mode_main)(int, char**), int argc, char** argv);

}  // namespace twin
