#!/usr/bin/python3
"""plots/expected_best.py on hand-computed cases, and plots/tune_table.py on a hand-made sweep folder."""
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "plots"))
import expected_best as eb  # noqa: E402
import tune_table  # noqa: E402


def close(a, b, tol=1e-9):
    assert abs(a - b) <= tol, (a, b)


def test_expected_best_by_hand():
    # n = 1: the mean. n = 2 over [1, 2, 3, 4]: P(max = v_i) = (i/4)^2 - ((i-1)/4)^2 = 1, 3, 5, 7 sixteenths.
    m, sd = eb.expected_best([3, 1, 4, 2], 1)
    close(m, 2.5)
    close(sd, math.sqrt(1.25))
    m, sd = eb.expected_best([1, 2, 3, 4], 2)
    close(m, (1 * 1 + 2 * 3 + 3 * 5 + 4 * 7) / 16)                      # 3.125
    close(sd, math.sqrt((1 * 1 + 4 * 3 + 9 * 5 + 16 * 7) / 16 - 3.125 ** 2))
    m, _ = eb.expected_best([1, 2, 3, 4], 2, higher_is_better=False)   # the expected minimum, mirrored
    close(m, 5 - 3.125)
    m, sd = eb.expected_best([1, 2, 3, 4], 200)                         # many draws: the best trial
    assert 4 - 1e-6 < m <= 4 and sd < 1e-2
    close(eb.expected_best([0.7] * 5, 3)[0], 0.7)
    assert [p[0] for p in eb.curve([1, 2, 3])] == [1, 2, 3]
    means = [p[1] for p in eb.curve([0.1, 0.5, 0.2, 0.9, 0.4], 10)]
    assert all(a <= b for a, b in zip(means, means[1:]))               # never falls with more trials
    for bad in ([], ):
        try:
            eb.expected_best(bad, 1)
            raise AssertionError("no error for no trials")
        except ValueError:
            pass
    try:
        eb.expected_best([1.0], 0)
        raise AssertionError("no error for n = 0")
    except ValueError:
        pass


def test_expected_best_with_trials_never_chosen():
    # Usable [1, 2, 3] and one diverged trial, N = 4, n = 2, conditioned on a usable draw (1 - (1/4)^2 = 15/16):
    # P(max = v_i) = ((1+i)/4)^2 - (i/4)^2 over 15/16 = 3/15, 5/15, 7/15; E = (3 + 10 + 21) / 15 = 34/15.
    m, sd = eb.expected_best([3, 1, 2], 2, unusable=1)
    close(m, 34 / 15)
    close(sd, math.sqrt((3 * 1 + 5 * 4 + 7 * 9) / 15 - (34 / 15) ** 2))
    close(eb.expected_best([1, 2, 3], 1, unusable=5)[0], 2.0)            # n = 1: the mean of the usable trials
    close(eb.expected_best([1, 2, 3], 2, higher_is_better=False, unusable=1)[0], 4 - 34 / 15)   # mirrored
    close(eb.expected_best([1, 2, 3, 4], 3, unusable=0)[0], eb.expected_best([1, 2, 3, 4], 3)[0])
    # More diverged trials: a lower expected best at the same n, never above the best usable trial.
    ms = [eb.expected_best([0.5, 0.6, 0.7], 4, unusable=d)[0] for d in (0, 1, 3, 9)]
    assert all(a > b for a, b in zip(ms, ms[1:])) and ms[0] <= 0.7, ms
    assert len(eb.curve([1, 2], unusable=2)) == 4                         # n up to every draw of the budget
    try:
        eb.expected_best([1.0], 1, unusable=-1)
        raise AssertionError("no error for unusable < 0")
    except ValueError:
        pass


def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f)


