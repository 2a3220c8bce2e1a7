"""Rating math against hand-computed cases and known truths."""

import math

import numpy as np
import pytest

from tuner.match import Record, wilson
from tuner.match.ratings import ELO_PER_NAT, alphadda_elo, bradley_terry, expected


def test_elo_expectation():
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(1 / (1 + 10**-1))


def test_alphadda_update_by_hand():
    # one round, 10 games, A wins 7 of them: e(A) = 1500 + 8 * (7 - 10 * 0.5) = 1516, e(B) = 1484
    results = {("A", "B"): [1] * 7 + [0] * 3}
    assert alphadda_elo(["A", "B"], results, rounds=1) == {"A": 1516.0, "B": 1484.0}
    assert alphadda_elo(["A", "B"], results, rounds=1, anchors={"B": 1500}) == {"A": 1516.0, "B": 1500.0}
    # two rounds of 5 games (4 then 3 wins): 1500 + 8 * 1.5 = 1512, then p = expected(1512, 1488)
    two = alphadda_elo(["A", "B"], {("A", "B"): [1, 1, 1, 1, 0, 1, 1, 1, 0, 0]}, rounds=2)
    p = expected(1512, 1488)
    assert two["A"] == pytest.approx(1512 + 8 * (3 - 5 * p))
    assert two["A"] + two["B"] == pytest.approx(3000)


def test_bradley_terry_two_players_closed_form():
    # A scores 30 of 40: the MLE difference is 400 log10(3); its variance is 1 / (n p (1 - p)) in nats^2
    ratings = bradley_terry(["A", "B"], {("A", "B"): [1] * 30 + [0] * 10}, prior_sd=1e9)
    diff = ratings["A"].elo - ratings["B"].elo
    assert diff == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert ratings["A"].elo + ratings["B"].elo == pytest.approx(3000)
    half = 1.959963984540054 * ELO_PER_NAT * math.sqrt(1 / (4 * 40 * 0.75 * 0.25))
    assert ratings["A"].high - ratings["A"].elo == pytest.approx(half, rel=1e-6)


def test_bradley_terry_draws_count_half_and_anchors_hold():
    ratings = bradley_terry(["A", "B"], {("A", "B"): [0.5] * 20}, anchors={"B": 1234.0})
    assert ratings["B"].elo == 1234.0 and ratings["A"].elo == pytest.approx(1234.0, abs=1e-6)


def test_bradley_terry_recovers_known_ratings():
    truth = {"A": 1800.0, "B": 1500.0, "C": 1350.0, "D": 1000.0}
    rng = np.random.default_rng(0)
    players = list(truth)
    results = {}
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            results[(a, b)] = (rng.random(400) < expected(truth[a], truth[b])).astype(float).tolist()
    fitted = bradley_terry(players, results, anchors={"B": 1500.0})
    for p in players:
        assert fitted[p].low <= truth[p] <= fitted[p].high
    assert fitted["A"].elo > fitted["C"].elo > fitted["D"].elo


def test_bradley_terry_stays_finite_for_a_player_who_lost_everything():
    ratings = bradley_terry(["A", "B"], {("A", "B"): [1.0] * 40})
    assert math.isfinite(ratings["B"].elo) and ratings["A"].elo - ratings["B"].elo > 400


def test_wilson_interval_by_hand():
    low, high = wilson(5, 10)  # symmetric about 1/2; half width z sqrt(.25/10 + z^2/400) / (1 + z^2/10)
    z = 1.959963984540054
    half = z * math.sqrt(0.025 + z * z / 400) / (1 + z * z / 10)
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half))
    assert wilson(0, 10)[0] == pytest.approx(0.0) and wilson(10, 10)[1] == pytest.approx(1.0)


def test_record_score_and_interval():
    r = Record(wins=6, draws=2, losses=2)
    assert r.score == 0.7
    low, high = r.score_interval()
    var = (6 * 0.3**2 + 2 * 0.2**2 + 2 * 0.7**2) / 10
    assert (high - low) / 2 == pytest.approx(1.959963984540054 * math.sqrt(var / 10))


@pytest.mark.parametrize("count, n", [(0, 10), (3, 10), (10, 10), (57, 200), (1, 1)])
def test_wilson_interval_equals_scipys(count, n):
    from scipy.stats import binomtest

    ci = binomtest(count, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(count, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
