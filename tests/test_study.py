"""Study folders: schema and errors, objectives by hand, reproducibility, resume, crash recovery, workers."""

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest

from tuner.cli import main
from tuner.study import objective
from tuner.study.runner import load, run, run_trials, status, trial_seed
from tuner.study.sampling import distributions, suggest
from tuner.study.spec import KEYS, TEMPLATES, StudyError, StudySpec, render


def trials_of(folder):
    _, study = load(folder)
    return sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)


# --- the schema -------------------------------------------------------------------------------


def test_templates_render_to_valid_commented_studies():
    import tomllib

    for name, template in TEMPLATES.items():
        text = render(template, name)
        assert text.count("\n# ") >= 8  # every key is explained
        lines = text.splitlines()
        table = None  # the [table] a line sits in; KEYS are the top level's
        for i, line in enumerate(lines[1:], 1):  # each explained as KEYS says, so a new game or objective shows
            table = line if line.startswith("[") else table
            key = line.partition(" = ")[0]
            if table is None and key in KEYS and " = " in line and not line.startswith("#"):
                j = i
                while j > 0 and lines[j - 1].startswith("#"):
                    j -= 1
                assert f"# {KEYS[key]}" in lines[j:i], (name, key)
        spec = StudySpec.from_dict(tomllib.loads(text))
        assert spec.agent_spec(spec.default_values())


@pytest.mark.parametrize(
    "change, message",
    [
        ({'game = "connect4"': 'game = "conect4"'}, "game 'conect4' is unknown (did you mean 'connect4'?)"),
        ({"games = 1": "gmaes = 1"}, "unknown key 'gmaes' (did you mean 'games'?)"),
        ({"high = 2.0": "high = 0.05"}, "[space.C]: bad range [0.1, 0.05]"),
        ({'name = "random"': 'name = "bayes"'}, "strategy 'bayes' is unknown"),
        ({'"random"]': '"randum"]'}, "opponent 'randum': unknown agent"),
        ({"c={C}": "c={D}"}, "placeholder {D} is not a parameter of [space]"),
        ({'objective = "winrate"': 'objective = "elo"'}, "objective 'elo' is unknown; choose from winrate, dda_d"),
        ({"games = 1": "games = 0"}, "games must be at least 1"),
        ({"values = [0.25": "values = [0.25, 0.25"}, "values must be distinct"),
        ({"trials = 4": "trials = 4\ntotal_games = 20"}, "give the budget as trials or as total_games, not both"),
        ({"high = 2.0": "high = 2.0\ninteger = 1"}, "[space.C]: integer must be true or false, got 1"),
        ({"high = 2.0": "high = 2.0\ninteger = true"}, "[space.C]: integer = true needs whole-number values"),
    ],
)
def test_bad_studies_are_one_line_errors(tmp_path, change, message, make_study):
    folder = make_study(**change)
    with pytest.raises(StudyError, match=re.escape(message)):
        StudySpec.load(folder)


