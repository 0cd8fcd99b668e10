#include "base/fp_mode.h"

#include <cstdlib>

#include "base/check.h"
#if defined(__SSE__) || defined(__x86_64__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#define TW_FP_X86 1
#elif defined(__aarch64__)
#include <cstdint>
#define TW_FP_ARM64 1
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace twin {

namespace {

bool g_flush = true;   // TWIN_SUBNORMALS, read by set_fp_mode; flushing until then (set_num_threads in tests)

#ifdef TW_FP_ARM64
constexpr std::uint64_t kFpcrFz = std::uint64_t{1} << 24;   // FPCR.FZ: subnormal inputs and results as zero
#endif

}  // namespace

void flush_subnormals_this_thread() {
#if defined(TW_FP_X86)
  _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
  _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#elif defined(TW_FP_ARM64)
  std::uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  asm volatile("msr fpcr, %0" : : "r"(fpcr | kFpcrFz));
#endif
}

bool subnormals_flushed() {
#if defined(TW_FP_X86)
  return _MM_GET_FLUSH_ZERO_MODE() == _MM_FLUSH_ZERO_ON && _MM_GET_DENORMALS_ZERO_MODE() == _MM_DENORMALS_ZERO_ON;
#elif defined(TW_FP_ARM64)
  std::uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  return (fpcr & kFpcrFz) != 0;
#else
  return false;
#endif
}

void set_fp_mode() {
  const char* v = std::getenv("TWIN_SUBNORMALS");
  const std::string choice = v ? v : "";
  TW_CHECK(choice.empty() || choice == "flush" || choice == "keep", "TWIN_SUBNORMALS=", choice,
           ": expected 'flush' (subnormal floats flushed to zero, the default) or 'keep' (IEEE subnormals)");
  g_flush = choice != "keep";
  // "keep" leaves the process's mode as it started (IEEE: the C runtime starts with FTZ and DAZ off).
  if (g_flush) flush_subnormals_this_thread();
}

void apply_fp_mode_to_team() {
  if (!g_flush) return;
#ifdef _OPENMP
  // Every thread of the team runs the region once, the calling thread as its master; later regions of up to
  // that size reuse these threads.
#pragma omp parallel
  flush_subnormals_this_thread();
#else
  flush_subnormals_this_thread();
#endif
}

std::string fp_mode_text() {
  if (!g_flush) return "kept (TWIN_SUBNORMALS=keep)";
  return subnormals_flushed() ? "flushed to zero" : "kept: flushing is not supported on this platform";
}

}  // namespace twin
