"""The bitbully solver against our Connect4 rules and known truths, the `perfect` agent, the solved test set."""

import dataclasses

import numpy as np
import pytest
import torch

import games
import nets
from tuner.agents import check_spec, make_agent
from tuner.match import play_match

bitbully = pytest.importorskip("bitbully", reason="the solver extra is not installed: pip install 'sparring[solver]'")
from search import perfect  # noqa: E402
from search.perfect import move_scores, value  # noqa: E402

C4 = games.load("connect4")


def test_the_solver_board_follows_our_rules_move_by_move():
    """200 random games: after every move both sides agree on the legal moves, a win, and a full board."""
    rng = np.random.default_rng(0)
    endings = {"win": 0, "draw": 0}
    for _ in range(200):
        ours, theirs = C4.new_initial_state(), bitbully.Board()
        while not ours.is_terminal():
            assert ours.legal_actions() == sorted(theirs.legal_moves())
            assert not theirs.is_game_over()
            move = int(rng.choice(ours.legal_actions()))
            ours.apply_action(move)
            theirs.play(move)
        assert theirs.is_game_over()
        won = ours.returns() != [0.0, 0.0]
        assert theirs.has_win() == won and theirs.is_full() == (len(ours.history()) == 42)
        endings["win" if won else "draw"] += 1
    assert endings["win"] > 150 and endings["draw"] < 50


def test_the_first_player_wins_by_opening_in_the_centre():
    """Connect4 is a first-player win with the centre opening; c and e (columns 2, 4) draw, the rest lose."""
    scores = move_scores(C4.new_initial_state())
    assert scores[3] > 0 and scores[2] == scores[4] == 0
    assert all(scores[c] < 0 for c in (0, 1, 5, 6))
    assert value(C4.new_initial_state()) > 0


