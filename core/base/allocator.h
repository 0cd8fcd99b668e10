// How the process's allocator is set, once at start by every task binary, the speed task and gemm_bench (issue 56).
//
// Why: glibc's malloc serves every block above its mmap threshold (128 KiB at start) with a fresh mmap, whose
// pages fault in again on first touch, and raises that threshold only when such a block is freed, up to 32 MiB.
// So the speed of a step that allocates large buffers outside the graph's pool depends on what ran before it
// in the process: `speed nmt` decoded 1.4-2.4x faster at beam 10 for the cell that ran later
// (results/speed/nmt_order_effect/). Fixing the mmap threshold at 32 MiB (the top of glibc's own dynamic range)
// and the trim threshold at 1 GiB (freed heap memory stays mapped for the next step) removes that: every step
// reuses warm heap pages from the first one. The cost could be memory a run keeps mapped after freeing it;
// measured (results/speed/allocator/): every task's run 0.51-0.98x the wall time of glibc's defaults with the
// peak resident set within 2 %; the speed report's and summary.json's peak_rss_mb show what a run reaches.
//
// TWIN_MALLOC chooses: unset or "twin" (the fixed thresholds above) or "glibc" (glibc's defaults, for A/B
// sittings). A GLIBC_TUNABLES that sets glibc.malloc.mmap_threshold or glibc.malloc.trim_threshold is the
// user's own choice and is left alone when TWIN_MALLOC is unset.
#pragma once

#include <cstddef>
#include <string>

namespace twin {

struct AllocatorSetting {
  enum class Source { kTwin, kGlibc, kTunables };
  Source source = Source::kTwin;
  std::size_t mmap_threshold = 0;   // bytes; 0 = not set by us
  std::size_t trim_threshold = 0;
  bool applied = false;             // set_allocator(): mallopt took both thresholds (kTwin only)
};

inline constexpr std::size_t kMmapThreshold = std::size_t{32} << 20;   // glibc's DEFAULT_MMAP_THRESHOLD_MAX (64-bit)
inline constexpr std::size_t kTrimThreshold = std::size_t{1} << 30;

// What the two variables ask for (either may be null = unset); a TWIN_MALLOC value that is not "twin" or
// "glibc" is an Error naming the variable and the accepted values.
AllocatorSetting parse_allocator_setting(const char* twin_malloc, const char* glibc_tunables);

// Reads TWIN_MALLOC and GLIBC_TUNABLES and applies the setting (mallopt) the first time; later calls return
// what the first applied. Throws (Error) on a bad TWIN_MALLOC, before the run does anything. Where malloc is
// not glibc's (a sanitizer build), mallopt refuses and the setting says so (applied = false): not an error.
const AllocatorSetting& set_allocator();

// One line for the speed reports' machine block (speed, speed nmt, gemm_bench), e.g.
// "glibc malloc, mmap threshold 32 MiB, trim threshold 1024 MiB (twinrnn's setting; TWIN_MALLOC=glibc for glibc's)".
std::string allocator_text(const AllocatorSetting& s);

}  // namespace twin
