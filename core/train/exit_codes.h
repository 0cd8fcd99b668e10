// How every binary of the suite ends, written once (issue 54: the ladder was copied into four mains):
//   0    done (a finished run, a mode's output written, --help, --print-*)
//   2    bad input: a config, data file, checkpoint, command line or path the user gave (twin::Error, or a
//        filesystem_error: a path the OS refuses, e.g. a symlink loop or a name too long)
//   3    training stopped on a non-finite loss or gradient (the run folder keeps its last good checkpoint)
//   70   an internal error (any other exception): a message and this code, never std::terminate's abort
//   130  stopped by SIGINT/SIGTERM after writing a checkpoint (--resume continues it)
// The trainer's stop reason is an enum here too, so the code a stop gives cannot drift from its name.
#pragma once
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string_view>

#include "base/allocator.h"
#include "base/fp_mode.h"
#include "base/check.h"
#include "base/names.h"
#include "train/dist.h"

namespace twin {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNonFinite = 3;
inline constexpr int kExitInternal = 70;
inline constexpr int kExitSignal = 130;

// Why train() returned (summary.json's stop_reason). kNone: still training (never in a returned outcome).
enum class StopReason { kNone, kMaxEpochs, kMaxSteps, kMaxMinutes, kEarlyStop, kSignal, kNonFinite };
inline constexpr NameTable<StopReason, 7> kStopReasonNames{{{StopReason::kNone, ""},
                                                            {StopReason::kMaxEpochs, "max_epochs"},
                                                            {StopReason::kMaxSteps, "max_steps"},
                                                            {StopReason::kMaxMinutes, "max_minutes"},
                                                            {StopReason::kEarlyStop, "early_stop"},
                                                            {StopReason::kSignal, "signal"},
                                                            {StopReason::kNonFinite, "non_finite"}}};
inline std::string_view stop_reason_name(StopReason r) { return name_of(kStopReasonNames, r); }

// A training run's exit code: a stop the user should act on (a signal, a non-finite loss) is not 0, and the
// run is then not evaluated; every budget or early stop is a normal end.
constexpr int exit_code(StopReason r) {
  return r == StopReason::kSignal ? kExitSignal : r == StopReason::kNonFinite ? kExitNonFinite : kExitOk;
}
// Whether the run goes on to its final evaluation and summary.
constexpr bool evaluates_after(StopReason r) { return exit_code(r) == kExitOk; }

// Runs body() (returning the exit code) under the convention above: "<label>: error: <what>" and 2 for bad
// input, "<label>: internal error: <what>" and 70 otherwise. Under mpirun the message names the rank and the
// whole job is aborted with that code, since the other ranks would wait for this one forever.
// Every binary's main runs through here, so this is where the process's allocator is set first
// (base/allocator.h: fixed malloc thresholds; a bad TWIN_MALLOC is exit 2 before the body runs), and its
// floating-point mode: subnormals flushed to zero unless TWIN_SUBNORMALS=keep (a bad value is exit 2 too),
// inherited by every thread made after (base/fp_mode.h).
template <class Body>
int run_with_exit_codes(const char* label, Body&& body) {
  auto fail = [label](const char* kind, const char* what, int code) {
    std::fprintf(stderr, "%s: %s%s: %s\n", label, dist::who().c_str(), kind, what);
    if (dist::active()) dist::abort(code);
    return code;
  };
  try {
    set_allocator();
    set_fp_mode();
    return body();
  } catch (const Error& e) {
    return fail("error", e.what(), kExitBadInput);
  } catch (const std::filesystem::filesystem_error& e) {
    return fail("error", e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    return fail("internal error", e.what(), kExitInternal);
  }
}

}  // namespace twin
