"""3D Tic-Tac-Toe against a plain reading of GGP's tictactoe_3d_2player.kif: cells (x, y, z) in 1-4, a line of
four found by stepping with the kif's `next_coord` (plus, minus, equal) along its 13 listed directions, no
bitboards: legal moves, wins and draws over random games, perft; the count of lines (76, Qubic's); hand-built
lines of each kind and a full cube without one."""

import random

import numpy as np
import pytest

import games
from games.game import State
from games.kernels import perft

T3 = games.load("tictactoe3d")
DIRECTIONS = [  # the kif's 13, as written there: x, y, z, xy, x-y, xz, x-z, yz, y-z, xyz, xy-z, x-yz, x-y-z
    ("plus", "equal", "equal"),
    ("equal", "plus", "equal"),
    ("equal", "equal", "plus"),
    ("plus", "plus", "equal"),
    ("plus", "minus", "equal"),
    ("plus", "equal", "plus"),
    ("plus", "equal", "minus"),
    ("equal", "plus", "plus"),
    ("equal", "plus", "minus"),
    ("plus", "plus", "plus"),
    ("plus", "plus", "minus"),
    ("plus", "minus", "plus"),
    ("plus", "minus", "minus"),
]


def next_coord(step, v):
    """The kif's next_coord: equal keeps v, plus is succ, minus the succ of which v is; None off the cube."""
    out = {"equal": v, "plus": v + 1, "minus": v - 1}[step]
    return out if 1 <= out <= 4 else None


class KifTicTacToe3D:
    def __init__(self):
        self.cells = {(x, y, z): "b" for x in range(1, 5) for y in range(1, 5) for z in range(1, 5)}
        self.control = "x"

    def moves(self):
        return {cell for cell, mark in self.cells.items() if mark == "b"}

    def play(self, cell):
        self.cells[cell] = self.control
        self.control = "o" if self.control == "x" else "x"

    def lines(self):
        """Every (first cell, direction) whose four cells are on the cube."""
        out = []
        for cell in self.cells:
            for d in DIRECTIONS:
                cells = [cell]
                for _ in range(3):
                    step = tuple(next_coord(s, v) for s, v in zip(d, cells[-1]))
                    if None in step:
                        break
                    cells.append(step)
                if len(cells) == 4:
                    out.append(cells)
        return out

    def line(self, sign):
        return any(all(self.cells[c] == sign for c in cells) for cells in self.lines())

    def goal(self):
        """(xplayer's, oplayer's) once terminal, else None."""
        if self.line("x"):
            return 100, 0
        if self.line("o"):
            return 0, 100
        return (50, 50) if not self.moves() else None


def kif_cell(action):
    """Our action (bit y * 16 + z * 4 + x, from 0) as the kif's cell (from 1)."""
    y, rest = divmod(action, 16)
    z, x = divmod(rest, 4)
    return x + 1, y + 1, z + 1


def test_the_kif_has_qubic_s_76_lines_and_perft_counts_every_empty_cell():
    assert len(KifTicTacToe3D().lines()) == 76
    start = T3.new_initial_state().array
    assert [perft(T3.kernels, start, d, T3.max_legal) for d in (1, 2, 3)] == [64, 64 * 63, 64 * 63 * 62]


def test_random_games_follow_the_kif_move_for_move():
    rng = random.Random(0)
    for _ in range(150):
        state, kif = T3.new_initial_state(), KifTicTacToe3D()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert {kif_cell(a) for a in legal} == kif.moves() and len(legal) == len(kif.moves())
            assert kif.goal() is None
            action = rng.choice(legal)
            kif.play(kif_cell(action))
            state.apply_action(action)
        goals = {(1.0, -1.0): (100, 0), (-1.0, 1.0): (0, 100), (0.0, 0.0): (50, 50)}
        assert goals[tuple(state.returns())] == kif.goal()


