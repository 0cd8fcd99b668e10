#include "train/checkpoint.h"

#include <bit>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "base/check.h"
#include "graph/param.h"
#include "train/run_dir.h"

namespace twin {

namespace {

constexpr char kMagic[4] = {'T', 'W', 'C', 'K'};
constexpr size_t kPrefix = 4 + 4 + 8;   // magic, version, header length
constexpr size_t kTrailer = 8;          // checksum

// Little-endian integer and float32 encoding, independent of the host's byte order.
template <typename U>
void put_le(std::string& out, U v) {
  for (size_t i = 0; i < sizeof(U); ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
template <typename U>
U get_le(const std::string& s, size_t at) {
  U v = 0;
  for (size_t i = 0; i < sizeof(U); ++i) v |= static_cast<U>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

void put_mat(std::string& out, const Mat& m) {
  const size_t n = static_cast<size_t>(m.size());
  if (n == 0) return;
  if constexpr (std::is_same_v<Real, float> && std::endian::native == std::endian::little) {
    out.append(reinterpret_cast<const char*>(m.data()), n * 4);   // the bytes themselves: bit-exact
  } else {
    for (size_t i = 0; i < n; ++i) put_le(out, std::bit_cast<std::uint32_t>(static_cast<float>(m.data()[i])));
  }
}

void get_mat(const std::string& s, size_t at, Mat& m) {
  const size_t n = static_cast<size_t>(m.size());
  if constexpr (std::is_same_v<Real, float> && std::endian::native == std::endian::little) {
    if (n) std::memcpy(m.data(), s.data() + at, n * 4);
  } else {
    for (size_t i = 0; i < n; ++i)
      m.data()[i] = static_cast<Real>(std::bit_cast<float>(get_le<std::uint32_t>(s, at + 4 * i)));
  }
}

struct Entry {
  std::string name;
  const Mat* mat;
};

void write_container(const std::string& path, const std::string& kind, const std::vector<Entry>& entries,
                     const nlohmann::json& config, const nlohmann::json& meta) {
  nlohmann::json table = nlohmann::json::array();
  std::set<std::string> seen;
  std::uint64_t offset = 0;
  for (const Entry& e : entries) {
    TW_CHECK(seen.insert(e.name).second, "checkpoint ", path, ": duplicate entry name '", e.name, "'");
    table.push_back({{"name", e.name}, {"rows", e.mat->rows()}, {"cols", e.mat->cols()}, {"offset", offset}});
    offset += static_cast<std::uint64_t>(e.mat->size()) * 4;
  }
  nlohmann::json header = {{"format", "twinrnn checkpoint"},
                           {"version", kCheckpointVersion},
                           {"kind", kind},
                           {"dtype", "float32"},
                           {"real", std::is_same_v<Real, float> ? "float32" : "float64"},
                           {"config", config},
                           {"meta", meta},
                           {"data_bytes", offset},
                           {"params", table}};
  const std::string h = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(kPrefix + h.size() + offset + kTrailer);
  out.append(kMagic, 4);
  put_le<std::uint32_t>(out, kCheckpointVersion);
  put_le<std::uint64_t>(out, h.size());
  out += h;
  for (const Entry& e : entries) put_mat(out, *e.mat);
  put_le<std::uint64_t>(out, fnv1a64(out.data(), out.size()));
  write_text_atomic(path, out);
}

// nlohmann parses deep nesting iteratively but copies it recursively: a header or progress file of 100000
// nested brackets overflowed the stack. Ours nest a few levels.
nlohmann::json::parser_callback_t depth_limit(const std::string& path) {
  return [path](int depth, nlohmann::json::parse_event_t ev, nlohmann::json&) {
    using E = nlohmann::json::parse_event_t;
    if ((ev == E::object_start || ev == E::array_start) && depth >= 100)
      TW_FAIL(path, ": JSON nested deeper than 100 levels (a twinrnn checkpoint or progress file has a few)");
    return true;
  };
}

struct Container {
  nlohmann::json header;
  NamedMats mats;
};

// Reads and validates the whole file. Checks go from cheapest to most specific so the message names the
// real problem: size, magic, version, header length, header JSON, total size, checksum, entry table.
Container read_container(const std::string& path, bool with_data) {
  const std::string s = read_file(path);
  auto bad = [&](const std::string& what) { TW_FAIL("checkpoint ", path, ": ", what); };
  if (s.size() < kPrefix + kTrailer)
    bad("truncated: " + std::to_string(s.size()) + " bytes, fewer than the " + std::to_string(kPrefix + kTrailer) +
        " of an empty checkpoint");
  if (std::memcmp(s.data(), kMagic, 4) != 0) bad("bad magic (not a twinrnn checkpoint: expected \"TWCK\")");
  const auto version = get_le<std::uint32_t>(s, 4);
  if (version != kCheckpointVersion)
    bad("unsupported version " + std::to_string(version) + " (this build reads version " +
        std::to_string(kCheckpointVersion) + ")");
  const auto header_len = get_le<std::uint64_t>(s, 8);
  if (header_len > s.size() - kPrefix - kTrailer)
    bad("truncated or corrupt: header length " + std::to_string(header_len) + " exceeds the file size " +
        std::to_string(s.size()));
  const std::uint64_t stored_sum = get_le<std::uint64_t>(s, s.size() - kTrailer);
  const bool sum_ok = fnv1a64(s.data(), s.size() - kTrailer) == stored_sum;
  Container c;
  c.header = nlohmann::json::parse(s.begin() + kPrefix, s.begin() + static_cast<long>(kPrefix + header_len),
                                   depth_limit(path), /*allow_exceptions=*/false);
  if (c.header.is_discarded() || !c.header.is_object()) {
    if (!sum_ok) bad("checksum mismatch (the file is corrupt or truncated)");
    bad("header JSON is broken");
  }
  const nlohmann::json& h = c.header;
  auto hfail = [&](const std::string& what) { bad("malformed header: " + what); };
  if (!h.contains("data_bytes") || !h["data_bytes"].is_number_unsigned()) hfail("no \"data_bytes\"");
  if (!h.contains("params") || !h["params"].is_array()) hfail("no \"params\" table");
  if (!h.contains("kind") || !h["kind"].is_string()) hfail("no \"kind\"");
  const auto data_bytes = h["data_bytes"].get<std::uint64_t>();
  const std::uint64_t expected = kPrefix + header_len + data_bytes + kTrailer;
  if (data_bytes > s.size() || expected != s.size())
    bad((s.size() < expected ? "truncated: " : "trailing bytes: ") + std::string("expected ") +
        std::to_string(expected) + " bytes, the file has " + std::to_string(s.size()));
  if (!sum_ok) bad("checksum mismatch (the file is corrupt)");

  const size_t data_at = kPrefix + header_len;
  std::set<std::string> names;
  for (const auto& e : h["params"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("rows") ||
        !e["rows"].is_number_unsigned() || !e.contains("cols") || !e["cols"].is_number_unsigned() ||
        !e.contains("offset") || !e["offset"].is_number_unsigned())
      hfail("bad entry " + e.dump());
    const std::string name = e["name"].get<std::string>();
    const auto rows = e["rows"].get<std::uint64_t>(), cols = e["cols"].get<std::uint64_t>();
    const auto off = e["offset"].get<std::uint64_t>();
    if (!names.insert(name).second) hfail("duplicate entry '" + name + "'");
    // A 0-element entry passes the size check whatever its other dimension; a dimension above 2^63 would
    // then turn negative as an Index (Eigen asserts, or a matrix with negative rows; tests/test_fuzz_regressions.cc).
    // No tensor of ours comes near 2^31 in either dimension.
    constexpr std::uint64_t kMaxDim = (1ULL << 31) - 1;
    if (rows > kMaxDim || cols > kMaxDim)
      hfail("entry '" + name + "' has shape [" + std::to_string(rows) + "x" + std::to_string(cols) +
            "]; each dimension must be below 2^31");
    // Division first so that a huge rows*cols cannot overflow past the check.
    if ((rows && cols > data_bytes / 4 / rows) || off > data_bytes || rows * cols * 4 > data_bytes - off)
      hfail("entry '" + name + "' [" + std::to_string(rows) + "x" + std::to_string(cols) + "] at offset " +
            std::to_string(off) + " lies outside the " + std::to_string(data_bytes) + " data bytes");
    if (!with_data) continue;
    Mat m(static_cast<Index>(rows), static_cast<Index>(cols));
    get_mat(s, data_at + off, m);
    c.mats.emplace_back(name, std::move(m));
  }
  return c;
}

std::string shape(Index r, Index c) { return "[" + std::to_string(r) + "x" + std::to_string(c) + "]"; }

std::string list(const std::vector<std::string>& v, size_t max = 10) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < max; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > max) out += ", ... (" + std::to_string(v.size() - max) + " more)";
  return out;
}

}  // namespace

std::uint64_t fnv1a64(const void* data, std::size_t n, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

void save_params(const std::string& path, const ParamStore& store, const nlohmann::json& config) {
  std::vector<Entry> entries;
  for (const auto& p : store.all()) entries.push_back({p->name, &p->value});
  write_container(path, "params", entries, config, nlohmann::json::object());
}

LoadReport load_params(const std::string& path, ParamStore& store, LoadMode mode) {
  Container c = read_container(path, true);
  const std::string kind = c.header["kind"].get<std::string>();
  TW_CHECK(kind == "params", "checkpoint ", path, ": holds \"", kind, "\" data, not model parameters",
           " (HINT: model parameters are in model.best.bin / model.last.bin)");

  std::map<std::string, Mat*> in_file;
  for (auto& [name, m] : c.mats) in_file[name] = &m;
  LoadReport rep;
  std::vector<std::string> mismatched;
  std::vector<std::pair<Param*, Mat*>> assign;
  for (const auto& p : store.all()) {
    auto it = in_file.find(p->name);
    if (it == in_file.end()) {
      rep.not_in_file.push_back(p->name);
      continue;
    }
    const Mat& m = *it->second;
    if (m.rows() != p->value.rows() || m.cols() != p->value.cols())
      mismatched.push_back(p->name + " (file " + shape(m.rows(), m.cols()) + ", model " +
                           shape(p->value.rows(), p->value.cols()) + ")");
    else
      assign.emplace_back(p.get(), it->second);
    in_file.erase(it);
  }
  for (const auto& [name, m] : c.mats)
    if (in_file.count(name)) rep.not_in_store.push_back(name);

  const bool strict = mode == LoadMode::kStrict;
  if (!mismatched.empty() || (strict && (!rep.not_in_file.empty() || !rep.not_in_store.empty()))) {
    std::ostringstream os;
    os << "checkpoint " << path << " does not match the model:";
    if (!mismatched.empty()) os << "\n  shape mismatch: " << list(mismatched);
    if (strict && !rep.not_in_file.empty()) os << "\n  missing from the file: " << list(rep.not_in_file);
    if (strict && !rep.not_in_store.empty()) os << "\n  unexpected (not in the model): " << list(rep.not_in_store);
    os << "\n  HINT: the checkpoint was written by a model with a different config; compare its embedded config "
          "(its header's \"config\") with this run's config.resolved.json"
       << (strict ? ", or start a new run in another out_dir (--set out_dir=...)" : "");
    TW_FAIL(os.str());
  }
  TW_CHECK(strict || !assign.empty(), "checkpoint ", path, ": no parameter of the model is in the file (the model has ",
           store.all().size(), ", the file ", c.mats.size(), "; first in file: ",
           c.mats.empty() ? std::string("none") : c.mats.front().first, ")");
  // Everything is validated: only now touch the store.
  for (auto& [p, m] : assign) {
    p->value = std::move(*m);
    rep.loaded.push_back(p->name);
  }
  return rep;
}

void save_named_mats(const std::string& path, const NamedMats& mats, const nlohmann::json& meta,
                     const std::string& kind) {
  std::vector<Entry> entries;
  for (const auto& [name, m] : mats) entries.push_back({name, &m});
  write_container(path, kind, entries, nullptr, meta);
}

NamedMats load_named_mats(const std::string& path, nlohmann::json* header) {
  Container c = read_container(path, true);
  if (header) *header = std::move(c.header);
  return std::move(c.mats);
}

nlohmann::json read_checkpoint_header(const std::string& path) { return read_container(path, false).header; }

void save_progress(const std::string& path, const nlohmann::json& progress) {
  write_text_atomic(path, progress.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

nlohmann::json load_progress(const std::string& path) {
  const std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text, depth_limit(path));
  } catch (const nlohmann::json::exception& e) {
    // Not only parse_error: a number beyond double's range ("1e400") throws out_of_range (found by
    // tests/fuzz/fuzz_checkpoint).
    TW_FAIL("progress file ", path, " is not valid JSON: ", e.what());
  }
}

}  // namespace twin
