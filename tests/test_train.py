"""AlphaZero training: self-play targets, augmentation, learning, and a run folder that resumes."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

import games
import nets
from nets.evaluator import NetEvaluator
from nets.selfplay import Examples, augment, join, play_share, self_play
from nets.train import ReplayQueue, Run, TrainConfig, learn
from search.evaluator import UniformEvaluator
from tests.othello_reference import NaiveOthello
from tests.test_puct import FixedPriors
from tuner.cli import main

C4 = games.load("connect4")
TINY = dict(filters=8, blocks=1, games=4, simulations=12, queue=300, batch=64, eval_every=0)
CENTRE = [1, 1, 1, 50, 1, 1, 1]  # prior 50/56 on column 3: eq. (8) sends it every visit while N_3 + 1 < 50


def test_self_play_values_are_each_games_result_for_the_player_to_move():
    """Connect4 alternates movers, so along a decisive game the targets alternate +1/-1 and the last
    position (whose mover made the winning move) is +1; a swapped sign would make it -1."""
    examples, stats = self_play(C4, UniformEvaluator("playout", seed=1), games=6, simulations=30, seed=3)
    starts = list(np.flatnonzero(examples.planes[:, :2].sum(axis=(1, 2, 3)) == 0)) + [len(examples)]
    assert len(starts) == stats.games + 1 and starts[0] == 0 and len(examples) == stats.positions
    decided = 0
    for start, end in zip(starts, starts[1:]):
        game_values = examples.value[start:end]
        if game_values[-1] != 0:
            decided += 1
            assert game_values[-1] == 1
            assert np.all(game_values[:-1] == -game_values[1:])
        else:
            assert np.all(game_values == 0)
    assert decided > 0
    games_played = {examples.planes[start:end].tobytes() for start, end in zip(starts, starts[1:])}
    assert len(games_played) == stats.games  # each game its own stream: no two games alike
    legal = examples.policy > 0
    assert np.allclose(examples.policy.sum(axis=1), 1.0)
    full = examples.planes[:, 0, 0, :] + examples.planes[:, 1, 0, :]  # top row occupied: column full
    assert not np.any(legal & (full == 1))


def test_a_playout_cap_records_only_the_full_searches():
    """Playout cap randomization: a move is a full search (N_sim) with probability cap_share, else a fast one of
    cap_fast, and only full searches are recorded; its draws have a stream of their own, so cap_share 1 plays the
    games of a run without it."""
    settings = dict(games=6, simulations=30, seed=3)
    plain, plain_stats = self_play(C4, UniformEvaluator("playout", seed=1), **settings)
    every, every_stats = self_play(C4, UniformEvaluator("playout", seed=1), cap_fast=4, cap_share=1.0, **settings)
    assert every_stats == plain_stats and plain_stats.moves == plain_stats.positions
    assert all(np.array_equal(getattr(plain, f), getattr(every, f)) for f in ("planes", "policy", "value"))
    capped, stats = self_play(C4, UniformEvaluator("playout", seed=1), cap_fast=4, cap_share=0.3, **settings)
    assert 0.15 < stats.positions / stats.moves < 0.45 and len(capped) == stats.positions
    # every search runs its budget, so this pins the recorded positions to the full searches
    assert stats.simulations == 30 * stats.positions + 4 * (stats.moves - stats.positions)
    assert np.allclose(capped.policy.sum(axis=1), 1.0) and set(np.unique(capped.value)) <= {-1.0, 0.0, 1.0}
    # each game draws from its own index's stream: shares played apart and joined are the games played together
    shares = [
        self_play(C4, UniformEvaluator("zero"), indices=s, cap_fast=4, cap_share=0.3, **settings)
        for s in ([0, 1], [2], [3, 4, 5])
    ]
    whole, whole_stats = self_play(C4, UniformEvaluator("zero"), cap_fast=4, cap_share=0.3, **settings)
    joined, joined_stats = join(shares)
    assert joined_stats == whole_stats and all(
        np.array_equal(getattr(joined, f), getattr(whole, f)) for f in ("planes", "policy", "value")
    )
    # and the games draw apart: the plies each records (its discs then) differ over the plies all of them reach
    recorded = []
    for i in range(6):
        alone, alone_stats = self_play(C4, UniformEvaluator("zero"), indices=[i], cap_fast=4, cap_share=0.3, **settings)
        recorded.append((set(alone.planes[:, :2].sum(axis=(1, 2, 3)).tolist()), alone_stats.moves))
    shortest = min(moves for _, moves in recorded)
    assert len({frozenset(p for p in plies if p < shortest) for plies, _ in recorded}) > 1
    none, none_stats = self_play(C4, UniformEvaluator("zero"), cap_fast=4, cap_share=1e-9, **settings)
    assert none_stats.positions == 0 < none_stats.moves and none.planes.shape == (0, 3, 6, 7)
    assert len(augment(C4, none)) == 0
    with pytest.raises(ValueError, match="playout cap needs"):
        self_play(C4, UniformEvaluator("zero"), cap_fast=1, **settings)


def _games(examples):
    """The examples split by game, with each game's opening length: in a game, position t + 1 (the mover's view)
    has as its own discs those of the opponent at t, and as the opponent's those of the mover at t and one more."""
    planes = examples.planes.astype(int)
    follows = [
        np.array_equal(planes[t + 1, 0], planes[t, 1])
        and (planes[t + 1, 1] - planes[t, 0]).min() == 0
        and (planes[t + 1, 1] - planes[t, 0]).sum() == 1
        for t in range(len(planes) - 1)
    ]
    starts = [0, *(t + 1 for t, f in enumerate(follows) if not f), len(planes)]
    discs = planes[:, :2].sum(axis=(1, 2, 3))
    return [
        (examples.planes[a:b], examples.policy[a:b], examples.value[a:b], int(discs[a]))
        for a, b in zip(starts, starts[1:])
    ]


