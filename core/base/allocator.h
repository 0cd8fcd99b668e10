// Which malloc the process runs on, and how it is set, once at start by every task binary, the speed task and
// gemm_bench (issue 56).
//
// tcmalloc (gperftools' tcmalloc_minimal, Debian's libgoogle-perftools-dev), when installed at configure time, is
// linked into every binary as its malloc (CMake TW_TCMALLOC, ON by default; never in a sanitizer or fuzzing
// build, whose own allocator must serve every block), as Marian links it. Why: oneDNN's dnnl_sgemm, which runs
// most of our products (base/gemm_dnnl.cc), allocates and frees its packing buffers on every call (41,521 calls
// in two windows of the LM's small GRU, heaptrack), and glibc's heap fragments around the step's large buffers:
// the speed task's peak RSS rose to 1.1-1.6x that of the build before oneDNN in the small configurations, under
// every fixed mmap threshold tried (16 and 32 MiB), and one setting's peak differed between processes by up to
// 1.4x (152.7-216.0 MiB); with the products on Eigen alone it did not rise. Under tcmalloc the same binary's peaks
// are 0.89-1.09x the older build's, with at most 110 page faults per training step (0 in most)
// (results/speed/lm_peers_memory_why/).
//
// Without tcmalloc: glibc's malloc with fixed thresholds. glibc serves every block above its mmap threshold
// (128 KiB at start) with a fresh mmap, whose pages fault in again on first touch, and raises that threshold only
// when such a block is freed, up to 32 MiB; so the speed of a step that allocates large buffers outside the
// graph's pool depended on what ran before it in the process (`speed nmt` decoded 1.4-2.4x faster at beam 10 for
// the cell that ran later, results/speed/nmt_order_effect/). Fixing the mmap threshold at 32 MiB and the trim
// threshold at 1 GiB removes that (results/speed/allocator/).
//
// TWIN_MALLOC chooses: unset or "twin" (the build's allocator: tcmalloc, or glibc with the fixed thresholds) or
// "glibc" (glibc's own dynamic thresholds, for A/B sittings; a build linked with tcmalloc cannot give it, and says
// so). A GLIBC_TUNABLES that sets glibc.malloc.mmap_threshold or glibc.malloc.trim_threshold is the user's own
// choice and is left alone when TWIN_MALLOC is unset (glibc builds).
#pragma once

#include <cstddef>
#include <string>

namespace twin {

struct AllocatorSetting {
  enum class Source { kTwin, kGlibc, kTunables, kTcmalloc };
  Source source = Source::kTwin;
  std::size_t mmap_threshold = 0;   // bytes; 0 = not set by us
  std::size_t trim_threshold = 0;
  bool applied = false;             // set_allocator(): mallopt took both thresholds (kTwin only)
};

inline constexpr std::size_t kMmapThreshold = std::size_t{32} << 20;   // glibc's DEFAULT_MMAP_THRESHOLD_MAX (64-bit)
inline constexpr std::size_t kTrimThreshold = std::size_t{1} << 30;

// Whether this binary was linked with tcmalloc (then every malloc of the process is tcmalloc's).
bool tcmalloc_linked();
// tcmalloc's version as it reports it ("gperftools 2.10"); "" when not linked.
std::string tcmalloc_version();

// What the two variables ask for (either may be null = unset) in a binary that is (`tcmalloc`) or is not linked
// with tcmalloc. A TWIN_MALLOC value that is not "twin" or "glibc", or "glibc" where tcmalloc is linked, is an
// Error naming the variable and what it accepts.
AllocatorSetting parse_allocator_setting(const char* twin_malloc, const char* glibc_tunables,
                                         bool tcmalloc = tcmalloc_linked());

// Reads TWIN_MALLOC and GLIBC_TUNABLES and applies the setting (mallopt) the first time; later calls return
// what the first applied. Throws (Error) on a bad TWIN_MALLOC, before the run does anything. Where malloc is
// not glibc's (a sanitizer build), mallopt refuses and the setting says so (applied = false): not an error.
const AllocatorSetting& set_allocator();

// One line for the speed reports' machine block (speed, speed nmt, gemm_bench), e.g.
// "tcmalloc (gperftools 2.10, linked; -DTW_TCMALLOC=OFF builds on glibc's malloc)" or
// "glibc malloc, mmap threshold 32 MiB, trim threshold 1024 MiB (twinrnn's setting; TWIN_MALLOC=glibc for glibc's)".
std::string allocator_text(const AllocatorSetting& s);

}  // namespace twin
