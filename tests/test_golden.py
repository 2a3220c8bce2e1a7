"""Seeded matches replay move for move as recorded: a refactoring that changes any game fails here.

The record, tests/data/golden_matches.json, is written by `python -m tests.data.make_golden` and is
regenerated only for an intended change of behaviour (a fixed defect), said so in its commit.
"""

import json
from pathlib import Path

import pytest

from tests.data.make_golden import MATCHES, play

pytestmark = pytest.mark.slow

RECORD = json.loads((Path(__file__).parent / "data" / "golden_matches.json").read_text())


def test_the_record_covers_every_match_of_the_generator():
    assert [tuple(r["match"]) for r in RECORD] == MATCHES


@pytest.mark.parametrize("entry", RECORD, ids=lambda r: " vs ".join(r["match"][1:3]))
def test_seeded_match_replays_as_recorded(entry):
    assert play(tuple(entry["match"])) == entry["games"]
