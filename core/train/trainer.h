// The one training loop every task uses (DESIGN §4): epochs, dev evaluation every N steps or per epoch,
// early stopping on the task's primary metric, lr schedules, clipping, best/last checkpoints, exact resume,
// metrics.jsonl, progress lines, NaN/Inf stop, SIGINT/SIGTERM save-and-exit, a wall-clock budget.
//
// Checkpoints: `model.best.bin` holds the parameters of the best dev evaluation; `checkpoint.last.bin`
// holds parameters, optimiser state, task state and progress in ONE atomically written file, so a crash
// between writing "model", "optim" and "progress" can never leave a mismatched set (a deviation from
// DESIGN's three files, for crash safety). progress.json is a human-readable copy.
//
// TWIN_PROFILE=1 (base/profile.h) times the training steps' ops and matrix products, not the dev evaluations
// (their ops would mix into the step's figures), and writes profile.md in the run folder at the end of the
// process: where a step's time goes in a real run, not only in the speed task's benchmark.
#pragma once
#include <cmath>
#include <memory>
#include <string>

#include "base/profile.h"
#include "base/threads.h"
#include "optim/clip.h"
#include "optim/optimizer.h"
#include "optim/schedule.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/exit_codes.h"
#include "train/progress.h"
#include "train/replicas.h"
#include "train/run_dir.h"
#include "train/signals.h"
#include "train/snapshots.h"
#include "train/task.h"

