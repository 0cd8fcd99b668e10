#include "train/experiment.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "base/check.h"
#include "data/text.h"
#include "train/run_dir.h"

namespace twin {

namespace fs = std::filesystem;

namespace {

// Deepest JSON nesting accepted; experiment files use a handful of levels (tests/test_fuzz_regressions.cc).
constexpr int kMaxJsonDepth = 100;

// Every node path of `j` ("model", "model.cell", "model.cell.type") -> `label`. Arrays are leaves.
void record_sources(const nlohmann::json& j, const std::string& prefix, const std::string& label,
                    JsonReader::Sources& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    out[path] = label;
    record_sources(*it, path, label, out);
  }
}

nlohmann::json parse_file(const std::string& path, const std::string& what_for) {
  // A directory opens as a stream on Linux and only fails on the first read (as an uncaught std::ios error).
  if (std::error_code ec; fs::is_directory(path, ec))
    TW_FAIL(what_for, "cannot read ", path, ": it is a directory, expected an experiment JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) TW_FAIL(what_for, "cannot read ", path, " (", std::strerror(errno), ")");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j = parse_json_text(text, path);
  if (!j.is_object()) TW_FAIL(path, ": the top level must be a JSON object, got ", describe_json(j));
  return j;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> self_cmdline() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& label) {
  // JSON lets a key repeat and keeps its last value: in an experiment file that silently drops a setting.
  std::vector<std::set<std::string>> keys;   // those of each object being parsed
  auto no_repeats = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    // nlohmann parses deep nesting fine but copies it recursively: 100000 nested brackets overflowed the stack.
    if ((ev == E::object_start || ev == E::array_start) && depth >= kMaxJsonDepth)
      TW_FAIL(label, ": JSON nested deeper than ", kMaxJsonDepth, " levels; an experiment file needs a handful");
    if (ev == E::object_start) keys.emplace_back();
    else if (ev == E::object_end && !keys.empty()) keys.pop_back();
    else if (ev == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      TW_FAIL(label, ": key \"", parsed.get<std::string>(), "\" appears twice in one object (JSON would keep only ",
              "the last value; remove one)");
    return true;
  };
  try {
    return nlohmann::json::parse(text, no_repeats);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points at the offending byte.
    size_t byte = std::min(e.byte == 0 ? 0 : e.byte - 1, text.size());
    size_t line = 1, col = 1;
    for (size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') ++line, col = 1;
      else ++col;
    }
    std::string msg = e.what();
    auto at = msg.find("column ");
    if (at != std::string::npos && (at = msg.find(": ", at)) != std::string::npos) msg = msg.substr(at + 2);
    TW_FAIL(label, ":", line, ":", col, ": JSON syntax error: ", msg);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond double's range ("1e400") is not a syntax error to nlohmann: it throws out_of_range, which
    // escaped as a non-twin exception (found by tests/fuzz/fuzz_experiment). It carries no position.
    std::string msg = e.what();
    if (auto at = msg.find("] "); at != std::string::npos) msg = msg.substr(at + 2);
    TW_FAIL(label, ": JSON number out of range (", msg, "); expected a number a double can hold");
  }
}

void merge_json(nlohmann::json& base, const nlohmann::json& over) {
  if (!base.is_object() || !over.is_object()) {
    base = over;
    return;
  }
  for (auto it = over.begin(); it != over.end(); ++it) {
    auto b = base.find(it.key());
    if (b != base.end() && b->is_object() && it->is_object()) merge_json(*b, *it);
    else base[it.key()] = *it;
  }
}

std::string apply_override(nlohmann::json& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  TW_CHECK(eq != std::string::npos, "--set \"", assignment,
           "\": expected key.path=value (HINT: --set train.optim.lr=0.5)");
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  // A JSON file is UTF-8 by the parser's check, a command-line string is not: invalid bytes here would reach
  // config.resolved.json and every error message that quotes the value (found by tests/fuzz/fuzz_experiment).
  const std::int64_t bad = utf8_error_offset(assignment);
  TW_CHECK(bad < 0, "--set: the assignment is not valid UTF-8 (byte ", bad, " of \"",
           assignment.substr(0, static_cast<size_t>(bad)), "...\"); expected key.path=value in UTF-8");
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& p : parts)
    TW_CHECK(!p.empty(), "--set \"", assignment, "\": the key path \"", key, "\" has an empty component");
  TW_CHECK(parts[0] != "extends", "--set \"", assignment, "\": \"extends\" cannot be overridden");
  TW_CHECK(root.is_object(), "--set \"", assignment, "\": the config is not an object");
  nlohmann::json* node = &root;
  std::string path;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (i ? "." : "") + parts[i];
    auto it = node->find(parts[i]);
    if (it == node->end()) {
      node = &((*node)[parts[i]] = nlohmann::json::object());
    } else {
      TW_CHECK(it->is_object(), "--set \"", assignment, "\": \"", path, "\" is ", describe_json(*it),
               ", not an object, so it has no key \"", parts[i + 1], "\"");
      node = &*it;
    }
  }
  // JSON when it parses ("0.5", "true", "[1,2]", "\"x\""); otherwise the raw text is a string ("adam").
  auto shallow = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json&) {
    using E = nlohmann::json::parse_event_t;
    TW_CHECK(!((ev == E::object_start || ev == E::array_start) && depth >= kMaxJsonDepth), "--set \"",
             assignment.substr(0, 60), "...\": the value is nested deeper than ", kMaxJsonDepth, " levels");
    return true;
  };
  nlohmann::json value = nlohmann::json::parse(text, shallow, /*allow_exceptions=*/false);
  (*node)[parts.back()] = value.is_discarded() ? nlohmann::json(text) : value;
  return key;
}

