// Fuzz target: the checkpoint loaders (core/train/checkpoint.h load_params, load_named_mats,
// read_checkpoint_header, load_progress; core/train/trainer.h detail::load_last, which --resume calls).
//
// Input: one mode byte, then the file. A fuzzed file almost never carries a valid FNV-1a checksum, which would
// stop every input at the checksum check; so mode bit 0 makes the harness write the correct checksum into the
// trailer first, and the fuzzer reaches the header and entry-table checks behind it. Bits 1-2 choose the
// loader: load_params strict or partial into the fixture model (checkpoint_fixture.h), load_named_mats, or
// load_last with the fixture's Adam optimiser. read_checkpoint_header and load_progress (progress.json) run on
// every input. Seeds: corpus/checkpoint/, written by make_checkpoint_seeds with the project's save functions.
// Invariant: a failed load leaves the model and optimiser as they were (the header comment's promise).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "checkpoint_fixture.h"
#include "fuzz_util.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twin;
  if (size < 1) return 0;
  const unsigned mode = data[0];
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((mode & 1) && bytes.size() >= 8) {
    std::uint64_t sum = fnv1a64(bytes.data(), bytes.size() - 8);
    for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>((sum >> (8 * i)) & 0xff);
  }
  const std::string path = fuzz::put_file("checkpoint.bin", bytes);
  fuzz::expect_error_or_ok([&] { (void)read_checkpoint_header(path); });
  fuzz::expect_error_or_ok([&] { (void)load_progress(path); });

  ParamStore store(1);
  fuzz::add_fixture_params(store);
  std::vector<Mat> before;
  for (const auto& p : store.all()) before.push_back(p->value);
  auto unchanged = [&] {
    for (std::size_t i = 0; i < before.size(); ++i)
      if (store.all()[i]->value.rows() != before[i].rows() || store.all()[i]->value.cols() != before[i].cols() ||
          store.all()[i]->value != before[i])
        return false;
    return true;
  };
  switch ((mode >> 1) & 3) {
    case 0:
    case 1: {
      const LoadMode lm = (mode >> 1) & 1 ? LoadMode::kPartial : LoadMode::kStrict;
      if (!fuzz::expect_error_or_ok([&] { (void)load_params(path, store, lm); }) && !unchanged()) std::abort();
      break;
    }
    case 2:
      fuzz::expect_error_or_ok([&] {
        nlohmann::json header;
        for (const auto& [name, m] : load_named_mats(path, &header))
          if (m.rows() < 0 || m.cols() < 0) std::abort();
        (void)header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      });
      break;
    default: {
      auto opt = fuzz::fixture_optimizer();
      NamedMats task_state;
      Progress p;
      if (!fuzz::expect_error_or_ok([&] { detail::load_last(path, store, *opt, task_state, p); })) {
        if (!unchanged()) std::abort();
      } else {
        (void)p.to_json().dump();
      }
    }
  }
  return 0;
}
