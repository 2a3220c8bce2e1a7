"""Knightthrough against a plain reading of GGP's knightThrough.kif (cells (x, y), white on y = 1-2 moving up),
written here without bitboards: legal moves, captures, wins and perft; and hand-built endings."""

import random

import numpy as np
import pytest

import games
from games.game import State
from games.kernels import perft

KT = games.load("knightthrough")
JUMPS = [(1, 2), (-1, 2), (2, 1), (-2, 1)]  # (file, rank) steps of a white knight; black's go down


class KifKnightthrough:
    """The kif's rules over a dict of cells: `legal` (move x1 y1 x2 y2), `next`, `terminal` and `goal`."""

    def __init__(self):
        self.cells = {(x, y): "white" for x in range(1, 9) for y in (1, 2)}
        self.cells.update({(x, y): "black" for x in range(1, 9) for y in (7, 8)})
        self.control = "white"

    def moves(self):
        sign = 1 if self.control == "white" else -1
        out = set()
        for (x, y), who in self.cells.items():
            if who != self.control:
                continue
            for dx, dy in JUMPS:
                x2, y2 = x + dx, y + sign * dy
                if 1 <= x2 <= 8 and 1 <= y2 <= 8 and self.cells.get((x2, y2)) != self.control:
                    out.add((x, y, x2, y2))
        return out

    def play(self, move):
        x1, y1, x2, y2 = move
        self.cells[(x2, y2)] = self.cells.pop((x1, y1))
        self.control = "black" if self.control == "white" else "white"

    def winner(self):
        """'white', 'black' or None while the game goes on."""
        pieces = set(self.cells.values())
        if any(who == "white" and y == 8 for (x, y), who in self.cells.items()) or "black" not in pieces:
            return "white"
        if any(who == "black" and y == 1 for (x, y), who in self.cells.items()) or "white" not in pieces:
            return "black"
        return None


def kif_move(state, action):
    """Our action as the kif's (move x1 y1 x2 y2): column c is file x = c + 1, row r is rank y = 8 - r."""
    (r, c), (r2, c2) = state.action_squares(action)
    return c + 1, 8 - r, c2 + 1, 8 - r2


def kif_perft(game, depth):
    if depth == 0 or game.winner():
        return 1
    total = 0
    for move in game.moves():
        child = KifKnightthrough()
        child.cells, child.control = dict(game.cells), game.control
        child.play(move)
        total += kif_perft(child, depth - 1)
    return total


def test_perft_from_the_start_matches_the_kif_and_hand_counts():
    """40 first jumps, by hand: each rank-2 knight has its in-board (file +-1, 2 ranks) and (file +-2, 1 rank)
    jumps, 14 + 12, and each rank-1 knight its (file +-1, 2 ranks) ones, 14; black answers alike (1,600)."""
    start = KT.new_initial_state().array
    counts = [perft(KT.kernels, start, d, KT.max_legal) for d in (1, 2, 3)]
    assert counts[:2] == [40, 1600]
    assert counts[2] == kif_perft(KifKnightthrough(), 3)


def test_random_games_follow_the_kif_move_for_move():
    rng = random.Random(0)
    lengths = []
    for _ in range(300):
        state, kif = KT.new_initial_state(), KifKnightthrough()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert {kif_move(state, a) for a in legal} == kif.moves() and len(legal) == len(kif.moves())
            assert kif.winner() is None
            action = rng.choice(legal)
            kif.play(kif_move(state, action))
            state.apply_action(action)
        lengths.append(len(state.history()))
        assert kif.winner() == ("white", "black")[0 if state.returns()[0] > 0 else 1]
    assert max(lengths) <= KT.max_game_length


def position(white, black, to_move=0):
    """Knights at (file, rank) squares such as ('b', 1), `to_move` (0: white) to move."""
    s = np.zeros(KT.state_size, dtype=np.uint64)
    for p, squares in enumerate((white, black)):
        for f, rank in squares:
            s[p] |= np.uint64(1 << ((8 - rank) * 8 + "abcdefgh".index(f)))
    s[2] = to_move
    return State(KT, s, [])


def test_reaching_the_far_rank_wins_and_a_jump_captures():
    state = position([("c", 6), ("a", 1)], [("d", 8), ("h", 8)])
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == sorted(
        ["c6b8", "c6d8", "c6a7", "c6e7", "a1b3", "a1c2"]
    )
    state.apply_action(state.string_to_action("c6d8"))  # onto black's d8: a capture on the far rank
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert not state.planes()[1][0, 3] and state.planes()[0][0, 3]


def test_capturing_the_last_knight_wins_for_black_too():
    state = position([("e", 4)], [("d", 6), ("a", 8)], to_move=1)
    state.apply_action(state.string_to_action("d6e4"))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_a_knight_never_jumps_back_or_onto_its_own_side():
    state = position([("d", 4), ("c", 6), ("f", 5)], [("h", 8)])
    moves = {state.action_to_string(a) for a in state.legal_actions()}
    assert {m for m in moves if m.startswith("d4")} == {"d4e6", "d4b5"}  # c6 and f5 are white's own
    assert all(int(m[3]) > int(m[1]) for m in moves)  # white only goes up
    with pytest.raises(ValueError, match="jumps forward"):
        state.string_to_action("d4b3")
