// An experiment file after "extends" and --set overrides (DESIGN §4 "Experiment JSON", "Flow").
//
//   load(path, {"train.optim.lr=0.5"}):
//     1. parse `path` (syntax errors report file:line:column);
//     2. if it has "extends": "rel/base.json" (relative to `path`'s folder), parse the base and merge the file
//        into it: objects deeply, everything else (arrays included) replaced. Only one level: a base that
//        extends again is an error;
//     3. apply each override "a.b.c=value": value is JSON if it parses ("1", "true", "[1,2]"), else a string.
// The result is untyped JSON: the strict parsers (config.h, tasks) read it through reader(), and an unknown
// key is reported there, naming the file (base, extending file or --set) that holds it.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/json_reader.h"

namespace twin {

class Experiment {
 public:
  static Experiment load(const std::string& path, const std::vector<std::string>& overrides = {});
  // The same from an in-memory object (tests, tools); `label` stands in for the file name in errors.
  static Experiment from_json(nlohmann::json root, const std::string& label = "<config>",
                              const std::vector<std::string>& overrides = {});

  const nlohmann::json& json() const { return json_; }        // merged + overridden, without "extends"
  const std::string& path() const { return path_; }
  const std::string& base_path() const { return base_path_; }  // "" when the file does not extend
  const std::vector<std::string>& overrides() const { return overrides_; }
  // A strict reader over the root object; errors name the source of each key.
  JsonReader reader() const;

  // Recorded in command.txt; by default the process's own command line (/proc/self/cmdline).
  void set_command_line(const std::vector<std::string>& argv) { argv_ = argv; }

  // The merged config with the typed sections (e.g. {"train": to_json(train), "model": {"cell": ...}},
  // plus to_json(run) at the top) merged over it, so every default is visible.
  nlohmann::json resolved(const nlohmann::json& typed_sections) const;
  // Appends this invocation to <run_dir>/command.txt (each start, --resume and --eval-only is kept).
  void append_command(const std::string& run_dir) const;
  // Writes <run_dir>/config.resolved.json and <run_dir>/command.txt atomically (creates run_dir).
  void write_resolved(const std::string& run_dir, const nlohmann::json& typed_sections) const;

 private:
  static Experiment make(nlohmann::json root, const std::string& label, const std::vector<std::string>& overrides,
                         std::shared_ptr<JsonReader::Sources> sources);

  nlohmann::json json_;
  std::string path_, base_path_;
  std::vector<std::string> overrides_, argv_;
  std::shared_ptr<JsonReader::Sources> sources_;
};

// Deep merge: objects of `over` merge key by key into `base`; any other value replaces (arrays too).
void merge_json(nlohmann::json& base, const nlohmann::json& over);
// Applies "a.b.c=value" to `root` (parents are created as objects; a non-object parent is an error).
// Returns the key path ("a.b.c").
std::string apply_override(nlohmann::json& root, const std::string& assignment);
// Parses JSON text; a syntax error throws naming `label`, line and column.
nlohmann::json parse_json_text(const std::string& text, const std::string& label);

}  // namespace twin
