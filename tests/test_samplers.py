"""Our strategies as ordinary Optuna samplers: one suite over every sampler, as Optuna tests its own."""

import itertools
import math
import subprocess
import sys
import textwrap

import optuna
import pytest
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

import tuner.samplers
from tuner.samplers import AllocationSampler, CMAESSampler, NMCSampler, NTBEASampler
from tuner.strategies import REGISTRY

optuna.logging.set_verbosity(optuna.logging.WARNING)

SIZED = {"lsi": {"budget": 40}, "ea": {"population": 10, "elite": 5}}  # settings sized for 30-60 trials


def factory(name):
    return lambda seed: AllocationSampler(name, seed=seed, **SIZED.get(name, {}))


SAMPLERS = {name: factory(name) for name in REGISTRY}  # name -> seeded factory: every strategy, none by hand
DISCRETE = [n for n in SAMPLERS if REGISTRY[n].compiled]
LEARNING = [n for n in DISCRETE if n not in ("grid", "random")]  # the baselines learn nothing by design


def test_every_named_sampler_is_its_strategy_over_the_one_adapter():
    named = {
        c.__name__: c
        for c in vars(tuner.samplers).values()
        if isinstance(c, type) and c is not AllocationSampler and issubclass(c, AllocationSampler)
    }
    assert sorted(named) == sorted(tuner.samplers.__all__[1:])
    for cls in named.values():
        sampler = cls(seed=0, **({"budget": 10} if cls.__name__ == "LSISampler" else {}))
        assert sampler.strategy in REGISTRY and cls.__name__.lower() == sampler.strategy + "sampler"


def mixed(trial):
    """A float, a log float, a stepped int and a categorical; best at x = 1, lr = 1e-2, n = 6, kind = b."""
    x = trial.suggest_float("x", -2.0, 2.0)
    lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
    n = trial.suggest_int("n", 0, 10, step=2)
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    return (x - 1.0) ** 2 + abs(lr - 1e-2) + abs(n - 6) + (kind != "b")


@pytest.mark.parametrize("name", SAMPLERS)
def test_every_suggestion_lies_in_its_distribution(name):
    study = optuna.create_study(sampler=SAMPLERS[name](0))
    study.optimize(mixed, n_trials=30)
    for t in study.trials:
        p = t.params
        assert -2 <= p["x"] <= 2 and 1e-4 <= p["lr"] <= 1 and p["n"] in range(0, 11, 2) and p["kind"] in "abc"
    if name in DISCRETE:  # after the first (random) trial, the values come from the documented grid
        later = study.trials[1:]
        assert {t.params["x"] for t in later} <= {-2.0, -1.0, 0.0, 1.0, 2.0}
        assert {t.params["n"] for t in later} <= {0, 2, 4, 6, 8, 10}
        assert {round(t.params["lr"], 12) for t in later} <= {1e-4, 1e-3, 1e-2, 0.1, 1.0}


def additive(trial):
    """90 grid points; drawn uniformly from the grid, its mean is 3 + 3 + 2/3 = 6.67; best 0 at (1, 6, b)."""
    x = trial.suggest_float("x", -2.0, 2.0)  # the grid -2, -1, 0, 1, 2
    n = trial.suggest_int("n", 0, 10, step=2)
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    return (x - 1.0) ** 2 + abs(n - 6) + (kind != "b")


@pytest.mark.parametrize("name", LEARNING)
def test_a_discrete_strategy_exploits_what_it_learnt(name):
    # the second half of 60 trials: far better than the grid's mean, so the rewards point the right way
    late = []
    for seed in range(3):
        study = optuna.create_study(sampler=SAMPLERS[name](seed))
        study.optimize(additive, n_trials=60)
        late += [t.value for t in study.trials[30:]]
    assert sum(late) / len(late) < 4.5 and min(late) <= 1.0


@pytest.mark.slow
def test_cmaes_searches_ranges():
    study = optuna.create_study(sampler=CMAESSampler(seed=0))
    study.optimize(
        lambda t: (t.suggest_float("x", -3, 3) - 1.3) ** 2 + (t.suggest_float("y", -3, 3) + 0.4) ** 2, n_trials=120
    )
    assert study.best_value < 0.05 and len({t.params["x"] for t in study.trials}) > 100  # not a grid


@pytest.mark.parametrize("name", SAMPLERS)
def test_minimising_f_and_maximising_minus_f_are_the_same_search(name):
    lows = optuna.create_study(direction="minimize", sampler=SAMPLERS[name](3))
    lows.optimize(mixed, n_trials=25)
    highs = optuna.create_study(direction="maximize", sampler=SAMPLERS[name](3))
    highs.optimize(lambda t: -mixed(t), n_trials=25)
    assert [t.params for t in lows.trials] == [t.params for t in highs.trials]


@pytest.mark.parametrize("name", SAMPLERS)
def test_a_resumed_study_continues_the_same_search(name, tmp_path):
    whole = optuna.create_study(sampler=SAMPLERS[name](5))
    whole.optimize(mixed, n_trials=20)
    storage = JournalStorage(JournalFileBackend(str(tmp_path / "journal.log")))
    first = optuna.create_study(study_name="s", storage=storage, sampler=SAMPLERS[name](5))
    first.optimize(mixed, n_trials=10)
    resumed = optuna.load_study(study_name="s", storage=storage, sampler=SAMPLERS[name](5))  # a new process, say
    resumed.optimize(mixed, n_trials=10)
    assert [t.params for t in resumed.trials] == [t.params for t in whole.trials]


