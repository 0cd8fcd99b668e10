// The speed benchmark's config (speed_bench.h, SpeedConfig) as a ConfigTable like every other section: one
// table gives the strict parser (an unknown key or a wrong value is an error naming its path, e.g.
// "cells[1].cell.layr_norm") and to_json, the config echo of the report. "cells", "shapes" and "threads" are
// lists, read by rows of their own; the cells are then built once per shape, so that an option a cell type
// lacks fails before any timing.
#include "base/config_table.h"
#include "base/json_reader.h"
#include "graph/param.h"
#include "rnn/cell_factory.h"
#include "speed_bench.h"

namespace twin::speed {

namespace {

using Problem = std::pair<std::string, std::string>;

// One "cells" entry at `path` ("cells[1]"): a registered name, or {"name": label, "cell": cell config}.
SpeedCell parse_cell_entry(const JsonReader& r, const nlohmann::json& e, const std::string& path) {
  SpeedCell out;
  if (e.is_string()) {
    out.name = e.get<std::string>();
    if (!is_registered_cell(out.name)) {
      const std::vector<std::string> known = registered_cell_names();
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      const std::string near = closest_name(out.name, known);
      r.fail("cells", "unknown cell '" + out.name + "' (registered: " + list + ")" +
                          (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    out.cell.type = out.name;
    return out;
  }
  if (!e.is_object())
    r.fail(path, "must be a registered cell name or an object {\"name\": label, \"cell\": {...}}, got " +
                     describe_json(e));
  JsonReader er(e, r.file(), r.key_path(path));
  out.object = true;
  out.name = er.require_string("name");
  if (out.name.empty() || out.name.find_first_of("|\n\r\t") != std::string::npos)
    er.fail("name", "must be a non-empty label without '|', tabs or line breaks (it heads a table row), got " +
                        describe_json(e.at("name")));
  if (!er.has("cell")) er.fail("cell", "is required: the cell config, e.g. {\"type\": \"atr\", \"layer_norm\": true}");
  JsonReader cr = er.child("cell");
  if (cr.object().contains("hidden")) cr.fail("hidden", "is set by each shape (shapes[].hidden); leave it out");
  out.cell = parse_cell(cr);   // strict: finish() names any unknown key
  er.finish();
  if (is_registered_cell(out.name)) {
    CellConfig plain;
    plain.type = out.name;
    if (to_json(out.cell) != to_json(plain))
      er.fail("name", "'" + out.name + "' is a registered cell's name but this cell is not that cell with its "
                      "defaults; give it a label of its own (e.g. 'atr+ln')");
  }
  return out;
}

void read_cells(JsonReader& r, SpeedConfig& c) {
  const nlohmann::json cells = r.raw("cells");
  if (!cells.is_array() || cells.empty())
    r.fail("cells", "must be a non-empty list of cell names or {\"name\", \"cell\"} objects, got " +
                        describe_json(cells));
  c.cells.clear();
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string path = "cells[" + std::to_string(i) + "]";
    SpeedCell e = parse_cell_entry(r, cells[i], path);
    for (size_t j = 0; j < c.cells.size(); ++j)
      if (c.cells[j].name == e.name)
        r.fail(path, "repeats the label '" + e.name + "' of cells[" + std::to_string(j) +
                         "]; every entry needs a label of its own (records and tables are keyed by it)");
    c.cells.push_back(std::move(e));
  }
}

// A name as a string, an object entry as {"name", "cell"} with the resolved cell but its hidden (each shape's).
nlohmann::json write_cells(const SpeedConfig& c) {
  nlohmann::json cells = nlohmann::json::array();
  for (const SpeedCell& e : c.cells) {
    if (!e.object) {
      cells.push_back(e.name);
      continue;
    }
    nlohmann::json cell = to_json(e.cell);
    cell.erase("hidden");
    cells.push_back({{"name", e.name}, {"cell", cell}});
  }
  return cells;
}

void read_shapes(JsonReader& r, SpeedConfig& c) {
  const nlohmann::json shapes = r.raw("shapes");
  if (!shapes.is_array() || shapes.empty())
    r.fail("shapes", "must be a non-empty list of {name, embed, hidden, layers}, got " + describe_json(shapes));
  c.shapes.clear();
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].is_object()) r.fail("shapes", "entries must be objects, got " + describe_json(shapes[i]));
    JsonReader sr(shapes[i], r.file(), r.key_path("shapes") + "[" + std::to_string(i) + "]");
    SpeedShape s;
    s.name = sr.require_string("name");
    s.embed = sr.require_int("embed", 1, 1 << 16);
    s.hidden = sr.require_int("hidden", 1, 1 << 16);
    s.layers = sr.get_int("layers", s.layers, 1, 64);
    sr.finish();
    c.shapes.push_back(s);
  }
}

nlohmann::json write_shapes(const SpeedConfig& c) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : c.shapes)
    shapes.push_back({{"name", s.name}, {"embed", s.embed}, {"hidden", s.hidden}, {"layers", s.layers}});
  return shapes;
}

