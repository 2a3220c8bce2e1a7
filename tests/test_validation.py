"""Judging strategies by the true quality of what they recommend: validation replays, truth tables, regret and
the tabular benchmark (issue: not by their luckiest trial)."""

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest

from games.rng import derive_seeds
from tuner.study import regret, truth, validate
from tuner.study.objective import OBJECTIVES, play_trials
from tuner.study.report import validated_table, write_report
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
    assert any("default" in role and values == {"C": 0.25} for role, values in wanted)  # the space's first value
    finished = [t for t in study.get_trials() if t.state.name == "COMPLETE"]
    tops = sorted({t.params["C"] for t in finished if t.value == max(t.value for t in finished)})
    assert {r["values"]["C"] for r in rows} >= set(tops[:2])  # the best observed points are among them
    trial_seeds = {trial_seed(spec.seed, t.number) for t in study.get_trials()}
    for row in rows:
        # two games a seat as two replicate trials of the study's one game, with fresh, recorded seeds, the same
        # for every point (so that they meet the same opponents' play)
        assert row["seeds"] == derive_seeds(spec.seed, validate.VALIDATION_STREAM, count=2)
        assert row["replicates"] == 2 and not set(row["seeds"]) & trial_seeds
        assert all(sum(wdl) == 1 for r in row["records"] for seats in r.values() for wdl in seats.values())
        # the recorded seeds replay the point's games exactly
        assert play_trials(spec, [(row["values"], seed) for seed in row["seeds"]]) == row["records"]
        assert row["value"] == np.mean([OBJECTIVES[spec.objective].value(r) for r in row["records"]])
    roles = [r["role"] for r in status(folder)["validated"]]
    assert roles == [role for role, _ in wanted]
    before = (folder / validate.VALIDATION).read_text()
    run(folder, progress=False)  # nothing new to replay
    assert (folder / validate.VALIDATION).read_text() == before


def _replayed(role, x, cells, seeds=(1, 2, 3)):
    """A replayed row of one opponent: `cells` gives each replicate's first- and second-seat [W, D, L]."""
    records = [{"o": {"first": list(first), "second": list(second)}} for first, second in cells]
    return {"role": role, "values": {"C": x}, "records": records, "seeds": list(seeds), "games": 1, "replicates": 3}


def _d_rows(objective, rows):
    for r in rows:
        r["value"] = float(np.mean([OBJECTIVES[objective].value(rec) for rec in r["records"]]))
        r["interval"] = None
    return rows


def test_d_s_verdict_is_a_paired_t_test_where_the_points_shared_their_seeds(make_study, tiny_study):
    """D per replicate: the recommendation 4, 5, 6 and the default 10, 12, 14 on the same seeds. Differences
    -6, -7, -8: mean -7, sd 1, t = 7 sqrt(3) = 12.12 on 2 degrees of freedom, where the two-sided p is
    1 - t / sqrt(t^2 + 2) = 0.0067 and the interval -7 -+ 4.303 / sqrt(3) = [-9.48, -4.52]; D is minimised, so
    tuning won. On other seeds the same numbers are Welch's test, wider (p 0.013)."""
    spec = StudySpec.load(make_study(text=tiny_study.replace('"winrate"', '"dda_d"') + VALIDATE))

    def replicate(d):  # a first-seat record with |W - L| = d over d + 2 games
        return ([d + 1, 0, 1], [0, 0, 0]) if d else ([1, 0, 1], [0, 0, 0])

    rec = _replayed("recommended", 1.0, [replicate(4), replicate(5), replicate(6)])
    base = _replayed("default", 0.25, [replicate(10), replicate(12), replicate(14)])
    rows = _d_rows("dda_d", [rec, base])
    v = validate.verdict(spec, rows)
    assert v["answer"] == "yes" and v["pick"] is rec and v["test"]["test"] == "paired t over 3 replicates"
    assert v["test"]["difference"] == -7 and v["test"]["p"] == pytest.approx(1 - 7 * 3**0.5 / (147 + 2) ** 0.5)
    assert v["test"]["interval"] == pytest.approx([-7 - 4.302653 / 3**0.5, -7 + 4.302653 / 3**0.5], abs=1e-4)
    assert validate.verdict_text(spec, v).startswith("Yes, tuning beat the default: the recommendation (C = 1)")
    base["seeds"] = [4, 5, 6]
    welch = validate.difference("dda_d", rec, base)
    assert welch["test"] == "Welch's t" and 0.006 < welch["p"] < 0.02
    swapped = [{**rec, "role": "default", "values": {"C": 0.25}}, {**base, "role": "recommended", "values": {"C": 1.0}}]
    swapped = validate.verdict(spec, _d_rows("dda_d", swapped))
    assert swapped["answer"] == "no"  # the default replays better: the recommendation lost, whoever it is


