"""Checkers against a plain reading of GGP's checkers.kif (cells (x, y) with x, y in 1-8, the kif's `pawnmove`,
`kingmove`, `pawnjump`, `kingjump`, `single_jump_capture`, `move` / `doublejump` / `triplejump`, its next-state,
`piece_count`, terminal and goal rules; no bitboards): legal moves, the end and its goals over random games, perft;
and hand-built positions for each rule the kif has and OpenSpiel's checkers has not."""

import random

import numpy as np
import pytest

import games
from games.checkers import KINGS, LIMIT
from games.game import State
from games.kernels import perft

CK = games.load("checkers")
ROLES = ("white", "black")
OWNER = {"wp": "white", "wk": "white", "bp": "black", "bk": "black"}  # the kif's piece_owner_type ("b": blank)


class KifCheckers:
    """The kif's fluents: `cell` (blank cells left out), `control`, `step`, `piece_count`."""

    def __init__(self):
        self.cell = {}
        for x in range(1, 9):
            for y in range(1, 9):
                if (x + y) % 2 == 1 and y <= 3:
                    self.cell[x, y] = "wp"
                if (x + y) % 2 == 1 and y >= 6:
                    self.cell[x, y] = "bp"
        self.control, self.step = "white", 1
        self.piece_count = {"white": 12, "black": 12}

    def copy(self):
        other = KifCheckers()
        other.cell, other.control, other.step = dict(self.cell), self.control, self.step
        other.piece_count = dict(self.piece_count)
        return other

    @staticmethod
    def pawnmove(player, u, v):
        dy = 1 if player == "white" else -1
        return [(x, v + dy) for x in (u - 1, u + 1) if 1 <= x <= 8 and 1 <= v + dy <= 8]

    @staticmethod
    def kingmove(u, v):
        return KifCheckers.pawnmove("white", u, v) + KifCheckers.pawnmove("black", u, v)

    @staticmethod
    def pawnjump(player, u, v):
        dy = 2 if player == "white" else -2
        return [(x, v + dy) for x in (u - 2, u + 2) if 1 <= x <= 8 and 1 <= v + dy <= 8]

    @staticmethod
    def kingjump(u, v):
        return KifCheckers.pawnjump("white", u, v) + KifCheckers.pawnjump("black", u, v)

    def single_jump_capture(self, player, u, v, x, y):
        """The cells (c, d) over which `player` jumps from (u, v) to (x, y) capturing an opposing piece."""
        if (x, y) not in self.kingjump(u, v):
            return []
        opponent = ROLES[1 - ROLES.index(player)]
        return [
            (c, d)
            for c, d in self.kingmove(u, v)
            if (x, y) in self.kingmove(c, d) and OWNER.get(self.cell.get((c, d), "b")) == opponent
        ]

    def blank(self, x, y):
        return (x, y) not in self.cell

    def moves(self):
        """Every legal move of the player in control: ("move", piece, u, v, x, y), ("doublejump", piece, u, v, x1,
        y1, x2, y2), ("triplejump", piece, u, v, x1, y1, x2, y2, x3, y3)."""
        player = self.control
        out = set()
        for (u, v), piece in self.cell.items():
            if piece[0] != player[0]:
                continue
            pawn = piece[1] == "p"
            steps = self.pawnmove(player, u, v) if pawn else self.kingmove(u, v)
            jumps = (lambda a, b: self.pawnjump(player, a, b)) if pawn else self.kingjump
            out |= {("move", piece, u, v, x, y) for x, y in steps if self.blank(x, y)}
            for x1, y1 in jumps(u, v):
                if not (self.blank(x1, y1) and self.single_jump_capture(player, u, v, x1, y1)):
                    continue
                out.add(("move", piece, u, v, x1, y1))
                for x2, y2 in jumps(x1, y1):
                    if not (self.blank(x2, y2) and (u, v) != (x2, y2)):
                        continue
                    if not self.single_jump_capture(player, x1, y1, x2, y2):
                        continue
                    out.add(("doublejump", piece, u, v, x1, y1, x2, y2))
                    for x3, y3 in jumps(x2, y2):
                        ok = self.blank(x3, y3) and (x1, y1) != (x3, y3)
                        if ok and self.single_jump_capture(player, x2, y2, x3, y3):
                            out.add(("triplejump", piece, u, v, x1, y1, x2, y2, x3, y3))
        return out

    def play(self, move):
        kind, piece, *squares = move
        player = self.control
        opponent = ROLES[1 - ROLES.index(player)]
        path = list(zip(squares[::2], squares[1::2]))
        captured = [c for a, b in zip(path, path[1:]) for c in self.single_jump_capture(player, *a, *b)]
        x, y = path[-1]
        kinged = (piece == "wp" and y == 8 and kind in ("move", "doublejump")) or (
            piece == "bp" and y == 1 and kind in ("move", "doublejump")
        )
        kinged |= kind == "triplejump" and y == (8 if player == "white" else 1)
        del self.cell[path[0]]
        for c in captured:
            del self.cell[c]
        self.cell[x, y] = (player[0] + "k") if kinged else piece
        self.piece_count[opponent] -= {"move": len(captured), "doublejump": 2, "triplejump": 3}[kind]
        self.control, self.step = opponent, self.step + 1

    def goals(self):
        """{role: goal} once terminal, else None."""
        stuck = not self.moves()
        if not (stuck or 0 in self.piece_count.values() or self.step == 102):
            return None
        w, b = self.piece_count["white"], self.piece_count["black"]
        return {"white": 100 if w > b else 50 if w == b else 0, "black": 100 if b > w else 50 if w == b else 0}


