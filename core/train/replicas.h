// The data-parallel side of the training loop, behind one small interface so that train() in trainer.h reads
// as the single-process algorithm. Under mpirun (train/dist.h) every rank holds a replica of the model and
// computes its share of each global batch; the methods below are the points where the replicas must agree.
// In a single process (no MPI launcher, or one rank) each one is the identity or the ordinary step and calls
// no collective, so a plain run is exactly what it was before data-parallel training existed.
#pragma once
#include <cstdint>
#include <string>

#include "base/check.h"
#include "base/rng.h"
#include "graph/graph.h"
#include "train/dist.h"
#include "train/progress.h"
#include "train/task.h"

namespace twin {

class Replicas {
 public:
  Replicas() : parallel_(dist::active()), root_(dist::is_root()) {}

  // Rank 0, or the single process: the one replica that evaluates and writes the run folder, logs and messages.
  bool is_root() const { return root_; }
  // "rank r/N: " under mpirun, "" otherwise: a prefix for a message one rank gives on its own.
  std::string who() const { return dist::who(); }
  // What a missing checkpoint's HINT adds: under mpirun every rank reads the file itself. Single process: "".
  const char* resume_hint() const {
    return parallel_ ? "; under mpirun every rank reads it, so the run folder must be on a filesystem all ranks see"
                     : "";
  }

  // Tells the task which share of every global batch this rank computes. Single process: nothing (the task
  // computes whole batches). Every task has the hook (train/task.h's TrainerTask).
  template <class TaskT>
  void give_shard(TaskT& task) const {
    if (parallel_) task.set_shard(dist::shard());
  }

  // One starting point everywhere: rank 0's parameters and progress (after --resume, the checkpoint's as rank 0
  // read it) on every rank, so the replicas start identical. Single process: nothing.
  void start_alike(ParamStore& store, Progress& p) const;

  // The generator of this step's randomness (dropout masks). Single process: the checkpointed p.step_rng, so a
  // resume continues its stream. Under mpirun a fresh one from (seed, step, rank) alone: each rank draws its own
  // masks, and a resume needs no rank's generator state (detail::rank_step_rng).
  Rng& step_rng(Progress& p, std::uint64_t seed);

  // The whole batch's gradients in `store`, and its loss per unit (non-finite stops the run). Single process:
  // the ordinary backward of lo.loss, skipped when that loss is not finite (the step is dropped anyway).
  // Under mpirun every rank backpropagates its shard first, whatever its loss (a non-finite shard poisons the
  // sum, so all ranks stop together; an invalid lo.loss means this rank had no share of the batch), then the
  // gradients are summed and lo.loss_sum, lo.units and `stop_asked` (true if any rank was asked) are agreed in
  // one call. Clipping comes after, on the summed gradients, so every rank applies the same update.
  double backward(Graph& g, LossOut& lo, ParamStore& store, bool& stop_asked) const;

  // The task's carried state as a checkpoint holds it. Single process: `mine`. Under mpirun every rank's rows
  // (e.g. its streams of the LM's hidden state) stacked in rank order on rank 0, empty elsewhere: the
  // checkpoint is then the file a single process writes, and resumes with any number of ranks.
  NamedMats whole_task_state(NamedMats mine) const;

  // The task's metrics on split `s` on every rank. Single process: task.evaluate(s). Under mpirun rank 0
  // evaluates and the others receive its numbers (early stopping and the lr schedule must agree).
  template <class TaskT>
  Metrics evaluate(TaskT& task, Split s) const {
    Metrics m = root_ ? task.evaluate(s) : Metrics{};
    if (parallel_) m = metrics_from_root(m);
    return m;
  }

  // Rank 0's value of x on every rank (its wall clock decides a time budget, so every rank stops at the same
  // step). Single process: x.
  double from_root(double x) const;

 private:
  static Metrics metrics_from_root(const Metrics& m);
  bool parallel_, root_;
  Rng rank_rng_;   // under mpirun, this step's generator (step_rng)
};

namespace detail {
// Per-step randomness of one rank in a data-parallel run: a function of (seed, step, rank) alone, so a run is
// reproducible for a given number of ranks and resumes exactly without saving every rank's generator.
Rng rank_step_rng(std::uint64_t seed, long step, int rank);
}  // namespace detail

}  // namespace twin
