#include "lm_task.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "lm_gates.h"

#include "ops/ops.h"

namespace twin::lm {

LmTask::LmTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args)
    : TaskOnParts(root, run), batch_size_(train.batch_size) {
  if (auto it = args.task_flags.find("--dump-gates"); it != args.task_flags.end()) {
    dump_gates_ = static_cast<int>(parse_int_flag("--dump-gates", it->second, 0, 1000000, "a number of test sentences"));
  }
  corpus_ = load_corpus(data_);
  for (const std::string& note : corpus_.notes) std::fprintf(stderr, "lm: %s\n", note.c_str());
  train_data_ = batchify(corpus_.train, batch_size_);
  col1_ = train_data_.cols();
  build_model(corpus_.vocab);
}

size_t LmTask::begin_epoch(int, Rng&) {
  state_ = LmState{};   // every epoch starts from a zero state (Zaremba et al.)
  return static_cast<size_t>(num_windows(train_data_, data_.bptt));
}

LossOut LmTask::loss(Graph& g, size_t batch, Rng& rng) {
  IdMat input, target;
  window(train_data_, static_cast<Index>(batch), data_.bptt, input, target);
  const double T = static_cast<double>(input.rows()), B = static_cast<double>(input.cols());
  const double denom = data_.loss == LmLoss::kMeanToken ? T * B : B;              // sum over time, mean over batch
  if (col1_ - col0_ < input.cols()) {                                       // this rank's streams only
    const IdMat in = input.middleCols(col0_, col1_ - col0_), tg = target.middleCols(col0_, col1_ - col0_);
    input = in;
    target = tg;
  }
  Var nll = model_->loss(g, input, target, state_, rng);                    // [1,1] summed over T*B tokens
  return {scale(nll, static_cast<Real>(1.0 / denom)), nll.val()(0, 0), static_cast<double>(input.size())};
}

void LmTask::set_shard(const dist::Shard& s) {
  const auto B = static_cast<std::size_t>(train_data_.cols());
  TW_CHECK(B >= static_cast<std::size_t>(s.size), "data-parallel LM: train.batch_size ", B, " is smaller than the ",
           s.size, " ranks (each rank needs at least one stream)");
  col0_ = static_cast<Index>(s.begin(B));
  col1_ = static_cast<Index>(s.end(B));
}

Metrics LmTask::evaluate(Split split) {
  const Ids& s = split == Split::kTest ? corpus_.test : split == Split::kDev ? corpus_.valid : corpus_.train;
  std::vector<double>* keep = split == Split::kTest ? &test_nll_ : split == Split::kDev ? &dev_nll_ : nullptr;
  std::vector<double> scratch;
  const PplResult r = stream_perplexity(*model_, s, data_.eval_batch_size, data_.bptt, keep ? keep : &scratch);
  Metrics m;
  m.primary_name = "ppl";
  m.primary = r.ppl();
  m.higher_is_better = false;
  m.values = {{"ppl", r.ppl()}, {"loss", r.nll / r.tokens}, {"tokens", r.tokens}};
  return m;
}

nlohmann::json LmTask::log_extras() {
  std::vector<double> mean, max, c_max;
  for (size_t l = 0; l < state_.h.size(); ++l) {
    const Mat& h = state_.h[l];
    mean.push_back(h.size() ? static_cast<double>(h.cwiseAbs().mean()) : 0.0);
    max.push_back(h.size() ? static_cast<double>(h.cwiseAbs().maxCoeff()) : 0.0);
    if (state_.c[l].size()) c_max.push_back(static_cast<double>(state_.c[l].cwiseAbs().maxCoeff()));
  }
  if (first_state_max_.empty()) {
    first_state_max_ = max;
    warned_state_max_ = max;
  }
  for (size_t l = 0; l < max.size() && l < first_state_max_.size(); ++l) {
    const double base = std::max(first_state_max_[l], 1e-3);
    if (!(max[l] < 100 * base) && !(max[l] < 10 * warned_state_max_[l])) {   // NaN warns too
      std::fprintf(stderr, "lm: warning: layer %zu's carried state has max |h| %.3g, %.0fx its %.3g at this "
                   "process's first log point: the state is growing without bound (HINT: a twin-gate cell's "
                   "state is bounded by model.cell.output \"tanh\" or model.cell.layer_norm)\n",
                   l, max[l], max[l] / base, first_state_max_[l]);
      warned_state_max_[l] = max[l];
    }
  }
  nlohmann::json j = {{"state_abs_mean", mean}, {"state_abs_max", max}};
  if (!c_max.empty()) j["memory_abs_max"] = c_max;
  return j;
}

NamedMats LmTask::save_state() const {
  NamedMats out;
  for (size_t l = 0; l < state_.h.size(); ++l) {
    out.emplace_back("h" + std::to_string(l), state_.h[l]);
    if (state_.c[l].size()) out.emplace_back("c" + std::to_string(l), state_.c[l]);
  }
  return out;
}

void LmTask::load_state(const NamedMats& s) {
  state_ = LmState{};
  if (s.empty()) return;
  for (int l = 0; l < mcfg_.layers; ++l) {
    Mat h, c;
    for (const auto& [n, m] : s) {
      if (n == "h" + std::to_string(l)) h = m;
      if (n == "c" + std::to_string(l)) c = m;
    }
    TW_CHECK(h.rows() == batch_size_ && h.cols() == model_->cell(l).hidden_dim(),
             "checkpoint: carried LM state of layer ", l, " is ", shape_str(h), ", expected [", batch_size_, "x",
             model_->cell(l).hidden_dim(), "]");
    // The checkpoint holds every stream (gathered from all ranks); this process carries its own.
    state_.h.push_back(h.middleRows(col0_, col1_ - col0_));
    state_.c.push_back(c.size() ? Mat(c.middleRows(col0_, col1_ - col0_)) : c);
  }
}

void LmTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  // The outputs the dev and test perplexities were computed from: per-sentence log-probabilities.
  const std::string dir = (std::filesystem::path(run_dir) / "logprobs").string();
  std::filesystem::create_directories(dir);
  const std::int32_t eos = corpus_.vocab.find("<eos>");
  write_text_atomic(dir + "/dev.txt", sentence_logprob_lines(corpus_.valid, dev_nll_, eos));
  write_text_atomic(dir + "/test.txt", sentence_logprob_lines(corpus_.test, test_nll_, eos));
  summary["logprobs"] = {{"dev", "logprobs/dev.txt"}, {"test", "logprobs/test.txt"}};
  summary["vocab"] = corpus_.vocab.size();
  keep_vocabs(corpus_.vocab, run_dir);   // what `lm score <run>` reads
  summary["tokens"] = {{"train", corpus_.train.size()}, {"valid", corpus_.valid.size()}, {"test", corpus_.test.size()}};
  summary["cell"] = mcfg_.cell.type;
  if (dump_gates_ > 0) {
    const nlohmann::json stats = gate_statistics(*model_, corpus_, dump_gates_);
    write_text_atomic((std::filesystem::path(run_dir) / "gates.json").string(), stats.dump() + "\n");
    summary["gates"] = {{"file", "gates.json"}};
    if (stats.contains("pearson_r_positions"))
      summary["gates"]["pearson_r_positions"] = stats["pearson_r_positions"];
    if (stats.contains("pearson_r_units")) summary["gates"]["pearson_r_units"] = stats["pearson_r_units"];
  }
}

}  // namespace twin::lm
