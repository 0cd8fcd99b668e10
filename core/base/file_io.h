// Whole-file reads and crash-safe writes, for every layer that keeps something on disk: run folders and
// checkpoints (train/), the tasks' outputs, segmentations written in the bakeoff format (eval/segmentation.h).
// A write goes to a hidden temp file in the same directory, is fsync'd and renamed over the target, so a crash
// leaves either the old or the new file, never half of one.
#pragma once
#include <string>

namespace twin {

// Writes `data` (text or binary) to `path` atomically: a temp file in the same directory, fsync, rename
// over `path`, fsync of the directory. On any failure the temp file is removed, `path` is untouched, and a
// twin::Error names the path and the system error.
void write_text_atomic(const std::string& path, const std::string& data);
// Whole file as bytes; throws naming the path when it cannot be read.
std::string read_file(const std::string& path);
bool file_exists(const std::string& path);

// Why a file at `path` cannot be created, in words a user can act on: " (HINT: the directory D does not
// exist)", " (HINT: D is not a directory)", " (HINT: the directory D is not writable)", or "" when none holds.
std::string create_file_hint(const std::string& path);

// Removes the hidden temp files (".<name>.tmp-<pid>-<n>", see write_text_atomic) that a process killed
// during a write left in `dir`, unless their writer is still alive. Returns the number removed.
int remove_stale_temp_files(const std::string& dir);

}  // namespace twin