def kif_move(state, action):
    """Our action as the kif's move: column c is x = c + 1, row r is y = 8 - r; the piece from the board."""
    text = state.action_to_string(action)
    squares = [("abcdefgh".index(text[i]) + 1, int(text[i + 1])) for i in range(0, len(text), 2)]
    r, c = 8 - squares[0][1], squares[0][0] - 1
    bit = np.uint64(1) << np.uint64(r * 8 + c)
    colour = "w" if state.array[0] & bit else "b"
    piece = colour + ("k" if state.array[KINGS] & bit else "p")
    kind = {2: "move", 3: "doublejump", 4: "triplejump"}[len(squares)]
    return (kind, piece, *[z for square in squares for z in square])


def test_perft_by_hand_and_against_the_kif():
    """White's 7 first moves, then black's 7 to each: 49; deeper, the kif's count."""
    start = CK.new_initial_state().array
    counts = [perft(CK.kernels, start, d, CK.max_legal) for d in (1, 2, 3, 4, 5)]
    assert counts[:2] == [7, 49]

    def kif_perft(game, depth):
        if depth == 0 or game.goals():
            return 1
        total = 0
        for move in game.moves():
            child = game.copy()
            child.play(move)
            total += kif_perft(child, depth - 1)
        return total

    assert counts[2:] == [kif_perft(KifCheckers(), d) for d in (3, 4, 5)]


def test_random_games_follow_the_kif_move_for_move():
    rng = random.Random(0)
    seen = {"goals": set(), "kinds": set(), "lengths": set()}
    for _ in range(300):
        state, kif = CK.new_initial_state(), KifCheckers()
        while not state.is_terminal():
            legal = state.legal_actions()
            moves = kif.moves()
            assert {kif_move(state, a) for a in legal} == moves and len(legal) == len(moves)
            assert kif.goals() is None
            action = rng.choice(legal)
            seen["kinds"].add(kif_move(state, action)[0])
            kif.play(kif_move(state, action))
            state.apply_action(action)
            white, black = state.planes()
            assert (white.sum(), black.sum()) == (kif.piece_count["white"], kif.piece_count["black"])
        goals = kif.goals()
        assert goals is not None and state.scores() == [goals["white"] / 100, goals["black"] / 100]
        seen["goals"].add(goals["white"])
        seen["lengths"].add(len(state.history()) == LIMIT)
    assert seen["goals"] == {0, 50, 100} and seen["kinds"] == {"move", "doublejump", "triplejump"}
    assert seen["lengths"] == {True, False}  # some games end before the move limit