Experiment Experiment::load(const std::string& path, const std::vector<std::string>& overrides) {
  nlohmann::json root = parse_file(path, "experiment: ");
  auto sources = std::make_shared<JsonReader::Sources>();
  std::string base_path;
  if (auto ext = root.find("extends"); ext != root.end()) {
    if (!ext->is_string() || ext->get<std::string>().empty())
      TW_FAIL(path, ": \"extends\" must be a relative path to a base experiment file, got ", describe_json(*ext));
    base_path = (fs::path(path).parent_path() / ext->get<std::string>()).lexically_normal().string();
    nlohmann::json base = parse_file(base_path, path + ": \"extends\": ");
    if (base.contains("extends"))
      TW_FAIL(path, " extends ", base_path, ", which itself extends ", base["extends"].dump(),
              "; only one level of \"extends\" is allowed (HINT: move the shared settings into one base file)");
    root.erase("extends");
    record_sources(base, "", base_path, *sources);
    record_sources(root, "", path, *sources);
    merge_json(base, root);
    root = std::move(base);
  } else {
    record_sources(root, "", path, *sources);
  }
  Experiment e = make(std::move(root), path, overrides, std::move(sources));
  e.base_path_ = base_path;
  return e;
}

Experiment Experiment::from_json(nlohmann::json root, const std::string& label,
                                 const std::vector<std::string>& overrides) {
  TW_CHECK(root.is_object(), label, ": the top level must be a JSON object, got ", describe_json(root));
  if (root.contains("extends"))
    TW_FAIL(label, ": \"extends\" is only resolved when loading from a file (Experiment::load)");
  auto sources = std::make_shared<JsonReader::Sources>();
  record_sources(root, "", label, *sources);
  return make(std::move(root), label, overrides, std::move(sources));
}

Experiment Experiment::make(nlohmann::json root, const std::string& label, const std::vector<std::string>& overrides,
                            std::shared_ptr<JsonReader::Sources> sources) {
  Experiment e;
  e.path_ = label;
  e.overrides_ = overrides;
  for (const auto& o : overrides) {
    const std::string key = apply_override(root, o);
    // The key and everything under it now come from the override.
    for (auto it = sources->lower_bound(key + "."); it != sources->end() && it->first.rfind(key + ".", 0) == 0;)
      it = sources->erase(it);
    (*sources)[key] = "--set " + o;
  }
  e.json_ = std::move(root);
  e.sources_ = std::move(sources);
  return e;
}

JsonReader Experiment::reader() const { return JsonReader(json_, path_, "", sources_); }

nlohmann::json Experiment::resolved(const nlohmann::json& typed_sections) const {
  nlohmann::json out = json_;
  if (!typed_sections.is_null()) merge_json(out, typed_sections);
  return out;
}

void Experiment::write_resolved(const std::string& run_dir, const nlohmann::json& typed_sections) const {
  RunDir dir(run_dir);
  write_text_atomic(dir.path("config.resolved.json"),
                    resolved(typed_sections).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  append_command(run_dir);
}

void Experiment::append_command(const std::string& run_dir) const {
  RunDir dir(run_dir);
  std::vector<std::string> argv = argv_.empty() ? self_cmdline() : argv_;
  std::string cmd;
  for (size_t i = 0; i < argv.size(); ++i) cmd += (i ? " " : "") + shell_quote(argv[i]);
  std::error_code ec;
  std::string text = cmd + "\n# cwd: " + fs::current_path(ec).string() + "\n# config: " + path_ + "\n";
  if (!base_path_.empty()) text += "# extends: " + base_path_ + "\n";
  for (const auto& o : overrides_) text += "# set: " + o + "\n";
  // Every invocation of a run (the first one, then each --resume) is kept: the file is appended to, so the
  // command that started the run is never lost.
  const std::string path = dir.path("command.txt");
  if (fs::exists(path)) text = read_file(path) + "\n" + text;
  write_text_atomic(path, text);
}

}  // namespace twin
