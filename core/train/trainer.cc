#include "train/trainer.h"

#include <cmath>

#include <unistd.h>

#include <cstdio>
#include <limits>

#include "train/checkpoint.h"

namespace twin {

const char* split_name(Split s) {
  switch (s) {
    case Split::kDev: return "dev";
    case Split::kTest: return "test";
  }
  return "?";
}

namespace {
nlohmann::json schedule_state_to_json(const ScheduleState& s) {
  return {{"scale", s.scale}, {"best", s.best}, {"has_best", s.has_best}, {"stalled", s.stalled}, {"decays", s.decays}};
}
// An integer field of a progress record, in [lo, hi]. nlohmann's get<int>() casts a float such as 1e300
// (undefined behaviour) and wraps -5 into a size_t: a resume must fail on such a record rather than continue
// from a wrong position (tests/test_fuzz_regressions.cc).
long long int_field(const nlohmann::json& j, const char* key, long long lo, long long hi) {
  const nlohmann::json& v = j.at(key);
  long long x = 0;
  bool ok = false;
  if (v.is_number_unsigned()) {
    ok = v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi);
    if (ok) x = static_cast<long long>(v.get<std::uint64_t>());
  } else if (v.is_number_integer()) {
    ok = true;
    x = v.get<long long>();
  }
  if (!ok || x < lo || x > hi)
    TW_FAIL("checkpoint progress record is malformed: \"", key, "\" must be an integer in [", lo, ", ", hi,
            "], got ", v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return x;
}
constexpr long long kIntMax = std::numeric_limits<int>::max(), kLongMax = std::numeric_limits<long>::max();

ScheduleState schedule_state_from_json(const nlohmann::json& j) {
  ScheduleState s;
  s.scale = j.at("scale").get<double>();
  s.best = j.at("best").get<double>();
  s.has_best = j.at("has_best").get<bool>();
  s.stalled = static_cast<int>(int_field(j, "stalled", 0, kIntMax));
  s.decays = static_cast<int>(int_field(j, "decays", 0, kIntMax));
  return s;
}
}  // namespace

ScheduleProgress Progress::sched_progress() const {
  ScheduleProgress sp;
  sp.epoch = epoch;
  sp.step = step + 1;   // the step about to be taken, 1-based
  sp.state = sched;
  return sp;
}

nlohmann::json Progress::to_json() const {
  return {{"epoch", epoch},         {"batch", batch},
          {"step", step},           {"units", units},
          {"elapsed_s", elapsed_s}, {"lr", lr},
          {"has_best", has_best},   {"best", {{"name", best.primary_name}, {"primary", best.primary},
                                              {"higher_is_better", best.higher_is_better}, {"values", best.values}}},
          {"stalled", stalled},     {"sched", schedule_state_to_json(sched)},
          {"step_rng", step_rng.save()},
          {"metrics_rows", metrics_rows},
          {"window", {{"loss", window_loss}, {"units", window_units}, {"steps", window_steps}}}};
}

Progress Progress::from_json(const nlohmann::json& j) {
  Progress p;
  try {
    p.epoch = static_cast<int>(int_field(j, "epoch", 0, kIntMax));
    p.batch = static_cast<size_t>(int_field(j, "batch", 0, kLongMax));
    p.step = static_cast<long>(int_field(j, "step", 0, kLongMax));
    p.units = j.at("units").get<double>();
    p.elapsed_s = j.at("elapsed_s").get<double>();
    p.lr = j.at("lr").get<double>();
    p.has_best = j.at("has_best").get<bool>();
    const auto& b = j.at("best");
    p.best.primary_name = b.at("name").get<std::string>();
    p.best.primary = b.at("primary").get<double>();
    p.best.higher_is_better = b.at("higher_is_better").get<bool>();
    p.best.values = b.at("values");
    p.stalled = static_cast<int>(int_field(j, "stalled", 0, kIntMax));
    p.sched = schedule_state_from_json(j.at("sched"));
    p.step_rng.restore(j.at("step_rng").get<std::string>());
    // Optional: absent from checkpoints written before crash-safety hardening (issue 11).
    p.metrics_rows = j.contains("metrics_rows") ? static_cast<long>(int_field(j, "metrics_rows", -1, kLongMax)) : -1L;
    if (j.contains("window")) {
      const auto& w = j.at("window");
      p.window_loss = w.at("loss").get<double>();
      p.window_units = w.at("units").get<double>();
      p.window_steps = static_cast<long>(int_field(w, "steps", 0, kLongMax));
    }
  } catch (const nlohmann::json::exception& e) {
    TW_FAIL("checkpoint progress record is malformed: ", e.what());
  }
  return p;
}

namespace detail {

namespace {
const std::string kParam = "param/", kOptim = "optim/", kTask = "task/";
bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
}  // namespace

void save_last(const std::string& path, ParamStore& store, const Optimizer& opt, const NamedMats& task_state,
               const Progress& p, const nlohmann::json& config) {
  NamedMats all;
  for (const auto& prm : store.all()) all.emplace_back(kParam + prm->name, prm->value);
  for (auto& [n, m] : opt.state()) all.emplace_back(kOptim + n, m);
  for (const auto& [n, m] : task_state) all.emplace_back(kTask + n, m);
  save_named_mats(path, all, {{"progress", p.to_json()}, {"config", config}}, "last");
  const std::string dir = path.substr(0, path.find_last_of('/') + 1);
  write_text_atomic(dir + "progress.json", p.to_json().dump(2) + "\n");
}

void load_last(const std::string& path, ParamStore& store, Optimizer& opt, NamedMats& task_state, Progress& p) {
  nlohmann::json header;
  NamedMats all = load_named_mats(path, &header);
  const nlohmann::json meta = header.value("meta", nlohmann::json::object());
  TW_CHECK(meta.contains("progress"), path, ": not a training checkpoint (no progress record)");
  Progress loaded = Progress::from_json(meta.at("progress"));
  NamedMats optim;
  NamedMats task;
  std::map<std::string, const Mat*> params;
  for (const auto& [n, m] : all) {
    if (starts_with(n, kParam)) params[n.substr(kParam.size())] = &m;
    else if (starts_with(n, kOptim)) optim.emplace_back(n.substr(kOptim.size()), m);
    else if (starts_with(n, kTask)) task.emplace_back(n.substr(kTask.size()), m);
    else TW_FAIL(path, ": unexpected entry '", n, "'");
  }
  // Check everything before changing anything: a failed resume must leave the model as it was.
  for (const auto& prm : store.all()) {
    auto it = params.find(prm->name);
    TW_CHECK(it != params.end(), path, ": has no parameter '", prm->name,
             "' (HINT: the checkpoint was written by a different model configuration)");
    TW_CHECK(it->second->rows() == prm->value.rows() && it->second->cols() == prm->value.cols(), path,
             ": parameter '", prm->name, "' is ", shape_str(*it->second), " but the model has ", shape_str(prm->value));
  }
  TW_CHECK(params.size() == store.all().size(), path, ": has ", params.size(), " parameters, the model ",
           store.all().size());
  opt.init(store);
  opt.load_state(optim);
  for (const auto& prm : store.all()) prm->value = *params.at(prm->name);
  task_state = std::move(task);
  p = std::move(loaded);
}

bool stderr_is_tty() { return isatty(fileno(stderr)) != 0; }

void write_profile(const std::string& path, long steps, long last_step, bool quiet) {
  const std::string text =
      "# Where a training step's time goes (TWIN_PROFILE=1)\n\n"
      "Per training step, over the " + std::to_string(steps) + " steps this process trained (steps " +
      std::to_string(last_step - steps + 1) + "-" + std::to_string(last_step) +
      "; dev evaluations left out). Forward time of an op is the wall time since the previous op was "
      "recorded, so it includes the model code between two ops; a product's time is also part of its op's "
      "(base/profile.h). Profiling costs a clock read per op: time a run apart from its profile.\n\n" +
      profile::report(static_cast<double>(steps));
  write_text_atomic(path, text);
  if (!quiet) std::fprintf(stderr, "profile: %s\n", path.c_str());
}

namespace {
std::string hms(double s) {
  char buf[32];
  const long t = static_cast<long>(s);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  return buf;
}
}  // namespace

void print_progress(const Progress& p, size_t batch, size_t n_batches, double loss, double lr, double gnorm,
                    double units_per_s, double eta_s, bool tty,
                    const char* loss_name, bool show_ppl) {
  const double frac = static_cast<double>(batch) / static_cast<double>(n_batches);
  std::string bar;
  if (tty) {   // a live bar, redrawn in place with \r
    const int width = 20, full = static_cast<int>(frac * width);
    bar = "[" + std::string(static_cast<size_t>(full), '#') + std::string(static_cast<size_t>(width - full), '.') + "] ";
  }
  char ppl[32] = "";
  if (show_ppl) std::snprintf(ppl, sizeof ppl, " ppl %.2f", std::exp(std::min(loss, 50.0)));
  std::fprintf(stderr, "%s%sepoch %d %5.1f%% | step %ld | %s %.4f%s | lr %.4g | gnorm %.3g | %.0f units/s | ETA %s%s",
               tty ? "\r" : "", bar.c_str(), p.epoch, 100.0 * frac, p.step, loss_name, loss, ppl, lr, gnorm,
               units_per_s, hms(eta_s).c_str(), tty ? "   " : "\n");
  std::fflush(stderr);
}

void print_eval(Split s, const Metrics& m, long step, int epoch) {
  std::fprintf(stderr, "%s[%s] epoch %d step %ld: %s\n", stderr_is_tty() ? "\n" : "", split_name(s), epoch, step,
               m.values.dump().c_str());
}

}  // namespace detail
}  // namespace twin