def test_value_targets_mix_the_games_result_with_the_searchs_root_value():
    """value_mix m makes a position's target (1 - m) z + m q: play is unchanged (the same positions and policies),
    m = 0 is the game's result, m = 1 the search's root value for the player to move, which follows the result
    (a value from the other player's view would run against it), and m = 1/2 the two's mean."""
    settings, ev = dict(games=30, simulations=24, seed=5), UniformEvaluator("playout")  # informative values
    runs = {m: self_play(C4, ev, value_mix=m, **settings)[0] for m in (0.0, 0.5, 1.0)}
    plain = self_play(C4, ev, **settings)[0]
    for run in runs.values():
        np.testing.assert_array_equal(run.planes, plain.planes)
        np.testing.assert_array_equal(run.policy, plain.policy)
    z, q = runs[0.0].value, runs[1.0].value
    np.testing.assert_array_equal(z, plain.value)
    assert set(np.unique(z)) <= {-1.0, 0.0, 1.0} and np.abs(q).max() <= 1.0 and (q != z).mean() > 0.9
    assert np.corrcoef(z, q)[0, 1] > 0.2
    np.testing.assert_allclose(runs[0.5].value, (z + q) / 2, atol=1e-6)
    with pytest.raises(ValueError, match="value_mix"):
        self_play(C4, ev, value_mix=1.5, **settings)
    with pytest.raises(ValueError, match="value_mix"):
        TrainConfig(game="connect4", value_mix=-0.1).check()


def test_random_openings_play_unrecorded_random_moves_drawn_apart():
    """Each game opens with k uniformly random moves, k in 0 .. random_plies, not searched or recorded; the
    openings have a stream of their own, so a game that drew k = 0 is the game of a run without openings."""
    settings = dict(games=40, simulations=8, seed=5)
    plain = _games(self_play(C4, UniformEvaluator("zero"), **settings)[0])
    opened, stats = self_play(C4, UniformEvaluator("zero"), random_plies=12, **settings)
    games = _games(opened)
    assert len(games) == 40 and stats.positions == stats.moves == len(opened)  # every game plays from its opening
    lengths = [k for *_, k in games]
    assert max(lengths) <= 12 and len(set(lengths)) >= 8 and 3 < np.mean(lengths) < 9
    unopened = [i for i, k in enumerate(lengths) if k == 0]
    assert unopened and len(unopened) < 10
    for i in unopened:
        for mine, theirs in zip(games[i][:3], plain[i][:3]):
            np.testing.assert_array_equal(mine, theirs)
    # the openings' moves are drawn: games opened by as many moves start from different positions
    by_length = {}
    for planes, _, _, k in games:
        by_length.setdefault(k, []).append(planes[0].tobytes())
    assert all(len(set(firsts)) > 1 for k, firsts in by_length.items() if k >= 2 and len(firsts) >= 3)
    # k is uniform in 0 .. K, K included: with K = 2 each of 0, 1, 2 opens about a third of the games
    short = [k for *_, k in _games(self_play(C4, UniformEvaluator("zero"), random_plies=2, **settings)[0])]
    assert sorted(set(short)) == [0, 1, 2] and min(short.count(k) for k in (0, 1, 2)) >= 6
    # an opening's stream is its own: beside a playout cap, an unopened game is the capped run's game
    capped = dict(cap_fast=4, cap_share=0.5, **settings)
    for i in unopened[:2]:
        alone = self_play(C4, UniformEvaluator("zero"), indices=[i], **capped)[0]
        alone_opened = self_play(C4, UniformEvaluator("zero"), indices=[i], random_plies=12, **capped)[0]
        for field in ("planes", "policy", "value"):
            np.testing.assert_array_equal(getattr(alone_opened, field), getattr(alone, field))
    # game i's opening follows i, not its row: shares played apart and joined are the games played together
    shares = [
        self_play(C4, UniformEvaluator("zero"), random_plies=12, indices=s, **settings) for s in ([0, 1], [2], [3])
    ]
    together, _ = self_play(C4, UniformEvaluator("zero"), random_plies=12, indices=[0, 1, 2, 3], **settings)
    for field in ("planes", "policy", "value"):
        np.testing.assert_array_equal(getattr(join(shares)[0], field), getattr(together, field))
    # an opening's move that would end the game ends the opening: with up to 200 plies no game is over before it starts
    long, long_stats = self_play(C4, UniformEvaluator("zero"), random_plies=200, **settings)
    assert len(_games(long)) == 40 and long_stats.positions >= 40
    assert max(k for *_, k in _games(long)) > 12
    with pytest.raises(ValueError, match="random_plies"):
        self_play(C4, UniformEvaluator("zero"), random_plies=-1, **settings)


