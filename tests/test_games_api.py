"""One conformance suite that every registered game must pass (OpenSpiel-style state API)."""

import random

import numpy as np
import pytest

import games
from games import TERMINAL_PLAYER

ALL = games.names()
TWO = [name for name in ALL if games.load(name).players == 2]  # what a net and the play page are for
DRAWN = [name for name in TWO if games.load(name).drawn]


def random_game(game, seed, stop_before_end=False):
    """States along a seeded random game, from the start to the end (or to the last non-terminal state)."""
    rnd = random.Random(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal():
        state.apply_action(rnd.choice(state.legal_actions()))
        states.append(state.clone())
    return states[:-1] if stop_before_end else states


def test_names_and_unknown_game():
    assert set(ALL) == {
        "connect4",
        "othello",
        "othello6",
        "breakthrough",
        "pentago",
        "pentago_ggp",
        "knightthrough",
        "connect5",
        "tictactoe3d",
        "sheepandwolf",
        "chinesecheckers3",
        "quad",
        "go9",
        "checkers",
        "chinook",
        "ttcc4_2p",
        "ttcc4_3p",
    }
    known = "breakthrough, checkers, chinesecheckers3, chinook, connect4, connect5, go9, knightthrough, othello"
    with pytest.raises(ValueError, match=f"unknown game 'chess'.*{known}"):
        games.load("chess")


@pytest.mark.parametrize("name", ALL)
def test_metadata(name):
    game = games.load(name)
    assert game.name == name
    assert game.num_players() == {"chinesecheckers3": 3, "ttcc4_3p": 3}.get(name, 2)
    actions = {
        "connect4": 7,
        "othello": 65,
        "othello6": 37,
        "breakthrough": 768,
        "pentago": 288,
        "pentago_ggp": 44,
        "knightthrough": 256,
        "connect5": 64,
        "tictactoe3d": 64,
        "sheepandwolf": 256,
        "chinesecheckers3": 37 * 37 + 1,
        "quad": 98,
        "go9": 82,
        "checkers": 32 * 88,
        "chinook": 257,
        "ttcc4_2p": 151,
        "ttcc4_3p": 151,
    }
    expected = actions[name]
    assert game.num_distinct_actions() == expected
    assert games.load(name) is game


@pytest.mark.parametrize("name", ALL)
def test_random_games_are_consistent(name):
    game = games.load(name)
    n = game.players
    for seed in range(20):
        states = random_game(game, seed)
        for before, after in zip(states, states[1:]):
            assert before.current_player() in range(n)
            assert before.returns() == [0.0] * n
            legal = before.legal_actions()
            assert legal == sorted(set(legal)) and all(0 <= a < game.num_distinct_actions() for a in legal)
            assert len(legal) <= game.max_legal
            assert after.history()[:-1] == before.history() and after.history()[-1] in legal
        assert len(states) - 1 <= game.max_game_length
        end = states[-1]
        assert end.current_player() == TERMINAL_PLAYER
        assert end.legal_actions() == []
        scores = end.scores()
        assert len(scores) == n and all(0.0 <= x <= 1.0 for x in scores)
        assert end.returns() == [2 * x - 1 for x in scores]
        top = [p for p in range(n) if scores[p] == max(scores)]
        assert end.outcome().winner == (top[0] if len(top) == 1 else None)
        if n == 2:  # constant-sum: a win and a loss, a draw, or Quad's graded goals
            assert sum(scores) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ALL)
def test_illegal_action_raises_and_leaves_state_untouched(name):
    game = games.load(name)
    state = random_game(game, 3, stop_before_end=True)[5]
    illegal = next((a for a in range(game.num_distinct_actions()) if a not in state.legal_actions()), -1)
    snapshot, history = state.array.copy(), state.history()
    with pytest.raises(ValueError, match="illegal action .*legal actions: "):
        state.apply_action(illegal)
    position = game.state_size - game.scratch  # the scratch the kernels work in is not the position
    assert np.array_equal(state.array[:position], snapshot[:position]) and state.history() == history
    end = random_game(game, 3)[-1]
    with pytest.raises(ValueError, match="the game is over"):
        end.apply_action(0)


@pytest.mark.parametrize("name", ALL)
def test_clone_is_independent(name):
    state = games.load(name).new_initial_state()
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert state.history() == [] and len(copy.history()) == 1
    assert str(state) != str(copy)


@pytest.mark.parametrize("name", ALL)
def test_action_strings_round_trip(name):
    game = games.load(name)
    for state in random_game(game, 11, stop_before_end=True):
        for a in state.legal_actions():
            assert state.string_to_action(state.action_to_string(a)) == a
    with pytest.raises(ValueError, match="bad .* action 'zz9'"):
        game.new_initial_state().string_to_action("zz9")


@pytest.mark.parametrize("name", DRAWN)
def test_action_squares_are_where_the_mover_s_piece_goes(name):
    """What the play page draws a move by: the to-square is empty (or the opponent's) before and the mover's
    after; a from-square holds the mover's piece before and is empty after; a pass has neither. Pentago's
    to-square is where the marble is placed, empty before; the quadrant's turn may carry it away (in pentago_ggp the
    turn is a move of its own, with no square, after which the other player moves)."""
    rng = random.Random(4)
    for _ in range(20):
        state = games.load(name).new_initial_state()
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            mover = state.current_player()
            start, end = state.action_squares(action)
            before = state.planes()
            state.apply_action(action)
            after = state.planes()
            if name == "pentago_ggp" and end is None:  # a quadrant's turn, the same player's second move
                assert start is None and (state.is_terminal() or state.current_player() == 1 - mover)
                continue
            if end is None:  # an Othello pass
                assert start is None and state.action_to_string(action) == "pass"
                continue
            if name.startswith("pentago"):
                assert start is None and not before[0][end] and not before[1][end]
                assert after[mover].sum() == before[mover].sum() + 1
                continue
            assert not before[mover][end] and after[mover][end]
            if start is not None:
                assert before[mover][start] and not after[mover][start] and not after[1 - mover][start]