@pytest.mark.slow
def test_the_win_rate_s_verdict_reads_the_games_spread_and_a_better_replay_is_the_one_to_act_on(make_study, tiny_study):
    """One opponent, 24 games a seat. The recommendation scores 20/24 and 18/24, the default 12/24 and 10/24: win
    rates 0.792 and 0.458, each the mean of its seats' scores, with variance (p1 (1 - p1) + p2 (1 - p2)) / 24 / 4;
    together the difference's standard error is 0.0924, so the bootstrap's interval is 0.333 -+ 1.96 x 0.0924
    (to its resampling noise) and p = 0.0003. A top point at 24/24 and 23/24 beats the recommendation by more
    than its noise: it is the pick. A point as good as the default, or the default itself, is never the pick."""
    spec = StudySpec.load(make_study(text=tiny_study + VALIDATE))

    def row(role, x, first, second):
        r = _replayed(role, x, [([first, 0, 24 - first], [second, 0, 24 - second])], seeds=(7,))
        r["value"], r["interval"] = (first + second) / 48, None
        return r

    rec, base = row("recommended", 1.0, 20, 18), row("default", 0.25, 12, 10)
    v = validate.verdict(spec, [rec, base])
    se = ((20 / 24 * 4 / 24 + 18 / 24 * 6 / 24) / 24 / 4 + (12 / 24 * 12 / 24 + 10 / 24 * 14 / 24) / 24 / 4) ** 0.5
    low, high = v["test"]["interval"]
    assert v["answer"] == "yes" and (high - low) / 2 / 1.96 == pytest.approx(se, rel=0.08)
    assert v["test"]["p"] < 0.002
    top = row("top 1 (trial 9)", 2.0, 24, 23)
    v = validate.verdict(spec, [rec, base, top, row("top 2 (trial 3)", 0.5, 12, 10)])
    assert v["pick"] is top and v["over_recommendation"]["p"] < 0.05
    assert "Act on C = 2, not the strategy's recommendation" in validate.verdict_text(spec, v)
    same = validate.verdict(spec, [row("recommended, default", 0.25, 12, 10), row("top 1 (trial 2)", 1.0, 13, 11)])
    assert same["answer"] == "same" and "did not move from the default" in validate.verdict_text(spec, same)
    close = validate.verdict(spec, [row("recommended", 1.0, 13, 11), base])
    assert close["answer"] == "unclear" and "could not tell the recommendation from the default:" in (
        validate.verdict_text(spec, close)
    )
    named = row("paper", 2.0, 24, 23)  # a hand-named point as good as `top`: not tuning's, never the pick
    assert validate.verdict(spec, [rec, base, named])["pick"] is rec
    low, high = validate.interval("winrate", [{"o": {"first": [8, 0, 0], "second": [8, 0, 0]}}] * 3, 1)
    assert 0.85 < low < 0.95 and high == 1.0  # every game won: still an interval (Jeffreys' half a game)
    assert validate.verdict(spec, [rec]) is None  # the default not replayed yet: no verdict


def test_a_torn_validation_line_is_replayed_the_same(make_study, tiny_study):
    folder = make_study(strategy="random", text=tiny_study + VALIDATE)
    run(folder, progress=False)
    whole = (folder / validate.VALIDATION).read_text()
    lines = whole.splitlines(keepends=True)
    (folder / validate.VALIDATION).write_text("".join(lines[:-1]) + lines[-1][:25])  # killed mid-write
    run(folder, progress=False)
    assert (folder / validate.VALIDATION).read_text() == whole
    old = {k: v for k, v in json.loads(lines[0]).items() if k not in ("replicates", "seeds")}  # an older layout
    (folder / validate.VALIDATION).write_text(json.dumps(old) + "\n")
    with pytest.raises(StudyError, match="written before replays were replicate trials: move it away"):
        validate.load(folder)


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
    bad = {
        "c": ('"paper" = 0.5', "must name tables of values"),
        "d": ('"paper" = {D = 0.5}', "paper must give exactly C; it gives D"),
        "e": ('"paper" = {C = 3.0}', "paper: C = 3 lies outside [0.1, 2]"),
        "f": ('"paper" = {C = "x"}', "paper: C must be a number"),
    }
    for name, (point, message) in bad.items():
        with pytest.raises(StudyError, match=re.escape(message)):
            StudySpec.load(make_study(name=name, text=tiny_study + VALIDATE + f"[validate.points]\n{point}\n"))


