"""Judging strategies by the true quality of what they recommend: validation replays, truth tables, regret and
the tabular benchmark (issue: not by their luckiest trial)."""

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest

from games.rng import derive_seeds
from tuner.study import bench, truth, validate
from tuner.study.objective import play_trials, value
from tuner.study.runner import load, run, status, trial_seed
from tuner.study.spec import StudyError, StudySpec

VALIDATE = "\n[validate]\ntop = 2\ngames = 2\n"


def _rows(folder):
    return [json.loads(line) for line in (folder / validate.VALIDATION).read_text().splitlines()]


def test_validation_replays_exactly_the_recommendation_and_the_top_points(make_study, tiny_study):
    folder = make_study(strategy="random", text=tiny_study + VALIDATE)
    run(folder, progress=False)
    spec, study = load(folder)
    wanted = validate.candidates(spec, study)
    rows = _rows(folder)
    assert [r["values"] for r in rows] == [values for _, values in wanted]
    assert "recommended" in wanted[0][0] and sum("top" in role for role, _ in wanted) == 2
    finished = [t for t in study.get_trials() if t.state.name == "COMPLETE"]
    tops = sorted({t.params["C"] for t in finished if t.value == max(t.value for t in finished)})
    assert {r["values"]["C"] for r in rows} >= set(tops[:2])  # the best observed points are among them
    trial_seeds = {trial_seed(spec.seed, t.number) for t in study.get_trials()}
    for k, row in enumerate(rows):
        assert row["seed"] == derive_seeds(spec.seed, validate.VALIDATION_STREAM, k)[0]  # fresh, recorded seeds
        assert row["seed"] not in trial_seeds
        assert all(sum(wdl) == 2 for seats in row["records"].values() for wdl in seats.values())
        # the recorded seed replays the point's games exactly
        (again,) = play_trials(replace(spec, games=2), [(row["values"], row["seed"])])
        assert again == row["records"]
    roles = [r["role"] for r in status(folder)["validated"]]
    assert roles == [role for role, _ in wanted]
    before = (folder / validate.VALIDATION).read_text()
    run(folder, progress=False)  # nothing new to replay
    assert (folder / validate.VALIDATION).read_text() == before


def test_a_torn_validation_line_is_replayed_the_same(make_study, tiny_study):
    folder = make_study(strategy="random", text=tiny_study + VALIDATE)
    run(folder, progress=False)
    whole = (folder / validate.VALIDATION).read_text()
    lines = whole.splitlines(keepends=True)
    (folder / validate.VALIDATION).write_text("".join(lines[:-1]) + lines[-1][:25])  # killed mid-write
    run(folder, progress=False)
    assert (folder / validate.VALIDATION).read_text() == whole


@pytest.mark.slow
def test_validation_survives_kill_9(make_study, tiny_study):
    text = tiny_study.replace("mcts:simulations=30", "mcts:simulations=200") + "\n[validate]\ntop = 3\ngames = 12\n"
    folder = make_study(name="killed", strategy="random", text=text)
    reference = make_study(name="whole", strategy="random", text=text)
    run(reference, progress=False)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "tuner.cli", "study", "run", str(folder), "--json"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    path = folder / validate.VALIDATION
    while time.monotonic() < deadline and not (path.exists() and path.read_text().count("\n") >= 1):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = path.read_text().count("\n") if path.exists() else 0
    assert killed_at < len(_rows(reference)), "the run finished before the kill: make it longer"
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    assert _rows(folder) == _rows(reference)  # nothing lost, nothing twice, the same seeds


def test_a_validate_table_is_checked(make_study, tiny_study):
    with pytest.raises(StudyError, match=r"\[validate\]: unknown key 'gmes'"):
        StudySpec.load(make_study(name="a", text=tiny_study + "\n[validate]\ngmes = 3\n"))
    with pytest.raises(StudyError, match="games must be at least 1"):
        StudySpec.load(make_study(name="b", text=tiny_study + "\n[validate]\ngames = 0\n"))


