"""Self-adaptive DDA: an allocation strategy tunes a strength adjuster's settings on-line (DESIGN section 10).

SA-MCTS's loop one level up [SA-MCTS Fig. 1]: where SA-MCTS asks a strategy for search-control values
before each simulation and tells it the playout's result, `TunedAdjuster` asks for the adjuster's
settings (AlphaDDA1's A_sim, B_sim0, ...; Wu's dz, epsilon; the softmax level z) before each of its
agent's searches, or once per game, and tells the strategy whether that setting moved the game toward the
target score. The strategies are handed in (the composition root, `tuner.agents`, makes them), one per
seat: the first move is worth much in Connect4, so each seat learns its own setting from its own games.

The reward, in [0, 1], says whether the setting moved the game toward the aim, 1 - target (the target is
the opponent's score: 0.6 lets the person win 60%), read where it depends on this setting alone:
- AlphaDDA's adjusters (`balance`): the step of the clean net's value from before the agent's move to after
  the opponent's reply, `toward(s, s2, aim) = |s - aim| - |s2 - aim|` (the last move's runs to the game's
  result, win 1, draw 0.5, loss 0), told as 1/2 + tanh(step / 0.1) / 2: AlphaDDA's own signal, undamaged
  by the settings being tuned;
- the others, within the move: how much farther from the aim the played move's value lies than the closest
  move's, told as 1 - tanh(miss / 0.1). A value a few visits stand behind is doubted (DOUBT / sqrt(visits)
  added to its distance): a move the search barely looked at is valued near its prior, near even, and a
  pilot rewarded the weakest level (z = -6, the least visited moves) against opponents it lost to.
Not the level after the move: that is mostly the game so far (a pilot rewarding it learnt nothing in 40
games against any of five opponents). Nor the step within the move: a move can always lose value but never
gain any, so a weakening level earns while the agent leads and the best move earns nothing while it
trails; the closest move is in reach from every position. The 0.1 (`STEP`): moves change an expected
score by hundredths to tenths, and strategies built for rewards spread over [0, 1] (UCB's bonus) would
otherwise explore for thousands of moves (a pilot's NMC tried each of 13 levels evenly for 360 moves);
fixed, so that a reward means the same all match long (CMA-ES keeps its best so far).
Per game (`per="game"`) one setting plays the whole game and is told the step its result made to the
seat's running score (the mean of its results, each game weighing 1/n of it; `toward` per unit of that
weight): within a game the steps sum to the result's distance from the aim, the same for a win and a loss.

Forgetting (`forget`, in (0, 1]): after each game every reward learnt so far, and every result in the
running score, weighs `forget` times as much (Strategy.forget), so the tuner follows a person who improves.
State: what each seat's strategy was asked and told (its events), replayed into fresh strategies on load,
so every strategy (CMA-ES included) saves and restores alike, and a saved state that does not replay
exactly is refused whole.
"""

from __future__ import annotations

import math
from typing import Callable, Protocol

import numpy as np

from search.strength import StrengthAdjuster, _check_fields

VERSION = 2  # of state_dict's layout (1: rewarded the level, not the step)
DOUBT = 0.5  # a move's value lies within DOUBT / sqrt(its visits) of the truth, as a search can tell
STEP = 0.1  # a step's size that earns tanh(1): moves change an expected score by hundredths to tenths


class Tuner(Protocol):
    """What TunedAdjuster needs of an allocation strategy (tuner.strategies gives it)."""

    def ask(self) -> np.ndarray: ...

    def tell(self, x, reward: float) -> None: ...

    def values(self, x) -> list[float]: ...

    def forget(self, factor: float) -> None: ...


def toward(score: float, after: float, aim: float) -> float:
    """How much closer to `aim` a step of the expected score from `score` to `after` ended (negative: farther)."""
    return abs(score - aim) - abs(after - aim)


def reward(step: float) -> float:
    """A step's reward in [0, 1]: 1/2 + tanh(step / STEP) / 2."""
    return 0.5 + 0.5 * math.tanh(step / STEP)


def fit(miss: float) -> float:
    """A move's reward in [0, 1] when its value lies `miss` farther from the aim than the closest move's:
    1 - tanh(miss / STEP), 1 for the closest."""
    return 1.0 - math.tanh(miss / STEP) if math.isfinite(miss) else 0.0


