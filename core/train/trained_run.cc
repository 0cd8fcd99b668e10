#include "train/trained_run.h"

#include "base/check.h"

namespace twin {

namespace fs = std::filesystem;

RunSource open_run_source(const std::string& path, const RunKind& kind) {
  RunSource s;
  if (!kind.param_files) {
    s.config = load_run_config(path, kind.task, kind.data_marker, kind.model_marker);
    s.config_name = path + "/config.resolved.json";
    s.model_file = path + "/model.best.bin";
    s.run_dir = path;
    return s;
  }
  s.model_file = fs::is_directory(path) ? (fs::path(path) / "model.best.bin").string() : path;
  TW_CHECK(fs::exists(s.model_file), "no model at ", s.model_file,
           " (HINT: give a run folder with model.best.bin or a .bin file)");
  const nlohmann::json header = read_checkpoint_header(s.model_file);
  TW_CHECK(header.value("kind", "") == "params", s.model_file, ": not a parameter file");
  s.config = header.value("config", nlohmann::json::object());
  TW_CHECK(s.config.contains("model") && s.config.contains("data"), s.model_file,
           ": its embedded config has no model/data sections (HINT: not an ", kind.task, " model)");
  s.config_name = s.model_file + " (embedded config)";
  s.run_dir = fs::path(s.model_file).parent_path().string();
  return s;
}

}  // namespace twin
