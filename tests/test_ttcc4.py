"""TTCC4 for two and three players against a plain reading of GGP's ttcc4_2player.kif and ttcc4.kif (cells (x, y)
with x, y in 1-7, the kifs' `orthogonal`, `diagonal`, `ell`, `up*`/`down*`, `onBoard`, `emptyCell`, the recursive
`lowPointFrom`, their legal, next, terminal and goal rules; no bitboards): legal moves, the end and every player's goal
over random games, perft; and hand-built positions for the rules that are easy to get wrong."""

import random

import numpy as np
import pytest

import games
from games.game import State
from games.kernels import perft
from games.ttcc4 import CELLS, DROPS, OCCUPANCY, PASS

T2, T3 = games.load("ttcc4_2p"), games.load("ttcc4_3p")
KIF = {  # roles, start cells of pawn, checker, knight, the last step, whether the mover may always pass
    2: (("light", "dark"), (((1, 5), (1, 4), (1, 3)), ((7, 3), (7, 4), (7, 5))), 101, False),
    3: (
        ("red", "yellow", "blue"),
        (((1, 5), (1, 4), (1, 3)), ((3, 1), (4, 1), (5, 1)), ((7, 3), (7, 4), (7, 5))),
        31,
        True,
    ),
}
KINDS = ("Pawn", "Checker", "Knight")


def plus1(a):
    return a + 1 if a < 7 else None


class KifTTCC4:
    def __init__(self, players):
        self.players = players
        self.roles, starts, self.last, self.always_noop = KIF[players]
        self.start = {
            f"{role}{kind}": starts[i][k] for i, role in enumerate(self.roles) for k, kind in enumerate(KINDS)
        }
        self.cell = {xy: piece for piece, xy in self.start.items()}
        self.control, self.step = self.roles[0], 1

    def copy(self):
        other = KifTTCC4(self.players)
        other.cell, other.control, other.step = dict(self.cell), self.control, self.step
        return other

    def owner(self, piece):
        return next(role for role in self.roles if piece.startswith(role))

    def empty(self, x, y):
        return (x, y) not in self.cell

    @staticmethod
    def on_board(x, y):
        return 1 <= x <= 7 and 1 <= y <= 7 and x not in (1, 7) and y not in (1, 7)

    @staticmethod
    def orthogonal(x, y):
        return [(a, b) for a, b in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)) if 1 <= a <= 7 and 1 <= b <= 7]

    @staticmethod
    def diagonal(x, y):
        return [(x + dx, y + dy) for dx in (-1, 1) for dy in (-1, 1) if 1 <= x + dx <= 7 and 1 <= y + dy <= 7]

    @staticmethod
    def ell(x, y):
        """The kif's eight `ell` rules: an orthogonal step, then a diagonal one away from where it started."""
        out = set()
        for (ox, oy), diagonals in (
            ((0, 1), ((1, 1), (-1, 1))),
            ((1, 0), ((1, 1), (1, -1))),
            ((0, -1), ((1, -1), (-1, -1))),
            ((-1, 0), ((-1, 1), (-1, -1))),
        ):
            for dx, dy in diagonals:
                a, b, c, d = x + ox, y + oy, x + ox + dx, y + oy + dy
                if all(1 <= v <= 7 for v in (a, b, c, d)):
                    out.add((c, d))
        return out

    def low_point(self, x):
        """`lowPointFrom` from rank 6 down, read literally: y2 where the cell under it is taken, or rank 2."""

        def low_from(y2):
            if y2 == 2:
                return 2
            if not self.empty(x, y2 - 1):
                return y2
            return low_from(y2 - 1)

        return low_from(6)

    def opposing(self, player, x, y):
        return (x, y) in self.cell and self.owner(self.cell[x, y]) != player

    def legal2(self, player):
        if player != self.control:
            return set()
        moves = {("drop", x) for x in (3, 4, 5) if self.empty(x, 6)}
        for (x, y), piece in self.cell.items():
            if self.owner(piece) != player:
                continue
            if piece.endswith("Pawn"):
                moves |= {("pawnMove", x, y, *t) for t in self.orthogonal(x, y) if self.on_board(*t) and self.empty(*t)}
                moves |= {
                    ("pawnMove", x, y, *t)
                    for t in self.diagonal(x, y)
                    if self.on_board(*t) and self.opposing(player, *t)
                }
            if piece.endswith("Knight"):
                moves |= {
                    ("knightMove", x, y, *t)
                    for t in self.ell(x, y)
                    if self.on_board(*t) and (self.empty(*t) or self.opposing(player, *t))
                }
            if piece.endswith("Checker"):
                moves |= {
                    ("checkerMove", x, y, *t) for t in self.diagonal(x, y) if self.on_board(*t) and self.empty(*t)
                }
                for dx in (-1, 1):
                    for dy in (-1, 1):
                        over, land = (x + dx, y + dy), (x + 2 * dx, y + 2 * dy)
                        if all(1 <= v <= 7 for v in (*over, *land)) and self.opposing(player, *over):
                            if self.on_board(*land) and self.empty(*land):
                                moves.add(("jump", x, y, *over, *land))
        return moves

    def moves(self):
        moves = self.legal2(self.control)
        if self.always_noop or not moves:
            moves.add(("noop",))
        return moves

    def play(self, move):
        kind, *args = move
        player = self.control
        if kind == "drop":
            self.cell[args[0], self.low_point(args[0])] = f"{player}Disc"
        elif kind != "noop":
            x1, y1 = args[:2]
            x2, y2 = args[-2:]
            hit = tuple(args[2:4]) if kind == "jump" else (x2, y2)
            piece = self.cell.pop((x1, y1))
            victim = self.cell.pop(hit, None)
            if victim is not None and victim in self.start:
                self.cell[self.start[victim]] = victim
            self.cell[x2, y2] = piece
        self.control = self.roles[(self.roles.index(player) + 1) % self.players]
        self.step += 1

    def line(self, role):
        lines = [[(x, y) for x in (3, 4, 5)] for y in (3, 4, 5)] + [[(x, y) for y in (3, 4, 5)] for x in (3, 4, 5)]
        lines += [[(3, 3), (4, 4), (5, 5)], [(3, 5), (4, 4), (5, 3)]]
        return any(all(xy in self.cell and self.owner(self.cell[xy]) == role for xy in line) for line in lines)

    def goals(self):
        """[goal per role] once terminal, else None."""
        if not (any(self.line(r) for r in self.roles) or self.step == self.last):
            return None
        lines = [self.line(r) for r in self.roles]
        if any(lines):
            return [100 if won else 0 for won in lines]
        return [50] * 2 if self.players == 2 else [0] * 3


