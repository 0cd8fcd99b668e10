// One command line for every binary and mode of the suite (issue 54: training, the five prediction modes, nmt
// translate / average and the speed tools each had a hand-written argv loop, with its own words for the same
// mistakes). A command is described once, as data (CommandSpec: its name, its operand, its options with their
// values and docs), and three things follow from that description:
//   usage_line(spec)   "usage: <name> <operand> [--opt VALUE] ..."; every misuse error ends in it
//   help_text(spec)    the usage line, what the command does and one line per option (--help, -h)
//   parse_args(spec)   the arguments, refused with the same words by every command:
//                        unknown option '--x' (did you mean '--y'?); usage: ...
//                        --x needs a value; usage: ...
//                        --x takes no value, got '--x=v'; usage: ...
//                        no <operand> given; usage: ...
//                        more than one <operand> given ('a' and 'b'); usage: ...
//                        unexpected argument 'x'; usage: ...             (a command without an operand)
//                      and each value checked by its reader (integer(), number()) with parse_int_flag's words.
// A binary with modes (`cws segment <run>`, `nmt translate ...`, `speed nmt ...`) lists them as Modes: the word
// that selects one, its CommandSpec and its main; run_named_mode() runs the one argv[1] names under the
// exit-code convention (train/exit_codes.h), and modes_text() gives the binary's --help its "Modes:" section
// from the same specs, so a mode's usage cannot differ between its own --help and its binary's.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace twin {

struct OptionSpec {
  enum Kind { kValue, kSwitch, kStop };   // kStop: parsing stops there (--version, --print-keys), as for --help
  std::string name;                       // "--input"
  std::string value;                      // the value's name in usage and help ("FILE", "N"); "" for a switch
  std::string doc;                        // the --help text (lines after the first indented by '\n')
  Kind kind = kValue;
  // The usage line's entry: "" gives "[<name> <value>]", "-" leaves the option out of the usage line (it is in
  // --help), anything else stands as written ("[--seed N | --seeds N,N,...]").
  std::string usage = "";
};

struct CommandSpec {
  CommandSpec() = default;
  CommandSpec(std::string name_, std::string operand_, std::string operand_what_)
      : name(std::move(name_)), operand(std::move(operand_)), operand_what(std::move(operand_what_)) {}

  std::string name;              // "lm", "cws segment", "nmt translate"
  std::string operand;           // how the usage line shows it: "<experiment.json>", "<run>"; "": takes none
  std::string operand_what;      // what errors call it: "experiment file", "run folder"
  std::string operand_doc;       // its --help line ("" for none)
  bool many = false;             // one or more operands (nmt translate's ensemble) instead of exactly one
  std::string about;             // --help: what the command does, after the usage line
  std::vector<OptionSpec> options;
  std::string notes;             // --help: after the options
  std::string summary;           // a binary's "Modes:" section: the lines under this mode's synopsis
};

class ParsedArgs {
 public:
  std::vector<std::string> operands;   // at least one unless stopped (none for a command without an operand)
  std::string stop;                    // the stop option that ended parsing ("--help" for -h too), else ""
  std::string command_line;            // argv joined by spaces, as given

  bool given(const std::string& name) const;
  // The option's last value (an option given twice keeps the later one), or `fallback`.
  std::string text(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> texts(const std::string& name) const;   // every value, in order
  // The last value as an integer in [lo, hi] (parse_int_flag's check and words), or `fallback` when not given.
  long integer(const std::string& name, long lo, long hi, long fallback, const std::string& what = "an integer") const;
  // The last value as a finite number in [lo, hi], or `fallback` when not given.
  double number(const std::string& name, double lo, double hi, double fallback) const;

 private:
  friend ParsedArgs parse_args(const CommandSpec&, int, char**);
  std::vector<std::pair<std::string, std::string>> values_;   // (option, value) in command-line order
};

// --set key=value, an experiment key overridden (training, speed, speed nmt).
OptionSpec set_option();

// argv[0] is the command's own word (the program, or the mode); an option's value is the next argument or
// follows '=' (--threads=2). Throws Error ending in the usage line on misuse.
ParsedArgs parse_args(const CommandSpec& spec, int argc, char** argv);
std::string usage_line(const CommandSpec& spec);   // one line, no newline at the end
std::string help_text(const CommandSpec& spec);    // ends in a newline
// parse_args, but --help (or -h) prints help_text(spec) to stdout and gives nullopt: the mode has nothing left to do.
std::optional<ParsedArgs> parse_args_or_help(const CommandSpec& spec, int argc, char** argv);

// One integer command-line value, the whole of it (std::stoi takes "5x" as 5 and throws its own exception on
// "abc"), in [lo, hi]; otherwise an Error "<flag> expects <what> in [lo, hi], got '<value>'". Every binary's
// integer flags go through it, so they accept and refuse the same things with the same words.
long parse_int_flag(const std::string& flag, const std::string& value, long lo, long hi,
                    const std::string& what = "an integer");
// The same for a finite decimal number: "<flag> expects a number in [lo, hi], got '<value>'".
double parse_number_flag(const std::string& flag, const std::string& value, double lo, double hi);

// A binary's other modes: argv[1] == word selects one, whose main gets argv from the word on.
struct CommandMode {
  std::string word;                   // "segment", "translate", "--csv"
  CommandSpec spec;                   // its command line; an empty spec.name keeps it out of --help (a moved mode)
  int (*main)(int argc, char** argv);
};
// "Modes:\n" and, per listed mode, its synopsis (the usage line without "usage: ") and its summary lines.
std::string modes_text(const std::vector<CommandMode>& modes);
// The mode argv[1] names, run under run_with_exit_codes with the label "<prog> <word>"; nullopt when it names none.
std::optional<int> run_named_mode(const std::string& prog, const std::vector<CommandMode>& modes, int argc,
                                  char** argv);

}  // namespace twin
