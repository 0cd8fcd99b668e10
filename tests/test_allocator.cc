// The process's allocator setting (base/allocator.h, issue 56): what TWIN_MALLOC and GLIBC_TUNABLES ask for, and
// that the fixed mmap threshold takes effect (a 16 MiB block comes from the heap, not from a fresh mmap).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/allocator.h"
#include "base/check.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace twin {

TEST(Allocator, UnsetMeansTheSuitesFixedThresholds) {
  const AllocatorSetting s = parse_allocator_setting(nullptr, nullptr);
  EXPECT_EQ(s.source, AllocatorSetting::Source::kTwin);
  EXPECT_EQ(s.mmap_threshold, std::size_t{32} << 20);
  EXPECT_EQ(s.trim_threshold, std::size_t{1} << 30);
  const AllocatorSetting named = parse_allocator_setting("twin", nullptr);
  EXPECT_EQ(named.source, AllocatorSetting::Source::kTwin);
  EXPECT_EQ(named.mmap_threshold, s.mmap_threshold);
}

TEST(Allocator, GlibcLeavesMallocsOwnDefaults) {
  const AllocatorSetting s = parse_allocator_setting("glibc", nullptr);
  EXPECT_EQ(s.source, AllocatorSetting::Source::kGlibc);
  EXPECT_EQ(s.mmap_threshold, 0u);
  EXPECT_EQ(allocator_text(s), "malloc with its own defaults (TWIN_MALLOC=glibc)");
}

TEST(Allocator, UsersGlibcTunablesWinUnlessTwinMallocIsGiven) {
  const char* t = "glibc.malloc.trim_threshold=1000";
  EXPECT_EQ(parse_allocator_setting(nullptr, t).source, AllocatorSetting::Source::kTunables);
  EXPECT_EQ(parse_allocator_setting(nullptr, "glibc.malloc.mmap_threshold=65536").source,
            AllocatorSetting::Source::kTunables);
  // A tunable that is not one of the two thresholds does not stop the setting.
  EXPECT_EQ(parse_allocator_setting(nullptr, "glibc.malloc.arena_max=2").source, AllocatorSetting::Source::kTwin);
  // Naming the suite's setting explicitly overrides the tunables.
  EXPECT_EQ(parse_allocator_setting("twin", t).source, AllocatorSetting::Source::kTwin);
}

TEST(Allocator, UnknownValueIsAnErrorNamingTheVariable) {
  try {
    parse_allocator_setting("jemalloc", nullptr);
    FAIL() << "TWIN_MALLOC=jemalloc was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("TWIN_MALLOC=jemalloc: expected 'twin' (fixed mmap and trim thresholds, "
                                          "the default) or 'glibc' (glibc's own)", 0),
              0u)
        << e.what();
  }
  // An empty value is the same as unset.
  EXPECT_EQ(parse_allocator_setting("", nullptr).source, AllocatorSetting::Source::kTwin);
}

TEST(Allocator, TextNamesTheThresholds) {
  AllocatorSetting s = parse_allocator_setting(nullptr, nullptr);
  s.applied = true;
  EXPECT_EQ(allocator_text(s), "glibc malloc, mmap threshold 32 MiB, trim threshold 1024 MiB (twinrnn's setting; "
                               "TWIN_MALLOC=glibc for glibc's)");
  s.applied = false;
  EXPECT_NE(allocator_text(s).find("refused"), std::string::npos);
}

TEST(Allocator, FixedThresholdServesLargeBlocksFromTheHeap) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
  GTEST_SKIP() << "malloc is not glibc's here (a sanitizer's or another libc's): mallopt has no effect";
#else
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
