"""Sheep and Wolf against a plain reading of GGP's sheepAndWolf.kif (cells (x, y) with x, y in 1-8, the kif's
`adjacent`, `moveable`, `wolf_behind_sheep` and goals, no bitboards): legal moves, the end and its winner over
random games, perft; and hand-built endings of each kind."""

import random

import numpy as np
import pytest

import games
from games.game import State
from games.kernels import perft

SW = games.load("sheepandwolf")


class KifSheepAndWolf:
    def __init__(self):
        self.wolf = (4, 8)
        self.sheep = {(1, 1), (3, 1), (5, 1), (7, 1)}
        self.control = "wolf"

    def blank(self, x, y):
        return 1 <= x <= 8 and 1 <= y <= 8 and (x, y) != self.wolf and (x, y) not in self.sheep

    def adjacent(self, role, x, y):
        """The kif's `adjacent`: a sheep to (x +- 1, y + 1); the wolf to (x +- 1, y +- 1)."""
        dys = (1,) if role == "sheep" else (1, -1)
        return [(x + dx, y + dy) for dx in (1, -1) for dy in dys]

    def moves(self, role=None):
        role = role or self.control
        pieces = [self.wolf] if role == "wolf" else sorted(self.sheep)
        return {(x, y, *to) for x, y in pieces for to in self.adjacent(role, x, y) if self.blank(*to)}

    def play(self, move):
        x1, y1, x2, y2 = move
        if self.control == "wolf":
            self.wolf = (x2, y2)
        else:
            self.sheep = (self.sheep - {(x1, y1)}) | {(x2, y2)}
        self.control = "sheep" if self.control == "wolf" else "wolf"

    def winner(self):
        """'wolf' or 'sheep' once terminal (the wolf's goal is 100 exactly when it is moveable), else None."""
        behind = not any(ys < self.wolf[1] for _, ys in self.sheep)
        wolf_moves, sheep_moves = self.moves("wolf"), self.moves("sheep")
        if behind or not wolf_moves or not sheep_moves:
            return "wolf" if wolf_moves else "sheep"
        return None


def kif_move(state, action):
    """Our action as the kif's move: column c is x = c + 1, row r is y = 8 - r."""
    (r, c), (r2, c2) = state.action_squares(action)
    return c + 1, 8 - r, c2 + 1, 8 - r2


def test_perft_by_hand_and_against_the_kif():
    """The wolf's two first steps (c7, e7); then the sheep's 7: a1-b2, c1-b2, c1-d2, e1-d2, e1-f2, g1-f2, g1-h2."""
    start = SW.new_initial_state().array
    counts = [perft(SW.kernels, start, d, SW.max_legal) for d in (1, 2, 3, 4, 5)]
    assert counts[:2] == [2, 14]

    def kif_perft(game, depth):
        if depth == 0 or game.winner():
            return 1
        total = 0
        for move in game.moves():
            child = KifSheepAndWolf()
            child.wolf, child.sheep, child.control = game.wolf, set(game.sheep), game.control
            child.play(move)
            total += kif_perft(child, depth - 1)
        return total

    assert counts[2:] == [kif_perft(KifSheepAndWolf(), d) for d in (3, 4, 5)]


def test_random_games_follow_the_kif_move_for_move():
    rng = random.Random(0)
    winners = set()
    for _ in range(400):
        state, kif = SW.new_initial_state(), KifSheepAndWolf()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert {kif_move(state, a) for a in legal} == kif.moves() and len(legal) == len(kif.moves())
            assert kif.winner() is None
            action = rng.choice(legal)
            kif.play(kif_move(state, action))
            state.apply_action(action)
        winner = kif.winner()
        assert winner == ("wolf" if state.returns()[0] > 0 else "sheep") and len(state.history()) <= SW.max_game_length
        winners.add(winner)
    assert winners == {"wolf", "sheep"}


def position(wolf, sheep, to_move):
    """The wolf and the sheep on squares such as 'd8', `to_move` (0: the wolf) to move."""
    s = np.zeros(SW.state_size, dtype=np.uint64)
    bit = lambda square: np.uint64(1 << ((8 - int(square[1])) * 8 + "abcdefgh".index(square[0])))  # noqa: E731
    s[0] = bit(wolf)
    for square in sheep:
        s[1] |= bit(square)
    s[2] = to_move
    return State(SW, s, [])


def test_sheep_that_shut_the_wolf_in_win():
    """The wolf on a8 can only go to b7; a sheep stepping onto b7 leaves it no move."""
    state = position("a8", ["a6", "c6", "e1", "g1"], to_move=1)
    state.apply_action(state.string_to_action("a6b7"))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_a_wolf_level_with_every_sheep_wins():
    """From d4 to c3 the wolf stands level with a3 and above the rest: no sheep is on a lower rank; with a sheep
    on a2 one still is; on the first rank no sheep can be lower."""
    state = position("d4", ["a3", "c5", "e5", "g5"], to_move=0)
    state.apply_action(state.string_to_action("d4c3"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    state = position("d4", ["a2", "c5", "e5", "g5"], to_move=0)
    state.apply_action(state.string_to_action("d4c3"))
    assert not state.is_terminal()
    state = position("d2", ["a1", "c5", "e5", "g5"], to_move=0)  # on the first rank, level with a1: through
    state.apply_action(state.string_to_action("d2c1"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_sheep_left_without_a_move_lose():
    """a7 is blocked by the wolf on b8, c8 and e8 stand on the last rank; g7's step to h8 was the sheep's last."""
    state = position("b8", ["a7", "c8", "e8", "g7"], to_move=1)
    state.apply_action(state.string_to_action("g7h8"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_names_read_back_and_a_sheep_never_steps_down():
    state = SW.new_initial_state()
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == ["d8c7", "d8e7"]
    assert all(state.string_to_action(state.action_to_string(a)) == a for a in state.legal_actions())
    state.apply_action(state.string_to_action("d8c7"))
    assert all(int(state.action_to_string(a)[3]) == 2 for a in state.legal_actions())
    with pytest.raises(ValueError, match="one step diagonally"):
        state.string_to_action("a1a2")