@pytest.mark.slow
def test_named_points_are_replayed_beside_the_recommendation(make_study, tiny_study):
    """A paper's point, off the grid here, is replayed like the others; one already among them keeps both roles."""
    folder = make_study(strategy="grid", text=tiny_study + VALIDATE + '[validate.points]\n"paper" = {C = 0.7}\n')
    run(folder, progress=False)
    roles = {r["values"]["C"]: r["role"] for r in status(folder)["validated"]}
    assert roles[0.7] == "paper" and sum(role.count("top") for role in roles.values()) == 2  # beside, not instead
    paper = next(r for r in _rows(folder) if r["values"] == {"C": 0.7})
    spec, _ = load(folder)
    assert play_trials(spec, [({"C": 0.7}, seed) for seed in paper["seeds"]]) == paper["records"]
    row = next(line for line in write_report(folder).read_text().splitlines() if "| paper |" in line)
    assert row.endswith("| not a trial |")  # off the grid: no observed value to show beside its replay
    recommended = status(folder)["recommended"]["C"]
    with open(folder / "study.toml", "a") as f:  # named later: the point is not replayed again
        f.write(f'"mine" = {{C = {recommended}}}\n')
    before = (folder / validate.VALIDATION).read_text()
    run(folder, progress=False)
    roles = {r["values"]["C"]: r["role"] for r in status(folder)["validated"]}
    assert roles[recommended].startswith("recommended") and roles[recommended].endswith(", mine")
    assert (folder / validate.VALIDATION).read_text() == before


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
    toml = (folder / "study.toml").read_text()
    (folder / "study.toml").write_text(toml.replace('objective = "winrate"', 'objective = "balance"'))
    with pytest.raises(StudyError, match="truth.jsonl was played for another problem"):
        truth.load(folder)  # its values were measured with another objective: never reused under the new one
    opponents, agent = toml.replace('["random"]', '["mcts:simulations=2"]'), toml.replace("=30", "=31")
    for changed in (opponents, agent, toml.replace("high = 2.0", "high = 2.0\ndefault = 0.5")):
        (folder / "study.toml").write_text(changed)
        with pytest.raises(StudyError, match="another problem"):
            truth.load(folder)
    (folder / "study.toml").write_text(toml.replace("seed = 3", "seed = 4").replace("trials = 4", "trials = 9"))
    assert truth.load(folder).rows == table.rows  # the budget and seed do not change the problem
    (folder / truth.TRUTH).write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "problem"}) + "\n" for r in table.rows)
    )
    with pytest.raises(StudyError, match="has no problem hash"):
        truth.load(folder)


def test_a_truth_table_refuses_a_net_replaced_under_its_name(tmp_path, make_study, tiny_study, monkeypatch):
    """A truth table scores every later recommendation: points played with two nets under one name would be one
    table. Each row records the nets' digests; the next part of the table, and reading it, refuse another file."""
    import torch

    import nets
    from tuner.study import objective

    net = tmp_path / "net.pt"

    def save(seed):
        torch.manual_seed(seed)
        nets.save(net, nets.build("connect4", filters=4, blocks=1))

    save(0)
    original = net.read_bytes()
    spec = f"az:net={net},simulations=4,c_puct={{C}}"
    folder = make_study(text=tiny_study.replace('"mcts:simulations=30,c={C}"', f'"{spec}"'))
    played = objective.play_trials

    def then_swap(*args, **kwargs):
        records = played(*args, **kwargs)
        save(1)
        return records

    monkeypatch.setattr(objective, "play_trials", then_swap)
    with pytest.raises(StudyError, match=r"truth.jsonl was played with the net '.*net.pt' at digest \w{12}, now"):
        truth.run(folder, games=1, chunk=2)
    rows = truth.read_lines(folder / truth.TRUTH)
    assert len(rows) == 2 and rows[0]["nets"] == {str(net): hashlib.sha256(original).hexdigest()[:12]}
    with pytest.raises(StudyError, match="was played with the net"):
        truth.load(folder)
    net.write_bytes(original)
    assert len(truth.load(folder).rows) == 2


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
        rows.append(
            {
                "index": k,
                "values": {"C": float(k + 1)},
                "games": 100,
                "seed": 0,
                "records": records,
                "value": OBJECTIVES[objective].value(records),
            }
        )
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
    a = regret.bench(table, [folder], seeds=3, budgets=[2, 8])
    assert a == regret.bench(table, [folder], seeds=3, budgets=[2, 8])
    draws = [table.draw({"C": 2.0}, 10, seed) for seed in range(5)]
    assert draws[0] == table.draw({"C": 2.0}, 10, 0) and len({json.dumps(d) for d in draws}) > 1
    assert all(sum(wdl) == 10 for d in draws for s in d.values() for wdl in s.values())