class TunedAdjuster(StrengthAdjuster):
    """`inner`'s settings `names` (keys of its TUNABLE) chosen by a strategy per seat, `make_tuner(seed)` seeded
    `seeds[seat]` (a loaded state brings its own seeds).

    target: the opponent's score to aim at (the agent aims at 1 - target); per: "move" (a setting per
    search) or "game" (one per game); forget: what the rewards learnt so far weigh after each game.
    """

    def __init__(
        self,
        inner: StrengthAdjuster,
        make_tuner: Callable[[int], Tuner],
        names: tuple[str, ...],
        seeds: tuple[int, int],
        *,
        target: float = 0.5,
        per: str = "move",
        forget: float = 1.0,
    ):
        unknown = [n for n in names if n not in inner.TUNABLE]
        if unknown or not names:
            raise ValueError(f"{type(inner).__name__} tunes {', '.join(inner.TUNABLE) or 'nothing'}, not {unknown}")
        if per not in ("move", "game"):
            raise ValueError(f"per is 'move' or 'game', not {per!r}")
        if not (0.0 <= target <= 1.0 and 0.0 < forget <= 1.0):
            raise ValueError(f"target is a score in [0, 1] and forget a weight in (0, 1], got {target}, {forget}")
        self.inner, self.make_tuner, self.names, self.start_seeds = inner, make_tuner, tuple(names), tuple(seeds)
        self.aim, self.per, self.factor = 1.0 - target, per, forget
        self.RULE = inner.RULE
        if hasattr(inner, "evaluator"):
            self.evaluator = inner.evaluator  # the az agent checks that it reads its forest's
        super().__init__()

    # --- the hooks --------------------------------------------------------------------------------

    def reset(self):
        self.inner.reset()
        self.seeds = list(self.start_seeds)
        self.tuners = [self.make_tuner(seed) for seed in self.seeds]
        self.events: list[list] = [[], []]  # per seat: an ask's point (a list), a tell's reward, None: forget
        self.record = [[self.aim, 0.0], [self.aim, 0.0]]  # per seat: running score and its games (per game)
        self.asked: list[np.ndarray | None] = [None, None]  # per seat: the setting in force, not yet told
        self.new_game()

    def new_game(self):
        self.inner.new_game()
        self.judged: list[float | None] = [None, None]  # per seat: the clean value its setting is judged from
        self.played = [False, False]  # per seat: whether it has moved this game
        self.searched: tuple[int, object] | None = None  # (plies, result) of its last search

    def before_search(self, state):
        seat = state.current_player()
        score = self.inner.balance(state)
        if score is not None and self.judged[seat] is not None and self.per == "move":
            self._step(seat, toward(self.judged[seat], score, self.aim))  # the opponent has replied
        if self.asked[seat] is None:
            self._ask(seat)
        self.judged[seat], self.played[seat] = score, True
        return self.inner.before_search(state)

    def after_search(self, state, result):
        self.searched = (len(state.history()), result)
        return self.inner.after_search(state, result)

    def observe(self, state, action):
        self.inner.observe(state, action)
        if self.searched is None or self.searched[0] != len(state.history()):
            return  # not its own move
        seat, result = state.current_player(), self.searched[1]
        self.searched = None
        if self.judged[seat] is None and self.per == "move" and result.visits.sum() > 0:  # else it stays open
            # (a search that reused a tree can end with no visits below its root: nothing to judge the move by)
            visited = result.visits > 0
            distance = np.full(len(result.visits), np.inf)  # from the aim, as far as the visits can tell
            distance[visited] = np.abs(result.values[visited] - self.aim) + DOUBT / np.sqrt(result.visits[visited])
            self._tell(seat, fit(float(distance[result.actions == action][0] - distance.min())))

    def game_over(self, returns, player):
        self.inner.game_over(returns, player)
        if not self.played[player]:
            return
        score = (1.0 + float(returns[player])) / 2.0
        if self.per == "game":  # the step the result made to the running score, per unit of its weight
            mean, games = self.record[player]
            after = mean + (score - mean) / (games + 1.0)
            step = (abs(mean - self.aim) - abs(after - self.aim)) * (games + 1.0)
            self._tell(player, min(1.0, max(0.0, 0.5 + step / (2.0 * max(self.aim, 1.0 - self.aim)))))
            self.record[player] = [after, games + 1.0]
        elif self.asked[player] is not None and self.judged[player] is not None:  # its last move, to the result
            self._step(player, toward(self.judged[player], score, self.aim))
        if self.factor < 1.0:
            self.tuners[player].forget(self.factor)
            self.events[player].append(None)
            self.record[player][1] *= self.factor

    def preview(self):
        return self.inner.preview()

    def pending(self, state):
        return self.inner.pending(state)

    def learn(self, ply, position, value):
        self.inner.learn(ply, position, value)

    # --- asking and telling -----------------------------------------------------------------------

    def _ask(self, seat: int) -> None:
        x = self.tuners[seat].ask()
        self.asked[seat] = x
        self.events[seat].append(x.tolist())
        self.inner.retune(dict(zip(self.names, self.tuners[seat].values(x))))

    def _step(self, seat: int, step: float) -> None:
        self._tell(seat, reward(step))

    def _tell(self, seat: int, reward: float) -> None:
        self.tuners[seat].tell(self.asked[seat], reward)
        self.events[seat].append(reward)
        self.asked[seat] = None

    # --- state ------------------------------------------------------------------------------------

    def state_dict(self):
        return {
            "kind": type(self).__name__,
            "version": VERSION,
            "tuned": list(self.names),
            "seeds": list(self.seeds),
            "inner": self.inner.state_dict(),
            "events": [list(e) for e in self.events],
            "asked": [None if x is None else x.tolist() for x in self.asked],
            "judged": list(self.judged),
            "played": list(self.played),
            "record": [list(r) for r in self.record],
        }

    def load_state_dict(self, state):
        fields = ("version", "tuned", "seeds", "inner", "events", "asked", "judged", "played", "record")
        _check_fields(state, type(self).__name__, fields)
        if state["version"] != VERSION or state["tuned"] != list(self.names):
            raise ValueError(
                f"the saved tuner is version {state['version']} tuning {state['tuned']}, "
                f"not version {VERSION} tuning {list(self.names)}"
            )
        for name in fields[2:]:
            if name != "inner" and not (isinstance(state[name], list) and len(state[name]) == 2):
                raise ValueError(f"a saved tuner's {name} are a pair, one per seat, got {state[name]!r}")
        seeds, events, judged, played, record = (state[k] for k in ("seeds", "events", "judged", "played", "record"))
        if not all(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 for seed in seeds):
            raise ValueError(f"a saved tuner's seeds are whole numbers, got {seeds!r}")
        if not all(v is None or _score(v) for v in judged) or not all(isinstance(p, bool) for p in played):
            raise ValueError(
                f"a saved tuner's judged values are scores or null and played flags, got {judged!r}, {played!r}"
            )
        if not all(isinstance(r, list) and len(r) == 2 and _score(r[0]) and _number(r[1]) >= 0 for r in record):
            raise ValueError(f"a saved tuner's records are [running score, games], got {record!r}")
        tuners = [self._replay(seat, seeds[seat], events[seat]) for seat in (0, 1)]
        asked = [self._outstanding(events[seat], state["asked"][seat]) for seat in (0, 1)]
        self.inner.load_state_dict(state["inner"])  # the last check: refused, it leaves the inner adjuster as it was
        self.tuners, self.events, self.seeds = tuners, [list(e) for e in events], list(seeds)
        self.asked, self.judged, self.played = asked, [None if v is None else float(v) for v in judged], list(played)
        self.record = [[float(m), float(n)] for m, n in record]
        self.searched = None

    def _replay(self, seat: int, seed: int, events) -> Tuner:
        """The seat's strategy as it stood after `events`, replayed into a fresh one seeded `seed`; ValueError in
        one line if they do not replay exactly (another version's, or damaged)."""
        if seed == self.seeds[seat] and events == self.events[seat]:
            return self.tuners[seat]  # as it stands (a profile loaded again between games)
        if not isinstance(events, list):
            raise ValueError("a saved tuner's events are a list")
        tuner, asked = self.make_tuner(seed), None
        for event in events:
            if isinstance(event, list):
                asked = tuner.ask()
                if asked.tolist() != event:
                    raise ValueError("the saved tuner does not replay: another version's, or damaged")
            elif event is None:
                tuner.forget(self.factor)
            elif _score(event):
                if asked is None:
                    raise ValueError("the saved tuner tells a reward before it asks")
                tuner.tell(asked, float(event))
                asked = None
            else:
                raise ValueError(f"a saved tuner's event is a point, a reward in [0, 1] or null, got {event!r}")
        return tuner

    @staticmethod
    def _outstanding(events, asked):
        """The setting asked and not yet told, as the events end; ValueError if `asked` says otherwise."""
        open_ask = events[-1] if events and isinstance(events[-1], list) else None
        if asked != open_ask:
            raise ValueError("a saved tuner's asked setting does not match its events")
        return None if open_ask is None else np.array(open_ask)


def _number(value) -> float:
    """`value` if it is a finite number, else NaN (which no bound holds)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else math.nan


def _score(value) -> bool:
    return 0.0 <= _number(value) <= 1.0