@pytest.mark.slow
def test_cli_errors_exit_2_with_one_line_and_write_nothing(tmp_path, capsys, make_study, tiny_study):
    folder = make_study(text=tiny_study + "\n[[broken")
    assert main(["study", "run", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sparring study run: error:") and "malformed TOML" in err and "\n" not in err
    assert sorted(p.name for p in folder.iterdir()) == ["study.toml"]
    assert main(["study", "status", str(tmp_path)]) == 2
    assert "is not a study folder (no study.toml)" in capsys.readouterr().err
    good = make_study(name="good")
    assert main(["study", "run", str(good), "--storage", "sqlite:///x.db"]) == 2
    assert "unsupported storage" in capsys.readouterr().err
    assert main(["study", "run", str(good), "--storage", "postgresql://nobody@127.0.0.1:1/none"]) == 2
    assert "cannot reach storage" in capsys.readouterr().err
    assert sorted(p.name for p in good.iterdir()) == ["study.toml"]


def test_the_budget_may_be_given_in_games(tmp_path, make_study):
    folder = make_study(**{"trials = 4": "total_games = 9"})
    assert StudySpec.load(folder).trials == 5  # two games a trial (one opponent, one game per seat)


def test_study_new_writes_a_template_once(tmp_path, capsys):
    folder = tmp_path / "mine"
    assert main(["study", "new", str(folder), "--template", "dsa-grid"]) == 0
    assert StudySpec.load(folder).objective == "dda_d"
    assert main(["study", "new", str(folder)]) == 2
    assert "exists already" in capsys.readouterr().err


# --- objectives, by hand ---------------------------------------------------------------------


def test_objectives_by_hand():
    records = {"a": {"first": [5, 0, 3], "second": [2, 1, 5]}, "b": {"first": [4, 4, 0], "second": [0, 0, 8]}}
    # eq. 11: |5 - 3| + |2 - 5| + |4 - 0| + |0 - 8|
    assert objective.OBJECTIVES["dda_d"].value(records) == 2 + 3 + 4 + 8
    assert objective.OBJECTIVES["dda_d"].reward(17, records) == pytest.approx(1 - 17 / 32)
    assert objective.OBJECTIVES["balance"].value(records) == pytest.approx((2 / 8 + 3 / 8 + 4 / 8 + 8 / 8) / 4)
    # scores: a (7 + 0.5) / 16, b (4 + 2) / 16
    assert objective.OBJECTIVES["winrate"].value(records) == pytest.approx((7.5 / 16 + 6 / 16) / 2)


# --- running ---------------------------------------------------------------------------------


def test_same_spec_and_seed_reproduce_the_same_trials_and_resuming_continues_the_same_search(tmp_path, make_study):
    straight = make_study("straight", strategy="ntbea")
    run(straight, progress=False)
    resumed = make_study("resumed", strategy="ntbea")
    run(resumed, trials=2, progress=False)
    assert status(resumed)["trials"]["complete"] == 2
    run(resumed, progress=False)  # study.toml's 4 trials: only the missing two run
    a, b = trials_of(straight), trials_of(resumed)
    assert len(a) == len(b) == 4
    assert [t.params for t in a] == [t.params for t in b]
    assert [t.user_attrs["records"] for t in a] == [t.user_attrs["records"] for t in b]
    runs = [json.loads(line) for line in (resumed / "runs.jsonl").read_text().splitlines()]
    assert len(runs) == 2 and runs[0]["environment"]["seed"] == 3 and "commit" in runs[0]["environment"]


def test_a_changed_study_toml_is_refused(tmp_path, make_study):
    folder = make_study()
    run(folder, trials=1, progress=False)
    text = (folder / "study.toml").read_text()
    (folder / "study.toml").write_text(text.replace("seed = 3", "seed = 4"))
    with pytest.raises(StudyError, match="study.toml changed since the study started"):
        run(folder, progress=False)
    (folder / "study.toml").write_text(text.replace("trials = 4", "trials = 2"))  # the budget may change
    assert run(folder, progress=False)["trials"]["complete"] == 2


def test_a_study_refuses_more_trials_once_a_net_it_plays_is_another_file(tmp_path, make_study, monkeypatch):
    """study.toml names a net, not its weights: a net file replaced under the same name (as when a better net ships)
    would mix two nets' trials, so the study records each net's digest and refuses to go on with another."""
    import torch

    import nets
    from nets import shipped

    def save(path, seed):
        torch.manual_seed(seed)
        nets.save(path, nets.build("connect4", filters=4, blocks=1))

    net = tmp_path / "net.pt"
    save(net, 0)
    folder = make_study(
        **{
            'agent = "mcts:simulations=30,c={C}"': f'agent = "az:net={net},simulations=4,c_puct={{C}}"',
            "trials = 4": "trials = 1",
        }
    )
    assert run(folder, progress=False)["trials"]["complete"] == 1
    original = net.read_bytes()
    _, study = load(folder)
    assert study.user_attrs["nets"] == {str(net): hashlib.sha256(original).hexdigest()[:12]}
    save(net, 1)  # another net under the same path
    with pytest.raises(
        StudyError, match=rf"started with the net '{re.escape(str(net))}' at digest \w{{12}}, now \w{{12}}"
    ):
        run(folder, trials=2, progress=False)
    old = tmp_path / "shipped" / "net-v1.pt"  # the replaced file shipped under another name: the refusal says which
    old.parent.mkdir()
    old.write_bytes(original)
    monkeypatch.setattr(shipped, "shipped_nets", lambda: {"net-v1": old})
    with pytest.raises(StudyError, match=r"at digest \w{12} \(that file ships now as 'net-v1'\), now"):
        run(folder, trials=2, progress=False)
    net.write_bytes(original)
    assert run(folder, trials=2, progress=False)["trials"]["complete"] == 2
    # a study from before nets were recorded records them when it next runs; one without a net records none
    plain = make_study("plain")
    run(plain, trials=1, progress=False)
    assert load(plain)[1].user_attrs["nets"] == {}
    journal = (folder / "journal.log").read_bytes()
    assert not run(folder, trials=2, progress=False)["updated"]  # finished: nothing on disk changes
    assert (folder / "journal.log").read_bytes() == journal


@pytest.mark.parametrize("change", ["replaced", "deleted"])
def test_a_net_replaced_while_a_study_runs_stops_it_before_the_next_batch(tmp_path, make_study, monkeypatch, change):
    """A long run outlives a `git pull` that brings a new net under the same name (or takes it away): the workers
    check the nets before each batch, so no trial after the change plays another net, and the refusal is one line."""
    import torch

    import nets
    from tuner.study import runner

    net = tmp_path / "net.pt"
    torch.manual_seed(0)
    nets.save(net, nets.build("connect4", filters=4, blocks=1))
    original = net.read_bytes()
    folder = make_study(
        **{
            'agent = "mcts:simulations=30,c={C}"': f'agent = "az:net={net},simulations=4,c_puct={{C}}"',
            "trials = 4": "trials = 3\nbatch_trials = 1",
        }
    )
    played = runner.run_trials

    def then_change(*args, **kwargs):
        played(*args, **kwargs)
        if change == "deleted":
            net.unlink()
        else:
            torch.manual_seed(1)
            nets.save(net, nets.build("connect4", filters=4, blocks=1))  # the pull lands after the first batch

    monkeypatch.setattr(runner, "run_trials", then_change)
    expected = "started with the net" if change == "replaced" else rf"^{re.escape(str(folder))}: no network at"
    with pytest.raises(StudyError, match=expected):
        run(folder, progress=False)
    net.write_bytes(original)  # the study folder cannot be read without its net
    assert status(folder)["trials"]["complete"] == 1


def test_a_net_replaced_between_two_validation_replays_stops_them(tmp_path, make_study, monkeypatch):
    """The replays after the budget are as long as a batch of trials: each checks the nets before it plays, so the
    points replayed after a swap never mix another net into validation.jsonl."""
    import torch

    import nets
    from tuner.study import objective

    net = tmp_path / "net.pt"
    torch.manual_seed(0)
    nets.save(net, nets.build("connect4", filters=4, blocks=1))
    folder = make_study(
        **{
            'agent = "mcts:simulations=30,c={C}"': f'agent = "az:net={net},simulations=4,c_puct={{C}}"',
            "trials = 4": "trials = 3",
        }
    )
    with open(folder / "study.toml", "a") as f:
        f.write("\n[validate]\ntop = 3\ngames = 2\n")
    replay = objective.play_trials  # the trials' default was bound before; only the replays call this one

    def then_swap(*args, **kwargs):
        records = replay(*args, **kwargs)
        torch.manual_seed(1)
        nets.save(net, nets.build("connect4", filters=4, blocks=1))
        return records

    monkeypatch.setattr(objective, "play_trials", then_swap)
    with pytest.raises(StudyError, match="started with the net"):
        run(folder, progress=False)
    assert len((folder / "validation.jsonl").read_text().splitlines()) == 1


def test_workers_that_refuse_say_it_once_in_one_line(tmp_path, make_study, monkeypatch):
    """With --workers 2 each worker process checks the nets itself: its refusal reaches the caller as the one line
    it is, not as a traceback from every process and "a worker failed"."""
    import torch

    import nets
    from tuner.study import runner

    net = tmp_path / "net.pt"
    for seed in (0, 1):
        torch.manual_seed(seed)
        nets.save(net, nets.build("connect4", filters=4, blocks=1))
        if seed == 0:
            folder = make_study(
                **{
                    'agent = "mcts:simulations=30,c={C}"': f'agent = "az:net={net},simulations=4,c_puct={{C}}"',
                    "trials = 4": "trials = 1",
                }
            )
            run(folder, progress=False)  # records net 0
    monkeypatch.setattr(runner, "check_nets", lambda *args: None)  # this process lets it through; the workers do not
    with pytest.raises(StudyError, match=r"^\S+ started with the net .* now \w{12}: trials of two nets would mix"):
        run(folder, workers=2, trials=3, progress=False)
    assert status(folder)["trials"]["complete"] == 1


def test_a_studys_nets_are_the_files_its_specs_play_az_alone_the_games_shipped_net(tmp_path, make_study, monkeypatch):
    """`az` with no net= plays the game's shipped net, the case a better shipped net would change unseen: it and
    `az:net=connect4` name one file under one key, a net-free evaluator is no file, and another net is its own key."""
    import torch

    import nets
    from nets import shipped

    files = {}
    for name, seed in (("connect4", 0), ("other", 1)):
        torch.manual_seed(seed)
        files[name] = tmp_path / f"{name}.pt"
        nets.save(files[name], nets.build("connect4", filters=4, blocks=1))
    monkeypatch.setattr(shipped, "shipped_nets", lambda: files)
    alone = {'agent = "mcts:simulations=30,c={C}"': 'agent = "az:simulations=4,c_puct={C}"'}
    others = {'opponents = ["random"]': 'opponents = ["az:net=connect4", "az:net=uniform", "az:net=other", "random"]'}
    digest = {name: hashlib.sha256(path.read_bytes()).hexdigest()[:12] for name, path in files.items()}
    assert digest["connect4"] != digest["other"]
    assert StudySpec.load(make_study("alone", **alone)).nets() == {"connect4": digest["connect4"]}
    assert StudySpec.load(make_study("all", **alone, **others)).nets() == digest


def test_a_run_started_beside_the_one_that_creates_the_study_joins_it(make_study):
    from tuner.study.runner import load
    from tuner.study.storage import open_storage

    folder = make_study()
    # the moment between another run's create_study and its stamping the study with study.toml's identity
    optuna.create_study(study_name=folder.name, storage=open_storage(folder, None), direction="maximize")
    spec, study = load(folder, create=True)
    assert study.user_attrs["objective"] == "winrate"
    assert run(folder, trials=1, progress=False)["trials"]["complete"] == 1
    (folder / "study.toml").write_text((folder / "study.toml").read_text().replace("seed = 3", "seed = 4"))
    with pytest.raises(StudyError, match="study.toml changed since the study started"):
        load(folder, create=True)  # once stamped, a changed study.toml is still refused


@pytest.mark.parametrize("strategy", ["grid", "nmc", "lsi", "ea", "cmaes", "optuna-tpe", "optuna-cmaes", "optuna-gp"])
def test_every_strategy_runs_a_study(tmp_path, strategy, make_study):
    folder = make_study(strategy=strategy)
    summary = run(folder, trials=3, progress=False)
    assert summary["trials"]["complete"] == 3 and summary["games"] == 6
    for t in trials_of(folder):
        assert 0.1 <= t.params["C"] <= 2.0
        if strategy in ("grid", "nmc", "lsi", "ea"):
            assert t.params["C"] in (0.25, 0.5, 1.0, 2.0)


# the number of simulations, a whole number, searched as a range by the strategies that search ranges
INTEGER_RANGE = {
    "mcts:simulations=30,c={C}": "mcts:simulations={n},c=1.0",
    "[space.C]\nvalues = [0.25, 0.5, 1.0, 2.0]\nlow = 0.1\nhigh = 2.0": "[space.n]\nlow = 2\nhigh = 9\ninteger = true",
}


@pytest.mark.parametrize("strategy", ["cmaes", "optuna-tpe", "optuna-cmaes", "optuna-gp", "skopt-gp", "grid"])
def test_a_range_of_integers_is_searched_in_whole_numbers(strategy, make_study):
    if strategy == "skopt-gp":
        pytest.importorskip("skopt", reason="scikit-optimize is optional (pip install scikit-optimize)")
    folder = make_study(strategy=strategy, **INTEGER_RANGE)
    spec = StudySpec.load(folder)
    assert spec.space.params[0].values == (2, 4, 6, 7, 9)  # the grid's: linspace(2, 9, 5) rounded
    run(folder, trials=6, progress=False)
    values = [t.params["n"] for t in trials_of(folder)]
    assert all(isinstance(v, int) or float(v).is_integer() for v in values) and all(2 <= v <= 9 for v in values)
    assert len(set(values)) >= 2  # searched, not stuck at one value
    if strategy == "cmaes":  # its own recommendation, its mean, is rounded too
        assert isinstance(status(folder)["recommended"]["n"], int)


def test_skopt_gp_runs_a_study_where_scikit_optimize_is_installed(tmp_path, make_study):
    pytest.importorskip("skopt", reason="scikit-optimize is optional (pip install scikit-optimize)")
    folder = make_study(strategy="skopt-gp")
    assert run(folder, trials=3, progress=False)["trials"]["complete"] == 3


@pytest.mark.slow
def test_two_workers_share_a_grid_without_evaluating_a_point_twice(tmp_path, make_study, played):
    folder = make_study(strategy="grid")
    run(folder, workers=2, progress=False)
    trials = played(trials_of(folder))
    assert sorted(t.params["C"] for t in trials) == [0.25, 0.5, 1.0, 2.0]


def test_workers_that_start_trials_at_once_do_not_overshoot_the_budget(tmp_path, make_study, played):
    folder = make_study(strategy="grid")
    run(folder, trials=1, progress=False)
    spec, study = load(folder)
    dists = distributions(spec)
    other = study.ask()  # another worker saw one trial finished of two and started one
    suggest(other, dists)
    run_trials(study, spec, dists, target=2, count=1)  # so did this one: its trial is pruned, unplayed
    assert [t.state.name for t in trials_of(folder)] == ["COMPLETE", "RUNNING", "PRUNED"]
    study.tell(other, state=optuna.trial.TrialState.FAIL)  # the other worker died: its point is played again
    run(folder, trials=3, progress=False)  # the grid goes on where it was: the pruned trial took no point
    trials = played([t for t in trials_of(folder) if t.number != other.number])
    assert sorted(t.params["C"] for t in trials) == [0.25, 0.5, 1.0]


@pytest.mark.slow
def test_trials_played_together_are_the_trials_played_one_by_one(tmp_path, make_study):
    """batch_trials = 3: three grid points' games in one pool, an az agent sharing its search across them,
    give each point the records it gets alone; the budget still counts finished trials."""
    agent = {
        'agent = "mcts:simulations=30,c={C}"': 'agent = "az:net=playout,simulations=8,c_puct={C}"',
        'opponents = ["random"]': 'opponents = ["mcts:simulations=8", "random"]',
        "games = 1": "games = 2",
    }
    alone = make_study("alone", strategy="grid", **agent)
    together = make_study("together", strategy="grid", **agent, **{"seed = 3": "seed = 3\nbatch_trials = 3"})
    run(alone, progress=False)
    assert run(together, trials=4, progress=False)["trials"]["complete"] == 4
    a, b = trials_of(alone), trials_of(together)
    assert [t.params for t in a] == [t.params for t in b]
    assert [t.user_attrs["records"] for t in a] == [t.user_attrs["records"] for t in b]
    assert len({str(t.user_attrs["records"]) for t in a}) > 1  # the points' games differ


@pytest.mark.slow
def test_kill_9_then_run_again_loses_nothing_and_reruns_the_dead_trial(tmp_path, make_study):
    # 0.05 s a move: a trial lasts about a second on any machine, so the poll below sees it running
    folder = make_study(strategy="grid", **{"simulations=30": "time=0.05", "games = 1": "games = 2"})
    command = [sys.executable, "-m", "tuner.cli", "study", "run", str(folder), "--json"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 240
    try:
        while time.time() < deadline and proc.poll() is None:  # kill it in the middle of its second trial
            time.sleep(0.1)
            if (folder / "journal.log").exists():
                try:
                    trials = trials_of(folder)
                except StudyError:  # the journal is there, the study not yet in it
                    continue
                playing = [t for t in trials if t.state == optuna.trial.TrialState.RUNNING and t.params]
                if [t.state for t in trials].count(optuna.trial.TrialState.COMPLETE) >= 1 and playing:
                    break
        assert proc.poll() is None, "the study finished before the test could kill it"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    before = trials_of(folder)
    finished = {t.number: t.user_attrs["records"] for t in before if t.state == optuna.trial.TrialState.COMPLETE}
    dead = [t for t in before if t.state == optuna.trial.TrialState.RUNNING]
    assert finished and len(dead) == 1
    assert main(["study", "run", str(folder), "--json"]) == 0
    after = trials_of(folder)
    assert {n: after[n].user_attrs["records"] for n in finished} == finished  # nothing lost or changed
    assert after[dead[0].number].state == optuna.trial.TrialState.FAIL
    rerun = [t for t in after if t.user_attrs.get("retry_of") == dead[0].number]
    assert len(rerun) == 1 and rerun[0].params == dead[0].params and rerun[0].state.name == "COMPLETE"
    complete = [t for t in after if t.state == optuna.trial.TrialState.COMPLETE]
    assert len(complete) == 4 and sorted(t.params["C"] for t in complete) == [0.25, 0.5, 1.0, 2.0]
    assert rerun[0].user_attrs["seed"] == trial_seed(3, dead[0].number)  # the games the dead trial would have played


def test_status_of_a_folder_that_has_not_run(tmp_path, capsys, make_study):
    folder = make_study()
    assert main(["study", "status", str(folder)]) == 2
    assert "has not run yet" in capsys.readouterr().err
    assert not (folder / "journal.log").exists()


def test_cli_run_and_status(tmp_path, capsys, make_study):
    folder = make_study()
    assert main(["study", "run", str(folder), "--trials", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["trials"]["complete"] == 2 and set(summary["best"]["params"]) == {"C"}
    assert main(["study", "status", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 trials finished" in out and "best observed: trial" in out and "recommended: C = " in out
    assert Path(folder / "journal.log").exists()


def test_report_and_compare(tmp_path, capsys, make_study):
    folders = []
    for strategy in ("random", "grid"):
        for seed in (1, 2):
            folder = make_study(f"{strategy}-{seed}", strategy=strategy, **{"seed = 3": f"seed = {seed}"})
            run(folder, trials=2, progress=False)
            folders.append(folder)
    assert main(["study", "report", str(folders[0])]) == 0
    text = (folders[0] / "report" / "report.md").read_text()
    best = status(folders[0])["best"]
    wins, draws, losses = best["records"]["random"]["first"]
    assert f"| `random` | first | {wins} | {draws} | {losses} |" in text and "win rate [95% CI]" in text
    assert (folders[0] / "report" / "objective.png").stat().st_size > 1000
    assert (folders[0] / "report" / "slices.png").stat().st_size > 1000
    out = tmp_path / "cmp"
    assert main(["study", "compare", *map(str, folders), "--out", str(out)]) == 0
    table = (out / "compare.md").read_text()
    assert "| grid" in table and "| random" in table and "| 2 |" in table
    assert (out / "compare.png").stat().st_size > 1000
    other = make_study("other", **{'objective = "winrate"': 'objective = "balance"'})
    run(other, trials=1, progress=False)
    assert main(["study", "compare", str(folders[0]), str(other), "--out", str(out)]) == 2
    assert "compare one objective" in capsys.readouterr().err


def test_the_stock_optuna_cli_reads_a_study(tmp_path, make_study):
    folder = make_study("readable")
    run(folder, trials=2, progress=False)
    optuna_cli = Path(sys.executable).parent / "optuna"
    out = subprocess.run(
        [
            str(optuna_cli),
            "best-trial",
            "--study-name",
            "readable",
            "--storage",
            str(folder / "journal.log"),
            "--storage-class",
            "JournalFileBackend",
            "-f",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["value"] == status(folder)["best"]["value"]


@pytest.mark.parametrize("setting", ["batch_trials", "workers"])
@pytest.mark.slow
def test_a_sequential_strategy_runs_one_trial_at_a_time(make_study, setting):
    """NTBEA asks one point until told: two trials at once would play one point twice. Refused in one line,
    before the storage exists; grid, which asks ahead, may batch."""
    folder = make_study(strategy="ntbea", **{"seed = 3": f"seed = 3\n{setting} = 2"})
    with pytest.raises(StudyError, match="strategy ntbea asks one point at a time"):
        run(folder, progress=False)
    assert not (folder / "journal.log").exists()
    grid = make_study("grid", strategy="grid", **{"seed = 3": f"seed = 3\n{setting} = 2"})
    assert run(grid, trials=2, progress=False)["trials"]["complete"] >= 2


def test_busy_time_counts_overlapping_trials_once_and_leaves_out_gaps():
    """Trials over minutes 0-10 and 5-15 side by side, then 30-40 after a stop: 25 min busy (not 30 summed,
    not the 40 min span)."""
    from datetime import datetime, timedelta
    from types import SimpleNamespace

    from tuner.study.report import busy_seconds

    t0 = datetime(2026, 1, 1)
    spans = [(30, 40), (0, 10), (5, 15), (6, 9)]
    trials = [
        SimpleNamespace(datetime_start=t0 + timedelta(minutes=a), datetime_complete=t0 + timedelta(minutes=b))
        for a, b in spans
    ]
    assert busy_seconds(trials) == 25 * 60
