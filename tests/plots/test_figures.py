"""plots/make_figures.py on the hand-made run folders in tests/plots/fixtures/figures (run from the repository
root with /usr/bin/python3; exits 77, which ctest counts as skipped, when matplotlib is missing):
the expected PNG/PDF files, malformed folders named on stderr without a traceback, Fig. 3's Pearson r as
recorded, Fig. 4's arcs on hand-worked weight matrices, and the learning curves' handling of resumed runs."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401
except ImportError as e:
    print(f"test_figures: skipped: matplotlib not importable by {sys.executable} ({e}); "
          "install Debian's python3-matplotlib")
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plots"))
FIX = os.path.join(ROOT, "tests", "plots", "fixtures", "figures")
SCRIPT = os.path.join(ROOT, "plots", "make_figures.py")

from dependencies import choose_arcs  # noqa: E402
from fig_common import Bad, Report, pick_sentence, run_dirs  # noqa: E402
from gate_correlation import gate_title, read_panels  # noqa: E402
from learning_curves import CELL_COLORS, STYLES, VARIANT_COLORS, curve_rows, line_styles, tidy_curve  # noqa: E402
from lm_table import cell_and_recipe  # noqa: E402
from memory_weights import final_weights, read_memory  # noqa: E402
from seed_strips import fig_seed_strips  # noqa: E402
from state_norm import fig_state_norm, state_rows  # noqa: E402

EXPECTED = ["fig2_twin_gate", "fig3_gates_lm_atr_small", "fig3_gates_lm_lstm_small", "fig3_gates_nmt_atr",
            "fig4_arcs_lm_atr_small", "fig4_arcs_nmt_atr", "memory_strip_lm_atr_small", "memory_strip_nmt_atr",
            "memory_strip_classify_sst2_lrn", "learning_curves_classify", "learning_curves_lm", "learning_curves_nmt",
            "speed_chart"]
MALFORMED = ["lm_broken_json", "nmt_missing_keys", "cws_empty_metrics"]


def fixture(*parts):
    with open(os.path.join(FIX, *parts), encoding="utf-8") as f:
        return json.load(f)


class FixtureRun(unittest.TestCase):
    """One run of the script on the fixtures, shared by the tests below."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "figures")
        cls.proc = subprocess.run([sys.executable, SCRIPT, "--runs", os.path.join(FIX, "runs"),
                                   "--speed", os.path.join(FIX, "speed"), "--out", cls.out],
                                  cwd=ROOT, capture_output=True, text=True, timeout=300)
        path = os.path.join(cls.out, "figures.json")
        cls.manifest = {"figures": {}}
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                cls.manifest = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_code_and_summary(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.assertIn(f"wrote {len(EXPECTED)} figures", self.proc.stdout)

    def test_expected_files_are_valid_png_and_pdf(self):
        for name in EXPECTED:
            with open(os.path.join(self.out, name + ".png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)
            self.assertGreater(os.path.getsize(os.path.join(self.out, name + ".png")), 1000, name)
            with open(os.path.join(self.out, name + ".pdf"), "rb") as f:
                self.assertEqual(f.read(5), b"%PDF-", name)
        self.assertEqual(sorted(self.manifest["figures"]), sorted(EXPECTED))

    def test_malformed_folders_named_on_stderr_without_traceback(self):
        for name in MALFORMED:
            self.assertIn(os.path.join("runs", name), self.proc.stderr, name)
        self.assertIn("bad JSON", self.proc.stderr)
        self.assertIn("missing key 'count' in cell1", self.proc.stderr)
        self.assertIn("cws_empty_metrics/metrics.jsonl: no records", self.proc.stderr)
        self.assertNotIn("Traceback", self.proc.stderr + self.proc.stdout)
        for name in ("fig3_gates_lm_broken_json", "fig3_gates_nmt_missing_keys", "fig4_arcs_nmt_missing_keys"):
            self.assertFalse(os.path.exists(os.path.join(self.out, name + ".png")), name)

    def test_fig3_title_shows_the_recorded_r(self):
        g = fixture("runs", "nmt_atr", "gates.json")
        panels = self.manifest["figures"]["fig3_gates_nmt_atr"]["panels"]
        for cell in ("cell1", "cell2"):
            r = g[cell]["pearson_r_positions"]
            self.assertEqual(panels[cell]["pearson_r_positions"], r)
            self.assertIn(f"Pearson r = {r:.4f}", panels[cell]["title"])
            self.assertLess(r, 0)   # the ATR decoder's twin gates are negatively correlated
        lm = fixture("runs", "lm_lstm_small", "gates.json")
        top = self.manifest["figures"]["fig3_gates_lm_lstm_small"]["panels"]["top"]
        self.assertEqual(top["pair"], ["i", "f"])
        self.assertEqual(top["pearson_r_positions"], lm["pearson_r_positions"])

    def test_fig4_arcs_of_the_fixture_sentence(self):
        fig = self.manifest["figures"]["fig4_arcs_nmt_atr"]
        self.assertEqual(fig["sentence"], 1)   # sentence 0 has 5 tokens; 1 is the first with 8-16
        self.assertEqual([tuple(a) for a in fig["arcs"]],
                         [("▁der", "<s>"), ("▁un", "▁der"), ("glück", "▁un"), ("lichen", "glück"), ("▁mann", "▁un"),
                          ("▁über", "▁mann"), ("▁die", "▁über"), ("▁straße", "▁die")])

    def test_memory_strip_from_memory_json(self):
        m = fixture("runs", "classify_sst2_lrn", "memory.json")
        fig = self.manifest["figures"]["memory_strip_classify_sst2_lrn"]
        self.assertEqual(fig["sentence"], 0)   # the classify task puts the paper's example sentence first
        self.assertEqual(fig["tokens"], m["sentences"][0]["tokens"])
        self.assertEqual(fig["final_weights"], m["sentences"][0]["weights"])
        self.assertTrue(fig["sources"][0].endswith("memory.json"))
        nmt = self.manifest["figures"]["memory_strip_nmt_atr"]   # no memory.json: the dependencies' last row
        g = fixture("runs", "nmt_atr", "gates.json")
        self.assertEqual(nmt["final_weights"], g["dependencies"][1]["weights"][-1])

    def test_learning_curves_keep_the_readable_lines(self):
        runs = self.manifest["figures"]["learning_curves_lm"]["runs"]
        self.assertEqual(sorted(runs), ["lm_atr_small", "lm_broken_json", "lm_lstm_small"])
        self.assertEqual(runs["lm_broken_json"]["points"], 1)
        nmt = self.manifest["figures"]["learning_curves_nmt"]["runs"]
        self.assertEqual(nmt["nmt_atr"]["points"], 4)   # the resumed step-30 record replaces the first one
        # LM: a row per recipe (a name without one is "other", last); the other tasks one row
        self.assertEqual(self.manifest["figures"]["learning_curves_lm"]["rows"],
                         {"recipe small": ["lm_atr_small", "lm_lstm_small"], "recipe other": ["lm_broken_json"]})
        self.assertNotIn("rows", self.manifest["figures"]["learning_curves_nmt"])   # one row: nothing to say
        self.assertEqual(self.manifest["figures"]["learning_curves_lm"]["colours"],
                         {"atr": CELL_COLORS["atr"], "lstm": CELL_COLORS["lstm"], "broken_json": "#1b9e77"})


class PureFunctions(unittest.TestCase):
    def test_choose_arcs_hand_worked(self):
        w = [[0.5],
             [0.2, 0.6],
             [0.3, 0.1, 0.9],            # the diagonal 0.9 is the largest but never chosen: k = 0
             [0.05, 0.4, 0.4, 0.8],      # a tie: the first (k = 1)
             [0.0, 0.0, 0.0, 0.0, 1.0]]  # no earlier weight: no arc
        self.assertEqual(choose_arcs(w), [(1, 0, 0.2), (2, 0, 0.3), (3, 1, 0.4)])

    def test_gate_title(self):
        self.assertIn("i vs f: Pearson r = -0.9877 over positions, -0.500 over",
                      gate_title("cell", ["i", "f"], -0.98765, -0.5))
        self.assertIn("no Pearson r", gate_title("sru", None, None, None))

    def test_read_panels_formats(self):
        sru = {"cell": "sru", "count": [30.0, 30.0], "layer": "top", "mean": {"f": [0.6, 0.6], "r": [0.2, 0.3]}}
        (_, _, p), = read_panels(sru)
        self.assertIsNone(p["pair"])
        self.assertEqual(read_panels({"cell": "gru", "note": "this cell records no gates"}), [])
        with self.assertRaises(Bad):
            read_panels({"cell": "lstm", "count": [1.0, 2.0], "mean": {"i": [0.5], "f": [0.5, 0.4]}, "pair": ["i", "f"],
                         "pearson_r_positions": 0.1})

    def test_read_memory_formats(self):
        (tokens, w, _), = read_memory({"tokens": ["a", "b"], "weights": [0.2, 0.7]})   # a bare final-state vector
        self.assertEqual(final_weights(w), [0.2, 0.7])
        (tokens, w, meta), = read_memory({"sentences": [{"tokens": ["a", "b"], "weights": [0.1, 0.5],
                                                         "weights_by_step": [[0.9], [0.1, 0.5]], "label": 1}]})
        self.assertEqual(w, [[0.9, 0.0], [0.1, 0.5]])   # ragged rows k = 0..t padded
        self.assertEqual((final_weights(w), meta), ([0.1, 0.5], {"label": 1}))
        with self.assertRaises(Bad):
            read_memory({"tokens": ["a", "b"], "weights": [0.2]})

    def test_pick_sentence(self):
        self.assertEqual(pick_sentence([5, 9, 12]), 1)
        self.assertEqual(pick_sentence([3, 30, 20]), 2)   # none in 8-16: the closest (20)
        self.assertEqual(pick_sentence([5, 9], 0), 0)
        with self.assertRaises(Bad):
            pick_sentence([5, 9], 2)

    def test_tidy_curve_resume_and_restart(self):
        rec = lambda s, e, v: {"step": s, "elapsed_s": e, "value": v}
        # resumed from a checkpoint at step 20 (elapsed restored): the repeated step 30 supersedes the first
        self.assertEqual(tidy_curve([rec(10, 10.0, 1), rec(20, 20.0, 2), rec(30, 31.0, 3), rec(30, 30.0, 4),
                                     rec(40, 40.0, 5)]),
                         [(10, 10.0, 1), (20, 20.0, 2), (30, 30.0, 4), (40, 40.0, 5)])
        # a clock that restarted at 0: the earlier session's time is added
        self.assertEqual(tidy_curve([rec(10, 10.0, 1), rec(20, 20.0, 2), rec(30, 5.0, 3), rec(40, 15.0, 4)]),
                         [(10, 10.0, 1), (20, 20.0, 2), (30, 25.0, 3), (40, 35.0, 4)])

    def test_state_norm_columns_by_recipe_and_colours_by_cell(self):
        self.assertEqual(cell_and_recipe("results/runs/lm_atr_tanh_small_s2"), ("atr_tanh", "small"))
        self.assertEqual(cell_and_recipe("results/runs/lm_atr_atr_authors_s1234/"), ("atr", "atr_authors"))
        self.assertEqual(cell_and_recipe("runs/lm_gru_small"), ("gru", "small"))             # an unseeded run
        self.assertEqual(cell_and_recipe("runs/lm_lstm_medium_s1"), ("lstm", "medium"))
        self.assertEqual(cell_and_recipe("runs/lm_atr_atr_authors_pytorch_s1"), ("atr_atr_authors_pytorch", "other"))
        self.assertEqual(cell_and_recipe("runs/demo_x_20261128-2201"), ("demo_x_20261128-2201", "other"))
        with tempfile.TemporaryDirectory() as tmp:   # the experiment's name comes first: make demo's run folder
            demo = os.path.join(tmp, "demo_atr_tanh_small_20261128-220102")
            os.makedirs(demo)
            with open(os.path.join(demo, "config.resolved.json"), "w") as f:
                json.dump({"name": "lm_atr_tanh_small"}, f)
            self.assertEqual(cell_and_recipe(demo), ("atr_tanh", "small"))

    def test_lm_curve_rows_a_row_per_recipe_a_colour_per_cell(self):
        curve = [(100, 60.0, 300.0), (200, 120.0, 200.0)]
        names = ("lm_atr_small_s2", "lm_atr_small_s1", "lm_lstm_small", "lm_atr_tanh_small_s1", "lm_mycell_x",
                 "lm_gru_atr_authors_s1234", "lm_atr_atr_authors_s1234")
        rows = curve_rows("lm", [(f"runs/{n}", curve) for n in names])
        self.assertEqual([(t, [os.path.basename(e[0]) for e in es]) for t, es in rows],
                         [("recipe atr_authors", ["lm_atr_atr_authors_s1234", "lm_gru_atr_authors_s1234"]),
                          ("recipe small", ["lm_atr_small_s1", "lm_atr_small_s2", "lm_atr_tanh_small_s1",
                                            "lm_lstm_small"]),
                          ("recipe other", ["lm_mycell_x"])])
        entry = {os.path.basename(e[0]): e for _, es in rows for e in es}
        # one legend entry per cell and row, with its number of runs; the seeds drawn alike
        self.assertEqual([entry[n][5] for n in ("lm_atr_small_s1", "lm_atr_small_s2", "lm_atr_tanh_small_s1")],
                         ["atr x2", None, "atr_tanh"])
        self.assertEqual(entry["lm_atr_small_s1"][2:5], entry["lm_atr_small_s2"][2:5])
        # a cell has its colour in every row (and in lm_state_norm); a variant its own; an unknown cell another
        self.assertEqual(entry["lm_atr_small_s1"][2], CELL_COLORS["atr"])
        self.assertEqual(entry["lm_atr_atr_authors_s1234"][2], CELL_COLORS["atr"])
        self.assertEqual(entry["lm_atr_tanh_small_s1"][2], VARIANT_COLORS["atr_tanh"])
        self.assertNotIn(entry["lm_mycell_x"][2], list(CELL_COLORS.values()) + list(VARIANT_COLORS.values()))
        rows = curve_rows("nmt", [("runs/nmt_atr", curve), ("runs/nmt_gru_s1", curve)])
        self.assertEqual([(t, [e[5] for e in es]) for t, es in rows], [(None, ["atr", "gru_s1"])])

    def test_state_norm_figure_end_to_end(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            for name, peak in (("lm_atr_small_s1", 200.0), ("lm_atr_small_s2", 3.0), ("lm_lstm_small_s1", 1.0),
                               ("lm_atr_atr_authors_s1234", 14.0), ("lm_gru_small", None)):   # gru: no state
                os.makedirs(os.path.join(runs, name))
                rows = [{"split": "train", "step": 100 * k, "loss": 5.0 - 0.1 * k, "grad_norm": 3.0,
                         **({"state_abs_max": [1.0, peak * k / 4]} if peak else {})} for k in range(1, 5)]
                with open(os.path.join(runs, name, "metrics.jsonl"), "w", encoding="utf-8") as f:
                    f.write("\n".join(json.dumps(r) for r in rows) + "\n")
            out = os.path.join(tmp, "figures")
            report = Report(out)
            fig_state_norm(report, run_dirs(runs))
            self.assertEqual((report.written, report.skipped), (["lm_state_norm"], []))
            facts = report.manifest["lm_state_norm"]
            # a column per recipe; a colour per cell, the same in every column; the seeds of a cell share it
            self.assertEqual(facts["columns"], {"atr_authors": ["atr"], "small": ["atr", "lstm"]})
            self.assertEqual(sorted(facts["colours"]), ["atr", "lstm"])
            self.assertEqual(facts["colours"], {"atr": CELL_COLORS["atr"], "lstm": CELL_COLORS["lstm"]})  # as the curves
            self.assertEqual(facts["runs"]["lm_atr_small_s1"], {"points": 4, "max_state": 200.0})
            self.assertNotIn("lm_gru_small", facts["runs"])
            with open(os.path.join(out, "lm_state_norm.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_seed_strips_values_and_grid(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")

            def run(name, summary):
                os.makedirs(os.path.join(runs, name))
                with open(os.path.join(runs, name, "summary.json"), "w", encoding="utf-8") as f:
                    json.dump({"test": summary}, f)

            report = Report(os.path.join(tmp, "figures"))
            fig_seed_strips(report, runs)   # no runs folder: noted, no figure
            self.assertEqual(report.written, [])
            self.assertIn("no seeded runs", report.skipped[0][1])
            for seed, (a, b) in enumerate(((0.80, 0.75), (0.82, 0.74)), start=1):
                run(f"classify_sst2_lstm_s{seed}", {"accuracy": a})
                run(f"classify_sst2_atr_s{seed}", {"accuracy": b})
            run("lm_atr_atr_authors_s1234", {"ppl": 89.04})
            run("classify_sst2_gru", {"accuracy": 0.99})   # no seed suffix: not a strip
            for cell in ("atr", "gru", "lstm"):
                run(f"cws_msr_{cell}_s1", {"f1": 0.8})
            report = Report(os.path.join(tmp, "figures"))
            fig_seed_strips(report, runs)
            self.assertEqual(report.written, ["seed_strips"])
            facts = report.manifest["seed_strips"]
            # a panel per protocol with seeded runs (three here: one row); percentages scaled, perplexity as it is
            self.assertEqual(facts["values"]["sst2"], {"lstm": [80.0, 82.0], "atr": [75.0, 74.0]})
            self.assertEqual(facts["values"]["ptb_tf"], {"atr": [89.0]})
            self.assertEqual(sorted(facts["values"]), ["cws", "ptb_tf", "sst2"])
            self.assertEqual(facts["grid"], [1, 3])
            for k in range(2):   # three more protocols with runs, six in all: two rows of five panels
                run(f"classify_sst5_lstm_s{k + 1}", {"accuracy": 0.4})
            run("snli_sick_cond_lstm_s1", {"accuracy": 0.7})
            run("nmt_lstm_s1", {"bleu": 30.0})
            report = Report(os.path.join(tmp, "figures"))
            fig_seed_strips(report, runs)
            self.assertEqual(len(report.manifest["seed_strips"]["values"]), 6)
            self.assertEqual(report.manifest["seed_strips"]["grid"], [2, 5])

    def test_state_rows_keep_train_rows_with_state_and_drop_resumed_over_ones(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(state_rows(tmp), [])   # no metrics.jsonl: no state
            rows = [{"split": "train", "step": 10, "loss": 5.0, "grad_norm": 2.0, "state_abs_max": [1.0, 2.0]},
                    {"split": "dev", "step": 10, "ppl": 100.0},
                    {"split": "train", "step": 20, "loss": 9.0, "state_abs_max": [1.0, 50.0]},
                    {"split": "train", "step": 20, "loss": 4.0, "grad_norm": 3.0, "state_abs_max": [1.5, 2.5]},
                    {"split": "train", "step": 30, "loss": 3.0, "grad_norm": 1.0}]   # no state: skipped
            with open(os.path.join(tmp, "metrics.jsonl"), "w", encoding="utf-8") as f:
                f.write("\n".join(json.dumps(r) for r in rows) + "\n")
            self.assertEqual(state_rows(tmp), [(10, 5.0, 2.0, [1.0, 2.0]), (20, 4.0, 3.0, [1.5, 2.5])])
            with open(os.path.join(tmp, "metrics.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps({"split": "train", "step": 40, "loss": 1.0, "state_abs_max": ["x"]}) + "\n")
            with self.assertRaises(Bad):
                state_rows(tmp)

    def test_line_styles_colour_by_cell_style_by_variant(self):
        with tempfile.TemporaryDirectory() as tmp:
            def run(name, cell=None):
                d = os.path.join(tmp, name)
                os.makedirs(d)
                if cell:
                    with open(os.path.join(d, "config.resolved.json"), "w", encoding="utf-8") as f:
                        json.dump({"model": {"cell": {"type": cell}}}, f)
                return (name, d)
            styles = line_styles([run("inhouse_cond_atr", "atr"), run("inhouse_cond_gru", "gru"),
                                  run("sick_cond_atr", "atr"), run("sick_cond_mycell", "mycell"),
                                  run("sst2_sa_learned", "atr"),   # config's cell not in the name: last word
                                  run("wbw_gru")])                  # no config: last word
        (s1, l1), (s2, l2), (s3, _) = STYLES[0], STYLES[1], STYLES[2]
        self.assertEqual(styles["inhouse_cond_atr"], (CELL_COLORS["atr"], s1, l1))
        self.assertEqual(styles["inhouse_cond_gru"], (CELL_COLORS["gru"], s1, l1))
        self.assertEqual(styles["sick_cond_atr"], (CELL_COLORS["atr"], s2, l2))
        self.assertEqual(styles["sick_cond_mycell"][1:], (s2, l2))   # same variant "sick_cond"
        self.assertNotIn(styles["sick_cond_mycell"][0], CELL_COLORS.values())
        self.assertEqual(styles["sst2_sa_learned"][1], s3)           # variant "sst2_sa", cell "learned"
        self.assertEqual(styles["wbw_gru"][0], CELL_COLORS["gru"])

    def test_missing_runs_folder_is_reported(self):
        report = Report(tempfile.gettempdir())
        self.assertIsNone(report.guard("no/such/runs", run_dirs, "no/such/runs"))
        self.assertEqual(report.problems, 1)
        self.assertEqual(report.skipped[0], ("no/such/runs", "folder missing"))


class OneFigureOneRun(unittest.TestCase):
    """--only and --run: one figure of one run folder, written beside the run unless --out says otherwise,
    with no figures.json (a partial call never replaces the full set's manifest); bad names exit 2."""

    def call(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)

    def test_only_fig3_of_one_run_goes_beside_it(self):
        import shutil
        with tempfile.TemporaryDirectory() as tmp:
            run = os.path.join(tmp, "lm_atr_small")
            shutil.copytree(os.path.join(FIX, "runs", "lm_atr_small"), run)
            p = self.call("--only", "fig3", "--run", run)
            self.assertEqual(p.returncode, 0, p.stderr)
            written = sorted(os.listdir(os.path.join(run, "figures")))
            self.assertEqual(written, ["fig3_gates_lm_atr_small.pdf", "fig3_gates_lm_atr_small.png"])
            self.assertIn("wrote 1 figures", p.stdout)

    def test_only_several_with_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = self.call("--only", "fig2,learning_curves", "--run", os.path.join(FIX, "runs", "lm_atr_small"),
                          "--run", os.path.join(FIX, "runs", "lm_lstm_small"), "--out", tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            names = sorted(os.listdir(tmp))
            self.assertEqual(names, ["fig2_twin_gate.pdf", "fig2_twin_gate.png", "learning_curves_lm.pdf",
                                     "learning_curves_lm.png"])

    def test_a_figure_the_run_cannot_give_writes_nothing_and_says_why(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = self.call("--only", "fig4", "--run", os.path.join(FIX, "runs", "lm_lstm_small"), "--out", tmp)
            self.assertEqual(p.returncode, 1)
            self.assertIn("wrote 0 figures", p.stdout)
            self.assertIn("lm_lstm_small", p.stdout)
            self.assertEqual(os.listdir(tmp), [])

    def test_bad_names_exit_2(self):
        p = self.call("--only", "fig9")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--only fig9: not a figure name; known: fig2, fig3", p.stderr)
        p = self.call("--only", "fig3", "--run", FIX)
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"--run {FIX}: not a run folder", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
