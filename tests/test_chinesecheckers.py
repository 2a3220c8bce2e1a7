"""Chinese Checkers (3 players) against a plain reading of GGP's chineseCheckers3.kif: its cells by name, its move
relations car/cdr as the kif lists them (ours are built from the board's geometry), its eight `movable` rules, its
goals and its end; over random games move for move, perft, and hand-built positions."""

import random

import numpy as np
import pytest

import games
from games.chinesecheckers import CELLS, PASS
from games.kernels import perft

CC = games.load("chinesecheckers3")
ROLES = ("red", "green", "blue")

# the kif's facts, as (from, to) pairs: (carred a1 b1) is "a1b1"
KIF = {
    "carred": "a1b1 b1c3 b2c4 c3d2 c4d3 c5d4 d2e1 d3e2 d4e3 d5e4 e2f2 e3f3 e4f4 e5f5 f3g3 f4g4 f5g5 g4h1 g5h2 h2i1",
    "cdrred": "a1b2 b1c4 b2c5 c3d3 c4d4 c5d5 d2e2 d3e3 d4e4 d5e5 e1f2 e2f3 e3f4 e4f5 f2g3 f3g4 f4g5 g3h1 g4h2 h1i1",
    "carmagenta": "c1d1 d1e1 c2d2 e1f2 d2e2 c3d3 f2g3 e2f3 d3e3 c4d4 f3g4 e3f4 d4e4 c5d5 f4g5 e4f5 d5e5 f5g6 e5f6 f6g7",
    "cdrmagenta": "c1c2 d1d2 c2c3 e1e2 d2d3 c3c4 f2f3 e2e3 d3d4 c4c5 g3g4 f3f4 e3e4 d4d5 g4g5 f4f5 e4e5 g5g6 f5f6 g6g7",
    "caryellow": "c7c6 c6c5 d6d5 c5c4 d5d4 e5e4 c4c3 d4d3 e4e3 f5f4 g5g4 d3d2 e3e2 f4f3 e2e1 f3f2 g4g3 f2f1 g3g2 g2g1",
    "cdryellow": "c7d6 c6d5 d6e5 c5d4 d5e4 e5f5 c4d3 d4e3 e4f4 f5g5 c3d2 d3e2 e3f3 f4g4 d2e1 e2f2 f3g3 e1f1 f2g2 f1g1",
}
INDEX = "a1 b1 b2 c1 c2 c3 c4 c5 c6 c7 d1 d2 d3 d4 d5 d6 e1 e2 e3 e4 e5 f1 f2 f3 f4 f5 f6 g1 g2 g3 g4 g5 g6 g7 h1 h2 i1"


def _pairs(name, reverse=False):
    pairs = [(p[:2], p[2:]) for p in KIF[name].split()]
    return {(b, a) if reverse else (a, b) for a, b in pairs}


# (car ?player ?b ?e): red's own relations; green's and blue's the magenta and yellow ones read backwards
CAR = {"red": _pairs("carred"), "green": _pairs("carmagenta", True), "blue": _pairs("caryellow", True)}
CDR = {"red": _pairs("cdrred"), "green": _pairs("cdrmagenta", True), "blue": _pairs("cdryellow", True)}


class Kif:
    def __init__(self):
        self.cell = dict.fromkeys(INDEX.split(), "blank")
        for role, cells in zip(ROLES, ("a1 b1 b2", "f6 g6 g7", "f1 g1 g2")):
            for c in cells.split():
                self.cell[c] = role
        self.control, self.step = "red", 1

    def copy(self):
        other = Kif()
        other.cell, other.control, other.step = dict(self.cell), self.control, self.step
        return other

    def moves(self):
        """The kif's `movable` for the player in control: its eight rules, as (b, e) pairs."""
        p, cell = self.control, self.cell
        rels = (CAR[p], CDR[p])
        out = set()
        for b in [c for c, who in cell.items() if who == p]:
            for r1 in rels:  # a step
                out |= {(b, e) for x, e in r1 if x == b and cell[e] == "blank"}
            for r1 in rels:  # a hop
                for _, c in [q for q in r1 if q[0] == b and cell[q[1]] != "blank"]:
                    for _, x in [q for q in r1 if q[0] == c and cell[q[1]] == "blank"]:
                        out.add((b, x))
                        for r2 in rels:  # a second hop, in either direction
                            for _, d in [q for q in r2 if q[0] == x and cell[q[1]] != "blank"]:
                                out |= {(b, e) for y, e in r2 if y == d and cell[e] == "blank"}
        return out

    def play(self, move):
        if move != "noop":
            b, e = move
            self.cell[e], self.cell[b] = self.control, "blank"
        self.control = ROLES[(ROLES.index(self.control) + 1) % 3]
        self.step += 1

    def goal(self, role):
        """The kif's `count` over the role's three goal cells; none of its rules holds with another's piece there."""
        cells = [self.cell[c] for c in {"red": "h1 h2 i1", "green": "c1 c2 d1", "blue": "c6 c7 d6"}[role].split()]
        if any(c not in ("blank", role) for c in cells):
            return None
        return {3: 100, 2: 50, 1: 25, 0: 0}[cells.count(role)]

    def terminal(self):
        return self.step == 60 or any(self.goal(r) == 100 for r in ROLES)


