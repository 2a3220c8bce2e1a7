"""The arena: seat balance, replayable games, parallel runs that change nothing, and the CLI."""

import json
import subprocess
import sys

import pytest

import games
from tuner.agents import make_agent
from tuner.cli import main
from tuner.match import Resume, pair_scores, play_game, play_match, play_matches, round_robin


def test_seats_alternate_and_records_add_up():
    result = play_match("connect4", "mcts4", "random", games=10, seed=1)
    assert [g.a_seat for g in result.games] == [0, 1] * 5
    assert result.first.games == result.second.games == 5
    total = result.total
    assert total.wins + total.draws + total.losses == 10


def test_any_game_replays_alone():
    result = play_match("othello6", "mcts4", "sp:simulations=50", games=6, seed=9)
    game = games.load("othello6")
    a = make_agent(game, "mcts4", seed=123)  # construction seeds do not matter: games reseed
    b = make_agent(game, "sp:simulations=50", seed=456)
    replay = play_game(game, a, b, seed=9, index=3)
    assert replay.moves == result.games[3].moves and replay.outcome == result.games[3].outcome


@pytest.mark.parametrize("workers, backend", [(2, "threads"), (2, "processes")])
@pytest.mark.slow
def test_parallel_matches_equal_the_sequential_one(workers, backend):
    one = play_match("connect4", "mcts4", "mcts:simulations=30", games=8, seed=5)
    many = play_match("connect4", "mcts4", "mcts:simulations=30", games=8, seed=5, workers=workers, backend=backend)
    assert [g.moves for g in one.games] == [g.moves for g in many.games]


def test_mcts1_beats_mcts4_clearly():
    result = play_match("connect4", "mcts1", "mcts4", games=40, seed=0, workers=2)
    assert result.total.score > 0.75 and result.total.score_interval()[0] > 0.5


def test_round_robin_plays_every_pair_once():
    matches = round_robin("connect4", ["mcts4", "random", "minimax2:depth=1"], games=4, seed=2)
    assert [(m.spec_a, m.spec_b) for m in matches] == [
        ("mcts4", "random"),
        ("mcts4", "minimax2:depth=1"),
        ("random", "minimax2:depth=1"),
    ]
    scores = pair_scores(matches)
    assert all(len(s) == 4 and set(s) <= {0.0, 0.5, 1.0} for s in scores.values())
    with pytest.raises(ValueError, match="only once"):
        round_robin("connect4", ["random", "random"], games=2)


def test_arena_json_is_one_object_on_stdout(capsys):
    assert main(["arena", "connect4", "mcts4", "random", "--games", "4", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"]["games"] == 4 and out["spec_a"] == "mcts4"
    assert set(out["a_first"]) >= {"wins", "draws", "losses", "score_ci95", "win_rate_ci95"}
    assert out["environment"]["seed"] == 3 and {"commit", "versions"} <= set(out["environment"])


def test_tournament_prints_both_elo_tables(capsys):
    assert main(["tournament", "connect4", "mcts4", "random", "--games", "4", "--anchor", "random=930.6"]) == 0
    out = capsys.readouterr().out
    assert "Elo (AlphaDDA, K=8)" in out and "Bradley-Terry" in out and "random = 930.6" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["arena", "connect4", "mcts1", "mcts:x=1"], "unknown key 'x' for agent 'mcts'"),
        (["arena", "connect4", "minimax1", "random", "--games", "0"], "expected a positive whole number"),
        (
            ["arena", "chess", "mcts1", "random"],
            "unknown game 'chess'; known games: breakthrough, checkers, chinesecheckers3",
        ),
        (["tournament", "connect4", "random"], "at least two different agent specs"),
        (["tournament", "connect4", "random", "mcts4", "--anchor", "x=3"], "bad --anchor 'x=3'"),
    ],
)
@pytest.mark.slow
def test_cli_errors_are_one_line_with_exit_2(argv, message):
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", *argv], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert message in proc.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("spec", ["mcts:simulations=20,dsa=inter", "mcts:simulations=20,dsa=both,dda_tuner=nmc"])
def test_a_match_resumed_from_a_checkpoint_plays_the_games_left_as_the_whole_run(spec):
    """A learning agent's match stopped after game 2 and resumed from the adjuster state saved then plays games
    3-5 as the straight run does; resumed from a fresh agent instead, its level (and so its play) differs."""
    whole, saved = [], {}
    (straight,) = play_matches("connect4", [(spec, "mcts4", 3, 6)], after_game=lambda m, r, s: whole.append(s))
    assert all(s[0] is not None and s[1] is None for s in whole)  # A's adjuster state after each game; B has none
    play_matches("connect4", [(spec, "mcts4", 3, 3)], after_game=lambda m, r, s: saved.update({r.index: s}))
    assert saved[2] == whole[2]
    after = []
    (rest,) = play_matches(
        "connect4",
        [(spec, "mcts4", 3, 6)],
        resume=[Resume(frozenset({0, 1, 2}), saved[2])],
        after_game=lambda m, r, s: after.append(s),
    )
    assert [g.index for g in rest.games] == [3, 4, 5]
    assert [g.moves for g in rest.games] == [g.moves for g in straight.games[3:]]
    assert after == whole[3:]
    fresh = []
    play_matches(
        "connect4",
        [(spec, "mcts4", 3, 6)],
        resume=[Resume(frozenset({0, 1, 2}))],
        after_game=lambda m, r, s: fresh.append(s),
    )
    assert fresh[0] != whole[3]


def test_resuming_needs_one_worker_and_states_for_an_adjuster():
    with pytest.raises(ValueError, match="workers=1"):
        play_matches("connect4", [("mcts4", "random", 0, 4)], workers=2, after_game=print)
    with pytest.raises(ValueError, match="has no adjuster"):
        play_matches("connect4", [("mcts:dsa=inter", "random", 0, 4)], resume=[Resume(frozenset(), (None, {"z": 0}))])
