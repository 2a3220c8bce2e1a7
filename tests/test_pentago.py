"""Pentago's rules on hand-built positions: the game is judged after the quadrant's turn only (OpenSpiel's
rules, which tests/test_openspiel_diff.py plays against over 1,000 random games)."""

import numpy as np
import pytest

import games
from games.game import State

PENTAGO = games.load("pentago")


def position(zeros, ones):
    """Player 0's and player 1's marbles at (row, column) squares, player 0 to move (as many of each)."""
    s = np.zeros(PENTAGO.state_size, dtype=np.uint64)
    for p, squares in enumerate((zeros, ones)):
        for r, c in squares:
            s[p] |= np.uint64(1 << (r * 6 + c))
    assert len(zeros) == len(ones)
    s[4] = len(zeros) + len(ones)
    return State(PENTAGO, s, [])


FAR = [(5, 0), (5, 2), (4, 4), (3, 5)]  # player 1's marbles out of the way of every line below


def play(state, name):
    state.apply_action(state.string_to_action(name))
    return state


def test_a_turn_that_completes_five_wins():
    """Column a of the top-left quadrant, turned clockwise ('t'), becomes its top row: with d1 and e1, five."""
    state = play(position([(0, 0), (1, 0), (0, 3), (0, 4)], FAR), "a3t")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert state.planes()[0][0, :5].all()


def test_five_made_by_the_marble_and_broken_by_the_turn_is_no_win():
    """a1-e1 after placing e1, but the clockwise turn of the top-left quadrant stands a1-c1 on end: play goes on
    (the commercial rules would end the game before the turn)."""
    state = play(position([(0, 0), (0, 1), (0, 2), (0, 3)], FAR), "e1t")
    assert not state.is_terminal() and state.current_player() == 1
    assert state.planes()[0][:3, 2].all() and not state.planes()[0][0, :2].any()


def test_a_turn_that_completes_the_opponents_five_loses_and_both_fives_draw():
    ones = [(0, 0), (1, 0), (2, 0), (0, 3), (0, 4)]
    lost = play(position([(3, 0), (3, 2), (4, 1), (5, 4), (4, 5)], ones), "f6t")
    assert lost.is_terminal() and lost.returns() == [-1.0, 1.0]
    both = play(position([(0, 2), (1, 2), (2, 2), (2, 3), (2, 4)], ones), "f6t")
    assert both.is_terminal() and both.returns() == [0.0, 0.0]


def test_a_full_board_without_five_is_a_draw_and_names_round_trip():
    rng = np.random.default_rng(3)
    draws = 0
    for _ in range(300):
        state = PENTAGO.new_initial_state()
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
        if len(state.history()) == 36 and state.returns() == [0.0, 0.0]:
            p0, p1 = state.planes()
            draws += int((p0 | p1).all())
    assert draws > 0
    state = PENTAGO.new_initial_state()
    assert [state.string_to_action(state.action_to_string(a)) for a in state.legal_actions()] == list(range(288))
    with pytest.raises(ValueError, match="bad pentago action 'a7s'"):
        state.string_to_action("a7s")


