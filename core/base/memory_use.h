// The process's resident memory, for reports: the peak a run reached (summary.json's peak_rss_mb, issue 52:
// documents of thousands of tokens) and the speed benchmark's flatness check.
#pragma once

namespace twin {

// The resident set now, from /proc/self/statm, in MiB (0 where /proc is missing).
double current_rss_mb();
// The peak resident set of this process so far, getrusage's ru_maxrss, in MiB: a high-water mark over the
// whole process (reading the data, every training and evaluation batch), so a run's largest batch sets it.
double peak_rss_mb();

}  // namespace twin
