"""Quad 7x7 against a plain reading of GGP's quad_7x7.kif: its cells (x, y) in 1-7 without the corners, its
recursive `square` relation computed to its fixed point, its `legal`, `next`, `terminal` and graded goals; over
random games move for move, perft, and hand-built endings of each kind."""

import random

import numpy as np
import pytest

import games
from games.kernels import perft
from games.quad import CELLS, SQUARES

QUAD = games.load("quad")
CORNERS = {(1, 1), (1, 7), (7, 1), (7, 7)}
BOARD = [(x, y) for x in range(1, 8) for y in range(1, 8) if (x, y) not in CORNERS]


def kif_squares():
    """The kif's `square` (x1 y1 x2 y2 x3 y3 x4 y4) to its fixed point: unit squares; an axis square grown one row
    and one column; any square sheared (its 2nd and 4th corners a row up, its 3rd and 4th a column right)."""
    ncol = {(y, y + 1) for y in range(1, 7)}
    nrow = {(x, x + 1) for x in range(1, 7)}
    squares = {(x1, y1, x1, y2, x2, y1, x2, y2) for y1, y2 in ncol for x1, x2 in nrow}
    while True:
        new = set()
        for x1, y1, x2, y2, x3, y3, x4, y4 in squares:
            if x2 == x1 and y3 == y1 and (x4, y4) == (x3, y2):  # x1 y1 x1 y3 x3 y1 x3 y3: grow it
                if (y2, y2 + 1) in ncol and (x3, x3 + 1) in nrow:
                    new.add((x1, y1, x1, y2 + 1, x3 + 1, y1, x3 + 1, y2 + 1))
            if (x2 - 1, x2) in nrow and (y3, y3 + 1) in ncol and (x4 - 1, x4) in nrow and (y4, y4 + 1) in ncol:
                new.add((x1, y1, x2 - 1, y2, x3, y3 + 1, x4 - 1, y4 + 1))  # the shear
        if new <= squares:
            return squares
        squares |= new


class Kif:
    def __init__(self):
        self.cell = dict.fromkeys(BOARD, "b")
        self.quad, self.white, self.control = {"x": 12, "o": 12}, {"x": 5, "o": 5}, "x"

    def copy(self):
        other = Kif()
        other.cell, other.quad, other.white, other.control = (
            dict(self.cell),
            dict(self.quad),
            dict(self.white),
            self.control,
        )
        return other

    def moves(self):
        p = self.control
        blank = [c for c, v in self.cell.items() if v == "b"]
        out = {("mark", *c) for c in blank}
        if self.white[p] != 0:
            out |= {("block", *c) for c in blank}
        return out

    def play(self, move):
        kind, x, y = move
        p = self.control
        if kind == "mark":
            self.cell[x, y] = p
            self.quad[p] -= 1
            self.control = "o" if p == "x" else "x"
        else:
            self.cell[x, y] = "w"
            self.white[p] -= 1

    def has_square(self, who, blank_ok=False):
        """Four of `who` on a square (`win` / `lose`); with blank_ok, three and a blank (`winByOpenQuad`)."""
        for sq in SQUARES_KIF:
            values = [self.cell.get(c, None) for c in sq]
            if values.count(who) == 4 or (blank_ok and values.count(who) == 3 and values.count("b") == 1):
                return True
        return False

    def open(self):
        return any(c != 0 for c in self.quad.values())

    def terminal(self):
        return self.has_square("x") or self.has_square("o") or not self.open()

    def goals(self):
        win, lose = self.has_square("x"), self.has_square("o")
        if win:
            return 100, 0
        if lose:
            return 0, 100
        if self.has_square("x", blank_ok=True):  # not lose, not open: the game is over
            return 95, 5
        a, b = self.white["x"], self.white["o"]
        return (90, 10) if a > b else (10, 90) if b > a else (50, 50)


SQUARES_KIF = sorted({tuple(sorted(set(zip(s[::2], s[1::2])))) for s in kif_squares()})


def action(move):
    kind, x, y = move
    cell = (x - 1) * 7 + (y - 1)
    return cell + (CELLS if kind == "block" else 0)