# --- the truth table ------------------------------------------------------------------------------------


def test_the_truth_table_plays_every_point_and_resumes(make_study, tiny_study):
    folder = make_study(text=tiny_study)
    table = truth.run(folder, games=2)
    spec = table.spec
    assert [r["values"]["C"] for r in table.rows] == [0.25, 0.5, 1.0, 2.0]
    for i, row in enumerate(table.rows):
        assert row["seed"] == truth.point_seed(spec.seed, i) and row["games"] == 2
        assert all(sum(wdl) == 2 for seats in row["records"].values() for wdl in seats.values())
    assert table.lookup({"C": 0.3})["values"]["C"] == 0.25  # snapped to the nearest grid value
    assert table.lookup({"C": 1.6})["values"]["C"] == 2.0
    whole = (folder / truth.TRUTH).read_text()
    (folder / truth.TRUTH).write_text(whole[: whole.index("\n", whole.index("\n") + 1) + 30])  # two rows and a torn one
    assert truth.run(folder, games=2).rows == table.rows
    assert (folder / truth.TRUTH).read_text() == whole
    with pytest.raises(StudyError, match="holds 2 games a point and seat, not 3"):
        truth.run(folder, games=3)


def _truth(make_study, tiny_study, values, objective="winrate", name="t"):
    """A hand-made truth table over C = 1..len(values) whose score at C = k is values[k-1] (all as draws and
    wins against one opponent, 100 games a seat)."""
    cs = ", ".join(str(float(k + 1)) for k in range(len(values)))
    text = tiny_study.replace("values = [0.25, 0.5, 1.0, 2.0]", f"values = [{cs}]").replace("high = 2.0", "high = 99")
    text = text.replace('objective = "winrate"', f'objective = "{objective}"')
    folder = make_study(name=name, text=text)
    spec = StudySpec.load(folder)
    rows = []
    for k, v in enumerate(values):
        wins = round(100 * v)
        records = {"random": {"first": [wins, 0, 100 - wins], "second": [wins, 0, 100 - wins]}}
        rows.append({"index": k, "values": {"C": float(k + 1)}, "games": 100, "seed": 0, "records": records,
                     "value": value(objective, records)})  # fmt: skip
    return truth.Truth(spec, rows)


def test_regret_is_zero_exactly_at_the_true_best(make_study, tiny_study):
    table = _truth(make_study, tiny_study, [0.5, 0.7, 0.6])
    assert table.regret({"C": 2.0}) == 0.0
    assert table.regret({"C": 3.0}) == pytest.approx(0.1) and table.regret({"C": 1.0}) == pytest.approx(0.2)
    minimised = _truth(make_study, tiny_study, [0.5, 0.7, 0.6], objective="dda_d", name="d")  # D = |W - L|
    assert minimised.best()["values"] == {"C": 1.0} and minimised.regret({"C": 1.0}) == 0.0
    assert minimised.regret({"C": 2.0}) == pytest.approx(80.0)  # D: 0 at 50/50, 2 x |70 - 30| at 70/30


def test_the_tabular_benchmark_is_seeded_and_reproducible(make_study, tiny_study):
    table = _truth(make_study, tiny_study, [0.5, 0.7, 0.6, 0.55])
    space = tiny_study.replace("values = [0.25, 0.5, 1.0, 2.0]", "values = [1.0, 2.0, 3.0, 4.0]")
    folder = make_study(name="ntbea", strategy="ntbea", text=space.replace("high = 2.0", "high = 99"))
    a = bench.bench(table, [folder], seeds=3, budgets=[2, 8])
    assert a == bench.bench(table, [folder], seeds=3, budgets=[2, 8])
    draws = [table.draw({"C": 2.0}, 10, seed) for seed in range(5)]
    assert draws[0] == table.draw({"C": 2.0}, 10, 0) and len({json.dumps(d) for d in draws}) > 1
    assert all(sum(wdl) == 10 for d in draws for s in d.values() for wdl in s.values())


