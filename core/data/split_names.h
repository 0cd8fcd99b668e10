// The split names a task's `data` object names its files by: data.train, data.dev and data.test (issue 54: they
// were declared in four homes, the labelled-text tasks', CWS's and NMT's, each struct and table again). A task's
// data config derives from SplitNames, with its own defaults where its corpus names them otherwise (NMT's
// Multi30k: "val", "test2016"), and adds the three rows with add_split_rows where its table lists them, so the
// keys, their order and their help stay what each task printed before. How a name becomes a path is the task's
// own (<dir>/<name>.seg and .bmes for CWS, <dir>/<name>.<form>.<lang> for NMT): `train_help` says it.
// The LM (train/valid/test text files) and reading comprehension (train/heldout/dev) name other things and keep
// their own keys.
#pragma once
#include <functional>
#include <string>

#include "base/config_table.h"

namespace twin {

struct SplitNames {
  std::string train = "train", dev = "dev", test = "test";
};

// Adds "train", "dev" and "test" (text) to a task's `data` table; `at` reaches the SplitNames inside the task's
// struct (its base class or a member's).
template <class S>
void add_split_rows(ConfigTable<S>& t, std::function<SplitNames&(S&)> at, const std::string& train_help) {
  auto field = [at](std::string SplitNames::*m) {
    return [at, m](S& s) -> std::string& { return at(s).*m; };
  };
  t.text("train", field(&SplitNames::train), train_help)
      .text("dev", field(&SplitNames::dev), "dev split name")
      .text("test", field(&SplitNames::test), "test split name");
}

}  // namespace twin
