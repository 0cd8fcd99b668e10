#include "base/allocator.h"

#include <cstdlib>
#include <string>

#include "base/check.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(TW_HAVE_TCMALLOC)
#include <gperftools/tcmalloc.h>
#endif

namespace twin {

bool tcmalloc_linked() {
#if defined(TW_HAVE_TCMALLOC)
  return true;
#else
  return false;
#endif
}

std::string tcmalloc_version() {
#if defined(TW_HAVE_TCMALLOC)
  int major = 0, minor = 0;
  const char* patch = nullptr;
  return tc_version(&major, &minor, &patch);   // e.g. "gperftools 2.10"
#else
  return "";
#endif
}

AllocatorSetting parse_allocator_setting(const char* twin_malloc, const char* glibc_tunables, bool tcmalloc) {
  AllocatorSetting s;
  const std::string choice = twin_malloc ? twin_malloc : "";
  TW_CHECK(choice.empty() || choice == "twin" || choice == "glibc", "TWIN_MALLOC=", choice,
           ": expected 'twin' (the suite's allocator, the default) or 'glibc' (glibc's own thresholds, in a build "
           "without tcmalloc)");
  if (tcmalloc) {
    TW_CHECK(choice != "glibc", "TWIN_MALLOC=glibc: this build's malloc is tcmalloc, linked at build time; "
             "configure with -DTW_TCMALLOC=OFF for a build on glibc's malloc");
    s.source = AllocatorSetting::Source::kTcmalloc;
    return s;
  }
  if (choice == "glibc") {
    s.source = AllocatorSetting::Source::kGlibc;
    return s;
  }
  const std::string tunables = glibc_tunables ? glibc_tunables : "";
  if (choice.empty() && (tunables.find("glibc.malloc.mmap_threshold") != std::string::npos ||
                         tunables.find("glibc.malloc.trim_threshold") != std::string::npos)) {
    s.source = AllocatorSetting::Source::kTunables;
    return s;
  }
  s.mmap_threshold = kMmapThreshold;
  s.trim_threshold = kTrimThreshold;
  return s;
}

const AllocatorSetting& set_allocator() {
  static const AllocatorSetting applied = [] {
    AllocatorSetting s = parse_allocator_setting(std::getenv("TWIN_MALLOC"), std::getenv("GLIBC_TUNABLES"));
#if defined(__GLIBC__)
    // mallopt returns 0 where another allocator stands in for glibc's (AddressSanitizer's answers every
    // mallopt with 0): the run goes on with that allocator's own behaviour, and allocator_text says so.
    if (s.source == AllocatorSetting::Source::kTwin)
      s.applied = mallopt(M_MMAP_THRESHOLD, static_cast<int>(s.mmap_threshold)) == 1 &&
                  mallopt(M_TRIM_THRESHOLD, static_cast<int>(s.trim_threshold)) == 1;
#endif
    return s;
  }();
  return applied;
}

std::string allocator_text(const AllocatorSetting& s) {
  switch (s.source) {
    case AllocatorSetting::Source::kTcmalloc:
      return "tcmalloc (" + tcmalloc_version() + ", linked; -DTW_TCMALLOC=OFF builds on glibc's malloc)";
    case AllocatorSetting::Source::kTwin:
      if (!s.applied) return "malloc with its own defaults (it refused twinrnn's thresholds: not glibc's malloc)";
      return "glibc malloc, mmap threshold " + std::to_string(s.mmap_threshold >> 20) + " MiB, trim threshold " +
             std::to_string(s.trim_threshold >> 20) + " MiB (twinrnn's setting; TWIN_MALLOC=glibc for glibc's)";
    case AllocatorSetting::Source::kGlibc:
      return "malloc with its own defaults (TWIN_MALLOC=glibc)";
    case AllocatorSetting::Source::kTunables:
      return "glibc malloc as GLIBC_TUNABLES sets it";
  }
  return "";
}

}  // namespace twin