def test_searched_openings_record_their_positions_with_the_searchs_value_and_play_the_same_moves():
    """opening_share s searches and records each of the opening's positions with probability s, its value target
    the search's root value whatever value_mix says (the game's result follows random moves), and the opening's
    moves stay those of a run without it: at s = 1 a game records every position from the empty board, the k of its
    opening first, then the position the unsearched run starts from; at s = 1/2 about half of the k."""
    settings = dict(games=30, simulations=8, seed=5, random_plies=10)
    ev = UniformEvaluator("playout", seed=1)  # informative root values
    starts = [planes[0] for planes, *_ in _games(self_play(C4, ev, **settings)[0])]
    opening = [int(p[:2].sum()) for p in starts]  # k: the discs on the board where play starts
    assert len(starts) == 30 and len(set(opening)) >= 6
    every = {m: _games(self_play(C4, ev, opening_share=1.0, value_mix=m, **settings)[0]) for m in (0.0, 1.0)}
    for i, (planes, policy, value, first) in enumerate(every[0.0]):
        k = opening[i]
        assert first == 0 and planes[: k + 1, :2].sum(axis=(1, 2, 3)).tolist() == list(range(k + 1))
        np.testing.assert_array_equal(planes[k], starts[i])  # the same random moves led there
        np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=1e-6)
        q = every[1.0][i][2]
        np.testing.assert_array_equal(value[:k], q[:k])  # the opening's targets: the search's value at either mix
        assert set(np.unique(value[k:])) <= {-1.0, 0.0, 1.0}  # play's: the game's result at mix 0
    searched = np.concatenate([v[: opening[i]] for i, (_, _, v, _) in enumerate(every[0.0])])
    assert len(searched) > 60 and (np.abs(searched) < 1).mean() > 0.8  # values of a search, not results
    half = [self_play(C4, ev, opening_share=0.5, indices=[i], **settings)[0].planes for i in range(30)]  # by game
    recorded = [int((planes[:, :2].sum(axis=(1, 2, 3)) < k).sum()) for planes, k in zip(half, opening)]
    assert 0.35 < sum(recorded) / sum(opening) < 0.65
    for planes, n, start in zip(half, recorded, starts):  # play starts where the unsearched run's does
        np.testing.assert_array_equal(planes[n], start)
    # an opening cut short by a move that would end the game: the position before it is where play starts, with the
    # game's result as its target at mix 0 (with up to 200 random plies every opening is cut short)
    long = dict(settings, random_plies=200)
    cut = [planes[0] for planes, *_ in _games(self_play(C4, ev, **long)[0])]
    for (planes, _, value, _), start in zip(_games(self_play(C4, ev, opening_share=1.0, **long)[0]), cut):
        k = int(start[:2].sum())
        np.testing.assert_array_equal(planes[k], start)
        assert value[k] in (-1.0, 0.0, 1.0) and (np.abs(value[:k]) < 1).mean() > 0.5
    # beside a playout cap the opening's positions are full searches and draw nothing from the cap's stream: with
    # no play move drawn full, the opening's positions are all that is recorded, and the play moves are fast ones
    capped = dict(settings, cap_fast=2, cap_share=1e-9)
    only, only_stats = self_play(C4, ev, opening_share=1.0, **capped)
    assert only_stats.positions == len(only) == sum(opening)
    assert only_stats.simulations == 8 * only_stats.positions + 2 * (only_stats.moves - only_stats.positions)
    # game i's openings and their searches follow i, not its row: shares played apart and joined are the games together
    mixed = dict(settings, cap_fast=2, cap_share=0.5, value_mix=0.5, opening_share=0.5)
    together, together_stats = self_play(C4, ev, indices=list(range(6)), **mixed)
    joined, joined_stats = join([self_play(C4, ev, indices=s, **mixed) for s in ([0, 1, 2], [3], [4, 5])])
    assert joined_stats == together_stats
    for field in ("planes", "policy", "value"):
        np.testing.assert_array_equal(getattr(joined, field), getattr(together, field))
    with pytest.raises(ValueError, match="opening_share"):
        self_play(C4, ev, opening_share=1.5, **settings)
    with pytest.raises(ValueError, match="opening_share applies only with random_plies"):
        TrainConfig(game="connect4", opening_share=0.5).check()


def test_an_iterations_games_split_by_index_and_joined_are_the_games_played_at_once():
    """Each game's streams come from its index, not its row: shares [0, 1], [2] and [3, 4] played apart (by
    self_play or by play_share, as a cluster's worker does) and joined equal the five games played together with
    the net in chunks of 4 rows. Seeded by row, share [2] would replay game 0."""
    torch.manual_seed(0)
    net = nets.build("connect4", filters=8, blocks=1)
    settings = dict(games=5, simulations=12, seed=3, t_opening=2)
    whole, counts = self_play(C4, NetEvaluator(net, device="cpu", chunk=4), **settings)
    shares, rows = [[0, 1], [2], [3, 4]], []
    net.register_forward_pre_hook(lambda module, args: rows.append(args[0].shape[0]))
    for play in (
        lambda share: self_play(C4, NetEvaluator(net, device="cpu", chunk=4), indices=share, **settings),
        lambda share: play_share(net, share, 4, settings),
    ):
        parts = [play(share) for share in shares]
        joined, joined_counts = join(parts)
        for field in ("planes", "policy", "value"):
            np.testing.assert_array_equal(getattr(joined, field), getattr(whole, field))
        assert joined_counts == counts and [p[1].games for p in parts] == [2, 1, 2]
        assert rows and set(rows) == {4}  # every forward of the shares in chunks of 4 rows
        rows.clear()
    starts = np.flatnonzero(whole.planes[:, :2].sum(axis=(1, 2, 3)) == 0)
    assert len({whole.planes[a:b].tobytes() for a, b in zip(starts, [*starts[1:], len(whole)])}) == 5
    for bad in ([], [2, 1], [1, 1], [5], [-1]):
        with pytest.raises(ValueError, match="increasing game indices in \\[0, 5\\)"):
            self_play(C4, UniformEvaluator("zero"), indices=bad, **settings)


def _first_policies(examples):
    """The policy target of each game's first position (the empty board)."""
    return examples.policy[examples.planes[:, :2].sum(axis=(1, 2, 3)) == 0]


def test_the_policy_target_is_the_root_visit_distribution():
    """With no eps and a prior of 50/56 on column 3, eq. (8) sends all 11 root descents of a 12-simulation
    search to column 3 (its score stays ahead while N_3 + 1 < 50), so pi is one-hot there, not 1/7 each."""
    examples, _ = self_play(C4, FixedPriors(CENTRE), games=3, simulations=12, seed=0, eps=0.0)
    expected = np.zeros(7, dtype=np.float32)
    expected[3] = 1.0
    first = _first_policies(examples)
    assert len(first) == 3 and np.array_equal(first, np.tile(expected, (3, 1)))