class _Trial:
    """A finished trial as the recommendation reads it: its point and reward."""

    def __init__(self, c, reward):
        self.params, self.user_attrs = {"C": c}, {"reward": reward}


def test_the_winner_s_curse_on_a_noisy_nearly_flat_problem(make_study, tiny_study):
    from tuner.study.recommend import lcb_point

    # twenty points, all worth 0.5 but one worth 0.6; each tried once with 20 games (10 a seat)
    values = [0.5] * 20
    values[7] = 0.6
    table = _truth(make_study, tiny_study, values)
    spec = replace(table.spec, games=10)
    regrets, optimism = [], []
    for seed in range(200):
        draws = [table.draw({"C": float(k + 1)}, 10, seed * 100 + k) for k in range(20)]
        trials = [_Trial(float(k + 1), OBJECTIVES["winrate"].value(d)) for k, d in enumerate(draws)]
        pick = lcb_point(spec, trials)  # points tried once each: the rule is the highest observed mean
        observed = next(t.user_attrs["reward"] for t in trials if t.params == pick)
        regrets.append(table.regret(pick))
        optimism.append(observed - table.value(pick))
    # positive expected regret, and an observed value far above its truth: only fresh games correct it
    assert np.mean(regrets) > 0.05 and np.mean(optimism) > 0.1


def test_truth_lookups_find_inf_and_snap_finite_values(make_study, tiny_study):
    text = tiny_study.replace("values = [0.25, 0.5, 1.0, 2.0]", 'values = [0.25, 0.5, "inf"]').replace(
        "low = 0.1\nhigh = 2.0\n", ""
    )
    spec = StudySpec.load(make_study(name="inf", text=text))
    rows = [
        {"values": {"C": c}, "games": 10, "records": {}, "value": v}
        for c, v in ((0.25, 0.5), (0.5, 0.6), (float("inf"), 0.9))
    ]
    table = truth.Truth(spec, rows)
    assert table.best()["values"] == {"C": float("inf")} and table.regret({"C": float("inf")}) == 0.0
    assert table.lookup({"C": 0.3})["values"] == {"C": 0.25} and table.regret({"C": 1e9}) == pytest.approx(0.3)


def test_a_recommendation_needs_more_than_one_lucky_trial(make_study, tiny_study):
    from tuner.study.recommend import lcb_point

    spec = StudySpec.load(make_study(text=tiny_study))  # 2 games a trial
    once_perfect = [_Trial(0.25, 1.0)]
    often_good = [_Trial(0.5, 0.85) for _ in range(40)]
    assert lcb_point(spec, once_perfect + often_good) == {"C": 0.5}  # 80 games at 0.85 beat 2 games at 1.0
    assert lcb_point(spec, [_Trial(0.25, 1.0)] * 40 + often_good) == {"C": 0.25}  # ...but not 80 games at 1.0