def ours(state):
    """Our legal moves as the kif's (b, e) pairs, and 'noop'."""
    names = INDEX.split()
    return {"noop" if a == PASS else (names[a // CELLS], names[a % CELLS]) for a in state.legal_actions()}


def as_action(move):
    names = INDEX.split()
    return PASS if move == "noop" else names.index(move[0]) * CELLS + names.index(move[1])


def test_the_boards_geometry_gives_the_kifs_move_relations():
    """Our steps come from the star's geometry and the rule that a piece keeps off the others' points; the kif lists
    them: one step from every cell in each direction must be exactly its car and cdr."""
    from games.chinesecheckers import NEXT

    names = INDEX.split()
    for p, role in enumerate(ROLES):
        for d, rel in enumerate((CAR[role], CDR[role])):
            steps = {(names[b], names[e]) for b in range(CELLS) if (e := NEXT[p, d, b]) >= 0}
            assert steps == rel, (role, d)


def test_random_games_follow_the_kif_move_for_move():
    rng = random.Random(0)
    for _ in range(300):
        state, kif = CC.new_initial_state(), Kif()
        while not kif.terminal():
            assert not state.is_terminal()
            assert state.current_player() == ROLES.index(kif.control)
            assert ours(state) == kif.moves() | {"noop"}
            moves = sorted(kif.moves(), key=str)
            move = "noop" if not moves or rng.random() < 0.05 else rng.choice(moves)
            state.apply_action(as_action(move))
            kif.play(move)
        assert state.is_terminal()
        assert state.scores() == [(kif.goal(r) or 0) / 100 for r in ROLES]


def test_perft_against_the_kif():
    """Red's first moves by hand: a1 hops over b1 to c3 or over b2 to c5 (no second hop: nothing stands beyond),
    b1 steps to c3 or c4, b2 to c4 or c5; and the pass. Then perft against the kif's rules."""
    start = CC.new_initial_state().array

    def kif_perft(kif, depth):
        if depth == 0 or kif.terminal():
            return 1
        return sum(kif_perft(_after(kif, m), depth - 1) for m in [*kif.moves(), "noop"])

    assert CC.new_initial_state().legal_actions() == sorted(
        as_action(m) for m in [("a1", "c3"), ("a1", "c5"), ("b1", "c3"), ("b1", "c4"), ("b2", "c4"), ("b2", "c5")]
    ) + [PASS]
    for depth in (1, 2, 3, 4):
        assert perft(CC.kernels, start, depth, CC.max_legal) == kif_perft(Kif(), depth)


def _after(kif, move):
    child = kif.copy()
    child.play(move)
    return child


def _position(red, green, blue, to_move=0, moves=0):
    """A state array with the given cells (names) of each player."""
    names = INDEX.split()
    s = np.zeros(CC.state_size, dtype=np.uint64)
    for p, cells in enumerate((red, green, blue)):
        for c in cells.split():
            s[4 + p] |= np.uint64(1 << names.index(c))
    s[1] = s[4] | s[5] | s[6]
    s[0], s[2] = moves, to_move
    return s


def test_goals_and_the_end_by_hand():
    """Three on the goal ends it at 100; two with the third empty is 50; and the 59th move ends it whatever the
    board."""
    k, out = CC.kernels, np.zeros(3)
    s = _position("h1 i1 g5", "c2 d1 e3", "c6 c7 e5", to_move=0, moves=20)
    k.apply(s, as_action(("g5", "h2")))
    assert k.terminal(s) and k.winner(s) == 0
    k.returns(s, out)
    assert out.tolist() == [1.0, 0.5, 0.5]
    s = _position("h1 h2 g5", "c2 e3 e4", "c6 f2 f3", to_move=1, moves=10)
    k.returns(s, out)
    assert out.tolist() == [0.5, 0.25, 0.25]
    s = _position("d3 e3 f3", "d4 e4 f4", "d5 e5 f5", to_move=1, moves=57)
    k.apply(s, PASS)
    assert not k.terminal(s)
    k.apply(s, PASS)
    assert k.terminal(s) and k.winner(s) == -1
    k.returns(s, out)
    assert out.tolist() == [0.0, 0.0, 0.0]


def test_actions_by_name():
    state = CC.new_initial_state()
    assert state.action_to_string(as_action(("b1", "c3"))) == "b1-c3"
    assert state.string_to_action("b1-c3") == as_action(("b1", "c3"))
    assert state.string_to_action("noop") == PASS
    with pytest.raises(ValueError, match="e.g. 'b1-c3'"):
        state.string_to_action("z9-a1")


def test_random_playouts_count_each_players_wins_and_the_games_nobody_won_alone():
    from games.kernels import random_playouts
    from games.rng import make_rng

    counts = random_playouts(CC.kernels, CC.new_initial_state().array, 400, CC.max_legal, make_rng(1), 3)
    assert len(counts) == 4 and counts.sum() == 400 and all(counts > 0)