def kif_move(state, action):
    """Our action as the kif's move, the piece's cell read off the state."""
    if action == PASS:
        return ("noop",)
    if action < DROPS:
        return ("drop", 3 + action)
    k, to = divmod(action - DROPS, CELLS)
    frm = int(state.array[6 + 3 * state.current_player() + k])
    (x1, y1), (x2, y2) = [(c % 7 + 1, 7 - c // 7) for c in (frm, to)]
    kind = ("pawnMove", "checkerMove", "knightMove")[k]
    if k == 1 and abs(x2 - x1) == 2:
        return ("jump", x1, y1, (x1 + x2) // 2, (y1 + y2) // 2, x2, y2)
    return (kind, x1, y1, x2, y2)


@pytest.mark.parametrize("game", [T2, T3], ids=["2p", "3p"])
def test_perft_against_the_kif(game):
    """Light's or red's first moves by hand: three drops, the pawn to b5, the checker to b5 or b3, the knight to b5,
    c4 or c2 (and red's pass); deeper, the kif's counts."""
    start = game.new_initial_state().array
    counts = [perft(game.kernels, start, d, game.max_legal) for d in (1, 2, 3, 4)]
    assert counts[0] == (9 if game.players == 2 else 10)

    def kif_perft(kif, depth):
        if depth == 0 or kif.goals():
            return 1
        total = 0
        for move in kif.moves():
            child = kif.copy()
            child.play(move)
            total += kif_perft(child, depth - 1)
        return total

    assert counts == [kif_perft(KifTTCC4(game.players), d) for d in (1, 2, 3, 4)]


@pytest.mark.parametrize("game", [T2, T3], ids=["2p", "3p"])
def test_random_games_follow_the_kif_move_for_move(game):
    rng = random.Random(game.players)
    seen = {"goals": set(), "kinds": set()}
    for _ in range(300):
        state, kif = game.new_initial_state(), KifTTCC4(game.players)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert {kif_move(state, a) for a in legal} == kif.moves() and len(legal) == len(kif.moves())
            assert kif.goals() is None
            action = rng.choice(legal)
            move = kif_move(state, action)
            seen["kinds"].add(move[0])
            kif.play(move)
            state.apply_action(action)
        goals = kif.goals()
        assert goals is not None and state.scores() == [g / 100 for g in goals]
        seen["goals"].add(tuple(goals))
    assert seen["kinds"] >= {"drop", "pawnMove", "checkerMove", "knightMove", "jump"}
    wins = {tuple(100 if r == w else 0 for r in range(game.players)) for w in range(game.players)}
    assert seen["goals"] == wins | {(50, 50) if game.players == 2 else (0, 0, 0)}


def position(game, pieces, discs=(), to_move=0, plies=0):
    """`pieces`: per player (pawn, checker, knight) cells such as 'c4'; `discs`: per player cells."""
    s = np.zeros(game.state_size, dtype=np.uint64)
    cell = lambda name: (7 - int(name[1])) * 7 + "abcdefg".index(name[0])  # noqa: E731
    for p in range(game.players):
        for k, name in enumerate(pieces[p]):
            s[6 + 3 * p + k] = cell(name)
            s[OCCUPANCY[p]] |= np.uint64(1 << cell(name))
        for name in discs[p] if discs else ():
            s[OCCUPANCY[p]] |= np.uint64(1 << cell(name))
    s[2], s[4] = to_move, plies
    return State(game, s, [])


HOME2 = (("a5", "a4", "a3"), ("g3", "g4", "g5"))


def test_a_disc_falls_to_rank_2_or_onto_what_stands_below():
    """Into chute d: onto d2 on an empty column; onto d4 over dark's disc on d3; no drop where d6 is taken."""
    state = position(T2, HOME2)
    state.apply_action(state.string_to_action("Dd"))
    assert T2.planes(state.array)[0][5, 3]  # d2: row 7 - 2, column 3
    state = position(T2, HOME2, discs=((), ("d3",)))
    assert state.action_squares(state.string_to_action("Dd"))[1] == (3, 3)  # d4: row 7 - 4
    state = position(T2, HOME2, discs=((), ("d6",)))
    assert "Dd" not in [state.action_to_string(a) for a in state.legal_actions()]


def test_a_taken_piece_goes_home_and_a_taken_disc_is_gone():
    """Light's knight on c2 takes dark's pawn on d4 (home to g3); light's checker on b3 jumps dark's disc on c4."""
    state = position(T2, (("a5", "a4", "c2"), ("d4", "g4", "g5")))
    state.apply_action(state.string_to_action("Nd4"))
    assert state.array[6 + 3] == (7 - 3) * 7 + 6 and T2.planes(state.array)[1][4, 6]  # back on g3 (row 7 - 3)
    state = position(T2, (("a5", "b3", "a3"), HOME2[1]), discs=((), ("c4",)))
    state.apply_action(state.string_to_action("Cd5"))
    dark = T2.planes(state.array)[1]
    assert not dark[3, 2] and dark.sum() == 3  # c4 empty; dark's pawn, checker and knight at home


def test_a_line_of_any_pieces_in_the_centre_wins_at_once():
    """Discs on c3 and e5 and the pawn stepping onto d4 from d5: the diagonal c3-e5 wins for light."""
    state = position(T2, (("d5", "a4", "a3"), HOME2[1]), discs=(("c3", "e5"), ()))
    state.apply_action(state.string_to_action("Pd4"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_passing_and_the_move_limit_differ_between_the_two_files():
    """Two players: no pass while a move exists, 100 moves, 50 each without a line. Three: a pass always, 30 moves,
    0 each without a line."""
    start2 = T2.new_initial_state()
    assert PASS not in start2.legal_actions() and PASS in T3.new_initial_state().legal_actions()
    state = position(T2, HOME2, plies=99)
    state.apply_action(state.string_to_action("Dc"))
    assert state.is_terminal() and state.scores() == [0.5, 0.5]
    state = position(T3, (("a5", "a4", "a3"), ("c1", "d1", "e1"), ("g3", "g4", "g5")), plies=29)
    state.apply_action(state.string_to_action("pass"))
    assert state.is_terminal() and state.scores() == [0.0, 0.0, 0.0] and state.returns() == [-1.0, -1.0, -1.0]


def test_names_read_back_and_bad_names_are_refused():
    state = T2.new_initial_state()
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == sorted(
        ["Dc", "Dd", "De", "Pb5", "Cb5", "Cb3", "Nb5", "Nc4", "Nc2"]
    )
    for bad in ("Df", "Qc4", "Pc8", "c4"):
        with pytest.raises(ValueError, match="bad ttcc4_2p action"):
            state.string_to_action(bad)