def test_scores_follow_the_solver_convention_on_a_win_in_one():
    """Pons's scores: a win with the stone played after p moves scores (43 - p) // 2, a loss to the
    opponent's stone after p moves -(43 - p) // 2. Player 0 has three in column 0 after 6 moves."""
    state = C4.new_initial_state()
    for a in (0, 6, 0, 6, 0, 5):
        state.apply_action(a)
    scores = move_scores(state)
    assert scores[0] == (43 - 6) // 2 == max(scores.values()) and value(state) == 18
    state.apply_action(1)  # player 0 declines its win; player 1 must block column 0 or lose at once
    scores = move_scores(state)
    assert all(scores[c] == -((43 - 8) // 2) for c in range(1, 7)) and scores[0] > scores[1]


@pytest.mark.slow
def test_perfect_never_loses_and_picks_at_random_among_equal_moves():
    result = play_match("connect4", "perfect", "mcts1", games=4, seed=0)
    assert result.total.wins == 4
    first = play_match("connect4", "perfect", "perfect", games=2, seed=0)
    assert first.first.wins == 1 and first.second.losses == 1  # the first player wins, whoever plays it
    agent = make_agent("connect4", "perfect", seed=1)
    state = C4.new_initial_state()
    for a in (3, 3, 3, 3, 3, 3):  # centre full: 2 and 4 are the best moves, mirror images
        state.apply_action(a)
    scores = move_scores(state)
    best = {c for c, s in scores.items() if s == max(scores.values())}
    picks = {agent.select_action(state) for _ in range(40)}
    assert picks == best and len(best) >= 2


def test_perfect_draws_its_ties_from_its_own_seeded_stream():
    """In the centre-full position (two best moves) the same seed gives the same 20 picks, again after
    new_game(seed) rewinds the stream; another seed gives another sequence."""
    state = C4.new_initial_state()
    for a in (3, 3, 3, 3, 3, 3):
        state.apply_action(a)

    def picks(agent):
        return [agent.select_action(state) for _ in range(20)]

    first = make_agent("connect4", "perfect", seed=5)
    sequence = picks(first)
    assert set(sequence) == {2, 4}
    assert picks(make_agent("connect4", "perfect", seed=5)) == sequence
    first.new_game(seed=5)
    assert picks(first) == sequence
    assert picks(make_agent("connect4", "perfect", seed=6)) != sequence


def test_perfect_is_refused_in_one_line_off_connect4_or_without_the_extra(monkeypatch):
    with pytest.raises(ValueError, match="perfect plays connect4 only"):
        check_spec("othello6", "perfect")
    monkeypatch.setattr(perfect, "available", lambda: False)
    with pytest.raises(ValueError, match=r"pip install 'sparring\[solver\]'"):
        check_spec("connect4", "perfect")


def test_the_shipped_solved_set_matches_the_solver_and_scores_a_net():
    from nets.solved import load_solved, score_on_solved

    positions = load_solved()
    assert len(positions) == 1000 and all(8 <= len(p.moves) <= 30 for p in positions)
    for p in positions[:25]:  # the file's values are the solver's
        state = C4.new_initial_state()
        for ch in p.moves:
            state.apply_action(int(ch))
        scores = move_scores(state)
        assert p.value == max(scores.values())
        assert p.best == "".join(str(c) for c in sorted(scores) if scores[c] == p.value)
    # a net that always values the position +1 for the mover and puts its policy on column 3
    torch.manual_seed(0)
    net = nets.build("connect4", filters=8, blocks=1)
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.value_fc2.bias.fill_(5.0)
        net.policy_fc.bias[3] = 5.0
    sample = positions[:300]
    report = score_on_solved(net, sample)
    won, lost, drawn = (
        sum(p.value > 0 for p in sample),
        sum(p.value < 0 for p in sample),
        sum(p.value == 0 for p in sample),
    )
    assert report["sign_accuracy"] == pytest.approx(won / (won + lost)) and report["draws_near_zero"] == 0.0
    for band, (low, high) in zip(["8-13", "14-19", "20-25", "26-30"], [(8, 13), (14, 19), (20, 25), (26, 30)]):
        values = [np.sign(p.value) for p in sample if low <= len(p.moves) <= high and p.value]
        assert report["sign_by_plies"][band] == pytest.approx(values.count(1) / len(values))  # it says "won"
    assert (report["decided"], report["draws"]) == (won + lost, drawn)
    tops, nontrivial = [], []
    for p in sample:
        state = C4.new_initial_state()
        for ch in p.moves:
            state.apply_action(int(ch))
        legal = state.legal_actions()
        tops.append(str(3 if 3 in legal else legal[0]))  # equal logits elsewhere: the first legal column
        nontrivial.append(len(p.keeps) < len(legal))
    keeps = [t in p.keeps for t, p, n in zip(tops, sample, nontrivial) if n]
    assert report["nontrivial"] == len(keeps) and report["top_move_keeps_value"] == pytest.approx(np.mean(keeps))
    assert report["top_move_is_best"] == pytest.approx(np.mean([t in p.best for t, p in zip(tops, sample)]))


def test_a_search_over_the_net_signs_the_immediate_wins_its_head_gets_wrong():
    """A net whose head values every position lost for the mover: on the solved set's positions where the mover wins
    at once, a 200-simulation search over it finds the win, so its root value has the true sign on each (read from
    the mover's view), where the head's sign is wrong on each; told those positions are lost, the search is wrong on
    each."""
    from nets.solved import load_solved, score_on_solved, score_search_on_solved

    def wins_at_once(p):
        state = _replayed(p.moves)
        for a in state.legal_actions():
            after = state.clone()
            after.apply_action(a)
            if after.is_terminal() and after.returns()[state.current_player()] > 0:
                return True
        return False

    sample = [p for p in load_solved() if wins_at_once(p)][:40]
    assert len(sample) == 40
    torch.manual_seed(0)
    net = nets.build("connect4", filters=8, blocks=1)
    with torch.no_grad():
        net.value_fc2.weight.zero_()
        net.value_fc2.bias.fill_(-5.0)
    assert score_on_solved(net, sample)["sign_accuracy"] == 0.0
    report = score_search_on_solved(net, 200, sample)
    plies = {len(p.moves) for p in sample}
    assert report["search_sign_accuracy"] == 1.0 and report["search_simulations"] == 200
    assert len(report["search_sign_by_plies"]) >= 3 and set(report["search_sign_by_plies"].values()) == {1.0}
    assert min(plies) <= 13 and max(plies) >= 20  # the sample spans the bands it is scored in
    flipped = [dataclasses.replace(p, value=-p.value) for p in sample]  # the truth read, not assumed a win
    report = score_search_on_solved(net, 200, flipped)
    assert report["search_sign_accuracy"] == 0.0 and set(report["search_sign_by_plies"].values()) == {0.0}


def _replayed(moves: str):
    state = C4.new_initial_state()
    for ch in moves:
        state.apply_action(int(ch))
    return state


def test_value_ceiling_labels_random_positions_by_the_solver_and_leaves_the_test_boards_out(tmp_path):
    from experiments import value_ceiling
    from nets.solved import load_solved

    data = value_ceiling.labelled(C4, 30, seed=1, folder=tmp_path, chunk=10)
    assert len(data["value"]) == 30 and len({p.tobytes() for p in data["planes"]}) == 30
    tests = value_ceiling._test_boards(C4)
    for moves, planes, policy, target in zip(data["moves"], data["planes"], data["policy"], data["value"]):
        state = _replayed(str(moves))
        assert 8 <= len(moves) <= 30 and np.array_equal(state.encode(), planes)
        scores = move_scores(state)
        best = max(scores.values())
        assert target == np.sign(best)  # the mover's view: +1 won, -1 lost
        assert np.flatnonzero(policy).tolist() == sorted(a for a, s in scores.items() if s == best)
        assert policy.sum() == pytest.approx(1.0)
        assert planes.tobytes() not in tests
    # the left-out boards are each test position's and its mirror's (columns c and 6 - c swapped), replayed here
    for p in load_solved()[:50]:
        mirror = "".join(str(6 - int(ch)) for ch in p.moves)
        assert {
            _replayed(p.moves).encode().astype(np.uint8).tobytes(),
            _replayed(mirror).encode().astype(np.uint8).tobytes(),
        } <= tests
    # a board in the left-out set is drawn again (the next new one takes its place); the others come as before
    first = value_ceiling.labelled_chunk(C4, 1, 0, 5, set())
    again = value_ceiling.labelled_chunk(C4, 1, 0, 5, {first["planes"][0].tobytes()})
    assert first["moves"][0] not in again["moves"] and again["moves"][:4].tolist() == first["moves"][1:].tolist()


def test_value_ceiling_positions_resume_chunk_by_chunk_as_if_never_stopped(tmp_path):
    from experiments import value_ceiling

    value_ceiling.labelled(C4, 10, seed=2, folder=tmp_path / "cut", chunk=5)  # a run stopped after two chunks
    resumed = value_ceiling.labelled(C4, 20, seed=2, folder=tmp_path / "cut", chunk=5)
    whole = value_ceiling.labelled(C4, 20, seed=2, folder=tmp_path / "whole", chunk=5)
    assert all(np.array_equal(resumed[k], whole[k]) for k in whole)
    assert len(whole["value"]) == 20


@pytest.mark.slow
def test_value_targets_judges_a_runs_fresh_self_play_by_the_solver(tmp_path):
    import json
    import subprocess
    import sys

    from nets.train import Run, TrainConfig

    config = TrainConfig.for_game("connect4", filters=8, blocks=1, games=2, simulations=8, queue=300, batch=16)
    with Run(tmp_path / "run", config, device="cpu") as run:
        run.step()
    out = tmp_path / "targets.json"
    command = [sys.executable, "-m", "experiments.value_targets", str(tmp_path / "run"), "--games", "3"]
    proc = subprocess.run([*command, "--nets", "connect4-v1", "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["games"] == 3 and 0 < result["decided"] <= result["positions"]
    assert 0 < result["queue"]["decided"] <= result["queue"]["positions"] == run.queue.size  # all of a small queue
    assert set(result["nets"]) == {"run", "connect4-v1"} and result["nets"]["connect4-v1"][
        "test_sign_right"
    ] == pytest.approx(0.691, abs=5e-4)