@pytest.mark.parametrize("name", SAMPLERS)
def test_dynamic_search_spaces(name):
    def objective(trial):
        kind = trial.suggest_categorical("kind", ["small", "large"])
        if kind == "small":
            return trial.suggest_int("a", 0, 5) ** 2
        return 10 + trial.suggest_float("b", 0.0, 1.0) + trial.suggest_float("c", -1.0, 1.0) ** 2

    study = optuna.create_study(sampler=SAMPLERS[name](0))
    study.optimize(objective, n_trials=40)
    assert len(study.trials) == 40 and all(t.state.name == "COMPLETE" for t in study.trials)
    assert study.best_params["kind"] == "small"


@pytest.mark.parametrize("name", ["ntbea", "cmaes"])
def test_threads(name):
    study = optuna.create_study(sampler=SAMPLERS[name](0))
    study.optimize(mixed, n_trials=24, n_jobs=3)
    assert len(study.trials) == 24 and all(t.state.name == "COMPLETE" for t in study.trials)


@pytest.mark.slow
def test_two_processes_share_a_journal(tmp_path):
    path = tmp_path / "journal.log"
    worker = textwrap.dedent(f"""
        import optuna
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend
        from tuner.samplers import NTBEASampler
        from tests.test_samplers import mixed
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        storage = JournalStorage(JournalFileBackend({str(path)!r}))
        study = optuna.create_study(study_name="shared", storage=storage, sampler=NTBEASampler(seed=0),
                                    load_if_exists=True)
        study.optimize(mixed, n_trials=15)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", worker]) for _ in range(2)]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    storage = JournalStorage(JournalFileBackend(str(path)))
    trials = optuna.load_study(study_name="shared", storage=storage).trials
    assert len(trials) == 30 and all(t.state.name == "COMPLETE" for t in trials)
    assert sorted(t.number for t in trials) == list(range(30))


def test_grid_and_bad_settings():
    study = optuna.create_study(sampler=NTBEASampler(seed=0, grid={"x": [0.25, 0.5]}))
    study.optimize(lambda t: t.suggest_float("x", 0, 1) + t.suggest_int("k", 1, 3), n_trials=12)
    assert {t.params["x"] for t in study.trials[1:]} <= {0.25, 0.5}
    with pytest.raises(ValueError, match="outside"):
        bad = optuna.create_study(sampler=NTBEASampler(seed=0, grid={"x": [2.0]}))
        bad.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
    with pytest.raises(ValueError, match="unknown strategy"):
        AllocationSampler("annealing")
    with pytest.raises(ValueError, match="unknown settings"):
        NTBEASampler(population=3)
    with pytest.raises(ValueError, match="single-objective"):
        optuna.create_study(directions=["minimize", "minimize"], sampler=NMCSampler(seed=0)).optimize(
            lambda t: (t.suggest_float("x", 0, 1), 0.0), n_trials=3
        )


@pytest.mark.parametrize("name", SAMPLERS)
def test_pruned_failed_and_non_finite_trials_are_left_behind(name):
    # half the space is pruned, raises, or returns nan: a strategy that never learns from those repeats them
    def objective(trial):
        x = trial.suggest_float("x", 0.0, 4.0)
        y = trial.suggest_int("y", 0, 4)
        if x >= 2.0 and trial.number >= 3:
            kind = trial.number % 3
            if kind == 0:
                raise optuna.TrialPruned()
            if kind == 1:
                raise ValueError("the objective failed")
            return float("nan")
        return -((x - 1.0) ** 2) - (y - 2) ** 2

    study = optuna.create_study(direction="maximize", sampler=SAMPLERS[name](1))
    study.optimize(objective, n_trials=40, catch=(ValueError,))
    points = [(t.params["x"], t.params["y"]) for t in study.trials]
    longest = max(sum(1 for _ in group) for _, group in itertools.groupby(points))
    assert longest <= 8 and study.best_value >= -1.0


@pytest.mark.slow
def test_stepped_and_log_ranges_are_searched_on_their_grid():
    study = optuna.create_study(direction="maximize", sampler=NTBEASampler(seed=0))
    study.optimize(lambda t: t.suggest_float("x", 0.0, 0.3, step=0.1), n_trials=30)
    assert 0.3 in {t.params["x"] for t in study.trials}  # the top of the range, not 0.30000000000000004
    cma = optuna.create_study(sampler=CMAESSampler(seed=0))
    relative = []

    def objective(trial):
        a = trial.suggest_float("a", 0.0, 1.0, step=0.05)
        lr = trial.suggest_float("lr", 1e-6, 1.0, log=True)
        relative.append(trial.number > 0 and trial._is_relative_param("a", trial.distributions["a"]))
        return (a - 0.35) ** 2 + (math.log10(lr) + 3) ** 2

    cma.optimize(objective, n_trials=60)
    assert all(relative[1:])  # every proposal after the first was CMA-ES's own, none replaced by a random draw
    assert abs(math.log10(cma.best_params["lr"]) + 3) < 0.5  # searched in the logarithm


@pytest.mark.parametrize("name", SAMPLERS)
def test_a_multi_objective_study_is_refused_in_one_line_naming_what_to_use(name):
    study = optuna.create_study(directions=["maximize", "minimize"], sampler=SAMPLERS[name](0))
    with pytest.raises(ValueError, match="single-objective studies only: for several objectives use") as error:
        study.optimize(lambda t: (t.suggest_float("x", 0, 1), t.suggest_int("n", 0, 3)), n_trials=1)
    assert "\n" not in str(error.value) and "NSGAIISampler" in str(error.value)