def position(white, black, kings=(), to_move=0, plies=0):
    """Pieces on squares such as 'b3'; `to_move` 0 is white."""
    s = np.zeros(CK.state_size, dtype=np.uint64)
    bit = lambda square: np.uint64(1 << ((8 - int(square[1])) * 8 + "abcdefgh".index(square[0])))  # noqa: E731
    for square in white:
        s[0] |= bit(square)
    for square in black:
        s[1] |= bit(square)
    for square in kings:
        s[KINGS] |= bit(square)
    s[2], s[4] = to_move, plies
    return State(CK, s, [])


def names(state):
    return sorted(state.action_to_string(a) for a in state.legal_actions())


def test_capturing_is_not_forced_and_a_jump_may_stop_early():
    """White's man on b3 may jump c4 and then e6, stop after c4, or step to a4; the man on h1 steps as it likes."""
    state = position(["b3", "h1"], ["c4", "e6", "a8"])
    assert names(state) == ["b3a4", "b3d5", "b3d5f7", "h1g2"]


def test_three_jumps_at_most():
    """The king on b1 could jump c2, e4, e6 and c6 in a row: a turn stops after the third."""
    state = position(["b1"], ["c2", "e4", "e6", "c6"], kings=["b1"])
    assert names(state) == ["b1a2", "b1d3", "b1d3f5", "b1d3f5d7"]


def test_a_king_never_jumps_back_the_way_it_came():
    """From d3 over e4 to f5 and over g6 to h7: the jump back over g6 to f5 is not a move (the kif's
    `different_cells`), though f5 is empty and g6 still stands there until the turn ends."""
    state = position(["d3"], ["e4", "g6"], kings=["d3"])
    assert names(state) == ["d3c2", "d3c4", "d3e2", "d3f5", "d3f5h7"]


def test_a_man_is_crowned_where_its_turn_ends_on_the_far_rank():
    """White's man on a4 jumps b5 and d7 onto e8 and is crowned (it then steps back down); stopping on c6 it
    is not; a black man stepping onto rank 1 is crowned too."""
    state = position(["a4"], ["b5", "d7", "h7"])
    state.apply_action(state.string_to_action("a4c6e8"))
    state.apply_action(state.string_to_action("h7g6"))
    assert names(state) == ["e8d7", "e8f7"]
    state = position(["a4"], ["b5", "d7", "h7"])
    state.apply_action(state.string_to_action("a4c6"))
    assert not state.array[KINGS]
    state = position(["b1", "h5"], ["c2"], to_move=1)
    state.apply_action(state.string_to_action("c2d1"))
    assert state.array[KINGS] == np.uint64(1 << (7 * 8 + 3))


def test_a_player_without_a_move_is_not_beaten_for_it():
    """Black's men on a2-g2 stand on white's men on rank 1 (their jumps leave the board) and block b3 and h3:
    after white's h5-g6 black has no move, the game ends, and black's six pieces beat white's five."""
    state = position(["b1", "d1", "f1", "h1", "h5"], ["a2", "c2", "e2", "g2", "b3", "h3"])
    state.apply_action(state.string_to_action("h5g6"))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_the_game_ends_after_101_moves_on_the_piece_count():
    state = position(["b1", "d1"], ["g8"], plies=LIMIT - 1)
    state.apply_action(state.string_to_action("b1a2"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    state = position(["b1"], ["g8"], plies=LIMIT - 2)
    state.apply_action(state.string_to_action("b1a2"))
    assert not state.is_terminal()
    state.apply_action(state.string_to_action("g8f7"))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_names_read_back_and_bad_names_are_refused():
    state = CK.new_initial_state()
    assert names(state) == ["b3a4", "b3c4", "d3c4", "d3e4", "f3e4", "f3g4", "h3g4"]
    for bad in ("b3b4", "a1b2c3", "b3", "b3d5f7h5b3"):
        with pytest.raises(ValueError, match="bad checkers action"):
            state.string_to_action(bad)