def test_self_play_passes_eps_to_the_search():
    """eps = 1: every descent leaves the root by a uniformly random child, so the 28 root visits of a
    29-simulation search spread over the columns (about 4 each) instead of all going to column 3."""
    examples, _ = self_play(C4, FixedPriors(CENTRE), games=3, simulations=29, seed=0, eps=1.0)
    for pi in _first_policies(examples):
        assert pi[3] < 0.5 and np.count_nonzero(pi) >= 5, pi


def test_the_first_t_opening_plies_are_drawn_by_temperature():
    """The search alone always puts column 3 first (one-hot visits, test above). With eq. (9) at a huge
    tau the first T_opening moves are near uniform over the 7 columns, so 12 games open differently."""

    def first_moves(examples):
        second = examples.planes[:, 0].sum(axis=(1, 2)) + examples.planes[:, 1].sum(axis=(1, 2)) == 1
        return [int(np.flatnonzero(p[1].any(axis=0))[0]) for p in examples.planes[second]]

    plain, _ = self_play(C4, FixedPriors(CENTRE), games=12, simulations=12, seed=0, eps=0.0, t_opening=0)
    assert first_moves(plain) == [3] * 12
    opened, _ = self_play(C4, FixedPriors(CENTRE), games=12, simulations=12, seed=0, eps=0.0, t_opening=1, tau=1e6)
    moves = first_moves(opened)
    assert len(moves) == 12 and len(set(moves)) >= 4 and moves.count(3) <= 6


def test_augmentation_maps_each_othello_policy_to_the_same_move_of_the_transformed_board():
    """Checked with the naive rulebook Othello: under each of the 8 symmetries the policy's move is
    legal on the transformed planes and flips as many discs as the original move."""
    game = games.load("othello6")
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    for _ in range(9):
        state.apply_action(int(rng.choice(state.legal_actions())))
    n = 6

    def flips(planes, action):
        board = NaiveOthello(n)
        mover = int(planes[2, 0, 0])
        board.board = [
            [mover if planes[0, r, c] else (1 - mover if planes[1, r, c] else -1) for c in range(n)] for r in range(n)
        ]
        return len(board._flips(*divmod(int(action), n), mover))

    counts = {a: flips(state.encode(), a) for a in state.legal_actions()}
    action = max(counts, key=counts.get)
    policy = np.zeros(game.num_distinct_actions(), dtype=np.float32)
    policy[action] = 1.0
    ex = Examples(state.encode()[None].astype(np.uint8), policy[None], np.array([0.5], dtype=np.float32))
    out = augment(game, ex)
    assert len(out) == 8 and np.all(out.value == 0.5)
    boards = set()
    for planes, pi in zip(out.planes, out.policy):
        moved = int(np.argmax(pi))
        assert pi[moved] == 1.0 and flips(planes, moved) == counts[action] > 0
        boards.add(planes.tobytes())
    assert len(boards) == 8  # eight different boards, not the identity eight times


def test_connect4_augmentation_mirrors_planes_and_columns():
    state = C4.new_initial_state()
    for a in (0, 0, 1, 5):
        state.apply_action(a)
    policy = np.array([0.5, 0.3, 0.2, 0, 0, 0, 0], dtype=np.float32)
    out = augment(C4, Examples(state.encode()[None].astype(np.uint8), policy[None], np.zeros(1, np.float32)))
    mirror = C4.new_initial_state()
    for a in (6, 6, 5, 1):
        mirror.apply_action(a)
    assert len(out) == 2
    assert np.array_equal(out.planes[1], mirror.encode()) and np.array_equal(out.policy[1], policy[::-1])


@pytest.mark.slow
def test_learning_fits_a_fixed_toy_target():
    """Policy: always column 3; value: +1 when the mover has more pieces in column 0 than the
    opponent, else -1. Both losses must fall far below their start (ln 7 and about 1)."""
    rng = np.random.default_rng(0)
    planes = (rng.random((512, 3, 6, 7)) < 0.3).astype(np.uint8)
    planes[:, 1] *= 1 - planes[:, 0]
    planes[:, 2] = rng.integers(0, 2, size=(512, 1, 1))
    value = np.where(planes[:, 0, :, 0].sum(1) > planes[:, 1, :, 0].sum(1), 1.0, -1.0).astype(np.float32)
    policy = np.zeros((512, 7), dtype=np.float32)
    policy[:, 3] = 1.0
    torch.manual_seed(0)
    model = nets.build("connect4", filters=16, blocks=1)
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(0)
    before = _losses(model, planes, policy, value)
    for _ in range(30):
        learn(model, opt, Examples(planes, policy, value), batch=64, epochs=1, generator=gen, device="cpu")
    after = _losses(model, planes, policy, value)
    assert before[1] > 1.5 and after[1] < 0.05
    assert after[0] < 0.3 * before[0]
    assert not model.training