def test_validation_replays_the_best_observed_points_not_the_worst(make_study, tiny_study):
    import optuna

    spec = StudySpec.load(make_study(text=tiny_study + "\n[validate]\ntop = 2\ngames = 2\n"))
    study = optuna.create_study(direction="maximize")
    dist = {"C": optuna.distributions.FloatDistribution(0.1, 2.0)}
    for c, v in ((0.25, 0.2), (0.5, 0.9), (1.0, 0.5), (2.0, 0.7)):
        study.add_trial(
            optuna.trial.create_trial(params={"C": c}, distributions=dist, value=v, user_attrs={"reward": v})
        )
    assert validate.candidates(spec, study) == [
        ("recommended, top 1 (trial 1)", {"C": 0.5}),
        ("default", {"C": 0.25}),
        ("top 2 (trial 3)", {"C": 2.0}),
    ]
    text = tiny_study.replace('objective = "winrate"', 'objective = "balance"')  # minimised: the smallest are best
    spec = StudySpec.load(make_study(name="min", text=text + "\n[validate]\ntop = 2\ngames = 2\n"))
    study = optuna.create_study(direction="minimize")
    for c, v in ((0.25, 0.2), (0.5, 0.9), (1.0, 0.5), (2.0, 0.7)):
        study.add_trial(
            optuna.trial.create_trial(params={"C": c}, distributions=dist, value=v, user_attrs={"reward": 1 - v})
        )
    assert validate.candidates(spec, study) == [
        ("recommended, default, top 1 (trial 0)", {"C": 0.25}),
        ("top 2 (trial 2)", {"C": 1.0}),
    ]


def test_d_is_validated_on_the_trials_scale(make_study, tiny_study):
    text = tiny_study.replace('objective = "winrate"', 'objective = "dda_d"').replace("games = 1\n", "games = 2\n")
    with pytest.raises(StudyError, match=r"\[validate\] games \(5\) must be a multiple of games \(2\).*try 4 or 6"):
        StudySpec.load(make_study(name="a", text=text + "\n[validate]\ngames = 5\n"))
    assert StudySpec.load(make_study(name="b", text=text + "\n[validate]\ntop = 0\n")).validate_games == 10
    folder = make_study(name="c", text=text.replace("trials = 4", "trials = 2") + "\n[validate]\ntop = 0\ngames = 6\n")
    run(folder, progress=False)
    row, *rest = _rows(folder)  # the recommendation, then the default unless it is the same point
    assert len(rest) <= 1
    # D of three 2-game trials, averaged: on the trials' scale (at most 2 x 2 here), not D over 6 games a seat
    assert row["replicates"] == 3
    assert all(sum(wdl) == 2 for r in row["records"] for s in r.values() for wdl in s.values())
    assert (
        row["value"] == pytest.approx(np.mean([OBJECTIVES["dda_d"].value(r) for r in row["records"]]))
        and row["value"] <= 4
    )
    low, high = row["interval"]
    assert 0 <= low <= row["value"] <= high <= 4
    spec, study = load(folder)
    assert "biased downward" in validate.summary(spec, study, validate.run(folder, spec, study, play=False))


def test_a_study_of_another_range_is_not_scored_by_the_table(make_study, tiny_study):
    table = truth.Truth(StudySpec.load(make_study(name="t", text=tiny_study)), [])
    wider = StudySpec.load(make_study(name="w", text=tiny_study.replace("high = 2.0", "high = 9.0")))
    with pytest.raises(StudyError, match="another problem"):
        regret.check_problem(table, wider, "w")
    settings = tiny_study.replace('name = "STRATEGY"', 'name = "STRATEGY"\npopulation = 4\nelite = 2')
    ea = StudySpec.load(make_study(name="ea", strategy="ea", text=settings))
    assert ea.label == "ea (elite=2, population=4)" and table.spec.label == "random"


def test_the_tabular_draw_keeps_each_opponent_and_seat_apart(make_study, tiny_study):
    spec = StudySpec.load(make_study(text=tiny_study.replace('["random"]', '["random", "mcts:simulations=2"]')))
    records = {
        "random": {"first": [100, 0, 0], "second": [0, 0, 100]},
        "mcts:simulations=2": {"first": [0, 100, 0], "second": [50, 0, 50]},
    }
    table = truth.Truth(
        spec, [{"values": {"C": c}, "games": 100, "records": records, "value": 0.5} for c in (0.25, 0.5, 1.0, 2.0)]
    )
    for seed in range(5):
        drawn = table.draw({"C": 1.0}, 10, seed)
        assert drawn["random"] == {"first": [10, 0, 0], "second": [0, 0, 10]}
        assert drawn["mcts:simulations=2"]["first"] == [0, 10, 0]
        wins, draws, losses = drawn["mcts:simulations=2"]["second"]
        assert draws == 0 and wins + losses == 10