class KifPentago:
    """GGP's pentago.kif read plainly: cells (q, x, y) with quadrant q in 1-4 and x, y in 1-3, the kif's
    `globalIndex` to a 6x6 board, its `rotation` by `verticalFlip` / `horizontalFlip`, the control cycle
    placeControl red, rotateControl red, placeControl black, rotateControl black, and its terminal and goal rules."""

    ROLES = ("red", "black")

    def __init__(self):
        self.cells = {}  # (q, x, y) -> role
        self.control = ("place", "red")

    @staticmethod
    def global_index(q, x, y):
        return {1: (3 + x, 3 + y), 2: (x, 3 + y), 3: (x, y), 4: (3 + x, y)}[q]

    def moves(self):
        kind, role = self.control
        if kind == "rotate":
            return {("rotate", q, d) for q in range(1, 5) for d in ("clockwise", "counterclockwise")}
        cells = [(q, x, y) for q in range(1, 5) for x in range(1, 4) for y in range(1, 4)]
        return {("place", *c) for c in cells if c not in self.cells}

    def play(self, move):
        kind, role = self.control
        if move[0] == "place":
            self.cells[move[1:]] = role
        else:
            q, d = move[1:]
            turned = {}
            for (q1, x1, y1), who in self.cells.items():
                if q1 != q:
                    turned[(q1, x1, y1)] = who
                elif d == "clockwise":  # (rotation clockwise x1 y1 x2 y2) <= (verticalFlip y1 x1 x2 y2)
                    turned[(q1, y1, 4 - x1)] = who
                else:  # horizontalFlip y1 x1 x2 y2: x2 = 4 - y1, y2 = x1
                    turned[(q1, 4 - y1, x1)] = who
            self.cells = turned
        other = self.ROLES[1 - self.ROLES.index(role)]
        self.control = ("rotate", role) if kind == "place" else ("place", other)

    def line(self, role):
        board = {self.global_index(*c) for c, who in self.cells.items() if who == role}
        steps = ((1, 0), (0, 1), (1, 1), (1, -1))  # the kif's row, col and two diag rules
        return any(all((x + k * dx, y + k * dy) in board for k in range(5)) for x, y in board for dx, dy in steps)

    def goals(self):
        """Both roles' goals where the state is terminal, else None. The kif's last rule for black's 0 repeats
        `(not (line red))` where `(not (line black))` is meant (v1 of the file has it right): read as meant."""
        red, black = self.line("red"), self.line("black")
        if not (red or black or len(self.cells) == 36):
            return None
        if red and black or not (red or black):
            return [50, 50]
        return [100, 0] if red else [0, 100]


def kif_move(action):
    """Our action as the kif's move: square (row r, column c) is the kif's global (x, y) = (c + 1, r + 1), so our
    top-left, top-right, bottom-right and bottom-left quadrants are its 3, 4, 1 and 2; a global point (x, y) with
    y down the rows, its `clockwise` takes a quadrant's top-left corner to its bottom-left: our counter-clockwise."""
    if action >= 36:
        quadrant, direction = divmod(action - 36, 2)
        return ("rotate", (3, 4, 1, 2)[quadrant], ("clockwise", "counterclockwise")[direction])
    r, c = divmod(action, 6)
    q = {(0, 0): 3, (0, 1): 4, (1, 1): 1, (1, 0): 2}[(r // 3, c // 3)]
    return ("place", q, c % 3 + 1, r % 3 + 1)


def test_pentago_ggp_follows_the_kif_move_for_move():
    """Random games: the same legal moves, the same player moving twice (marble, then turn), and the same end and
    goals, among them a five right after a marble, a full board before its last turn, a turn that completes only
    the opponent's five, and fives of both colours at once."""
    game = games.load("pentago_ggp")
    rng = np.random.default_rng(5)
    ends = set()
    for _ in range(400):
        state, kif = game.new_initial_state(), KifPentago()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert {kif_move(a) for a in legal} == kif.moves() and len(legal) == len(kif.moves())
            assert kif.goals() is None and KifPentago.ROLES[state.current_player()] == kif.control[1]
            action = int(rng.choice(legal))
            kif.play(kif_move(action))
            state.apply_action(action)
        goals = kif.goals()
        assert goals is not None and state.returns() == [(g - 50) / 50 for g in goals]
        last, mover = state.history()[-1], KifPentago.ROLES.index(kif.control[1])  # who moved last
        if last < 36:
            ends.add("full board" if goals == [50, 50] else "five by the marble")
        elif goals == [50, 50]:
            ends.add("both fives")
        else:
            ends.add("turned into own five" if goals[mover] == 0 else "turned into the opponent's five")
    assert ends >= {"five by the marble", "full board", "turned into the opponent's five", "both fives"}


def test_pentago_ggp_names_and_one_turn_of_two_moves():
    game = games.load("pentago_ggp")
    state = game.new_initial_state()
    assert [state.string_to_action(state.action_to_string(a)) for a in state.legal_actions()] == list(range(36))
    play(state, "a1")
    assert state.current_player() == 0 and state.legal_actions() == list(range(36, 44))
    assert [state.action_to_string(a) for a in state.legal_actions()] == list("stuvwxyz")
    play(state, "t")  # the top-left quadrant clockwise: a1 goes to c1
    assert state.current_player() == 1 and state.planes()[0][0, 2] and state.planes()[0].sum() == 1
    with pytest.raises(ValueError, match="bad pentago_ggp action 'a1s'"):
        state.string_to_action("a1s")