constexpr int kMaxThreads = 1024;

// Absent: the default list ({1}).
void read_threads(JsonReader& r, SpeedConfig& c) {
  const nlohmann::json v = r.raw("threads");
  if (v.is_null()) return;
  if (!v.is_array() || v.empty()) r.fail("threads", "must be a non-empty list of integers, got " + describe_json(v));
  std::vector<int> out;
  for (const auto& e : v) {
    if (!e.is_number_integer() || e.get<long long>() < 1 || e.get<long long>() > kMaxThreads)
      r.fail("threads", "entries must be integers in [1, " + std::to_string(kMaxThreads) + "], got " +
                            describe_json(e));
    out.push_back(e.get<int>());
  }
  c.threads = std::move(out);
}

nlohmann::json write_threads(const SpeedConfig& c) { return c.threads; }

const ConfigTable<SpeedConfig>& speed_table() {
  return table_once<SpeedConfig>([]<class C>(ConfigTable<C>& t) {
    t.custom("cells", "list", "names | {name, cell}", read_cells, write_cells,
             "the cells: a registered name, or {\"name\": label, \"cell\": a model.cell config without hidden}")
        .custom("shapes", "list", "{name, embed, hidden, layers}", read_shapes, write_shapes,
                "the model sizes: embedding, hidden (per cell) and layers (default 2)")
        .integer("vocab", &C::vocab, 2, 1 << 24, "random token ids in [0, vocab)")
        .integer("batch", &C::batch, 1, 1 << 16, "B, sequences per step")
        .integer("bptt", &C::bptt, 1, 1 << 16, "T, steps per window")
        .custom("threads", "list of ints", "[1, 1024]", read_threads, write_threads, "the thread counts, each in turn")
        .integer("warmup_steps", &C::warmup_steps, 0, 1 << 20, "untimed steps first")
        .integer("windows", &C::windows, 1, 1 << 20, "timed windows (the medians are over them)")
        .integer("steps_per_window", &C::steps_per_window, 1, 1 << 20, "steps per timed window")
        .count("rss_steps", &C::rss_steps, 0, 1L << 40, "RSS flatness check after this many steps (0: none)")
        .unsigned64("seed", &C::seed, "parameters and random windows")
        .required_text("out", &C::out, "output prefix: <out>.json, .md and .csv")
        .rule([](const C& c) {
          return c.out.empty() ? Problem{"out", "must be a non-empty output prefix (e.g. results/speed/lm)"}
                               : Problem{"", ""};
        });
  });
}

// Builds every object entry's cells once per shape (layer 0 on the embedding, layer 1 on the hidden size, as
// the benchmark's LM does) in a scratch store, so an option its type lacks or a size it cannot take is an
// error before any timing starts.
void check_cells_build(const JsonReader& r, const SpeedConfig& c) {
  for (size_t i = 0; i < c.cells.size(); ++i) {
    if (!c.cells[i].object) continue;
    for (const SpeedShape& s : c.shapes) {
      CellConfig cell = c.cells[i].cell;
      cell.hidden = s.hidden;
      try {
        ParamStore scratch(1);
        make_cell(cell, s.embed, scratch, "check/l0");
        if (s.layers > 1) make_cell(cell, s.hidden, scratch, "check/l1");
      } catch (const Error& e) {
        std::string what = e.what();   // without the check's "  (file.cc:N)": fail() adds its own
        const size_t at = what.rfind("  (");
        if (at != std::string::npos && what.back() == ')') what.erase(at);
        r.fail("cells[" + std::to_string(i) + "].cell", "cannot be built for shape '" + s.name + "': " + what);
      }
    }
  }
}

}  // namespace

SpeedConfig parse_speed_config(JsonReader& r) {
  const SpeedConfig c = speed_table().parse(r);
  check_cells_build(r, c);
  return c;
}

nlohmann::json to_json(const SpeedConfig& c) { return speed_table().to_json(c); }

}  // namespace twin::speed