def _tiny_truth(folder, by_c: dict) -> truth.Truth:
    """A truth table written into study folder `folder`: at each C, wins at rate by_c[C] against random."""
    spec = StudySpec.load(folder)
    rows = []
    for i, (c, rate) in enumerate(by_c.items()):
        records = {"random": {seat: [round(100 * rate), 0, 100 - round(100 * rate)] for seat in ("first", "second")}}
        rows.append(
            {
                "index": i,
                "problem": spec.problem(),
                "values": {"C": c},
                "games": 100,
                "seed": i,
                "records": records,
                "value": OBJECTIVES["winrate"].value(records),
            }
        )
    (folder / truth.TRUTH).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return truth.load(folder)


@pytest.mark.slow
def test_compare_scores_each_budget_s_recommendation_by_the_truth(make_study, tiny_study, capsys):
    from tuner.cli import main

    text = tiny_study.replace('["random"]', '["mcts:simulations=30"]')  # trials that differ: not all won
    table = _tiny_truth(make_study(name="truth", text=text), {0.25: 0.3, 0.5: 0.9, 1.0: 0.6, 2.0: 0.5})
    folders = [make_study(name=f"s{seed}", text=text.replace("seed = 3", f"seed = {seed}")) for seed in (1, 2)]
    for folder in folders:
        run(folder, progress=False)  # 4 trials of 2 games
    curves = regret.regret_curves(table, folders, budgets=[2, 8])
    worth = {0.25: 0.3, 0.5: 0.9, 1.0: 0.6, 2.0: 0.5}
    for k, folder in enumerate(folders):
        trials = sorted(load(folder)[1].get_trials(), key=lambda t: t.number)
        first = trials[0].params["C"]  # after 2 games, the only point tried is the recommendation
        assert curves["random"]["value"][k][0] == worth[first]
        assert curves["random"]["regret"][k][0] == pytest.approx(0.9 - worth[first])
    changed = [v[0] != v[1] for v in curves["random"]["value"]]
    assert any(changed), "choose seeds whose recommendation changes between the budgets, or this tests nothing"
    out = folders[0].parent / "cmp"
    args = ["study", "compare", *map(str, folders), "--truth", str(folders[0].parent / "truth"), "--budgets", "2,8"]
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    mean = np.mean([r[0] for r in curves["random"]["regret"]])
    assert f"{mean:8.3f} [" in printed and "true value at 8" in printed
    values = [v[1] for v in curves["random"]["value"]]
    low, high = np.mean(values) + np.array([-1, 1]) * 12.706 * np.std(values, ddof=1) / np.sqrt(2)  # t, 1 df
    assert f"| {np.mean(values):.3f} [{low:.3f}, {high:.3f}] |" in (out / "regret.md").read_text()  # true value


@pytest.mark.slow
def test_compare_without_a_truth_table_reports_the_replayed_recommendations(make_study, tiny_study, capsys):
    from tuner.cli import main

    folders = [
        make_study(name=f"s{seed}", text=tiny_study.replace("seed = 3", f"seed = {seed}") + VALIDATE) for seed in (1, 2)
    ]
    recommended = []
    for folder in folders:
        run(folder, progress=False)
        recommended += [r["value"] for r in status(folder)["validated"] if "recommended" in r["role"]]
    assert main(["study", "compare", *map(str, folders), "--out", str(folders[0].parent / "cmp")]) == 0
    printed = capsys.readouterr().out
    assert f"| random | 2 of 2 | {np.mean(recommended):.4g} [" in printed


def test_compare_clips_the_seeds_interval_to_what_d_can_take_and_names_the_minimum():
    """Two seeds' replayed D of 10 and 150 (one opponent, 100 games a seat, so D lies in [0, 200]): Student's t
    with one degree of freedom reaches far below 0 and above 200; the table says [0, 200], and D's best observed
    values are minima."""
    records = [{"mcts1": {"first": [50, 0, 50], "second": [50, 0, 50]}}]
    replayed = {"s": [{"value": 10.0, "records": records}, {"value": 150.0, "records": records}]}
    curves = {"s": [(np.array([200]), [40.0], 0), (np.array([200]), [60.0], 1)]}
    text = "\n".join(validated_table(replayed, curves, "dda_d", "MINIMIZE"))
    assert "| s | 2 of 2 | 80 [0, 200] | 50 |" in text and "minima of noisy trials" in text
    assert "maxima" in "\n".join(validated_table(replayed, curves, "winrate", "MAXIMIZE"))


