// The process's allocator setting (base/allocator.h, issue 56): what TWIN_MALLOC and GLIBC_TUNABLES ask for in a
// build with and without tcmalloc, that a tcmalloc build's mallocs are tcmalloc's, and that a glibc build's fixed
// mmap threshold takes effect (a 16 MiB block comes from the heap, not from a fresh mmap).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/allocator.h"
#include "base/check.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace twin {
namespace {

// The message of the Error that parse_allocator_setting throws, or "" when it accepts.
std::string refusal(const char* twin_malloc, bool tcmalloc) {
  try {
    parse_allocator_setting(twin_malloc, nullptr, tcmalloc);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Allocator, UnsetMeansTheSuitesFixedThresholdsWithoutTcmalloc) {
  const AllocatorSetting s = parse_allocator_setting(nullptr, nullptr, false);
  EXPECT_EQ(s.source, AllocatorSetting::Source::kTwin);
  EXPECT_EQ(s.mmap_threshold, std::size_t{32} << 20);
  EXPECT_EQ(s.trim_threshold, std::size_t{1} << 30);
  const AllocatorSetting named = parse_allocator_setting("twin", nullptr, false);
  EXPECT_EQ(named.source, AllocatorSetting::Source::kTwin);
  EXPECT_EQ(named.mmap_threshold, s.mmap_threshold);
}

TEST(Allocator, UnsetOrTwinMeansTcmallocWhereLinked) {
  for (const char* v : {static_cast<const char*>(nullptr), "", "twin"}) {
    const AllocatorSetting s = parse_allocator_setting(v, "glibc.malloc.mmap_threshold=65536", true);
    EXPECT_EQ(s.source, AllocatorSetting::Source::kTcmalloc) << (v ? v : "(unset)");
    EXPECT_EQ(s.mmap_threshold, 0u);   // no glibc thresholds: glibc's malloc does not serve the process
  }
}

TEST(Allocator, GlibcLeavesMallocsOwnDefaults) {
  const AllocatorSetting s = parse_allocator_setting("glibc", nullptr, false);
  EXPECT_EQ(s.source, AllocatorSetting::Source::kGlibc);
  EXPECT_EQ(s.mmap_threshold, 0u);
  EXPECT_EQ(allocator_text(s), "malloc with its own defaults (TWIN_MALLOC=glibc)");
}

TEST(Allocator, GlibcInATcmallocBuildIsAnErrorNamingTheBuildOption) {
  EXPECT_EQ(refusal("glibc", true).rfind("TWIN_MALLOC=glibc: this build's malloc is tcmalloc, linked at build time; "
                                         "configure with -DTW_TCMALLOC=OFF for a build on glibc's malloc", 0),
            0u)
      << refusal("glibc", true);
}

TEST(Allocator, UsersGlibcTunablesWinUnlessTwinMallocIsGiven) {
  const char* t = "glibc.malloc.trim_threshold=1000";
  EXPECT_EQ(parse_allocator_setting(nullptr, t, false).source, AllocatorSetting::Source::kTunables);
  EXPECT_EQ(parse_allocator_setting(nullptr, "glibc.malloc.mmap_threshold=65536", false).source,
            AllocatorSetting::Source::kTunables);
  // A tunable that is not one of the two thresholds does not stop the setting.
  EXPECT_EQ(parse_allocator_setting(nullptr, "glibc.malloc.arena_max=2", false).source,
            AllocatorSetting::Source::kTwin);
  // Naming the suite's setting explicitly overrides the tunables.
  EXPECT_EQ(parse_allocator_setting("twin", t, false).source, AllocatorSetting::Source::kTwin);
}

TEST(Allocator, UnknownValueIsAnErrorNamingTheVariable) {
  for (const bool tcmalloc : {false, true}) {
    const std::string what = refusal("jemalloc", tcmalloc);
    EXPECT_EQ(what.rfind("TWIN_MALLOC=jemalloc: expected 'twin' (the suite's allocator, the default) or 'glibc' "
                         "(glibc's own thresholds, in a build without tcmalloc)", 0),
              0u)
        << what;
  }
  // An empty value is the same as unset.
  EXPECT_EQ(parse_allocator_setting("", nullptr, false).source, AllocatorSetting::Source::kTwin);
}

TEST(Allocator, TextNamesTheAllocatorAndTheThresholds) {
  AllocatorSetting s = parse_allocator_setting(nullptr, nullptr, false);
  s.applied = true;
  EXPECT_EQ(allocator_text(s), "glibc malloc, mmap threshold 32 MiB, trim threshold 1024 MiB (twinrnn's setting; "
                               "TWIN_MALLOC=glibc for glibc's)");
  s.applied = false;
  EXPECT_NE(allocator_text(s).find("refused"), std::string::npos);
  const AllocatorSetting tc = parse_allocator_setting(nullptr, nullptr, true);
  EXPECT_EQ(allocator_text(tc), "tcmalloc (" + tcmalloc_version() + ", linked; -DTW_TCMALLOC=OFF builds on glibc's malloc)");
}

// The build's answer: what this binary runs on.
TEST(Allocator, TheProcessRunsOnTheAllocatorItReports) {
  const char* env = std::getenv("TWIN_MALLOC");
  if (env != nullptr && std::string(env) == "glibc") GTEST_SKIP() << "TWIN_MALLOC=glibc in the environment";
  if (!tcmalloc_linked()) {
    EXPECT_EQ(tcmalloc_version(), "");
    GTEST_SKIP() << "this build has no tcmalloc (not installed, -DTW_TCMALLOC=OFF, or a sanitizer build)";
  }
  EXPECT_EQ(set_allocator().source, AllocatorSetting::Source::kTcmalloc);
  EXPECT_EQ(tcmalloc_version().rfind("gperftools ", 0), 0u) << tcmalloc_version();
#if defined(__GLIBC__)
  // glibc's own heap does not see a block that tcmalloc serves: mallinfo2 reports glibc's arenas only, so a
  // 48 MiB block leaves glibc's mmapped-block count and bytes unchanged where malloc is tcmalloc's.
  const struct mallinfo2 before = mallinfo2();
  void* big = std::malloc(std::size_t{48} << 20);
  ASSERT_NE(big, nullptr);
  asm volatile("" : : "g"(big) : "memory");   // the block is used: the compiler may not drop malloc/free
  const struct mallinfo2 during = mallinfo2();
  EXPECT_EQ(during.hblks, before.hblks) << "a 48 MiB block came from glibc's mmap: malloc is not tcmalloc's";
  EXPECT_EQ(during.hblkhd, before.hblkhd);
  std::free(big);
#endif
}

TEST(Allocator, FixedThresholdServesLargeBlocksFromTheHeap) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
  GTEST_SKIP() << "malloc is not glibc's here (a sanitizer's or another libc's): mallopt has no effect";
#else
  if (tcmalloc_linked()) GTEST_SKIP() << "this build's malloc is tcmalloc (TheProcessRunsOnTheAllocatorItReports)";
  const char* env = std::getenv("TWIN_MALLOC");
  if (env != nullptr && std::string(env) == "glibc") GTEST_SKIP() << "TWIN_MALLOC=glibc in the environment";
  const AllocatorSetting& s = set_allocator();
  if (s.source == AllocatorSetting::Source::kTunables) GTEST_SKIP() << "GLIBC_TUNABLES sets the thresholds";
  ASSERT_TRUE(s.applied) << allocator_text(s);
  // mallinfo2().hblks counts the blocks served by mmap. Under glibc's defaults a fresh 16 MiB block is one of
  // them (the dynamic threshold starts at 128 KiB); under the fixed 32 MiB threshold it is not, while a block
  // above the threshold still is.
  const std::size_t before = mallinfo2().hblks;
  void* mid = std::malloc(std::size_t{16} << 20);
  ASSERT_NE(mid, nullptr);
  asm volatile("" : : "g"(mid) : "memory");   // the block is used: the compiler may not drop malloc/free
  EXPECT_EQ(mallinfo2().hblks, before) << "a 16 MiB block was mmapped: the threshold is not 32 MiB";
  void* big = std::malloc(std::size_t{48} << 20);
  ASSERT_NE(big, nullptr);
  asm volatile("" : : "g"(big) : "memory");
  EXPECT_EQ(mallinfo2().hblks, before + 1) << "a 48 MiB block did not come from mmap";
  std::free(big);
  std::free(mid);
#endif
}

}  // namespace twin