def make_study(root, cell, trials, budget=3):
    """trials: [(slot, dev, test, stop_reason)]; one FAIL (an interrupted try of slot 0) is listed too."""
    name = f"sp_{cell}_hidden"
    d = os.path.join(root, "sw", name)
    meta_trials = [{"number": 99, "state": "FAIL", "slot": 0, "value": None, "params": {}, "user_attrs": {},
                    "retry_history": []}]
    for slot, dev, test, stop in trials:
        params = {"train.optim.lr": 0.001 * (slot + 1), "model.cell.bias_init": "zero"}
        meta_trials.append({"number": slot, "state": "COMPLETE", "slot": slot, "value": dev, "params": params,
                            "user_attrs": {"folder": f"{name}/trial_{slot:03d}"}, "retry_history": []})
        write(os.path.join(d, f"trial_{slot:03d}", "trial.json"),
              {"slot": slot, "value": dev, "test": test, "params": params, "stop_reason": stop, "sets": {}})
    write(os.path.join(d, "study.json"), {"study": name, "cell": cell, "arm": "hidden", "task": "classify",
                                          "space_file": "sp.json", "metric": "accuracy", "direction": "maximize",
                                          "trials_budget": budget, "sampler": {"name": "random", "seed": 7},
                                          "user_attrs": {"protocol": "toy protocol"}, "trials": meta_trials})
    return d


def test_table_from_a_hand_made_sweep():
    with tempfile.TemporaryDirectory() as root:
        # atr: slot 2 has the best TEST but not the best dev: selection must not see test.
        make_study(root, "atr", [(0, 0.70, 0.60, "early_stop"), (1, 0.80, 0.70, "max_epochs"),
                                 (2, 0.75, 0.99, "early_stop")])
        # lstm: a tie on dev between slots 0 and 2: the lower slot wins.
        make_study(root, "lstm", [(0, 0.80, 0.71, "early_stop"), (1, 0.60, 0.50, "early_stop"),
                                  (2, 0.80, 0.72, "early_stop")])
        data = tune_table.load(root)
        assert list(data) == [("sp.json", "hidden")], data.keys()
        lines, rows = tune_table.build(data, root)
        text = "\n".join(lines)
        by_cell = {r[2]: r for r in rows}
        assert by_cell["atr"][5] == 0.80                        # best dev, from slot 1 (not slot 2's test 0.99)
        assert "lr=0.002" in [ln for ln in lines if ln.startswith("| atr |")][0]
        assert "lr=0.001" in [ln for ln in lines if ln.startswith("| lstm |")][0]   # tie: slot 0
        close(by_cell["atr"][6], (0.70 + 0.80 + 0.75) / 3)     # E[best] at n = 1: the mean of the trials
        close(by_cell["atr"][9], eb.expected_best([0.70, 0.80, 0.75], 3)[0])
        assert by_cell["atr"][10] == 1 and by_cell["lstm"][10] == 0   # runs stopped by the epoch cap
        assert "| atr | 3 / 3 | 80.00 |" in text
        assert "1 / 0 / 1 |" in text                            # capped / diverged / failed (interrupted) tries
        assert "budget: 3 trials per cell; sampler random seed 7" in text
        # Every study done but no seed runs yet: the table says which cells still need them.
        assert "**seed runs to come**: atr, lstm (" in text, text
        # A trial.json that disagrees with its study is an error naming the folder, and the study is left out.
        bad = os.path.join(root, "sw", "sp_atr_hidden", "trial_001", "trial.json")
        rec = json.load(open(bad))
        rec["value"] = 0.5
        write(bad, rec)
        assert ("sp.json", "hidden") in tune_table.load(root)
        assert "atr" not in tune_table.load(root)[("sp.json", "hidden")]


def seed_run(root, cell, seed, test=None):
    """A seed run of the cell's best trial: scored (summary.json), or diverged (trial.json only, as tune.py
    writes it when the binary stops on a non-finite loss)."""
    d = os.path.join(root, "sw", f"sp_{cell}_hidden__seeds", f"best_s{seed}")
    if test is None:
        write(os.path.join(d, "trial.json"), {"state": "COMPLETE", "diverged": True, "stop_reason": "non_finite"})
    else:
        write(os.path.join(d, "summary.json"), {"test": {"accuracy": test}, "best_dev": {"accuracy": 0.8}})
        write(os.path.join(d, "trial.json"), {"state": "COMPLETE", "value": 0.8})