def test_the_bench_plays_each_study_s_own_games_and_seeds(make_study, tiny_study, monkeypatch):
    table = _tiny_truth(make_study(name="truth", text=tiny_study), {0.25: 0.3, 0.5: 0.9, 1.0: 0.6, 2.0: 0.5})
    folder = make_study(name="five", text=tiny_study.replace("games = 1\n", "games = 5\n"))  # 10 games a trial
    drawn = []
    real = table.draw
    monkeypatch.setattr(table, "draw", lambda values, games, seed: drawn.append(games) or real(values, games, seed))
    curves = regret.bench(table, [folder], seeds=4, budgets=[20, 40])
    assert drawn == [5] * 4 * 4  # four trials a seed, each of the study's 5 games a seat
    assert len({json.dumps(v) for v in curves["random"]["value"]}) > 1  # the seeds are different runs


def test_the_bench_plans_lsi_for_each_budget(make_study, tiny_study, monkeypatch):
    table = _tiny_truth(make_study(name="truth", text=tiny_study), {0.25: 0.3, 0.5: 0.9, 1.0: 0.6, 2.0: 0.5})
    text = tiny_study.replace('name = "STRATEGY"', 'name = "STRATEGY"\nbudget = 50')
    folder = make_study(name="lsi", strategy="lsi", text=text)
    planned = []
    real = regret.make_sampler
    monkeypatch.setattr(regret, "make_sampler", lambda spec: planned.append(spec.settings["budget"]) or real(spec))
    curves = regret.bench(table, [folder], seeds=2, budgets=[8, 40])
    assert planned == [4, 20] * 2 and list(curves) == ["lsi (budget=each budget)"]  # 2 games a trial
    for seed, values in zip(curves["lsi (budget=each budget)"]["seeds"], curves["lsi (budget=each budget)"]["value"]):
        lone = [
            regret._tabular_study(table, replace(StudySpec.load(folder), seed=seed, settings={"budget": t}), [b])[0]
            for t, b in ((4, 8), (20, 40))
        ]
        assert values == lone  # each budget read at the end of the run planned for it


def test_significance_pairs_seeds_and_marks_only_the_reference(make_study, tiny_study):
    def curves(**regrets):
        return {name: {"seeds": list(range(len(r))), "regret": [[x] for x in r]} for name, r in regrets.items()}

    p = regret.significance(curves(a=[0.0, 0.0, 0.0], b=[0.1, 0.1, 0.1], c=[0.0, 0.0, 0.0]), 0)
    assert np.isnan(p["a"]) and p["b"] == 0.0 and np.isnan(p["c"])  # worse on every seed; the same on every seed
    # b is worse than a by about 0.01 on each seed, while both vary a lot across seeds: pairing sees it
    a, b = [0.0, 0.2, 0.4, 0.1, 0.3], [0.011, 0.209, 0.412, 0.108, 0.311]
    paired = regret.significance(curves(a=a, b=b), 0)["b"]
    unpaired = regret.significance(
        {
            "a": {"seeds": [0, 1, 2, 3, 4], "regret": [[x] for x in a]},
            "b": {"seeds": [5, 6, 7, 8, 9], "regret": [[x] for x in b]},
        },
        0,
    )["b"]
    assert paired < 0.001 < 0.5 < unpaired


def test_the_replayed_d_interval_covers_the_true_d():
    from tuner.study.recommend import interval

    rng = np.random.default_rng(0)
    probs = {
        "a": {"first": [0.5, 0.1, 0.4], "second": [0.3, 0.2, 0.5]},
        "b": {"first": [0.6, 0.0, 0.4], "second": [0.45, 0.1, 0.45]},
    }

    def trial(games):
        return {o: {seat: rng.multinomial(games, p).tolist() for seat, p in s.items()} for o, s in probs.items()}

    truth_d = np.mean([OBJECTIVES["dda_d"].value(trial(20)) for _ in range(20000)])  # E[D] of a 20-game trial
    covered = 0
    for k in range(100):
        replicates = [trial(20) for _ in range(5)]
        low, high = interval("dda_d", replicates, k)
        covered += low <= truth_d <= high
    assert 88 <= covered <= 99  # about 95 of 100
    assert interval("dda_d", [trial(20)], 0) is None  # one replicate: no interval rather than a wrong one
    one_game = [trial(1) for _ in range(10)]  # the win rate pools its replicates: ten 1-game trials are 10 games
    low, high = interval("winrate", one_game, 0)
    pooled = {o: {s: np.sum([r[o][s] for r in one_game], axis=0).tolist() for s in ("first", "second")} for o in probs}
    assert low < OBJECTIVES["winrate"].value(pooled) < high


