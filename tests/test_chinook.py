"""Chinook against a plain reading of GGP's chinook.kif (cells (file, rank) with files a-h and ranks 1-8, the kif's
`isaodd` table, `nextrank`, `nextfile` with h next to a, `whitemove` / `blackmove` / `whitejump` / `blackjump`, its
legal, next, terminal and goal rules, both roles moving at once): every step of random games, each role's legal moves,
the board after the joint move, the end and both goals; and the rules that are easy to get wrong, by hand."""

import random

import numpy as np
import pytest

import games
from games.chinook import PASS
from games.game import State

CHINOOK = games.load("chinook")
FILES = "abcdefgh"
ROLES = ("white", "black")


def next_file(f):
    return FILES[(FILES.index(f) + 1) % 8]


def is_odd(f, r):  # the kif's table: a1 odd, a2 even, b1 even, b2 odd, ...
    return (FILES.index(f) + 1 + r) % 2 == 0


class KifChinook:
    def __init__(self):
        self.cells = {}  # (f, r) -> "white" / "black"; absent: the kif's b
        for f in FILES:
            for r in (1, 2):
                if not (r == 2 and f in "ah"):
                    self.cells[(f, r)] = "white"
            for r in (7, 8):
                if not (r == 7 and f in "ah"):
                    self.cells[(f, r)] = "black"
        self.control = {"odd": "white", "even": "black"}
        self.step = 1

    def legal(self, role):
        forward = 1 if role == "white" else -1
        other = ROLES[1 - ROLES.index(role)]
        board = "odd" if self.control["odd"] == role else "even"
        moves = {(f"{board}noop",)}
        for (u, v), who in self.cells.items():
            if who != role or is_odd(u, v) != (board == "odd"):
                continue
            y = v + forward
            if not 1 <= y <= 8:
                continue
            for x in (next_file(u), FILES[(FILES.index(u) - 1) % 8]):  # (nextfile u x) or (nextfile x u)
                if (x, y) not in self.cells:
                    moves.add((f"{board}move", u, v, x, y))
                y2, x2 = y + forward, FILES[(2 * FILES.index(x) - FILES.index(u)) % 8]
                if 1 <= y2 <= 8 and self.cells.get((x, y)) == other and (x2, y2) not in self.cells:
                    moves.add((f"{board}jump", u, v, x, y, x2, y2))
        return moves

    def play(self, joint):
        cells = dict(self.cells)
        for role, move in zip(ROLES, joint):
            if move[0].endswith("move"):
                _, u, v, x, y = move
                del cells[(u, v)]
                cells[(x, y)] = role
            elif move[0].endswith("jump"):
                _, u, v, c, d, x, y = move
                del cells[(u, v)], cells[(c, d)]
                cells[(x, y)] = role
        self.cells = cells
        self.control = {"odd": self.control["even"], "even": self.control["odd"]}
        self.step += 1

    def goals(self):
        """Both roles' goals where the state is terminal, else None."""
        white = any(who == "white" and r == 8 for (f, r), who in self.cells.items())
        black = any(who == "black" and r == 1 for (f, r), who in self.cells.items())
        if not (white or black or self.step == 41):
            return None
        return [100 * white, 100 * black]


def kif_move(state, action):
    """Our action as the kif's move of the player to move, its board read off the squares."""
    if action == PASS:
        board = ("odd", "even")[(len(state.history()) // 2 + state.current_player()) % 2]
        return (f"{board}noop",)
    (r, c), (r2, c2) = state.action_squares(action)
    u, v, x, y = FILES[c], 8 - r, FILES[c2], 8 - r2
    board = "odd" if is_odd(u, v) else "even"
    if abs(r2 - r) == 1:
        return (f"{board}move", u, v, x, y)
    (over_r, over_c) = ((r + r2) // 2, (c + (1 if (c2 - c) % 8 == 2 else -1)) % 8)
    return (f"{board}jump", u, v, FILES[over_c], 8 - over_r, x, y)


def board_of(state):
    p0, p1 = state.planes()
    return {(FILES[c], 8 - r): ROLES[k] for k, p in enumerate((p0, p1)) for r, c in zip(*np.nonzero(p))}


def test_random_games_follow_the_kif_step_for_step():
    rng = random.Random(1)
    seen = {"goals": set(), "kinds": set()}
    for _ in range(300):
        state, kif = CHINOOK.new_initial_state(), KifChinook()
        while not state.is_terminal():
            joint = []
            for role in ROLES:
                assert ROLES[state.current_player()] == role and kif.goals() is None
                legal = state.legal_actions()
                assert {kif_move(state, a) for a in legal} == kif.legal(role) and len(legal) == len(kif.legal(role))
                action = rng.choice(legal)
                joint.append(kif_move(state, action))
                seen["kinds"].add(joint[-1][0])
                state.apply_action(action)
            kif.play(joint)
            assert board_of(state) == kif.cells
        goals = kif.goals()
        assert goals is not None
        assert state.scores() == ([0.5, 0.5] if goals[0] == goals[1] else [g / 100 for g in goals])
        seen["goals"].add(tuple(goals))
    assert seen["kinds"] == {f"{b}{k}" for b in ("odd", "even") for k in ("move", "jump", "noop")}
    assert seen["goals"] == {(100, 0), (0, 100), (100, 100), (0, 0)}


def position(white, black, plies=0):
    s = np.zeros(CHINOOK.state_size, dtype=np.uint64)
    for p, squares in enumerate((white, black)):
        for name in squares:
            s[p] |= np.uint64(1 << ((8 - int(name[1])) * 8 + FILES.index(name[0])))
    s[2], s[4] = plies % 2, plies
    return State(CHINOOK, s, [])


def test_a_win_in_white_s_half_of_the_step_waits_for_black_s_which_may_draw_it():
    """White's man on g7 (odd board, white's this step) reaches h8; black, on the even board, answers with a2b1 to
    its own far rank: both score 100, a draw. Had black passed, white would have won."""
    for answer, returns in (("a2b1", [0.0, 0.0]), ("pass", [1.0, -1.0])):
        state = position(["g7"], ["a2"])
        state.apply_action(state.string_to_action("g7h8"))
        assert not state.is_terminal() and state.current_player() == 1
        state.apply_action(state.string_to_action(answer))
        assert state.is_terminal() and state.returns() == returns


def test_files_wrap_captures_are_not_forced_and_names_round_trip():
    state = position(["a3"], ["h4"])  # a3: odd board, white's on the first step; h4 is next to it across the edge
    names = {state.action_to_string(a) for a in state.legal_actions()}
    assert names == {"a3b4", "a3g5", "pass"}  # the jump over h4 lands on g5; the step to b4 is as legal
    assert state.string_to_action("a3g5") in state.legal_actions()
    state.apply_action(state.string_to_action("a3g5"))
    assert board_of(state) == {("g", 5): "white"}
    with pytest.raises(ValueError, match="bad chinook action 'a3a4'"):
        state.string_to_action("a3a4")
