#include "train/args.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/check.h"
#include "base/json_reader.h"
#include "train/exit_codes.h"

namespace twin {

namespace {

constexpr size_t kDocColumn = 24;   // where --help's option docs start

const OptionSpec* find_option(const CommandSpec& spec, const std::string& name) {
  for (const OptionSpec& o : spec.options)
    if (o.name == name) return &o;
  return nullptr;
}

// "  <left>" padded to the doc column, then the doc; its later lines (after '\n') indented to the column.
std::string doc_lines(const std::string& left, const std::string& doc) {
  std::string out = "  " + left;
  out += out.size() + 1 < kDocColumn ? std::string(kDocColumn - out.size(), ' ') : "\n" + std::string(kDocColumn, ' ');
  for (char c : doc) out += c == '\n' ? "\n" + std::string(kDocColumn, ' ') : std::string(1, c);
  return out + "\n";
}

}  // namespace

bool ParsedArgs::given(const std::string& name) const {
  for (const auto& [n, v] : values_)
    if (n == name) return true;
  return false;
}

std::string ParsedArgs::text(const std::string& name, const std::string& fallback) const {
  std::string out = fallback;
  for (const auto& [n, v] : values_)
    if (n == name) out = v;
  return out;
}

std::vector<std::string> ParsedArgs::texts(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : values_)
    if (n == name) out.push_back(v);
  return out;
}

long ParsedArgs::integer(const std::string& name, long lo, long hi, long fallback, const std::string& what) const {
  return given(name) ? parse_int_flag(name, text(name), lo, hi, what) : fallback;
}

double ParsedArgs::number(const std::string& name, double lo, double hi, double fallback) const {
  return given(name) ? parse_number_flag(name, text(name), lo, hi) : fallback;
}

OptionSpec set_option() {
  return {"--set", "key=value", "override any experiment key (JSON value: 1, true, \"text\", [1,2], {...})",
          OptionSpec::kValue, "[--set key=value ...]"};
}

std::string usage_line(const CommandSpec& spec) {
  std::string u = "usage: " + spec.name + (spec.operand.empty() ? "" : " " + spec.operand);
  for (const OptionSpec& o : spec.options) {
    if (o.usage == "-") continue;
    u += " " + (o.usage.empty() ? "[" + o.name + (o.value.empty() ? "" : " " + o.value) + "]" : o.usage);
  }
  return u;
}

std::string help_text(const CommandSpec& spec) {
  std::string h = usage_line(spec) + "\n\n";
  if (!spec.about.empty()) h += spec.about + "\n";
  h += "Options:\n";
  if (!spec.operand_doc.empty()) h += doc_lines(spec.operand, spec.operand_doc);
  for (const OptionSpec& o : spec.options)
    if (!o.doc.empty()) h += doc_lines(o.name + (o.value.empty() ? "" : " " + o.value), o.doc);
  h += doc_lines("--help, -h", "this text");
  if (!spec.notes.empty()) h += "\n" + spec.notes;
  return h;
}

ParsedArgs parse_args(const CommandSpec& spec, int argc, char** argv) {
  ParsedArgs a;
  for (int i = 0; i < argc; ++i) a.command_line += (i ? " " : "") + std::string(argv[i]);
  const std::string usage = usage_line(spec);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      a.stop = "--help";
      return a;   // whatever else was given: the help is what was asked for
    }
    if (arg.size() < 2 || arg[0] != '-') {   // "-" alone is an operand; "-x" an option (unknown: named as such)
      TW_CHECK(!spec.operand.empty(), "unexpected argument '", arg, "'; ", usage);
      TW_CHECK(spec.many || a.operands.empty(), "more than one ", spec.operand_what, " given ('", a.operands.front(),
               "' and '", arg, "'); ", usage);
      a.operands.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const OptionSpec* o = find_option(spec, name);
    if (!o) {
      std::vector<std::string> known = {"--help"};
      for (const OptionSpec& k : spec.options) known.push_back(k.name);
      const std::string guess = closest_name(name, known);
      TW_FAIL("unknown option '", arg, "'", guess.empty() ? "" : " (did you mean '" + guess + "'?)", "; ", usage);
    }
    if (o->kind != OptionSpec::kValue) {
      TW_CHECK(eq == std::string::npos, name, " takes no value, got '", arg, "'; ", usage);
      if (o->kind == OptionSpec::kStop) {
        a.stop = name;
        return a;
      }
      a.values_.emplace_back(name, "");
    } else if (eq != std::string::npos) {
      a.values_.emplace_back(name, arg.substr(eq + 1));
    } else {
      TW_CHECK(i + 1 < argc, name, " needs a value; ", usage);
      a.values_.emplace_back(name, argv[++i]);
    }
  }
  TW_CHECK(spec.operand.empty() || !a.operands.empty(), "no ", spec.operand_what, " given; ", usage);
  return a;
}

std::optional<ParsedArgs> parse_args_or_help(const CommandSpec& spec, int argc, char** argv) {
  ParsedArgs a = parse_args(spec, argc, argv);
  if (a.stop != "--help") return a;
  std::printf("%s", help_text(spec).c_str());
  return std::nullopt;
}

long parse_int_flag(const std::string& flag, const std::string& value, long lo, long hi, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(value.c_str(), &end, 10);
  // strtol skips leading blanks and stops at the first non-digit; the value must be the number and nothing else.
  const bool whole = !value.empty() && !std::isspace(static_cast<unsigned char>(value[0])) && *end == 0 && errno == 0;
  TW_CHECK(whole && n >= lo && n <= hi, flag, " expects ", what, " in [", lo, ", ", hi, "], got '", value, "'");
  return n;
}

double parse_number_flag(const std::string& flag, const std::string& value, double lo, double hi) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(value.c_str(), &end);
  const bool whole = !value.empty() && !std::isspace(static_cast<unsigned char>(value[0])) && *end == 0 && errno == 0;
  TW_CHECK(whole && std::isfinite(x) && x >= lo && x <= hi, flag, " expects a number in [", lo, ", ", hi, "], got '",
           value, "'");
  return x;
}

std::string modes_text(const std::vector<CommandMode>& modes) {
  std::string out;
  for (const CommandMode& m : modes) {
    if (m.spec.name.empty()) continue;
    out += "  " + usage_line(m.spec).substr(7) + "\n";   // without "usage: "
    std::string line;
    for (char c : m.spec.summary + "\n") {
      if (c != '\n') {
        line += c;
        continue;
      }
      if (!line.empty()) out += "      " + line + "\n";
      line.clear();
    }
  }
  return out.empty() ? out : "Modes:\n" + out;
}

std::optional<int> run_named_mode(const std::string& prog, const std::vector<CommandMode>& modes, int argc,
                                  char** argv) {
  if (argc < 2) return std::nullopt;
  for (const CommandMode& m : modes)
    if (m.word == argv[1]) {
      const std::string label = prog + " " + m.word;
      return run_with_exit_codes(label.c_str(), [&] { return m.main(argc - 1, argv + 1); });
    }
  return std::nullopt;
}

}  // namespace twin