namespace twin {

struct TrainOptions {
  RunConfig run;
  TrainConfig train;
  std::string run_dir;
  bool resume = false;
  bool quiet = false;           // tests: no progress lines
  // Also save checkpoint.last.bin when this many minutes of training have passed since the last save (0: off).
  // Not in the config: where a run saves changes nothing it computes (resume is exact from any batch).
  double save_minutes = 0;
  nlohmann::json config;        // resolved config, embedded in checkpoints
};

struct TrainOutcome {
  Metrics best;                 // best dev metrics (empty values if never evaluated)
  Metrics last;                 // the final dev evaluation
  long steps = 0;
  int epochs_done = 0;           // completed epochs of the whole run (earlier sessions included)
  double train_units = 0;       // units (tokens/sentences) trained on in this process
  double train_seconds = 0;     // time in training steps in this process (excludes evaluation)
  double wall_seconds = 0;
  StopReason stop_reason = StopReason::kNone;   // summary.json names it (kStopReasonNames); exit_code() maps it
  std::vector<double> losses;   // per-step training loss (loss_sum/units), for tests and goldens
};

namespace detail {
// Non-template helpers in trainer.cc.
void save_last(const std::string& path, ParamStore& store, const Optimizer& opt, const NamedMats& task_state,
               const Progress& p, const nlohmann::json& config);
void load_last(const std::string& path, ParamStore& store, Optimizer& opt, NamedMats& task_state, Progress& p);
void print_progress(const Progress& p, size_t batch, size_t n_batches, double loss, double lr, double gnorm,
                    double units_per_s, double eta_s, bool tty,
                    const char* loss_name = "loss", bool show_ppl = true);
void print_eval(Split s, const Metrics& m, long step, int epoch);
bool stderr_is_tty();
// profile.md: the op and product tables of base/profile.h per training step, over the steps this process trained
// (a resumed run's file covers the part after the resume).
void write_profile(const std::string& path, long steps, long last_step, bool quiet);
}  // namespace detail

template <TrainerTask TaskT>
TrainOutcome train(TaskT& task, const TrainOptions& o) {
  const TrainConfig& tc = o.train;
  ParamStore& store = task.params();
  std::unique_ptr<Optimizer> opt = make_optimizer(tc.optim);
  // Data-parallel under mpirun (train/replicas.h): rank 0 alone writes; every rank computes its shard of each
  // batch. In a single process every Replicas step is the identity or the ordinary one.
  Replicas replicas;
  const bool root = replicas.is_root();
  replicas.give_shard(task);
  TW_CHECK(!o.run_dir.empty(), "empty run folder path (HINT: set \"out_dir\" or \"name\" in the experiment)");
  const std::string& run_path = o.run_dir;
  if (root) {
    RunDir make_it(run_path);   // creates the folder
    // Temp files of writes an earlier session was killed in (kill -9, power cut) would pile up.
    remove_stale_temp_files(run_path);
    remove_stale_temp_files(RunDir::join(run_path, "snapshots"));
  }
  auto in_dir = [&](const char* f) { return RunDir::join(run_path, f); };
  const std::string last_path = in_dir("checkpoint.last.bin");
  const std::string best_path = in_dir("model.best.bin");

  Progress p;
  p.step_rng.seed(o.run.seed * 0x9E3779B97F4A7C15ULL + 17);
  p.lr = tc.optim.lr;
  NamedMats task_state;
  bool pending_state = false;
  if (o.resume) {
    TW_CHECK(file_exists(last_path), replicas.who(), "--resume: no checkpoint at ", last_path,
             " (HINT: a run saves it at each evaluation, on SIGINT/SIGTERM and at the end", replicas.resume_hint(), ")");
    detail::load_last(last_path, store, *opt, task_state, p);
    // Lines a crashed session wrote after its last checkpoint would otherwise appear twice.
    if (root) {
      if (p.metrics_rows >= 0) truncate_metrics_rows(in_dir("metrics.jsonl"), p.metrics_rows);
      else truncate_metrics_after(in_dir("metrics.jsonl"), p.step);   // a checkpoint from before metrics_rows
    }
    // Restored after begin_epoch() below, and only mid-epoch: at an epoch boundary the task's own
    // epoch-start state (e.g. the LM's zero hidden state) is what an uninterrupted run would have.
    pending_state = p.batch > 0;
    if (!o.quiet && root) std::fprintf(stderr, "resumed from %s at epoch %d, batch %zu, step %ld\n", last_path.c_str(),
                                       p.epoch, p.batch, p.step);
  }
  replicas.start_alike(store, p);   // one set of parameters and one position everywhere
  std::unique_ptr<MetricsLog> log_file;
  if (root) log_file = std::make_unique<MetricsLog>(in_dir("metrics.jsonl"));
  auto log_append = [&](const nlohmann::json& row) {
    if (log_file) log_file->append(row);
  };

  TrainOutcome out;
  if (o.resume && tc.patience > 0 && p.stalled >= tc.patience) {
    out.stop_reason = StopReason::kEarlyStop;   // the run had already stopped early: nothing left to train
    out.epochs_done = p.epoch - 1;
    out.best = p.best;
    out.steps = p.step;
    out.wall_seconds = p.elapsed_s;
    return out;
  }
  Stopwatch wall;
  const bool profiling = profile::enabled();
  long profiled_steps = 0;
  if (profiling) profile::reset();
  const bool quiet = o.quiet || !root;
  const bool tty = !quiet && detail::stderr_is_tty();
  // next_batch: where a resume continues in this epoch (the batch after the one just trained).
  auto save_last = [&](size_t next_batch) {
    const NamedMats st = replicas.whole_task_state(task.save_state());
    Progress at = p;
    at.batch = next_batch;
    if (log_file) at.metrics_rows = log_file->rows();
    if (root) detail::save_last(last_path, store, *opt, st, at, o.config);
  };
  if (!o.resume && root) {
    // A checkpoint before the first step: a run killed before its first periodic save (but perhaps after
    // writing model.best.bin) can be resumed, and a folder holding a model always holds a checkpoint.
    // No task state: a resume at batch 0 does not load it.
    opt->init(store);
    Progress at = p;
    at.metrics_rows = log_file->rows();
    detail::save_last(last_path, store, *opt, {}, at, o.config);
  }
  auto evaluate_dev = [&] {
    profile::set_enabled(false);
    const Metrics m = replicas.evaluate(task, Split::kDev);
    profile::set_enabled(profiling);
    out.last = m;
    const bool improved = !p.has_best || m.better_than(p.best);
    if (improved) {
      p.best = m;
      p.has_best = true;
      p.stalled = 0;
      if (root) save_params(best_path, store, o.config);
    } else {
      ++p.stalled;
    }
    if (root && tc.keep_snapshots > 0) save_snapshot(run_path, store, o.config, p.step, tc.keep_snapshots);
    if (tc.schedule.type == ScheduleKind::kPlateau) plateau_update(p.sched, m.primary, m.higher_is_better, tc.schedule);
    nlohmann::json row = m.values;
    row["split"] = "dev";
    row["step"] = p.step;
    row["epoch"] = p.epoch;
    row["best"] = improved;
    row["elapsed_s"] = p.elapsed_s + wall.seconds();
    log_append(row);
    if (!quiet) detail::print_eval(Split::kDev, m, p.step, p.epoch);
    return improved;
  };

  // The open log window lives in the checkpointed progress (exact train lines after a resume).
  double& window_loss = p.window_loss;
  double& window_units = p.window_units;
  long& window_steps = p.window_steps;
  Stopwatch window_clock;
  // Closes the log window after this batch of n_batches: one train line of metrics.jsonl, one progress line.
  auto log_train_window = [&](size_t n_batches, double gnorm) {
    const double secs = std::max(window_clock.seconds(), 1e-9);
    const double ups = window_units / secs;
    const double left = static_cast<double>(n_batches - p.batch - 1) +
                        static_cast<double>(tc.max_epochs - p.epoch) * static_cast<double>(n_batches);
    double eta = (tc.max_steps > 0 ? std::min(left, static_cast<double>(tc.max_steps - p.step)) : left) * secs /
                 static_cast<double>(std::max(1L, window_steps));
    // A time budget (the demo's 5 minutes) ends the run before the recipe's last epoch: count down to it.
    if (tc.max_minutes > 0) eta = std::min(eta, std::max(0.0, 60 * tc.max_minutes - (p.elapsed_s + wall.seconds())));
    const double wl = window_units > 0 ? window_loss / window_units : 0;
    nlohmann::json row = {{"split", "train"}, {"step", p.step}, {"epoch", p.epoch}, {"loss", wl}, {"lr", p.lr},
                          {"grad_norm", gnorm}, {"units_s", ups}, {"elapsed_s", p.elapsed_s + wall.seconds()}};
    // A task may add what it can measure cheaply on the batch in hand (the LM: its carried state's size).
    if (root) row.update(task.log_extras());
    log_append(row);
    if (!quiet) {
      // The task's own training objective: a cross-entropy ("loss", "nll") shows its perplexity too, a hinge
      // loss does not.
      const char* loss_name = task.progress_loss_name();
      const bool show_ppl = std::string(loss_name) == "loss" || std::string(loss_name) == "nll";
      detail::print_progress(p, p.batch + 1, n_batches, wl, p.lr, gnorm, ups, eta, tty, loss_name, show_ppl);
    }
    window_loss = window_units = 0;
    window_steps = 0;
    window_clock.reset();
  };
  // A non-finite loss or gradient norm stops the run before the update; rank 0 says so, even when quiet.
  auto report_non_finite = [&](double step_loss, double gnorm) {
    if (root) std::fprintf(stderr,
                 "error: non-finite %s at epoch %d step %ld (loss %g, grad norm %g); stopped. The last good "
                 "checkpoint is %s (HINT: lower the learning rate or set train.optim.clip_norm)\n",
                 std::isfinite(step_loss) ? "gradient" : "loss", p.epoch, p.step + 1, step_loss, gnorm,
                 file_exists(last_path) ? last_path.c_str() : "(none yet)");
  };

  // The timed save (o.save_minutes) is decided on rank 0's clock (replicas.from_root), so every rank saves alike.
  double next_save_min = p.elapsed_s / 60.0 + o.save_minutes;
  bool stop = false;
  Graph g(Mode::kTrain);   // one tape for every step: clear() recycles its buffers (Graph::take)
  while (p.epoch <= tc.max_epochs && !stop) {
    Rng order_rng(o.run.seed * 1000003ULL + static_cast<std::uint64_t>(p.epoch));   // batch order: f(seed, epoch)
    const size_t n_batches = task.begin_epoch(p.epoch, order_rng);
    TW_CHECK(n_batches > 0, "the training data gives no batch in epoch ", p.epoch);
    TW_CHECK(p.batch <= n_batches, "checkpoint position: batch ", p.batch, " of ", n_batches,
             " in epoch ", p.epoch, " (HINT: the data or batch size changed since the checkpoint was written)");
    if (pending_state) {
      task.load_state(task_state);
      pending_state = false;
    }
    for (; p.batch < n_batches; ++p.batch) {
      p.lr = scheduled_lr(tc.schedule, tc.optim.lr, p.sched_progress());
      Stopwatch step_clock;
      g.clear();
      LossOut lo = task.loss(g, p.batch, replicas.step_rng(p, o.run.seed));
      bool stop_asked = stop_requested();
      // The whole batch's gradients, loss and units (and any rank's stop request), before clipping.
      const double step_loss = replicas.backward(g, lo, store, stop_asked);
      double gnorm = 0;
      if (std::isfinite(step_loss)) gnorm = clip_global_norm(store, static_cast<Real>(tc.optim.clip_norm));
      if (!std::isfinite(step_loss) || !std::isfinite(gnorm)) {
        // Keep the last good checkpoint: the parameters were not updated with this step.
        store.zero_grad();
        out.stop_reason = StopReason::kNonFinite;
        report_non_finite(step_loss, gnorm);
        stop = true;
        break;
      }
      opt->step(store, static_cast<Real>(p.lr));
      store.zero_grad();
      ++p.step;
      ++profiled_steps;
      out.losses.push_back(step_loss);
      out.train_units += lo.units;
      out.train_seconds += step_clock.seconds();
      p.units += lo.units;
      window_loss += lo.loss_sum;
      window_units += lo.units;
      ++window_steps;

      if (tc.log_every > 0 && (p.step % tc.log_every == 0 || p.batch + 1 == n_batches))
        log_train_window(n_batches, gnorm);

      bool evaluated = false;
      if (tc.eval_every > 0 && p.step % tc.eval_every == 0) {
        evaluate_dev();
        evaluated = true;
      }
      const double minutes = replicas.from_root((p.elapsed_s + wall.seconds()) / 60.0);   // every rank stops alike
      if (stop_asked) out.stop_reason = StopReason::kSignal;
      else if (tc.max_steps > 0 && p.step >= tc.max_steps) out.stop_reason = StopReason::kMaxSteps;
      else if (tc.max_minutes > 0 && minutes >= tc.max_minutes) out.stop_reason = StopReason::kMaxMinutes;
      else if (tc.patience > 0 && p.stalled >= tc.patience) out.stop_reason = StopReason::kEarlyStop;
      if (out.stop_reason != StopReason::kNone) {
        // No evaluation here: it would change plateau/early-stopping state, and an interrupted run that is
        // resumed must follow the uninterrupted one exactly. run_main evaluates the best (or current) model.
        // Resume continues after this batch. After an epoch's last batch the position stays in this epoch
        // (batch == n_batches), so a resumed run still does the end-of-epoch evaluation.
        ++p.batch;
        p.elapsed_s += wall.seconds();
        wall.reset();
        save_last(p.batch);
        stop = true;
        break;
      }
      const bool timed_save = o.save_minutes > 0 && minutes >= next_save_min;
      if (evaluated || (tc.save_every > 0 && p.step % tc.save_every == 0) || timed_save) {
        p.elapsed_s += wall.seconds();
        wall.reset();
        save_last(p.batch + 1);   // this batch is done: a resume must not train it again
        next_save_min = minutes + o.save_minutes;
      }
    }
    if (stop) break;
    if (tc.eval_every == 0) {
      evaluate_dev();
      if (tc.patience > 0 && p.stalled >= tc.patience) {
        out.stop_reason = StopReason::kEarlyStop;
        stop = true;
      }
    }
    ++p.epoch;            // saved position: the start of the next epoch
    p.batch = 0;
    p.elapsed_s += wall.seconds();
    wall.reset();
    save_last(0);
    if (o.save_minutes > 0) next_save_min = replicas.from_root(p.elapsed_s / 60.0) + o.save_minutes;
  }
  if (tty) std::fputc('\n', stderr);   // end the live bar's line
  if (out.stop_reason == StopReason::kNone) out.stop_reason = StopReason::kMaxEpochs;
  if (out.stop_reason == StopReason::kSignal && !quiet)
    std::fprintf(stderr, "stopped by signal %d; saved %s (continue with --resume)\n", stop_signal(), last_path.c_str());
  out.best = p.best;
  out.steps = p.step;
  // From the position, not a count in this process: a resumed run reports the whole run's epochs.
  out.epochs_done = p.epoch - 1;
  out.wall_seconds = p.elapsed_s + wall.seconds();
  if (profiling && root && profiled_steps > 0) detail::write_profile(in_dir("profile.md"), profiled_steps, p.step, quiet);
  return out;
}

}  // namespace twin
