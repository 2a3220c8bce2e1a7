"""Shared fixtures: tiny study folders for the study tests (local and PostgreSQL)."""

import os
from pathlib import Path

import optuna
import pytest

# One torch thread for the suite and every process it starts (before torch loads): the nets here are tiny, and
# beside another busy process torch's threads on 2 cores stall each other, tens of times slower (a script test
# measured 593 s instead of 32 s); OMP_NUM_THREADS set by the caller wins.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# a study small enough for tests: MCTS with a tuned C against random, one game per seat
TINY = """
game = "connect4"
agent = "mcts:simulations=30,c={C}"
opponents = ["random"]
objective = "winrate"
games = 1
trials = 4
seed = 3
[strategy]
name = "STRATEGY"
[space.C]
values = [0.25, 0.5, 1.0, 2.0]
low = 0.1
high = 2.0
"""


def _make_study(tmp_path, name="s", strategy="random", text=TINY, **replace):
    folder = tmp_path / name
    folder.mkdir()
    text = text.replace("STRATEGY", strategy)
    for old, new in replace.items():
        text = text.replace(old, new)
    (folder / "study.toml").write_text(text)
    return folder


@pytest.fixture
def make_study(tmp_path):
    """make_study(name="s", strategy="random", text=TINY, **replace): a study folder under tmp_path."""
    return lambda *args, **kwargs: _make_study(tmp_path, *args, **kwargs)


@pytest.fixture
def tiny_study():
    """The text of TINY's study.toml, with STRATEGY to replace."""
    return TINY


def _played(trials):
    """The trials that played: complete ones; anything else may only be a surplus trial, pruned unplayed."""
    assert all(t.state == optuna.trial.TrialState.PRUNED and not t.params for t in trials if t.state.name != "COMPLETE")
    return [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]


@pytest.fixture
def played():
    return _played


@pytest.fixture
def nim(monkeypatch):
    """examples/nim registered as another package registers it (an entry point in sparring.games), in-process."""
    from importlib.metadata import EntryPoint

    import games

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "examples" / "nim"))
    point = EntryPoint(name="nim", value="sparring_nim:Nim", group=games.ENTRY_POINTS)
    monkeypatch.setattr(games, "entry_points", lambda group: [point] if group == games.ENTRY_POINTS else [])
    monkeypatch.delitem(games._LOADED, "nim", raising=False)
    yield "nim"
    games._LOADED.pop("nim", None)
