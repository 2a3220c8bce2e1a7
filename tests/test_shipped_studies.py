"""A shipped study, run again from its study.toml, reproduces its committed trials game for game."""

import shutil
from pathlib import Path

import pytest

from tuner.study.runner import load, run

STUDIES = Path(__file__).resolve().parent.parent / "studies"


def records(folder):
    _, study = load(folder)
    finished = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE"]
    return {t.number: (t.params, t.value, t.user_attrs["records"], t.user_attrs["seed"]) for t in finished}


@pytest.mark.slow
def test_the_dsa_grid_study_reproduces_its_committed_records(tmp_path):
    shipped = tmp_path / "shipped" / "dsa-grid-connect4"  # an Optuna study is named after its folder
    shutil.copytree(STUDIES / "dsa-grid-connect4", shipped, ignore=shutil.ignore_patterns("report", ".lock"))
    again = tmp_path / "again" / "dsa-grid-connect4"
    again.mkdir(parents=True)
    shutil.copy(shipped / "study.toml", again / "study.toml")
    run(again, progress=False)
    expected = records(shipped)
    assert len(expected) == 12 and records(again) == expected
