// train/args.h: the one command-line parser of every binary and mode: each misuse refused with its one wording
// and the usage line, values read and checked, and the usage, --help and Modes texts made from the one spec.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "train/args.h"
#include "train/exit_codes.h"

namespace twin {
namespace {

using namespace test;

CommandSpec probe_command(bool many = false) {
  CommandSpec c("probe run", "<run>", "run folder");
  c.operand_doc = "a run folder";
  c.many = many;
  c.about = "Probes a run.\n";
  c.options = {{"--input", "FILE", "lines to read\n(default: stdin)"},
               {"--batch", "N", "examples per batch"},
               {"--alpha", "A", "a number", OptionSpec::kValue, "-"},
               {"--quiet", "", "no progress", OptionSpec::kSwitch},
               {"--version", "", "the version", OptionSpec::kStop, "-"}};
  c.notes = "Exit codes: 0, 2.\n";
  c.summary = "in: lines\nout: more lines";
  return c;
}

ParsedArgs parse(const CommandSpec& c, std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_args(c, static_cast<int>(argv.size()), argv.data());
}

// An Error's message without the "  (file.cc:N)" TW_CHECK appends.
template <class F>
std::string message_of(F&& f) {
  const std::string m = error_of(f);
  return m.substr(0, m.rfind("  ("));
}

std::string refusal(const CommandSpec& c, std::vector<std::string> args) {
  return message_of([&] { parse(c, args); });
}

TEST(Args, UsageLineListsTheOperandAndTheOptionsInTheirOrder) {
  EXPECT_EQ(usage_line(probe_command()), "usage: probe run <run> [--input FILE] [--batch N] [--quiet]");
  CommandSpec c = probe_command();
  c.options[0].usage = "[--input FILE | --split NAME]";
  EXPECT_EQ(usage_line(c), "usage: probe run <run> [--input FILE | --split NAME] [--batch N] [--quiet]");
}

TEST(Args, ValuesSwitchesAndOperandsAreRead) {
  const ParsedArgs a = parse(probe_command(), {"r1", "--input", "in.txt", "--quiet", "--batch=7", "--input", "b.txt"});
  EXPECT_EQ(a.operands, std::vector<std::string>{"r1"});
  EXPECT_EQ(a.text("--input"), "b.txt");   // the later one
  EXPECT_EQ(a.texts("--input"), (std::vector<std::string>{"in.txt", "b.txt"}));
  EXPECT_EQ(a.integer("--batch", 1, 100, 3), 7);
  EXPECT_TRUE(a.given("--quiet"));
  EXPECT_FALSE(a.given("--alpha"));
  EXPECT_EQ(a.number("--alpha", 0, 10, -1), -1);   // not given: the fallback
  EXPECT_EQ(a.text("--output", "none"), "none");
  EXPECT_EQ(a.command_line, "run r1 --input in.txt --quiet --batch=7 --input b.txt");
  EXPECT_EQ(a.stop, "");
  const ParsedArgs m = parse(probe_command(/*many=*/true), {"a", "b", "-"});
  EXPECT_EQ(m.operands, (std::vector<std::string>{"a", "b", "-"}));   // "-" alone is an operand
}

TEST(Args, EveryMisuseHasOneWordingEndingInTheUsage) {
  const CommandSpec c = probe_command();
  const std::string usage = "; " + usage_line(c);
  EXPECT_EQ(refusal(c, {"r", "--inptu", "x"}), "unknown option '--inptu' (did you mean '--input'?)" + usage);
  EXPECT_EQ(refusal(c, {"r", "-quiet"}), "unknown option '-quiet' (did you mean '--quiet'?)" + usage);
  EXPECT_EQ(refusal(c, {"r", "--batch"}), "--batch needs a value" + usage);
  EXPECT_EQ(refusal(c, {"r", "--quiet=yes"}), "--quiet takes no value, got '--quiet=yes'" + usage);
  EXPECT_EQ(refusal(c, {}), "no run folder given" + usage);
  EXPECT_EQ(refusal(c, {"a", "b"}), "more than one run folder given ('a' and 'b')" + usage);
  CommandSpec none = c;
  none.operand = "";
  EXPECT_EQ(refusal(none, {"x"}), "unexpected argument 'x'; " + usage_line(none));
  EXPECT_EQ(parse(none, {}).operands.size(), 0u);
  // Values are checked when read, with parse_int_flag's words.
  const ParsedArgs a = parse(c, {"r", "--batch", "7x", "--alpha", "nan"});
  EXPECT_EQ(message_of([&] { a.integer("--batch", 1, 100, 3); }), "--batch expects an integer in [1, 100], got '7x'");
  EXPECT_EQ(message_of([&] { a.number("--alpha", 0, 10, 1); }), "--alpha expects a number in [0, 10], got 'nan'");
  EXPECT_EQ(message_of([] { parse_number_flag("--alpha", "0.5 ", 0, 10); }),
            "--alpha expects a number in [0, 10], got '0.5 '");
  EXPECT_EQ(parse_number_flag("--alpha", "0.6", 0, 10), 0.6);
}

TEST(Args, HelpAndStopOptionsEndParsing) {
  const CommandSpec c = probe_command();
  // Whatever follows (here a bad flag and no operand): the help or the version is what was asked for.
  EXPECT_EQ(parse(c, {"--help", "--bogus"}).stop, "--help");
  EXPECT_EQ(parse(c, {"-h"}).stop, "--help");
  EXPECT_EQ(parse(c, {"--version", "--bogus"}).stop, "--version");
  EXPECT_EQ(refusal(c, {"--bogus", "--help"}).rfind("unknown option '--bogus'", 0), 0u);   // in order
}

TEST(Args, HelpTextHoldsUsageAboutOptionsAndNotes) {
  const std::string h = help_text(probe_command());
  EXPECT_EQ(h,
            "usage: probe run <run> [--input FILE] [--batch N] [--quiet]\n\n"
            "Probes a run.\n\n"
            "Options:\n"
            "  <run>                 a run folder\n"
            "  --input FILE          lines to read\n"
            "                        (default: stdin)\n"
            "  --batch N             examples per batch\n"
            "  --alpha A             a number\n"
            "  --quiet               no progress\n"
            "  --version             the version\n"
            "  --help, -h            this text\n"
            "\nExit codes: 0, 2.\n");
  CommandSpec wide = probe_command();
  wide.options = {{"--normalize", "none|length|gnmt", "hypothesis score"}};
  EXPECT_PRED2(contains, help_text(wide), "  --normalize none|length|gnmt\n                        hypothesis score\n");
  testing::internal::CaptureStdout();
  std::vector<std::string> args = {"run", "--help"};
  std::vector<char*> argv = {args[0].data(), args[1].data()};
  EXPECT_FALSE(parse_args_or_help(probe_command(), 2, argv.data()));
  EXPECT_EQ(testing::internal::GetCapturedStdout(), h);
}

int probe_main(int argc, char**) { return argc == 2 ? 5 : 6; }
int failing_main(int, char**) { TW_FAIL("moved elsewhere"); }

TEST(Args, ModesAreListedFromTheirSpecsAndRunByTheirWord) {
  const std::vector<CommandMode> modes = {{"run", probe_command(), probe_main}, {"old", CommandSpec{}, failing_main}};
  EXPECT_EQ(modes_text(modes), "Modes:\n  probe run <run> [--input FILE] [--batch N] [--quiet]\n      in: lines\n"
                               "      out: more lines\n");   // the hidden mode is not listed
  EXPECT_EQ(modes_text({}), "");
  std::vector<std::string> args = {"probe", "run", "x"};
  std::vector<char*> argv = {args[0].data(), args[1].data(), args[2].data()};
  EXPECT_EQ(run_named_mode("probe", modes, 3, argv.data()), std::optional<int>(5));   // argv from the word on
  EXPECT_EQ(run_named_mode("probe", modes, 1, argv.data()), std::nullopt);
  args[1] = "exp.json";
  argv[1] = args[1].data();
  EXPECT_EQ(run_named_mode("probe", modes, 3, argv.data()), std::nullopt);   // not a mode: training's
  args[1] = "old";
  argv[1] = args[1].data();
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_named_mode("probe", modes, 3, argv.data()), std::optional<int>(kExitBadInput));
  EXPECT_EQ(testing::internal::GetCapturedStderr().rfind("probe old: error: moved elsewhere", 0), 0u);
}

}  // namespace
}  // namespace twin