def _losses(model, planes, policy, value):
    """Eq. (10)'s two terms over the whole set, the net in eval mode."""
    with torch.no_grad():
        logits, v = model(torch.from_numpy(planes).float())
    loss_p = -(torch.from_numpy(policy) * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    return float(((torch.from_numpy(value) - v) ** 2).mean()), float(loss_p)


def test_the_replay_queue_keeps_the_newest_positions():
    queue = ReplayQueue(C4, 5)

    def batch(values):
        n = len(values)
        return Examples(np.zeros((n, 3, 6, 7), np.uint8), np.zeros((n, 7), np.float32), np.array(values, np.float32))

    queue.add(batch([1, 2, 3]))
    queue.add(batch([4, 5, 6, 7]))
    assert queue.size == 5 and sorted(queue.contents().value) == [3, 4, 5, 6, 7]
    queue.add(batch(list(range(10, 22))))
    assert sorted(queue.contents().value) == list(range(17, 22))


@pytest.mark.slow
def test_the_run_optimizer_uses_the_configured_sgd_settings(tmp_path):
    config = TrainConfig.for_game("connect4", **{**TINY, "lr": 0.03, "momentum": 0.8, "weight_decay": 0.005})
    with Run(tmp_path / "r", config, device="cpu") as run:
        (group,) = run.optimizer.param_groups
        assert (group["lr"], group["momentum"], group["weight_decay"]) == (0.03, 0.8, 0.005)
        assert sum(p.numel() for p in group["params"]) == sum(p.numel() for p in run.model.parameters())


def test_the_queue_receives_both_connect4_mirror_images(tmp_path):
    """Connect4 has 2 symmetries: one step queues 2 rows per self-play position, the second half the
    column-mirrored first half with the same values."""
    config = TrainConfig.for_game("connect4", **{**TINY, "games": 2, "simulations": 8, "batch": 16})
    with Run(tmp_path / "r", config, device="cpu") as run:
        record = run.step()
        n, queued = record["positions"], run.queue.contents()
        assert run.queue.size == record["queue"] == 2 * n > 0
        assert np.array_equal(queued.planes[n:], queued.planes[:n, :, :, ::-1])
        assert np.array_equal(queued.policy[n:], queued.policy[:n, ::-1])
        assert np.array_equal(queued.value[n:], queued.value[:n])


def test_a_resumed_run_keeps_its_best_net(tmp_path):
    """Iteration 1 is promoted, iteration 2 not: after reopening, best.pt is still iteration 1's net."""
    config = TrainConfig.for_game("connect4", **{**TINY, "games": 2, "simulations": 8, "batch": 16, "eval_every": 1})

    def evaluate(iteration, net_path, best_path):
        return {"promote": iteration == 1}

    with Run(tmp_path / "r", config, device="cpu") as run:
        run.step(evaluate)
        first = {k: v.clone() for k, v in run.model.state_dict().items()}
        run.step(evaluate)
        assert run.best_iteration == 1
        assert any(not torch.equal(v, first[k]) for k, v in run.model.state_dict().items())  # iteration 2 learned
    with Run(tmp_path / "r", config, device="cpu") as again:
        assert again.iteration == 2 and again.best_iteration == 1
    net = nets.load(tmp_path / "r" / "best.pt", game="connect4")
    assert net.meta["provenance"]["iteration"] == 1
    changed = [k for k in first if not torch.equal(net.state_dict()[k], first[k])]
    assert not changed, changed


def _weights(folder):
    return torch.load(folder / "checkpoint.pt", weights_only=True)


def _same_run(a, b):
    wa, wb = _weights(a), _weights(b)
    assert wa["iteration"] == wb["iteration"]
    for k in wa["model"]:
        assert torch.equal(wa["model"][k], wb["model"][k]), k
    for k in ("planes", "policy", "value"):
        assert torch.equal(wa["queue"][k], wb["queue"][k])
    assert (wa["queue"]["size"], wa["queue"]["head"]) == (wb["queue"]["size"], wb["queue"]["head"])


@pytest.mark.slow
def test_a_resumed_run_continues_the_same_iterations_and_queue(tmp_path):
    config = TrainConfig.for_game("connect4", **TINY)
    straight = Run(tmp_path / "straight", config, device="cpu")
    for _ in range(3):
        straight.step()
    first = Run(tmp_path / "resumed", config, device="cpu")
    first.step()
    first.step()
    with pytest.raises(ValueError, match="another process is training in"):
        Run(tmp_path / "resumed", config, device="cpu")
    first.close()
    (tmp_path / "resumed" / ".checkpoint.pt.0123456789ab.tmp").write_bytes(b"cut short")  # a kill mid-write
    again = Run(tmp_path / "resumed", config, device="cpu")
    assert not list((tmp_path / "resumed").glob(".*.tmp"))
    assert again.iteration == 2 and [r["iteration"] for r in again.history] == [1, 2]
    again.step()
    _same_run(tmp_path / "straight", tmp_path / "resumed")
    seeds = [r["seed"] for r in straight.history]
    assert len(set(seeds)) == 3 and seeds == [r["seed"] for r in again.history]  # one stream per iteration
    lines = (tmp_path / "resumed" / "log.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in lines] == [1, 2, 3]
    net = nets.load(tmp_path / "resumed" / "net.pt", game="connect4")
    assert net.meta["provenance"]["iteration"] == 3 and net.meta["provenance"]["self_play_games"] == 12


def test_a_run_moved_without_its_checkpoint_goes_on_from_its_small_files(tmp_path):
    """A new machine given config.json, log.jsonl, net.pt and best.pt (not the queue-sized checkpoint.pt) goes on at
    the next iteration from net.pt's weights and best.pt's best, the queue refilled by self-play; files that disagree,
    or a log without its net, are one line."""
    import shutil

    from nets.train import RunError

    config = TrainConfig.for_game("connect4", **{**TINY, "queue": 5000, "eval_every": 1})

    def evaluate(iteration, net_path, best_path):
        return {"promote": iteration == 1}

    def moved(name, **replace):
        """A folder with the small files of the run at iteration 2, some of them replaced."""
        folder = tmp_path / name
        shutil.copytree(tmp_path / "snapshot", folder)
        for file, data in replace.items():
            if data is None:
                (folder / file).unlink()
            else:
                (folder / file).write_bytes(data)
        return folder

    with Run(tmp_path / "a", config, device="cpu") as run:
        run.step(evaluate)
        early = (tmp_path / "a" / "net.pt").read_bytes()
        run.step(evaluate)
        (tmp_path / "snapshot").mkdir()
        for name in ("config.json", "log.jsonl", "net.pt", "best.pt"):
            shutil.copy(tmp_path / "a" / name, tmp_path / "snapshot" / name)
        weights = {k: v.clone() for k, v in run.model.state_dict().items()}
        best = {k: v.clone() for k, v in run.best_state.items()}
        queued = run.queue.size
        straight = run.step(evaluate)  # what a run never stopped plays next
    with Run(moved("b"), config, device="cpu") as again:
        assert again.iteration == 2 and again.regenerated and again.queue.size == 0 and again.best_iteration == 1
        assert all(torch.equal(v, weights[k]) for k, v in again.model.state_dict().items())
        assert all(torch.equal(v, best[k]) for k, v in again.best_state.items())
        third = again.step(evaluate)
        fourth = again.step(evaluate)
    # the same net and seed play the same games; the queue holds them alone, where the straight run's held all three
    assert third["iteration"] == 3 and third["seed"] == straight["seed"] and third["positions"] == straight["positions"]
    assert third["queue"] == straight["queue"] - queued > 0
    lines = [json.loads(line) for line in (tmp_path / "b" / "log.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in lines] == [1, 2, 3, 4] and [r.get("regenerated") for r in lines] == [
        None,
        None,
        True,
        None,
    ]
    assert (tmp_path / "b" / "checkpoint.pt").exists() and fourth["queue"] > third["queue"]
    with pytest.raises(RunError, match=r"net.pt is at iteration 1 where log.jsonl ends at 2: restore checkpoint.pt"):
        Run(moved("c", **{"net.pt": early}), config, device="cpu")
    with pytest.raises(RunError, match=r"holds a run's log but neither checkpoint.pt nor net.pt: restore one"):
        Run(moved("d", **{"net.pt": None}), config, device="cpu")
    with pytest.raises(RunError, match=r"its best.pt cannot serve \(.*not a sparring checkpoint.*\): restore it"):
        Run(moved("e", **{"best.pt": b"cut short"}), config, device="cpu")
    with Run(moved("f", **{"best.pt": None}), config, device="cpu") as without_best:  # net.pt is the best so far
        assert without_best.best_iteration == 2
    wide = nets.build("connect4", filters=16, blocks=1)  # a net of another body, in place of best.pt or net.pt
    nets.save(tmp_path / "wide.pt", wide, {"iteration": 1})
    for file, words in (("best.pt", "best.pt cannot serve"), ("net.pt", "its net.pt is a connect4 custom net")):
        with pytest.raises(RunError, match=words):
            Run(moved(f"g-{file}", **{file: (tmp_path / "wide.pt").read_bytes()}), config, device="cpu")


@pytest.mark.slow
def test_a_run_killed_with_sigkill_resumes_to_the_same_weights(tmp_path):
    options = [
        "--filters",
        "8",
        "--blocks",
        "1",
        "--games",
        "4",
        "--simulations",
        "12",
        "--queue",
        "300",
        "--batch",
        "64",
        "--eval-every",
        "0",
    ]
    command = [sys.executable, "-m", "tuner.cli", "train", "connect4", "--out", str(tmp_path / "killed"), *options]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [*command, "--iterations", "50"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    log = tmp_path / "killed" / "log.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 2):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = len(json.loads("[" + ",".join(log.read_text().splitlines()) + "]"))
    assert 2 <= done < 50, "the run was not killed in the middle"
    target = done + 2
    assert main(["train", "connect4", "--out", str(tmp_path / "killed"), "--iterations", str(target), *options]) == 0
    assert main(["train", "connect4", "--out", str(tmp_path / "straight"), "--iterations", str(target), *options]) == 0
    _same_run(tmp_path / "killed", tmp_path / "straight")
    assert not list((tmp_path / "killed").glob(".*.tmp"))


@pytest.mark.slow
def test_a_changed_configuration_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    base = [
        "train",
        "connect4",
        "--out",
        str(out),
        "--filters",
        "8",
        "--blocks",
        "1",
        "--games",
        "2",
        "--simulations",
        "8",
        "--batch",
        "16",
        "--eval-every",
        "0",
    ]
    assert main([*base, "--iterations", "1"]) == 0
    before = (out / "checkpoint.pt").read_bytes()
    capsys.readouterr()
    assert main([*base, "--iterations", "2", "--simulations", "9"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "simulations 8 -> 9" in err and "new --out" in err
    assert (out / "checkpoint.pt").read_bytes() == before
    assert main(["train", "othello6", "--out", str(out)]) == 2
    assert "holds a connect4 run" in capsys.readouterr().err
    assert main(["train", "connect4", "--out", str(out), "--iterations", "2"]) == 0  # stored settings reused
    assert _weights(out)["iteration"] == 2


def test_a_run_from_before_a_setting_existed_resumes_with_its_default(tmp_path):
    """A run folder whose config.json predates a setting reads it as the setting's default (the playout cap: off),
    and still refuses a run that changes it."""
    config = TrainConfig.for_game("connect4", **TINY)
    Run(tmp_path / "r", config, device="cpu").close()
    path = tmp_path / "r" / "config.json"
    stored = json.loads(path.read_text())
    del stored["cap_fast"], stored["cap_share"]
    path.write_text(json.dumps(stored))
    Run(tmp_path / "r", config, device="cpu").close()
    with pytest.raises(ValueError, match="cap_fast 0 -> 4"):
        Run(tmp_path / "r", TrainConfig.for_game("connect4", **TINY, cap_fast=4), device="cpu")


def test_a_run_without_augmentation_learns_each_position_once_as_played(tmp_path, capsys):
    """--augment off queues the recorded positions alone, as self-play gave them (on: each with its mirror image); a
    folder from before the setting resumes as on, and anything but on or off is a one-line error."""
    config = TrainConfig.for_game("connect4", **{**TINY, "games": 2, "simulations": 8, "batch": 16, "augment": False})
    with Run(tmp_path / "r", config, device="cpu") as run:
        record = run.step()
        n, queued = record["positions"], run.queue.contents()
        assert run.queue.size == record["queue"] == n > 0
        mirrored = queued.planes[:, :, :, ::-1]
        assert not all(any(np.array_equal(m, p) for p in queued.planes) for m in mirrored)
    with pytest.raises(ValueError, match="augment True -> False"):
        Run(tmp_path / "old", TrainConfig.for_game("connect4", **TINY), device="cpu").close()
        path = tmp_path / "old" / "config.json"
        path.write_text(json.dumps({k: v for k, v in json.loads(path.read_text()).items() if k != "augment"}))
        Run(tmp_path / "old", TrainConfig.for_game("connect4", **TINY), device="cpu").close()  # read as on
        Run(tmp_path / "old", config, device="cpu")
    with pytest.raises(SystemExit, match="2"):
        main(["train", "connect4", "--out", str(tmp_path / "x"), "--augment", "no"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--augment: takes on or off, got 'no'" in err and not (tmp_path / "x").exists()


def test_a_run_goes_on_at_a_new_learning_rate_with_its_queue_and_says_so(tmp_path):
    """--lr may change when a run goes on (a step-down schedule): the optimizer learns at the new rate (not the one
    its checkpoint restored), the queue stays, config.json takes the rate, and each log line records its own; lines
    from before the rate was logged get the rate they ran at; any other setting is still refused."""
    config = TrainConfig.for_game("connect4", **TINY, lr=0.02)
    with Run(tmp_path / "r", config, device="cpu") as run:
        run.step()
        size = run.queue.size
    log, blob = tmp_path / "r" / "log.jsonl", _weights(tmp_path / "r")
    old = [{k: v for k, v in r.items() if k != "lr"} for r in json.loads(blob["history"])]
    torch.save({**blob, "history": json.dumps(old)}, tmp_path / "r" / "checkpoint.pt")  # from before lines held it
    log.write_text("".join(json.dumps(r) + "\n" for r in old))
    lower = TrainConfig.for_game("connect4", **TINY, lr=0.002)
    with Run(tmp_path / "r", lower, device="cpu") as run:
        assert run.queue.size == size and run.iteration == 1
        assert [g["lr"] for g in run.optimizer.param_groups] == [0.002]
        assert all("momentum_buffer" in v for v in run.optimizer.state.values()) and run.optimizer.state  # kept
        run.step()
    assert [json.loads(line)["lr"] for line in log.read_text().splitlines()] == [0.02, 0.002]
    assert json.loads((tmp_path / "r" / "config.json").read_text())["lr"] == 0.002
    assert [g["lr"] for g in _weights(tmp_path / "r")["optimizer"]["param_groups"]] == [0.002]
    with pytest.raises(ValueError, match="momentum 0.9 -> 0.5"):
        Run(tmp_path / "r", TrainConfig.for_game("connect4", **TINY, lr=0.0002, momentum=0.5), device="cpu")
    assert json.loads((tmp_path / "r" / "config.json").read_text())["lr"] == 0.002  # a refused run changed nothing


@pytest.mark.slow
def test_yardsticks_and_report(tmp_path):
    assert (
        main(
            [
                "train",
                "connect4",
                "--out",
                str(tmp_path / "r"),
                "--filters",
                "8",
                "--blocks",
                "1",
                "--games",
                "2",
                "--simulations",
                "8",
                "--batch",
                "16",
                "--iterations",
                "2",
                "--eval-every",
                "1",
                "--eval-games",
                "2",
            ]
        )
        == 0
    )
    history = [json.loads(line) for line in (tmp_path / "r" / "log.jsonl").read_text().splitlines()]
    matches = history[-1]["eval"]["matches"]
    assert set(matches) == {"mcts1", "minimax1", "best"}
    assert all(m["wins"] + m["draws"] + m["losses"] == 2 for m in matches.values())
    report = (tmp_path / "r" / "report.md").read_text()
    assert "| 2 |" in report and (tmp_path / "r" / "score.png").stat().st_size > 1000


def test_bad_settings_are_one_line_errors(tmp_path, capsys):
    with pytest.raises(ValueError, match="eps must lie in"):
        TrainConfig.for_game("connect4", eps=1.5).check()
    for keys in ({"cap_fast": 1}, {"cap_fast": 200}, {"cap_fast": 20, "cap_share": 0.0}, {"cap_share": 0.5}):
        with pytest.raises(ValueError, match="cap_"):
            TrainConfig.for_game("connect4", **keys).check()
    assert main(["train", "connect4", "--out", str(tmp_path / "x"), "--size", "huge"]) == 2
    assert "unknown network size 'huge'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    assert main(["train", "connect4", "--out", str(tmp_path / "busy"), "--filters", "8"]) == 2
    assert "holds no training run" in capsys.readouterr().err
    for options, message in (
        (["--hours", "0"], "--hours must be positive"),
        (["--filters", "0"], "filters must be at least 1"),
    ):
        assert main(["train", "connect4", "--out", str(tmp_path / "y"), *options]) == 2
        assert message in capsys.readouterr().err and not (tmp_path / "y").exists()
    (tmp_path / "file").write_text("")
    assert main(["train", "connect4", "--out", str(tmp_path / "file")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "config.json").write_text("[1]")
    assert main(["train", "connect4", "--out", str(tmp_path / "odd")]) == 2
    assert "not a JSON object" in capsys.readouterr().err


@pytest.mark.slow
def test_a_run_can_start_from_another_nets_weights(tmp_path, capsys, monkeypatch):
    base = [
        "--filters",
        "8",
        "--blocks",
        "1",
        "--games",
        "2",
        "--simulations",
        "8",
        "--batch",
        "16",
        "--eval-every",
        "0",
    ]
    assert main(["train", "connect4", "--out", str(tmp_path / "a"), "--iterations", "1", *base]) == 0
    start = nets.load(tmp_path / "a" / "net.pt")
    # the CLI takes the architecture from the net; a new seed would otherwise give other weights
    assert (
        main(
            [
                "train",
                "connect4",
                "--out",
                str(tmp_path / "b"),
                "--iterations",
                "1",
                "--init",
                str(tmp_path / "a" / "net.pt"),
                "--lr",
                "0.002",
                "--seed",
                "5",
            ]
        )
        == 0
    )
    stored = json.loads((tmp_path / "b" / "config.json").read_text())
    assert (stored["filters"], stored["blocks"], stored["lr"]) == (8, 1, 0.002)
    assert stored["init"] == str((tmp_path / "a" / "net.pt").resolve())
    monkeypatch.chdir(tmp_path)  # the same command again, its --init relative, goes on (the stored path is absolute)
    again = ["train", "connect4", "--out", "r", "--init", "a/net.pt", "--lr", "0.002", "--seed", "5", "--iterations"]
    assert main([*again, "1"]) == 0 and main([*again, "2"]) == 0
    assert [json.loads(line)["iteration"] for line in (tmp_path / "r" / "log.jsonl").read_text().splitlines()] == [1, 2]
    (tmp_path / "r" / "checkpoint.pt").unlink()  # moved to a machine without the queue, nor the net it started from
    (tmp_path / "a" / "net.pt").rename(tmp_path / "a" / "gone.pt")
    assert main([*again, "3"]) == 0
    lines = [json.loads(line) for line in (tmp_path / "r" / "log.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in lines] == [1, 2, 3] and lines[-1]["regenerated"]
    assert nets.load(tmp_path / "r" / "net.pt").meta["provenance"]["init"]["iteration"] == 1
    (tmp_path / "a" / "gone.pt").rename(tmp_path / "a" / "net.pt")
    with Run(tmp_path / "c", TrainConfig.for_game("connect4", **{**TINY, "init": stored["init"]})) as run:
        same = [torch.equal(run.model.state_dict()[k], v) for k, v in start.state_dict().items()]
        assert all(same)  # iteration 0 is the given net, not a seeded fresh one
        assert nets.load(tmp_path / "c" / "best.pt").meta["provenance"]["init"]["iteration"] == 1
        run.step()
    with Run(tmp_path / "c", TrainConfig.for_game("connect4", **{**TINY, "init": stored["init"]})) as run:
        assert run.iteration == 1  # resumed, not started again from the init net
    assert nets.load(tmp_path / "c" / "net.pt").meta["provenance"]["init"]["iteration"] == 1
    capsys.readouterr()
    assert (
        main(
            [
                "train",
                "connect4",
                "--out",
                str(tmp_path / "d"),
                "--init",
                str(tmp_path / "a" / "net.pt"),
                "--filters",
                "16",
                "--iterations",
                "1",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--init" in err and "8 filters" in err and "16 filters" in err
    assert not (tmp_path / "d").exists()
    assert main(["train", "connect4", "--out", str(tmp_path / "e"), "--init", str(tmp_path / "none.pt")]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "e").exists()


def test_a_game_with_parameters_trains_with_its_kind_s_settings(tmp_path, capsys):
    """Go with another komi is another game: Table A1's go9 settings and sizes, its own name on the checkpoint,
    and the net refused for plain go9."""
    config = TrainConfig.for_game("go9(komi=6.5)")
    assert config.game == "go9(komi=6.5)" and config.simulations == TrainConfig.for_game("go9").simulations
    assert main(["net", "init", "go9(komi=6.5)", "--out", str(tmp_path / "k.pt")]) == 0
    assert nets.load(str(tmp_path / "k.pt"), game="go9(komi=6.5)").arch.blocks == nets.SIZES["go9"]["small"]["blocks"]
    with pytest.raises(ValueError, match="go9"):
        nets.load(str(tmp_path / "k.pt"), game="go9")
    assert main(["train", "openspiel:tic_tac_toe", "--out", str(tmp_path / "t")]) == 2
    assert "no training settings for 'openspiel:tic_tac_toe'" in capsys.readouterr().err
    assert not (tmp_path / "t").exists()


def test_reuse_learns_on_that_many_times_the_new_positions_drawn_from_the_queue(tmp_path):
    """Without reuse an iteration makes one pass over the whole queue; with reuse R it learns on R x the positions it
    queued (mirrors included), drawn from the queue without repeats: the SGD steps count them in mini-batches."""
    config = TrainConfig.for_game("connect4", **{**TINY, "games": 2, "simulations": 8, "batch": 8, "queue": 2000})
    with Run(tmp_path / "whole", config, device="cpu") as run:
        records = [run.step() for _ in range(3)]
    queued = np.cumsum([2 * r["positions"] for r in records])
    assert [r["steps"] for r in records] == [-(-q // 8) for q in queued]  # ceil: the last mini-batch is partial
    with Run(tmp_path / "reuse", TrainConfig(**{**config.__dict__, "reuse": 1.5}), device="cpu") as run:
        records = [run.step() for _ in range(3)]
        drawn = [round(1.5 * 2 * r["positions"]) for r in records]
        assert [r["steps"] for r in records] == [-(-min(d, q) // 8) for d, q in zip(drawn, queued)]
        # asked for more than the queue holds, it draws every queued row once, in some order
        rows, queue = run._learning_set(10**6, torch.Generator().manual_seed(0)), run.queue.contents()

        def keys(examples):
            return sorted(p.tobytes() + q.tobytes() + v.tobytes() for p, q, v in zip(*vars(examples).values()))

        assert keys(rows) == keys(queue) and not np.array_equal(rows.planes, queue.planes)
    with pytest.raises(ValueError, match="reuse must be 0"):
        TrainConfig.for_game("connect4", reuse=2.0, epochs=2).check()
