// Checkpoint container, atomic writes, metrics log (DESIGN §4 "Run folder and checkpoints").
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "base/check.h"
#include "graph/init.h"
#include "graph/param.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/run_dir.h"

namespace twin {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::contains;
using test::error_of;
using test::TempDir;

// Names in the folder other than `expected`: leftovers of a write (temp files).
std::vector<std::string> others(const TempDir& dir, const std::set<std::string>& expected) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path))
    if (!expected.count(e.path().filename().string())) out.push_back(e.path().filename().string());
  return out;
}

// Values chosen to exercise every bit pattern class: random normals, signed zero, denormals, extremes.
void fill_store(ParamStore& s, std::uint64_t seed, Index emb_rows = 7) {
  Rng rng(seed);
  auto randn = [&rng](Mat& m, Rng&) { rng.fill_normal(m, 0, 1); };
  s.add("lm/emb", emb_rows, 3, randn);
  Param& w = s.add("lm/l0/atr/W", 3, 4, randn);
  w.value(0, 0) = -0.0f;
  w.value(0, 1) = std::numeric_limits<Real>::denorm_min();
  w.value(0, 2) = std::numeric_limits<Real>::max();
  w.value(0, 3) = std::numeric_limits<Real>::lowest();
  s.add("lm/l0/atr/b", 1, 4, randn);
}

bool same_bits(const Mat& a, const Mat& b) {
  // An empty matrix has a null data(): memcmp must not see it (UBSan, make test-sanitize).
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * sizeof(Real)) == 0);
}

