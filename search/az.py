"""The `az` agent: AlphaZero's PUCT search over a policy-value evaluator, one game or many at once.

`AZAgent` plays one game through a row of a shared `PUCT` forest; `AZGroup` holds the agents of many
concurrent games over one forest and one evaluator, so that their searches advance in lock-step and
share every forward (DESIGN section 8). The move choice is Wu et al.'s softmax over visit counts
(z, R_th), as for every MCTS agent, and the strength adjusters' hooks are heard per game.

The evaluator is handed in (the composition root, `tuner.agents`, makes it from `net=` with `nets.shipped`);
`search` never imports torch. AlphaDDA's adjusters need the clean net's value of the recent positions
before each search: a group learns those of all its games in one forward before it searches them.
"""

from __future__ import annotations

import math
from dataclasses import replace

from games.rng import derive_seeds
from search.agents import AgentGroup, SearchAgent
from search.alphadda import ALPHADDA3_RULE
from search.move_choice import choose_by_temperature
from search.puct import PUCT, PUCT_RULE, Request
from search.strength import StrengthAdjuster


class AZAgent(SearchAgent):
    """One game's AlphaZero player: row `row` of a PUCT forest that other games' agents may share.

    `dropout` is the evaluator's dropout probability for this game's positions (fixed, or set by AlphaDDA2);
    `c` the forest rule's exploration constant for this game (None: the forest's c_puct; AlphaDDA3's eq. 6 C, a
    knob); `target` AlphaDDA3's v̄ c, which its forest's rule (eqs. 6-7) aims at (nan until it has one).
    """

    def __init__(
        self,
        game,
        seed,
        puct: PUCT,
        row: int,
        *,
        simulations=None,
        seconds=None,
        z=math.inf,
        rth=0.1,
        adjuster: StrengthAdjuster | None = None,
        t_opening: int = 0,
        tau: float = 1.0,
        dropout: float = 0.0,
    ):
        rule = getattr(adjuster, "RULE", None) or PUCT_RULE
        if puct.rule is not rule:
            name = "ALPHADDA3_RULE (eqs. 6-7)" if rule is ALPHADDA3_RULE else "PUCT_RULE (eq. 8)"
            raise ValueError(f"this az agent searches under {name}: give it a PUCT forest with that rule")
        if getattr(adjuster, "evaluator", puct.evaluator) is not puct.evaluator:
            raise ValueError("an AlphaDDA adjuster reads the values of its agent's forest: give it puct.evaluator")
        super().__init__(game, seed, simulations=simulations, seconds=seconds, z=z, rth=rth, adjuster=adjuster)
        self.puct, self.row = puct, row
        self.t_opening, self.tau = t_opening, tau  # the first t_opening plies: eq. (9) instead of softmax-z
        self.dropout = float(dropout)
        self.dropout_adjusted = False  # whether an adjuster sets the dropout (AlphaDDA2)
        self.target = math.nan  # AlphaDDA3's v̄ c; nan: none yet (or not AlphaDDA3)
        self.c: float | None = None
        self.every_move = False  # AlphaDDA1Z's move choice (Knobs.every_move)
        puct.reset(row, seed=derive_seeds(seed, 1, bits=64)[0])

    def new_game(self, seed=None, *, seat=None):
        super().new_game(seed, seat=seat)
        self.puct.reset(self.row, seed=None if seed is None else derive_seeds(seed, 1, bits=64)[0])

    def strength(self):
        """z, the budget and, where set, the dropout probability (AlphaDDA2) and AlphaDDA3's target v̄ c."""
        out = super().strength()
        if self.dropout > 0 or self.dropout_adjusted:
            out["dropout"] = self.dropout
        if not math.isnan(self.target):
            out["target"] = self.target
        return out

    def estimate(self):
        """With AlphaDDA3's target the search's values are eq. 7's distances, not scores: its estimate is then
        the clean net's mean value v̄ c that the target is, as a score (v̄ c + 1) / 2."""
        if not math.isnan(self.target):
            return (self.target + 1.0) / 2.0
        return super().estimate()

    def apply(self, knobs):
        super().apply(knobs)
        if knobs is None:
            return
        if knobs.dropout is not None:
            self.dropout = float(knobs.dropout)
            self.dropout_adjusted = True
        if knobs.target is not None:
            self.target = float(knobs.target)
        if knobs.c is not None:
            self.c = float(knobs.c)
        if knobs.every_move is not None:
            self.every_move = bool(knobs.every_move)

    def choose(self, state, result):
        """Eq. (9) in the opening, else softmax-z over the visits; a search of one simulation has only
        evaluated the root (no child visited, e.g. AlphaDDA1 at N_sim = 1), so its priors stand in for the
        visit shares."""
        if not result.visits.any():
            result = replace(result, visits=self.puct.root_priors(self.row))
        if len(state.history()) < self.t_opening:  # AlphaZero's opening, as in its self-play [AlphaDDA App. 1.3]
            return choose_by_temperature(result.actions, result.visits, self.tau, self.rng)
        if self.every_move:  # N + 1: every legal move a candidate, z = 0 uniform among them (Random's play)
            result = replace(result, visits=result.visits + 1)
        return super().choose(state, result)

    def request(self, state) -> Request:
        """This move's search of `state`, with the knobs in force."""
        target = 0.0 if math.isnan(self.target) else self.target
        return Request(self.row, state, self.simulations or 1, self.dropout, target, self.c)

    def select_action(self, state):
        return AZGroup([self]).select_actions([0], [state])[0]


class AZGroup(AgentGroup):
    """The `az` agents of many concurrent games over one forest: `select_actions` searches them at once."""

    def select_actions(self, ks: list[int], states: list) -> list[int]:
        """One move for each game ks[j] in position states[j], all searched in lock-step."""
        if not ks:
            return []
        agents = [self.agents[k] for k in ks]
        learn_values(agents, states)
        for agent, state in zip(agents, states):
            agent.before(state)
        timed = agents[0].seconds is not None  # one shared budget kind: all timed or none; one deadline, the shortest
        puct = agents[0].puct
        results = puct.search(
            [a.request(s) for a, s in zip(agents, states)], seconds=min(a.seconds for a in agents) if timed else None
        )
        return [agent.after(state, result) for agent, state, result in zip(agents, states, results)]


def learn_values(agents: list[AZAgent], states: list) -> None:
    """The clean values that the agents' AlphaDDA adjusters still lack at `states`, all in one forward of their
    (shared) evaluator, undamaged: before this, each game evaluated its own one or two positions."""
    wanted = [
        (a.adjuster, ply, position)
        for a, state in zip(agents, states)
        if a.adjuster is not None
        for ply, position in a.adjuster.pending(state)
    ]
    if not wanted:
        return
    values = agents[0].puct.values([position for _, _, position in wanted])
    for (adjuster, ply, position), value in zip(wanted, values):
        adjuster.learn(ply, position, float(value))
