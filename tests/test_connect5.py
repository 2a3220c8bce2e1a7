"""Connect 5 against a plain reading of GGP's connect5.kif (cells (x, y) with x, y in a-h, lines found by walking
the kif's `nextcol` order, no bitboards): legal moves, wins and draws over random games, perft; and hand-built
boards, among them lines that would wrap round the board's edge (which a bitboard could count by mistake)."""

import random

import numpy as np
import pytest

import games
from games.game import State
from games.kernels import perft

C5 = games.load("connect5")
LETTERS = "abcdefgh"


class KifConnect5:
    """The kif's rules: `legal` (mark x y on a blank cell, by the player in control), `next`, `terminal`, `goal`."""

    def __init__(self):
        self.cells = {(x, y): "b" for x in LETTERS for y in LETTERS}
        self.control = "x"

    def moves(self):
        return {(x, y) for (x, y), mark in self.cells.items() if mark == "b"}

    def play(self, cell):
        self.cells[cell] = self.control
        self.control = "o" if self.control == "x" else "x"

    def conn5(self, role):
        """row, col, diag1 and diag2 of the kif: five cells, each the `nextcol` of the one before in x, y or both
        (diag2: x rising while y falls)."""
        after = {a: b for a, b in zip(LETTERS, LETTERS[1:])}
        for x in LETTERS:
            for y in LETTERS:
                for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells, cx, cy = [], x, y
                    for _ in range(5):
                        cells.append((cx, cy))
                        cx = after.get(cx) if dx else cx
                        cy = after.get(cy) if dy == 1 else {b: a for a, b in after.items()}.get(cy) if dy else cy
                    if None not in {c for cell in cells for c in cell} and all(
                        self.cells.get(c) == role for c in cells
                    ):
                        return True
        return False

    def goal(self):
        """(x's goal, o's goal) once terminal, else None."""
        if self.conn5("x"):
            return 100, 0
        if self.conn5("o"):
            return 0, 100
        return (50, 50) if not self.moves() else None


def kif_cell(action):
    """Our action (row * 8 + column, row 1 at the top) as the kif's cell: column c is x, row r is y."""
    r, c = divmod(action, 8)
    return LETTERS[c], LETTERS[r]


def test_perft_from_the_start_counts_every_empty_square():
    """No line of five before ply 9: 64, 64 x 63, 64 x 63 x 62."""
    start = C5.new_initial_state().array
    assert [perft(C5.kernels, start, d, C5.max_legal) for d in (1, 2, 3)] == [64, 64 * 63, 64 * 63 * 62]


def test_random_games_follow_the_kif_move_for_move():
    rng = random.Random(0)
    for _ in range(200):
        state, kif = C5.new_initial_state(), KifConnect5()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert {kif_cell(a) for a in legal} == kif.moves() and len(legal) == len(kif.moves())
            assert kif.goal() is None
            action = rng.choice(legal)
            kif.play(kif_cell(action))
            state.apply_action(action)
        goals = {(1.0, -1.0): (100, 0), (-1.0, 1.0): (0, 100), (0.0, 0.0): (50, 50)}
        assert goals[tuple(state.returns())] == kif.goal()


def board(rows, to_move=0):
    """A position from 8 strings of x, o and . (row 1 first)."""
    s = np.zeros(C5.state_size, dtype=np.uint64)
    for r, row in enumerate(rows):
        for c, mark in enumerate(row):
            if mark != ".":
                s["xo".index(mark)] |= np.uint64(1 << (r * 8 + c))
    s[2], s[4] = to_move, sum(row.count("x") + row.count("o") for row in rows)
    return State(C5, s, [])


EMPTY = ["........"] * 8
FILLER = ["a8", "c8", "e8", "g8", "a6"]  # o's marks, one per x mark, so that the plies are a game's: none in a line


def with_marks(marks):
    """EMPTY with x on `marks` and o on as many FILLER squares, x to move."""
    rows = [list(r) for r in EMPTY]
    for mark, squares in (("x", marks), ("o", FILLER[: len(marks)])):
        for m in squares:
            rows[int(m[1]) - 1][LETTERS.index(m[0])] = mark
    return board(["".join(r) for r in rows])


@pytest.mark.parametrize(
    "marks, last",
    [
        (["a1", "b1", "c1", "d1"], "e1"),  # a row
        (["h4", "h5", "h6", "h7"], "h8"),  # a column at the edge
        (["d4", "e5", "f6", "g7"], "h8"),  # a diagonal into the corner
        (["h1", "g2", "f3", "e4"], "d5"),  # the other diagonal from the corner
        (["a1", "b1", "c1", "e1", "f1"], "d1"),  # six in a row: it holds five, and wins (as the kif and mnk)
    ],
)
def test_five_in_a_line_wins(marks, last):
    state = with_marks(marks)
    state.apply_action(state.string_to_action(last))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


@pytest.mark.parametrize(
    "marks, last",
    [
        (["f1", "g1", "h1", "a2"], "b2"),  # five bits in a row that wrap from row 1 into row 2
        (["f1", "g2", "h3", "a5"], "b6"),  # a diagonal's bits 9 apart, wrapping past the h-file
        (["c1", "b2", "a3", "g4"], "h3"),  # the other diagonal's bits 7 apart, wrapping past the a-file
    ],
)
def test_lines_that_wrap_round_the_edge_do_not_win(marks, last):
    state = with_marks(marks)
    state.apply_action(state.string_to_action(last))
    assert not state.is_terminal()


def test_a_full_board_without_five_is_a_draw():
    full = ["xxooxxoo", "ooxxooxx"] * 4  # no five in any line (checked by the kif reading below)
    kif = KifConnect5()
    kif.cells = {(LETTERS[c], LETTERS[r]): full[r][c] for r in range(8) for c in range(8)}
    assert kif.goal() == (50, 50)
    state = board(full[:7] + ["." + full[7][1:]], to_move=1)  # a8 empty: o's 32nd mark, the 64th ply
    assert not state.is_terminal()
    state.apply_action(state.string_to_action("a8"))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_names_read_back_and_bad_ones_say_what_is_wanted():
    state = C5.new_initial_state()
    assert [state.action_to_string(a) for a in (0, 7, 9, 63)] == ["a1", "h1", "b2", "h8"]
    assert all(state.string_to_action(state.action_to_string(a)) == a for a in range(64))
    with pytest.raises(ValueError, match="column a-h and row 1-8"):
        state.string_to_action("i9")