@pytest.mark.parametrize("name", TWO)
def test_encode_is_from_the_view_of_the_player_to_move(name):
    game = games.load(name)
    for state in random_game(game, 5, stop_before_end=True)[:12]:
        x = state.encode()
        assert x.shape == (3, *game.board_shape) and x.dtype == np.float32
        p0, p1 = game.planes(state.array)
        mover = state.current_player()
        own, opp = (p0, p1) if mover == 0 else (p1, p0)
        assert np.array_equal(x[0] == 1, own) and np.array_equal(x[1] == 1, opp)
        assert not (own & opp).any()
        assert np.all(x[2] == mover)
        assert pieces_on_board(state) in (None, own.sum() + opp.sum())


def pieces_on_board(state):
    """Disc count known from the rules: one per Connect4, Connect 5, Pentago or 3D Tic-Tac-Toe move; Othello's four
    plus one per non-pass move; Breakthrough's and Knightthrough's 32 less one per capture (Knightthrough's read off
    the board before each move: its actions carry no capture flag); Sheep and Wolf's five, always; one per Quad mark."""
    moves = state.history()
    name = state.game.name
    if name in ("connect4", "pentago", "connect5", "tictactoe3d"):
        return len(moves)
    if name == "sheepandwolf":
        return 5
    if name == "chinook":  # 28 men less one per jump (kinds 2 and 3; 256 the pass)
        return 28 - sum(a < 256 and a % 4 >= 2 for a in moves)
    if name == "pentago_ggp":  # a marble, then its turn
        return sum(a < 36 for a in moves)
    if name == "go9":  # the moves do not say what they captured: tests/test_go.py checks the board against OpenSpiel's
        return None
    if name == "quad":  # a mark places a stone (a block, 49 and up, a blocker: no one's piece)
        return sum(a < 49 for a in moves)
    if name.startswith("othello"):
        return 4 + sum(a != state.game.pass_action for a in moves)
    if name == "knightthrough":
        replay, captures = state.game.new_initial_state(), 0
        for a in moves:
            captures += replay.planes()[1 - replay.current_player()][replay.action_squares(a)[1]]
            replay.apply_action(a)
        return 32 - captures
    if name == "ttcc4_2p":  # the pieces come and go between the board and home; the drops and takes say nothing
        return None
    if name == "checkers":  # a jump's squares are two files apart, and each takes one piece
        texts = [state.game.action_to_string(None, a) for a in moves]
        return 24 - sum(len(t) // 2 - 1 for t in texts if abs(ord(t[0]) - ord(t[2])) == 2)
    return 32 - sum(a % 2 for a in moves)  # the capture flag is the lowest digit of the action


@pytest.mark.parametrize(
    "name, count",
    [
        ("connect4", 2),
        ("othello", 8),
        ("othello6", 8),
        ("breakthrough", 2),
        ("pentago", 8),
        ("pentago_ggp", 8),
        ("knightthrough", 2),
        ("connect5", 8),
        ("tictactoe3d", 48),
        ("sheepandwolf", 1),
        ("quad", 8),
        ("go9", 8),
        ("checkers", 1),
        ("chinook", 8),
        ("ttcc4_2p", 1),
    ],
)
def test_symmetries_form_a_group_of_the_expected_size(name, count):
    game = games.load(name)
    state = random_game(game, 2, stop_before_end=True)[6]
    policy = np.random.default_rng(0).random(game.num_distinct_actions())
    pairs = state.symmetries(policy)
    assert len(pairs) == count
    assert np.array_equal(pairs[0][0], state.encode()) and np.array_equal(pairs[0][1], policy)
    images = {(p.tobytes(), q.tobytes()) for p, q in pairs}
    assert len(images) == count  # all distinct on a generic position
    for _, pol in pairs:
        assert np.isclose(pol.sum(), policy.sum())


@pytest.mark.parametrize("name", TWO)
def test_symmetries_map_games_to_games(name):
    """A symmetry that fixes the initial position maps a game's moves to a game with mapped boards."""
    game = games.load(name)
    start = game.new_initial_state()
    n = game.num_distinct_actions()
    identity_policy = np.arange(n, dtype=np.float64)
    for transform, perm in game.symmetry_maps():
        if not np.array_equal(transform(start.encode()), start.encode()):
            continue  # e.g. the Othello symmetries that swap the colours of the start position
        for state in random_game(game, 9)[1:]:
            mirrored = game.new_initial_state()
            for a in state.history():
                mirrored.apply_action(int(perm[a]))
            assert np.array_equal(mirrored.encode(), transform(state.encode()))
            assert mirrored.returns() == state.returns()
        # the policy permutation of game.symmetries agrees with perm
        mapped = [
            p
            for t, p in game.symmetries(start.encode(), identity_policy)
            if np.array_equal(t, transform(start.encode()))
        ]
        assert any(np.array_equal(m[perm], identity_policy) for m in mapped)