def test_our_squares_are_the_kifs_on_the_board():
    """The kif's relation spans every square of the 7x7 grid, tilted ones too; on the board are those without a
    corner (a corner has no cell: nothing can stand there)."""
    kif = {sq for sq in SQUARES_KIF if not set(sq) & CORNERS}
    ours = {tuple(sorted((c // 7 + 1, c % 7 + 1) for c in range(CELLS) if (int(m) >> c) & 1)) for m in SQUARES}
    assert ours == kif and len(ours) == 175
    assert len(SQUARES_KIF) == 196  # on the whole grid: sum over sizes s of s (7 - s)^2


def test_random_games_follow_the_kif_move_for_move():
    rng = random.Random(0)
    ends = set()
    for _ in range(300):
        state, kif = QUAD.new_initial_state(), Kif()
        while not kif.terminal():
            assert not state.is_terminal()
            assert state.current_player() == "xo".index(kif.control)
            assert state.legal_actions() == sorted(action(m) for m in kif.moves())
            moves = sorted(kif.moves())
            marks = [m for m in moves if m[0] == "mark"]
            move = rng.choice(moves if rng.random() < 0.3 else marks)
            state.apply_action(action(move))
            kif.play(move)
        assert state.is_terminal()
        goals = kif.goals()
        ends.add(goals)
        assert state.scores() == [g / 100 for g in goals]
    assert {(100, 0), (0, 100), (95, 5)} <= ends  # random games reach the main endings


def test_perft_against_the_kif():
    """45 marks and 45 blocks to start; a block keeps the turn (44 + 44 after it), a mark passes it."""
    start = QUAD.new_initial_state().array

    def kif_perft(kif, depth):
        if depth == 0 or kif.terminal():
            return 1
        total = 0
        for m in kif.moves():
            child = kif.copy()
            child.play(m)
            total += kif_perft(child, depth - 1)
        return total

    assert perft(QUAD.kernels, start, 1, QUAD.max_legal) == 90
    assert perft(QUAD.kernels, start, 2, QUAD.max_legal) == 45 * 88 + 45 * 88
    assert perft(QUAD.kernels, start, 3, QUAD.max_legal) == kif_perft(Kif(), 3)


def _board(x="", o="", w="", used=(0, 0), to_move=0):
    """A state array: stones and blockers by cell name (column a-g, row 1-7), blockers used by x and o."""

    def mask(names):
        return np.uint64(sum(1 << ((int(n[1]) - 1) * 7 + "abcdefg".index(n[0])) for n in names.split()))

    s = np.zeros(QUAD.state_size, dtype=np.uint64)
    s[0], s[1], s[4] = mask(x), mask(o), mask(w)
    s[2], s[5], s[6] = to_move, *used
    return s


def test_endings_by_hand():
    k, out = QUAD.kernels, np.zeros(2)
    # a tilted square: b2, d1, c4, e3 (side vector (1 row, 2 columns) and (2, -1))
    s = _board(x="b2 d1 c4", o="a2 a3 a4")
    k.apply(s, QUAD.new_initial_state().string_to_action("e3"))
    assert k.terminal(s) and k.winner(s) == 0
    k.returns(s, out)
    assert out.tolist() == [1.0, 0.0]
    # the last stone placed (o's twelfth), no square: x's three corners and an empty fourth score 95
    x = "b1 c1 e1 b2 e3 f4 b5 d5 g5 b6 g6 b7"  # its one open three: b1 c1 b2, and c2 empty
    o = "f1 f2 g2 c3 d3 g3 c5 c6 c7 d7 e7"
    s = _board(x=x, o=o, to_move=1)
    assert not any(int(s[0]) & int(m) == int(m) for m in SQUARES)
    k.apply(s, QUAD.new_initial_state().string_to_action("a3"))
    assert k.terminal(s)
    k.returns(s, out)
    assert out.tolist() == [0.95, 0.05]
    # the same with c2 blocked: no open three; more blockers left wins 90 - 10, as many 50 each
    for used, want in (((1, 2), [0.9, 0.1]), ((2, 1), [0.1, 0.9]), ((1, 1), [0.5, 0.5])):
        s = _board(x=x, o=o, w="c2", used=used, to_move=1)
        k.apply(s, QUAD.new_initial_state().string_to_action("a3"))
        k.returns(s, out)
        assert k.terminal(s) and out.tolist() == want


def test_a_block_keeps_the_turn_and_runs_out():
    state = QUAD.new_initial_state()
    for cell in ("a2w", "a3w", "a4w", "a5w", "a6w"):
        state.apply_action(state.string_to_action(cell))
        assert state.current_player() == 0
    assert all(a < CELLS for a in state.legal_actions())  # no blocker left: marks only
    state.apply_action(state.string_to_action("d4"))
    assert state.current_player() == 1 and any(a >= CELLS for a in state.legal_actions())


def test_actions_by_name():
    state = QUAD.new_initial_state()
    assert state.action_to_string(state.string_to_action("d4w")) == "d4w"
    with pytest.raises(ValueError, match="not a corner"):
        state.string_to_action("a1")