// Snapshot of a store's values to check "unchanged" bit for bit.
std::vector<Mat> snapshot(const ParamStore& s) {
  std::vector<Mat> out;
  for (const auto& p : s.all()) out.push_back(p->value);
  return out;
}
bool unchanged(const ParamStore& s, const std::vector<Mat>& snap) {
  for (size_t i = 0; i < snap.size(); ++i)
    if (!same_bits(s.all()[i]->value, snap[i])) return false;
  return true;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(Checkpoint, ParamsRoundTripBitExact) {
  TempDir tmp;
  ParamStore a, b;
  fill_store(a, 1);
  fill_store(b, 2);
  ASSERT_FALSE(same_bits(a.all()[0]->value, b.all()[0]->value));
  const json cfg = {{"model", {{"cell", {{"type", "atr"}}}}}, {"seed", 1}};
  save_params(tmp.file("model.bin"), a, cfg);
  LoadReport rep = load_params(tmp.file("model.bin"), b);
  EXPECT_EQ(rep.loaded.size(), 3u);
  for (size_t i = 0; i < a.all().size(); ++i)
    EXPECT_TRUE(same_bits(a.all()[i]->value, b.all()[i]->value)) << a.all()[i]->name;
  json h = read_checkpoint_header(tmp.file("model.bin"));
  EXPECT_EQ(h["kind"], "params");
  EXPECT_EQ(h["config"], cfg);
  EXPECT_EQ(h["params"][1]["name"], "lm/l0/atr/W");
  EXPECT_EQ(h["params"][1]["rows"], 3);
  EXPECT_EQ(h["params"][1]["cols"], 4);
  EXPECT_EQ(h["params"][1]["offset"], 7 * 3 * 4);
  EXPECT_TRUE(others(tmp, {"model.bin"}).empty());
}

TEST(Checkpoint, MismatchesAreRejectedAndStoreUnchanged) {
  TempDir tmp;
  ParamStore src;
  fill_store(src, 1);
  save_params(tmp.file("m.bin"), src, json::object());

  ParamStore shape;          // embedding with a different vocabulary size
  fill_store(shape, 3, 9);
  auto snap = snapshot(shape);
  std::string msg = error_of([&] { load_params(tmp.file("m.bin"), shape); });
  EXPECT_PRED2(contains, msg, "shape mismatch: lm/emb (file [7x3], model [9x3])");
  EXPECT_PRED2(contains, msg, "HINT");
  EXPECT_TRUE(unchanged(shape, snap));
  // Partial mode does not excuse a shape mismatch on a shared name either.
  EXPECT_PRED2(contains, error_of([&] { load_params(tmp.file("m.bin"), shape, LoadMode::kPartial); }),
               "shape mismatch");
  EXPECT_TRUE(unchanged(shape, snap));

  ParamStore extra;          // the model has a param the file lacks
  fill_store(extra, 4);
  extra.add("lm/out/W", 3, 7, init::uniform(0.1));
  const auto extra_snap = snapshot(extra);
  msg = error_of([&] { load_params(tmp.file("m.bin"), extra); });
  EXPECT_PRED2(contains, msg, "missing from the file: lm/out/W");
  EXPECT_PRED2(contains, msg, "start a new run in another out_dir");   // a hint naming only flags that exist
  EXPECT_TRUE(unchanged(extra, extra_snap));

  ParamStore fewer;          // the file has a param the model lacks
  fewer.add("lm/emb", 7, 3, init::uniform(0.1));
  fewer.add("lm/l0/atr/W", 3, 4, init::uniform(0.1));
  snap = snapshot(fewer);
  msg = error_of([&] { load_params(tmp.file("m.bin"), fewer); });
  EXPECT_PRED2(contains, msg, "unexpected (not in the model): lm/l0/atr/b");
  EXPECT_TRUE(unchanged(fewer, snap));

  // Partial (LoadMode::kPartial): the shared params load, the rest is reported.
  LoadReport rep = load_params(tmp.file("m.bin"), extra, LoadMode::kPartial);
  EXPECT_EQ(rep.loaded.size(), 3u);
  ASSERT_EQ(rep.not_in_file.size(), 1u);
  EXPECT_EQ(rep.not_in_file[0], "lm/out/W");
  EXPECT_TRUE(same_bits(extra.get("lm/emb").value, src.get("lm/emb").value));
  EXPECT_TRUE(same_bits(extra.get("lm/out/W").value, extra_snap[3]));
  rep = load_params(tmp.file("m.bin"), fewer, LoadMode::kPartial);
  EXPECT_EQ(rep.loaded.size(), 2u);
  EXPECT_EQ(rep.not_in_store, std::vector<std::string>{"lm/l0/atr/b"});

  ParamStore unrelated;
  unrelated.add("other", 2, 2, init::uniform(0.1));
  EXPECT_PRED2(contains, error_of([&] { load_params(tmp.file("m.bin"), unrelated, LoadMode::kPartial); }),
               "no parameter of the model is in the file");
}

TEST(Checkpoint, CorruptFilesAreRejectedAndStoreUnchanged) {
  TempDir tmp;
  ParamStore src;
  fill_store(src, 1);
  save_params(tmp.file("good.bin"), src, {{"note", "x"}});
  const std::string good = read_file(tmp.file("good.bin"));
  ParamStore dst;
  fill_store(dst, 2);
  const auto snap = snapshot(dst);
  const std::string bad = tmp.file("bad.bin");
  auto expect_rejected = [&](const std::string& bytes, const std::string& what) {
    write_bytes(bad, bytes);
    std::string msg = error_of([&] { load_params(bad, dst); });
    EXPECT_PRED2(contains, msg, bad);
    EXPECT_PRED2(contains, msg, what);
    EXPECT_TRUE(unchanged(dst, snap)) << what;
    EXPECT_PRED2(contains, error_of([&] { read_checkpoint_header(bad); }), what);
  };
  // Truncated: inside the fixed prefix, inside the header, inside the data, the checksum cut off.
  expect_rejected(good.substr(0, 0), "truncated");
  expect_rejected(good.substr(0, 10), "truncated");
  expect_rejected(good.substr(0, 40), "truncated");
  expect_rejected(good.substr(0, good.size() - 50), "truncated");
  expect_rejected(good.substr(0, good.size() - 3), "truncated");
  expect_rejected(good + "x", "trailing bytes");
  // One flipped bit in the middle of the data.
  std::string flipped = good;
  flipped[good.size() - 40] ^= 0x10;
  expect_rejected(flipped, "checksum mismatch");
  // A flipped byte inside the header JSON (the '{' that opens it).
  flipped = good;
  flipped[16] = 'X';
  expect_rejected(flipped, "checksum mismatch");
  // Every single-byte corruption anywhere in the file (prefix, header, data, checksum) is caught.
  for (size_t i = 0; i < good.size(); ++i) {
    std::string b = good;
    b[i] = static_cast<char>(b[i] ^ 0x01);
    write_bytes(bad, b);
    EXPECT_THROW(load_params(bad, dst), Error) << "byte " << i << " of " << good.size();
  }
  EXPECT_TRUE(unchanged(dst, snap));
  std::string magic = good;
  magic[1] = 'X';
  expect_rejected(magic, "bad magic");
  std::string version = good;
  version[4] = 9;
  expect_rejected(version, "unsupported version 9");
  // A broken header whose checksum is right (written by a buggy tool, not corrupted on disk).
  std::string broken = good.substr(0, 16) + "{\"kind\": oops}";
  broken.replace(8, 8, std::string("\x0e\0\0\0\0\0\0\0", 8));
  std::uint64_t sum = fnv1a64(broken.data(), broken.size());
  for (int i = 0; i < 8; ++i) broken.push_back(static_cast<char>((sum >> (8 * i)) & 0xff));
  expect_rejected(broken, "header JSON is broken");
  // An optimiser-state file is not a params file.
  save_named_mats(tmp.file("optim.bin"), {{"sgd/step", Mat::Zero(1, 2)}}, json::object());
  EXPECT_PRED2(contains, error_of([&] { load_params(tmp.file("optim.bin"), dst); }), "not model parameters");
  EXPECT_PRED2(contains, error_of([&] { load_params(tmp.file("none.bin"), dst); }), "none.bin");
  EXPECT_TRUE(unchanged(dst, snap));
}

TEST(Checkpoint, FailedWriteLeavesOldFileAndNoTemp) {
  TempDir tmp;
  ParamStore a, b;
  fill_store(a, 1);
  fill_store(b, 2, 2000);   // bigger than the old file: the write below runs out of allowed size
  const std::string path = tmp.file("model.last.bin");
  save_params(path, a, json::object());
  const std::string before = read_file(path);

  // A directory that does not exist: error naming it, nothing created.
  const std::string missing = tmp.file("no_such_dir/model.bin");
  std::string msg = error_of([&] { save_params(missing, b, json::object()); });
  EXPECT_PRED2(contains, msg, "no_such_dir");
  EXPECT_PRED2(contains, msg, "does not exist");

  // A disk-full-like failure in the middle of writing (RLIMIT_FSIZE makes write() fail with EFBIG; also
  // effective as root, unlike a read-only directory).
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = static_cast<rlim_t>(before.size() + 100);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  msg = error_of([&] { save_params(path, b, json::object()); });
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
  std::signal(SIGXFSZ, SIG_DFL);
  EXPECT_PRED2(contains, msg, "cannot write " + path);
  EXPECT_EQ(read_file(path), before);
  EXPECT_TRUE(others(tmp, {"model.last.bin"}).empty());
  ParamStore c;
  fill_store(c, 3);
  load_params(path, c);   // still a valid checkpoint
  EXPECT_TRUE(same_bits(c.all()[1]->value, a.all()[1]->value));

  // A successful overwrite replaces it and leaves no temp file.
  save_params(path, b, json::object());
  EXPECT_NE(read_file(path), before);
  EXPECT_TRUE(others(tmp, {"model.last.bin"}).empty());
}

TEST(Checkpoint, NamedMatsRoundTrip) {
  TempDir tmp;
  Rng rng(5);
  NamedMats mats;
  mats.emplace_back("adam/step", Mat::Constant(1, 2, 3));
  mats.emplace_back("adam/m/lm/emb", Mat(4, 3));
  mats.emplace_back("adam/v/lm/emb", Mat(4, 3));
  mats.emplace_back("empty", Mat(0, 5));
  rng.fill_normal(mats[1].second, 0, 1);
  rng.fill_uniform(mats[2].second, 0, 1e-8f);
  const json meta = {{"step", 17}, {"rng", rng.save()}};
  save_named_mats(tmp.file("optim.last.bin"), mats, meta);
  json header;
  NamedMats back = load_named_mats(tmp.file("optim.last.bin"), &header);
  EXPECT_EQ(header["kind"], "optim");
  EXPECT_EQ(header["meta"], meta);
  ASSERT_EQ(back.size(), mats.size());
  for (size_t i = 0; i < mats.size(); ++i) {
    EXPECT_EQ(back[i].first, mats[i].first);
    EXPECT_TRUE(same_bits(back[i].second, mats[i].second)) << mats[i].first;
  }
  EXPECT_PRED2(contains, error_of([&] { save_named_mats(tmp.file("dup.bin"), {mats[0], mats[0]}, json::object()); }),
               "duplicate entry name 'adam/step'");
  EXPECT_FALSE(file_exists(tmp.file("dup.bin")));
}

TEST(Checkpoint, ProgressAndMetricsLog) {
  TempDir tmp;
  const json progress = {{"epoch", 3}, {"step", 120}, {"best", 91.5}, {"lr", 0.25}};
  save_progress(tmp.file("progress.json"), progress);
  EXPECT_EQ(load_progress(tmp.file("progress.json")), progress);
  write_bytes(tmp.file("bad.json"), "{\"epoch\": ");
  EXPECT_PRED2(contains, error_of([&] { load_progress(tmp.file("bad.json")); }), "bad.json");

  RunDir dir(tmp.file("runs/exp1"));
  EXPECT_TRUE(fs::is_directory(dir.path()));
  const std::string log_path = dir.path("metrics.jsonl");
  {
    MetricsLog log(log_path);
    log.append({{"step", 1}, {"split", "train"}, {"loss", 2.5}});
    log.append({{"step", 2}, {"split", "train"}, {"loss", 2.0}});
    // Flushed per line: visible before the log is closed.
    EXPECT_EQ(read_file(log_path), "{\"loss\":2.5,\"split\":\"train\",\"step\":1}\n{\"loss\":2.0,\"split\":\"train\",\"step\":2}\n");
  }
  {
    std::ofstream torn(log_path, std::ios::app);
    torn << "{\"step\": 3, \"lo";   // a crash in the middle of a line
  }
  {
    MetricsLog log(log_path);   // resume appends
    log.append({{"step", 3}, {"split", "dev"}});
  }
  EXPECT_EQ(truncate_metrics_after(log_path, 2), 2);   // the torn line and step 3
  std::string text = read_file(log_path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_FALSE(contains(text, "\"step\":3"));

  ParamStore s;
  fill_store(s, 1);
  dir.write_params_table(s);
  EXPECT_PRED2(contains, read_file(dir.path("params.txt")), "lm/l0/atr/W");

  write_bytes(tmp.file("plain_file"), "x");
  EXPECT_PRED2(contains, error_of([&] { RunDir d(tmp.file("plain_file/sub")); }), "cannot create run folder");
}

TEST(Checkpoint, Fnv1aKnownValues) {
  // Reference values of FNV-1a 64 (Fowler/Noll/Vo test vectors).
  EXPECT_EQ(fnv1a64("", 0), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar", 6), 0x85944171f73967e8ULL);
}

}  // namespace
}  // namespace twin
