"""Strength adjusters: objects that watch a game and ask for an agent's strength knobs (Wu et al.).

An adjuster hears the agent's hooks (new game, every move, game over) and sees the root statistics
of each search. `before_search` returns the knobs that shape the search (e.g. the budget) and
`after_search` those that shape the move choice (here the softmax index z), as `Knobs`; the agent
applies them. The AlphaDDA agents use the same interface with their own knobs and a network's value
as the signal.

`TUNABLE` names the settings an on-line DDA tuner may set between moves (`retune`, search.tuned), and
`balance` is the adjuster's own judge of how the game stands, where it has one (AlphaDDA's clean value).

State lifetime: a new adjuster (or `reset()`) starts a match; `InterGame` keeps its state from game
to game of a match, `IntraGame` starts every game afresh and keeps its state from move to move, and
`InterIntra` does both. `state_dict()` / `load_state_dict()` save and restore that state as plain
JSON-able data: a player's profile between sessions, a position before an undo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Knobs:
    """What an adjuster asks of its agent; None leaves a knob as it is."""

    z: float | None = None  # the softmax strength index [Wu eq. 1]
    budget_scale: float | None = None  # the search budget as a share of the agent's configured one
    simulations: int | None = None  # the search budget in simulations, whatever was configured (AlphaDDA1)
    dropout: float | None = None  # the evaluator's dropout probability for this game's leaves (AlphaDDA2)
    target: float | None = None  # AlphaDDA3's v̄ c: search by eqs. (6)-(7) aiming at it; nan: plain PUCT
    c: float | None = None  # AlphaDDA3's exploration constant C of eq. (6)
    every_move: bool | None = None  # AlphaDDA1Z: softmax-z over N + 1 of every legal move, not the searched ones


class StrengthAdjuster:
    """Base: every hook does nothing. `z` is the strength index the adjuster wants.

    `floor` (beyond the paper): z stops weakening play below about -1 to -2 (Wu et al.'s linear range
    ends at -2), which leaves an adjuster far too strong for a weak opponent. Below `floor` the move
    choice keeps z = floor and each further unit of z halves the search budget instead, down to one
    simulation (an almost random move). None turns this off.
    """

    STATE: tuple[str, ...] = ()  # the attributes that hold what the adjuster has learnt (state_dict's fields)
    RULE = None  # the search rule an AlphaZero search needs under it (search.puct.Rule); None: the search's own
    TUNABLE: dict[str, str] = {}  # the settings a tuner may set (`retune`), spec key -> attribute

    def __init__(self, floor: float | None = None):
        self.floor = floor
        self.reset()

    def state_dict(self) -> dict:
        """What the adjuster has learnt, as JSON-able data: its kind and the attributes named in STATE."""
        return {"kind": type(self).__name__, **{name: _plain(getattr(self, name)) for name in self.STATE}}

    def load_state_dict(self, state: dict) -> None:
        """Restore `state_dict()`'s data; ValueError in one line if it is another kind's or malformed,
        leaving the adjuster as it was."""
        _check_fields(state, type(self).__name__, self.STATE)
        values = {name: _checked(name, state[name], getattr(self, name)) for name in self.STATE}
        for name, value in values.items():
            setattr(self, name, value)

    def knobs(self, z: float, budget: bool = True) -> Knobs:
        """The softmax index for `z` and, if `budget`, the share of the search budget for `z`."""
        below = 0.0 if self.floor is None else max(0.0, self.floor - z)
        return Knobs(z=z if self.floor is None else max(z, self.floor), budget_scale=2.0**-below if budget else None)

    def reset(self) -> None:
        """A new match: forget everything learnt about the opponent."""

    def retune(self, values: dict) -> None:
        """Take new settings (spec key -> value, keys of TUNABLE) from here on; a whole-number setting takes the
        nearest whole number (a continuous strategy's values are not)."""
        for key, value in values.items():
            name = self.TUNABLE[key]
            setattr(self, name, round(value) if isinstance(getattr(self, name), int) else float(value))

    def balance(self, state) -> float | None:
        """The adjuster's own estimate of its player's expected score at `state` (win 1, draw 0.5), before any
        search of it; None where it has none (an on-line tuner then uses the search's)."""
        return None

    def pending(self, state) -> list:
        """The positions (ply, position) whose clean values it needs before searching `state` (AlphaDDA's), for
        the agent to evaluate with others' in one forward and hand to `learn`; none by default."""
        return []

    def learn(self, ply: int, position, value: float) -> None:
        """The clean value of a position `pending` named."""

    def new_game(self) -> None:
        pass

    def observe(self, state, action) -> None:
        pass

    def before_search(self, state) -> Knobs | None:
        return None

    def preview(self) -> Knobs | None:
        """The knobs of its next search where they do not depend on the position (for a person to see before
        it moves); None where they do (AlphaDDA's follow the position's value)."""
        return None

    def after_search(self, state, result) -> Knobs | None:
        return None

    def game_over(self, returns, player: int) -> None:
        pass

    def merged(self, stored: dict, returns, player: int) -> dict:
        """The state after this game on top of `stored`, a state another session saved while this game was played
        (this adjuster has finished the game): by default, the stored state's own game_over. The adjuster is left
        holding that state."""
        self.load_state_dict(stored)
        self.game_over(returns, player)
        return self.state_dict()


def _check_fields(state, kind: str, fields) -> None:
    """ValueError in one line unless `state` is a dict of `kind` with exactly `fields` beside its kind."""
    if not isinstance(state, dict) or state.get("kind") != kind:
        found = state.get("kind") if isinstance(state, dict) else type(state).__name__
        raise ValueError(f"the saved state is a {found}'s, not a {kind}'s")
    if set(state) != {"kind", *fields}:
        raise ValueError(f"a {kind}'s saved state has fields {', '.join(fields)}, not {', '.join(state)}")


def _plain(value):
    """A number, or a list of numbers, as JSON writes it."""
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


def _checked(name: str, saved, current):
    """`saved` if it has `current`'s shape (a finite number, an int where an int is, or a list of as many);
    ValueError in one line otherwise."""
    if isinstance(current, list):
        if not isinstance(saved, list) or len(saved) != len(current):
            raise ValueError(f"saved {name} should be a list of {len(current)} numbers, got {saved!r}")
        return [_checked(name, s, c) for s, c in zip(saved, current)]
    integer = isinstance(current, int)
    ok = isinstance(saved, int) if integer else isinstance(saved, (int, float)) and math.isfinite(saved)
    if not ok or isinstance(saved, bool):
        raise ValueError(f"saved {name} should be {'a whole number' if integer else 'a finite number'}, got {saved!r}")
    return int(saved) if integer else float(saved)


class Level(StrengthAdjuster):
    """A fixed strength level: softmax-z at `z`, below `floor` the budget halved per unit of z (see
    StrengthAdjuster). Unadjusted, it is plain softmax-z; it is the level an on-line DDA tuner sets."""

    TUNABLE = {"z": "z", "floor": "floor"}

    def __init__(self, z: float = 0.0, floor: float | None = None):
        self.z = float(z)
        super().__init__(floor)

    def before_search(self, state):
        return self.knobs(self.z)

    def preview(self):
        return self.knobs(self.z)


def inter_game_step(outcome: float, dz: float, aim: float = 0.5) -> float:
    """Wu et al.'s inter-game change of a strength level after a game: -dz after a win, +dz after a loss. With the
    agent's `aim` (its score to aim at; ours, beyond the paper) -2 (1 - aim) dz and +2 aim dz: z then stands still
    on average where the agent wins a share `aim` of its decisive games (Wu's at aim 1/2)."""
    # [Wu inter-game]
    return -2.0 * (1.0 - aim) * dz if outcome > 0 else 2.0 * aim * dz if outcome < 0 else 0.0


class InterGame(StrengthAdjuster):
    """Inter-game adjustment: z falls by dz after a win and rises by dz after a loss; dz starts at
    `dz`, shrinks by `decay` after every game, never below `dz_min` (Wu et al.: 0.375, 0.95, 0.03).

    With `reheat` = L (ours, beyond the paper) a run of L decisive results of one sign (draws neither break nor
    lengthen it), and every further result of that run, doubles dz instead (at most the starting dz). Wu's schedule
    cools dz for good, which suits an opponent of fixed strength: after 50 games it is at dz_min, and an opponent
    who becomes much stronger then wins game after game while z climbs 0.03 a game. At an even strength a run of L
    is rare (one game in 2^(L-1)), and with L = 6 dz still cools there (doubling one game in 32 against x0.95 in the
    others). On Connect4 (experiments/results/online_dda, az at 200 simulations) Wu's `dsa=both` with L = 6 scored
    0.42 over games 21-50 after its opponent jumped from 50 to 2,000 simulations, where Wu's schedule stayed at 0.19,
    and was in band against 8 of AlphaDDA's 8 agents where Wu's was against 7. Rprop's sign rule (dz x1.5 after a
    result like the last, x0.5 after an unlike one), tried first, followed the jump as well but played 6 and 7 of the
    8 in band (rprop-dz_grow.md there)."""

    # nothing an on-line tuner can set: dz acts between games, on the next game's z, after the reward of the game
    # it was asked for is in (a tuner would credit each step to the game before the one it shaped)

    def __init__(self, dz=0.375, decay=0.95, dz_min=0.03, z0=0.0, floor=None, reheat=None, aim=0.5):
        self.dz0, self.decay, self.dz_min, self.z0, self.reheat, self.aim = dz, decay, dz_min, z0, reheat, aim
        # the run of decisive results of one sign is learnt only where it can heat dz
        self.STATE = ("z", "dz", "games") + (() if reheat is None else ("run",))
        super().__init__(floor)

    def reset(self):
        self.z = float(self.z0)
        self.dz = float(self.dz0)
        self.games = 0
        self.run = 0  # with reheat: +k, the last k decisive results were the agent's wins; -k, its losses

    def before_search(self, state):
        return self.knobs(self.z)  # fixed for the whole game

    def preview(self):
        return self.knobs(self.z)

    def game_over(self, returns, player):
        outcome = returns[player]
        self.z += inter_game_step(outcome, self.dz, self.aim)
        self.games += 1
        heat = False
        if self.reheat is not None and outcome != 0:
            sign = 1 if outcome > 0 else -1
            self.run = self.run + sign if self.run * sign > 0 else sign
            heat = abs(self.run) >= self.reheat
        self.dz = max(self.dz_min, min(self.dz0, 2 * self.dz) if heat else self.dz * self.decay)


class IntraGame(StrengthAdjuster):
    """Intra-game adjustment [Wu eq. 18]: before each move, W = the root win rate of the most visited move;
    z falls when W > 0.5 and rises when W < 0.5 by dz = dZ (or dZ |W - 0.5| / eps inside the band of
    half-width eps), with dZ falling linearly from `dz` to 0 over `moves` of the agent's moves. With the agent's
    `aim` (ours) W is held at `aim` instead of 0.5."""

    STATE = ("z", "moves_made")
    TUNABLE = {"dz": "dz0", "dsa_eps": "eps"}

    def __init__(self, dz=0.1, eps=0.1, moves=21, z0=0.0, floor=None, aim=0.5):
        self.dz0, self.eps, self.moves, self.z0, self.aim = dz, eps, moves, z0, aim
        super().__init__(floor)

    def reset(self):
        self.new_game()

    def new_game(self):
        self.z = float(self.z0)
        self.moves_made = 0

    def step(self, w: float) -> float:
        """The change of z for root win rate `w` at the current move (eq. 18 with the linear cool-down)."""
        big = self.dz0 * max(0.0, 1.0 - self.moves_made / self.moves)
        gap = abs(w - self.aim)
        # [Wu eq. 18]
        dz = big if gap >= self.eps else big * gap / self.eps
        return -math.copysign(dz, w - self.aim) if w != self.aim else 0.0

    def before_search(self, state):
        return self.knobs(self.z)  # the budget follows z as it stood after the last move

    def preview(self):
        return self.knobs(self.z)

    def after_search(self, state, result):
        best = int(result.visits.argmax())
        self.z += self.step(float(result.values[best]))
        self.moves_made += 1
        return self.knobs(self.z, budget=False)


class InterIntra(StrengthAdjuster):
    """Beyond the paper: both of Wu et al.'s adjustments at once. Each game starts at the inter-game level
    z (which moves by dz after each game, as `InterGame`'s), and within the game z moves from there by
    eq. 18, as `IntraGame`'s: the level learns the opponent over games, the intra-game steps correct a
    game that is running away. Wu et al. present the two separately; this is the `dsa=both` agents'."""

    TUNABLE = {"dsa_eps": "intra.eps"}  # not inter's dz: it acts between games (see InterGame)

    def __init__(self, inter: InterGame, intra: IntraGame):
        self.inter, self.intra = inter, intra
        super().__init__(intra.floor)

    def retune(self, values):
        self.intra.retune(values)

    @property
    def z(self) -> float:
        return self.intra.z

    def reset(self):
        self.inter.reset()
        self.new_game()

    def new_game(self):
        self.intra.z0 = self.inter.z
        self.intra.new_game()

    def before_search(self, state):
        return self.intra.before_search(state)

    def preview(self):
        return self.intra.preview()

    def after_search(self, state, result):
        return self.intra.after_search(state, result)

    def game_over(self, returns, player):
        self.inter.game_over(returns, player)

    def state_dict(self):
        return {"kind": type(self).__name__, "inter": self.inter.state_dict(), "intra": self.intra.state_dict()}

    def load_state_dict(self, state):
        _check_fields(state, type(self).__name__, ("inter", "intra"))
        inter, intra = self.inter.state_dict(), self.intra.state_dict()
        try:
            self.inter.load_state_dict(state["inter"])
            self.intra.load_state_dict(state["intra"])
        except ValueError:
            self.inter.load_state_dict(inter)
            self.intra.load_state_dict(intra)
            raise