def test_diverged_seed_runs_are_named_and_left_out():
    import claims_table
    with tempfile.TemporaryDirectory() as root:
        for cell in ("atr", "gru", "lstm"):
            make_study(root, cell, [(0, 0.70, 0.60, "early_stop"), (1, 0.80, 0.70, "early_stop"),
                                    (2, 0.75, 0.65, "early_stop")])
        # gru's slot 1 (dev 0.80, its best value) diverged: the table's best is slot 2 (0.75) and E[best] treats
        # slot 1 as a draw that is never chosen.
        rec_path = os.path.join(root, "sw", "sp_gru_hidden", "trial_001", "trial.json")
        rec = json.load(open(rec_path))
        write(rec_path, dict(rec, diverged=True, stop_reason="non_finite"))
        for seed, test in ((1, 0.60), (2, 0.62), (3, None)):
            seed_run(root, "atr", seed, test)
        seed_run(root, "gru", 1)                              # its only seed run so far diverged
        for seed in (1, 2, 3):
            seed_run(root, "lstm", seed, 0.70 + 0.01 * seed)
        data = tune_table.load(root)
        cells = data[("sp.json", "hidden")]
        assert [r[0] for r in cells["atr"]["seeds"]] == [1, 2] and cells["atr"]["diverged_seeds"] == [3]
        assert cells["gru"]["seeds"] == [] and cells["gru"]["diverged_seeds"] == [1]
        lines, rows = tune_table.build(data, root)
        text = "\n".join(lines)
        gru = [r for r in rows if r[2] == "gru"][0]
        assert gru[5] == 0.75 and "lr=0.003" in [ln for ln in lines if ln.startswith("| gru | 3 / 3")][0], gru
        close(gru[6], (0.70 + 0.75) / 2)                                    # E[best] 1: the usable trials' mean
        close(gru[9], eb.expected_best([0.70, 0.75], 3, unusable=1)[0])
        assert gru[9] <= 0.75 and gru[11] == 1                             # never above the chosen best; 1 diverged
        # Lower is better (perplexity): the lowest value, ties to the lower slot, a diverged one never.
        trs = [{"value": 90.0, "slot": 0}, {"value": 80.0, "slot": 1}, {"value": 80.0, "slot": 2},
               {"value": 70.0, "slot": 3, "diverged": True}]
        assert tune_table.best_trial(trs, higher=False)["slot"] == 1
        assert tune_table.best_trial(trs, higher=True)["slot"] == 0
        assert "| atr | 1,2 (3 diverged: left out) | 61.00 ± 1.41 |" in text, text   # the mean of 60 and 62 only
        assert "| gru | – (1 diverged: left out) | – | – |" in text, text
        assert "| lstm | 1,2,3 | 72.00 ± 1.00 |" in text, text
        assert "A diverged seed run (a non-finite loss stopped it) has no test score" in text
        assert "seed runs to come" not in text                # every cell has begun: none is reported as waiting
        rows = claims_table.tuned_rows((None,) * 5 + ([("sp.json", "hidden", "atr", "lstm"),
                                                       ("sp.json", "hidden", "gru", "lstm")],), data)
        assert rows[0][3:] == ("2 / 3", "not tested here", "fewer than 3 scored seed runs: diverged atr seed 3"), rows
        assert rows[1][3:] == ("0 / 3", "not tested here", "fewer than 3 scored seed runs: diverged gru seed 1"), rows


if __name__ == "__main__":
    test_expected_best_by_hand()
    test_expected_best_with_trials_never_chosen()
    test_table_from_a_hand_made_sweep()
    test_diverged_seed_runs_are_named_and_left_out()
    print("test_tune_table: 4 passed, 0 failed")
