// Learning-rate schedules: pure functions of (config, base lr, progress), llm.c `schedulers.h` style. The
// trainer calls scheduled_lr() before every update; only "plateau" has state, kept in ScheduleProgress::state,
// advanced by plateau_update() after each dev evaluation and saved in progress.json.
//
// Types (e = epoch, 1-based; t = global step, 1-based = the number of the update about to be made; lr0 = base):
//   constant      lr0
//   step_decay    lr0 · factor^max(0, e − start_epoch + 1): epochs before start_epoch use lr0, start_epoch
//                 itself is the first decayed epoch (lr0·factor), then one more factor per epoch.
//                 Zaremba et al. 2014 small: factor 0.5, start_epoch 5 (epochs 1-4 at 1.0, epoch 5 at 0.5, ...);
//                 medium: factor 1/1.2, start_epoch 7 ("after 6 epochs decrease by 1.2 each epoch").
//                 (Their Lua main.lua decays one epoch later than the paper text: start_epoch 6 / 8 for that.)
//   halving       step_decay with factor 0.5 (factor must be left at 0.5).
//   plateau       max(min_lr, lr0 · state.scale); state.scale starts at 1 and plateau_update multiplies it by
//                 factor once more than `patience` consecutive evaluations fail to improve (patience 0: at
//                 the first one; PyTorch ReduceLROnPlateau's counting). The state holds a scale rather than an
//                 absolute lr so that a default-constructed state is valid and min_lr applies at read time.
//   warmup_rsqrt  lr0 · min(t / warmup_steps, √(warmup_steps / t))  (Vaswani et al.; peak lr0 at t = warmup).
//   gnmt          t ≤ warmup_steps: lr0 · t / warmup_steps (linear warmup; none when warmup_steps = 0);
//                 then lr0 until decay_start_step; for t ≥ decay_start_step
//                 lr0 · factor^⌊(t − decay_start_step) / decay_interval⌋ (staircase, as tensorflow/nmt, so the
//                 first reduction is at t = decay_start_step + decay_interval).
// min_lr floors every decay (step_decay, halving, plateau, the rsqrt tail, gnmt's decay); warmup ramps start
// below it on purpose and are not floored; constant returns lr0.
#pragma once
#include "optim/optim_config.h"

namespace twin {

struct ScheduleState {  // "plateau" only; all fields go into progress.json for exact resume
  double scale = 1.0;   // lr = max(min_lr, base lr · scale); factor^decays
  double best = 0;      // best metric so far (valid when has_best)
  bool has_best = false;
  int stalled = 0;      // evaluations without improvement since the last improvement or decay
  int decays = 0;       // number of decays so far (for logging)
};

struct ScheduleProgress {
  int epoch = 1;        // 1-based
  long step = 1;        // 1-based global step of the update about to be made
  ScheduleState state;  // plateau
};

// Throws twin::Error naming the field (schedule.factor, ...) when a value the chosen type uses is out of
// range, or when the type is unknown (listing the allowed types).
void check_schedule(const ScheduleConfig& cfg);

// Validates cfg, then returns the lr for `progress`.
double scheduled_lr(const ScheduleConfig& cfg, double base_lr, const ScheduleProgress& progress);

// After a dev evaluation: records `metric` and decays state.scale when it has stalled for more than `patience`
// evaluations. A NaN metric counts as no improvement. Only valid for type "plateau".
void plateau_update(ScheduleState& state, double metric, bool higher_is_better, const ScheduleConfig& cfg);

}  // namespace twin
