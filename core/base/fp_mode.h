// Subnormal floats flushed to zero (FTZ: results; DAZ: inputs) on every thread that computes: the calling
// thread and each thread of the OpenMP pool, which OpenBLAS, BLIS and oneDNN also run on here (the Debian
// builds this suite links are the OpenMP ones). Why: an arithmetic operation on a subnormal costs about a
// hundred cycles on x86 (a microcode assist), and training makes them (a softmax weight of a position scored
// 90 below the maximum, exp(-90), is one; which ops made DTMT's was not traced). Measured on
// the DTMT model (16-head attention, experiments/nmt/dtmt.json, one thread, Intel Xeon family 6 model 167,
// two training lanes beside it): without flushing, training slowed from ~550 to ~290 target tokens/s over
// its first 65 steps; flushed, 600-690 through step 95 (steps 50-65: 663 against
// 316, 2.1x), with the same losses to four decimals at every logged step. TensorFlow flushes them in its CPU
// thread pools for the same reason; Intel's compilers do at -O.
//
// TWIN_SUBNORMALS chooses, once at start (set_fp_mode, from run_with_exit_codes, so in every binary's main):
// unset or "flush" (the default) or "keep" (IEEE arithmetic with subnormals, e.g. to repeat bit for bit a run
// made by a build before this one). Any other value is bad input (exit 2).
#pragma once

#include <string>

namespace twin {

// Reads TWIN_SUBNORMALS (Error on a bad value) and sets the calling thread's mode. A thread it creates
// afterwards inherits the mode (Linux copies the floating-point control state at clone), so at the start of
// main this covers every OpenMP thread the process will make.
void set_fp_mode();
// The chosen mode on every thread of an OpenMP team of the current size, for a pool made before it was set
// (set_num_threads calls this once it has set the size).
void apply_fp_mode_to_team();

// FTZ and DAZ on the calling thread, whatever TWIN_SUBNORMALS says (x86: MXCSR; AArch64: FPCR.FZ; elsewhere
// nothing changes).
void flush_subnormals_this_thread();
// Whether the calling thread flushes subnormals (false on a platform flush_subnormals_this_thread does not
// handle).
bool subnormals_flushed();
// For reports: "flushed to zero", "kept (TWIN_SUBNORMALS=keep)" or "kept: flushing is not supported on this
// platform".
std::string fp_mode_text();

}  // namespace twin