def position(x_cells, o_cells, to_move=0):
    """A position with x and o on the given kif cells (x, y, z from 1)."""
    s = np.zeros(T3.state_size, dtype=np.uint64)
    for p, cells in enumerate((x_cells, o_cells)):
        for x, y, z in cells:
            s[p] |= np.uint64(1 << ((y - 1) * 16 + (z - 1) * 4 + (x - 1)))
    s[2], s[4] = to_move, len(x_cells) + len(o_cells)
    return State(T3, s, [])


O_FILLER = [(1, 4, 1), (3, 4, 2), (2, 3, 4)]  # o's marks, one per x mark before the last: in no line together


@pytest.mark.parametrize(
    "line",
    [
        [(1, 1, 1), (2, 1, 1), (3, 1, 1), (4, 1, 1)],  # along x, within a level
        [(2, 1, 3), (2, 2, 3), (2, 3, 3), (2, 4, 3)],  # along y
        [(3, 2, 1), (3, 2, 2), (3, 2, 3), (3, 2, 4)],  # along z: through the four levels
        [(1, 4, 2), (2, 3, 2), (3, 2, 2), (4, 1, 2)],  # a level's anti-diagonal (x-y)
        [(4, 2, 1), (3, 2, 2), (2, 2, 3), (1, 2, 4)],  # a diagonal across levels (x-z)
        [(1, 1, 4), (2, 2, 3), (3, 3, 2), (4, 4, 1)],  # a space diagonal (xy-z)
    ],
)
def test_four_in_a_line_wins_in_every_kind_of_direction(line):
    o_cells = [c for c in O_FILLER if c not in line][:3]
    state = position(line[:3], o_cells)
    assert not state.is_terminal()
    x, y, z = line[3]
    state.apply_action(state.string_to_action(f"{'abcdefghijklmnop'[(z - 1) * 4 + x - 1]}{y}"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_four_in_a_row_of_bits_across_two_levels_is_no_line():
    """Bits 2, 3, 4, 5 of row 1 are c1 d1 e1 f1: two cells of level 1 and two of level 2, on no line."""
    state = position([(3, 1, 1), (4, 1, 1), (1, 1, 2)], O_FILLER)
    state.apply_action(state.string_to_action("f1"))
    assert not state.is_terminal()


def test_a_full_cube_without_a_line_is_a_draw():
    """Rows y = 1-4, each four levels of x = 1-4 (found by a local search, checked by the kif reading)."""
    rows = ["xxox oxoo ooxo oxxo", "xxxo ooxo xoxx xxoo", "ooxo ooxo oxox xxox", "oxoo xoxx xoxx ooxx"]
    marks = {(x + 1, y + 1, z + 1): rows[y].split()[z][x] for x in range(4) for y in range(4) for z in range(4)}
    kif = KifTicTacToe3D()
    kif.cells = dict(marks)
    assert kif.goal() == (50, 50)
    last = next(cell for cell, m in marks.items() if m == "o")  # o's 32nd mark makes the 64th ply
    x_cells = [c for c, m in marks.items() if m == "x"]
    state = position(x_cells, [c for c, m in marks.items() if m == "o" and c != last], to_move=1)
    assert not state.is_terminal()
    x, y, z = last
    state.apply_action(state.string_to_action(f"{'abcdefghijklmnop'[(z - 1) * 4 + x - 1]}{y}"))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_names_and_symmetries():
    state = T3.new_initial_state()
    assert [state.action_to_string(a) for a in (0, 4, 15, 16, 63)] == ["a1", "e1", "p1", "a2", "p4"]
    assert all(state.string_to_action(state.action_to_string(a)) == a for a in range(64))
    with pytest.raises(ValueError, match="column a-p"):
        state.string_to_action("q1")
    lines = {frozenset(kif_bits) for kif_bits in ([cell_bit(c) for c in cells] for cells in KifTicTacToe3D().lines())}
    for _, perm in T3.symmetry_maps():  # each of the 48 maps every line onto a line
        assert {frozenset(int(perm[b]) for b in line) for line in lines} == lines


def cell_bit(cell):
    x, y, z = cell
    return (y - 1) * 16 + (z - 1) * 4 + (x - 1)