def test_the_winner_s_curse_on_a_noisy_nearly_flat_problem(make_study, tiny_study):
    # twenty points, all worth 0.5 but one worth 0.6; each tried once with 20 games (10 a seat)
    values = [0.5] * 20
    values[7] = 0.6
    table = _truth(make_study, tiny_study, values)
    regret, optimism = [], []
    for seed in range(200):
        observed = [(table.draw({"C": float(k + 1)}, 10, seed * 100 + k), k) for k in range(20)]
        scores = [(np.mean([r[0] + r[1] / 2 for s in d.values() for r in s.values()]) / 10, k) for d, k in observed]
        best_score, best_k = max(scores)
        regret.append(table.regret({"C": float(best_k + 1)}))
        optimism.append(best_score - values[best_k])
    # recommending the highest observed mean: positive expected regret, and an observed value far above its truth
    assert np.mean(regret) > 0.05 and np.mean(optimism) > 0.1


def test_truth_lookups_find_inf_and_snap_finite_values(make_study, tiny_study):
    text = tiny_study.replace("values = [0.25, 0.5, 1.0, 2.0]", 'values = [0.25, 0.5, "inf"]').replace(
        "low = 0.1\nhigh = 2.0\n", "")  # fmt: skip
    spec = StudySpec.load(make_study(name="inf", text=text))
    rows = [{"values": {"C": c}, "games": 10, "records": {}, "value": v} for c, v in ((0.25, 0.5), (0.5, 0.6),
                                                                                      (float("inf"), 0.9))]  # fmt: skip
    table = truth.Truth(spec, rows)
    assert table.best()["values"] == {"C": float("inf")} and table.regret({"C": float("inf")}) == 0.0
    assert table.lookup({"C": 0.3})["values"] == {"C": 0.25} and table.regret({"C": 1e9}) == pytest.approx(0.3)


def test_a_recommendation_needs_more_than_one_lucky_trial(make_study, tiny_study):
    from tuner.study.recommend import lcb_point

    spec = StudySpec.load(make_study(text=tiny_study))  # 2 games a trial

    class T:  # a finished trial: its point and reward
        def __init__(self, c, reward):
            self.params, self.user_attrs = {"C": c}, {"reward": reward}

    once_perfect = [T(0.25, 1.0)]
    often_good = [T(0.5, 0.85) for _ in range(40)]
    assert lcb_point(spec, once_perfect + often_good) == {"C": 0.5}  # 80 games at 0.85 beat 2 games at 1.0
    assert lcb_point(spec, [T(0.25, 1.0)] * 40 + often_good) == {"C": 0.25}  # ...but not 80 games at 1.0


def test_d_is_validated_on_the_trials_scale(make_study, tiny_study):
    text = tiny_study.replace('objective = "winrate"', 'objective = "dda_d"')
    with pytest.raises(StudyError, match=r"\[validate\] games must equal games \(1\) for objective dda_d"):
        StudySpec.load(make_study(name="a", text=text + "\n[validate]\ngames = 4\n"))
    spec = StudySpec.load(make_study(name="b", text=text + "\n[validate]\ngames = 1\n"))
    assert spec.validate_games == 1


def test_a_study_of_another_range_is_not_scored_by_the_table(make_study, tiny_study):
    table = truth.Truth(StudySpec.load(make_study(name="t", text=tiny_study)), [])
    wider = StudySpec.load(make_study(name="w", text=tiny_study.replace("high = 2.0", "high = 9.0")))
    with pytest.raises(StudyError, match="another problem"):
        bench.check_problem(table, wider, "w")
    settings = tiny_study.replace('name = "STRATEGY"', 'name = "STRATEGY"\npopulation = 4\nelite = 2')
    ea = StudySpec.load(make_study(name="ea", strategy="ea", text=settings))
    assert bench.label(ea) == "ea (elite=2, population=4)" and bench.label(table.spec) == "random"