def test_a_budget_counts_finished_trials_not_failed_ones(make_study, tiny_study):
    import optuna

    table = _tiny_truth(make_study(name="truth", text=tiny_study), {0.25: 0.3, 0.5: 0.9, 1.0: 0.6, 2.0: 0.5})
    spec = StudySpec.load(make_study(text=tiny_study))  # 2 games a trial
    study = optuna.create_study(direction="maximize")
    dist = {"C": optuna.distributions.FloatDistribution(0.1, 2.0)}
    for c, v, state in ((0.25, 0.5, "COMPLETE"), (1.0, None, "FAIL"), (0.5, 1.0, "COMPLETE")):
        study.add_trial(
            optuna.trial.create_trial(
                params={"C": c},
                distributions=dist,
                value=v,
                state=getattr(optuna.trial.TrialState, state),
                user_attrs={} if v is None else {"reward": v},
            )
        )
    # 4 games are two finished trials: the failed one between them does not use up the budget
    assert regret.scores(table, spec, study.get_trials(), [2, 4]) == [0.3, 0.9]


@pytest.mark.slow
def test_a_finished_study_run_again_changes_nothing_and_its_report_leads_with_the_verdict(
    make_study, tiny_study, capsys
):
    from tuner.cli import main

    folder = make_study(text=tiny_study + VALIDATE)
    assert main(["study", "run", str(folder)]) == 0
    first = capsys.readouterr().out
    files = {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    stamps = {p: p.stat().st_mtime_ns for p in files}
    assert main(["study", "run", str(folder)]) == 0
    again = capsys.readouterr().out
    assert "nothing left to run" in again and "nothing left to run" not in first
    now = {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    assert now == files and {p: p.stat().st_mtime_ns for p in now} == stamps
    spec, study = load(folder)
    verdict = validate.verdict_text(spec, validate.verdict(spec, validate.run(folder, spec, study, play=False)))
    assert verdict in first and verdict in again  # the status printed leads with the answer
    report = (folder / "report" / "report.md").read_text()
    assert report.split("## Recommendation\n\n")[1].startswith(verdict)
    assert "minus the default [95% CI], p" in report


def test_a_recommendation_recomputed_in_its_last_bits_is_the_point_replayed_before():
    """CMA-ES's mean, recomputed on another machine, may differ in its last bit: still the same point (else its
    replay is lost and played again); a difference in the 11th digit is another point."""
    assert validate._key({"a": 2.2743441312928376, "n": 2}) == validate._key({"a": 2.274344131292838, "n": 2.0})
    assert validate._key({"a": 2.2743441313}) != validate._key({"a": 2.2743441312})


def test_a_named_baseline_is_found_by_its_values_whatever_its_name(make_study, tiny_study):
    """A point named "default (z_a, z_0 of TABLE_1Z)" holds the roles' separator: the baseline is its values."""
    text = tiny_study + VALIDATE + 'baseline = "old (a, b)"\n[validate.points]\n"old (a, b)" = {C = 2.0}\n'
    spec = StudySpec.load(make_study(text=text))
    rec, old = (
        _replayed("recommended", 1.0, [([2, 0, 0], [0, 0, 0])] * 3),
        _replayed("top 1 (trial 2), old (a, b)", 2.0, [([1, 0, 1], [0, 0, 0])] * 3),
    )
    rec["value"], old["value"], rec["interval"], old["interval"] = 1.0, 0.5, None, None
    assert validate.verdict(spec, [rec, old])["baseline"] is old
    with pytest.raises(StudyError, match='baseline must be one of "default", "old \\(a, b\\)", got \'new\''):
        StudySpec.load(make_study(name="bad", text=text.replace('baseline = "old (a, b)"', 'baseline = "new"')))
