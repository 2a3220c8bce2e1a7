"""Self-adaptive DDA: an allocation strategy tunes a strength adjuster's settings on-line (DESIGN section 10).

SA-MCTS's loop one level up [SA-MCTS Fig. 1]: where SA-MCTS asks a strategy for search-control values
before each simulation and tells it the playout's result, `TunedAdjuster` asks for the adjuster's
settings (AlphaDDA1's A_sim, B_sim0, ...; Wu's dz, epsilon; the softmax level z) before each of its
agent's searches, or once per game, and tells the strategy how well the game then stayed near the
target score. The strategies are handed in (the composition root, `tuner.agents`, makes them), one per
seat: the first move is worth much in Connect4, so each seat learns its own setting from its own games.

The reward, in [0, 1], is the closeness of the agent's expected score to its aim, 1 - target (the target
is its opponent's score: 0.6 lets the person win 60%): 1 - |s - aim| / max(aim, 1 - aim), 1 at the aim
and 0 at the far end of [0, 1]. The expected score s after a move is read once the opponent has replied:
- with AlphaDDA's adjusters, the clean net's value of the position after the reply (`balance`): the
  signal AlphaDDA itself steers by, unchanged by the settings being tuned;
- otherwise, the search's value of the move the agent played (its mean over the replies the search
  expected): the search's own view, the one Wu's intra-game adjustment steers by;
- when the game ends first, its result (win 1, draw 0.5, loss 0): the terminal reward.
A closeness, not the result alone: with a target of 0.5 a win and a loss are equally far from it, so
results alone cannot tell a setting that wins every game from one that wins half; the value along the
game can. Per game (`per="game"`), one setting plays the whole game and is told the mean of its moves'
rewards, the result's included.

Forgetting (`forget`, in (0, 1]): after each game every reward learnt so far weighs `forget` times as
much (Strategy.forget), so the tuner follows a person who improves. State: what each seat's strategy
was asked and told (its events), replayed into fresh strategies on load, so every strategy (CMA-ES
included) saves and restores alike, and a saved state that does not replay exactly is refused whole.
"""

from __future__ import annotations

import math
from typing import Callable, Protocol

import numpy as np

from search.strength import StrengthAdjuster, _check_fields

VERSION = 1  # of state_dict's layout


class Tuner(Protocol):
    """What TunedAdjuster needs of an allocation strategy (tuner.strategies gives it)."""

    def ask(self) -> np.ndarray: ...

    def tell(self, x, reward: float) -> None: ...

    def values(self, x) -> list[float]: ...

    def forget(self, factor: float) -> None: ...


def closeness(score: float, aim: float) -> float:
    """The reward of an expected score: 1 at `aim`, falling linearly to 0 at the far end of [0, 1]."""
    return 1.0 - abs(score - aim) / max(aim, 1.0 - aim)


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
        self.new_game()

    def new_game(self):
        self.inner.new_game()
        self.asked: list[np.ndarray | None] = [None, None]  # per seat: the setting in force, not yet told
        self.rewards: list[list[float]] = [[], []]  # per seat: this game's move rewards (per game)
        self.expected: float | None = None  # the search's value of the agent's last move
        self.searched: tuple[int, object] | None = None  # (plies, result) of its last search

    def before_search(self, state):
        seat = state.current_player()
        if self.asked[seat] is not None:  # the opponent has replied to the last move
            score = self.inner.balance(state)
            score = self.expected if score is None else score
            if score is not None:
                self._learn(seat, closeness(score, self.aim))
        if self.asked[seat] is None:
            self._ask(seat)
        return self.inner.before_search(state)

    def after_search(self, state, result):
        self.searched = (len(state.history()), result)
        return self.inner.after_search(state, result)

    def observe(self, state, action):
        self.inner.observe(state, action)
        if self.searched is not None and self.searched[0] == len(state.history()):  # its own move
            result = self.searched[1]
            played = result.actions == action
            visited = result.visits[played].sum() > 0
            self.expected = float(result.values[played][0]) if visited else result.score()
            self.searched = None

    def game_over(self, returns, player):
        self.inner.game_over(returns, player)
        if self.asked[player] is None:
            return  # it never moved this game
        self._learn(player, closeness((1.0 + float(returns[player])) / 2.0, self.aim))
        if self.per == "game":
            self._tell(player, float(np.mean(self.rewards[player])))
        if self.factor < 1.0:
            self.tuners[player].forget(self.factor)
            self.events[player].append(None)

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

    def _learn(self, seat: int, reward: float) -> None:
        """A move's reward: told at once per move, kept for the game's mean per game."""
        if self.per == "move":
            self._tell(seat, reward)
        else:
            self.rewards[seat].append(reward)

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
            "rewards": [list(r) for r in self.rewards],
            "expected": self.expected,
        }

    def load_state_dict(self, state):
        fields = ("version", "tuned", "seeds", "inner", "events", "asked", "rewards", "expected")
        _check_fields(state, type(self).__name__, fields)
        if state["version"] != VERSION or state["tuned"] != list(self.names):
            raise ValueError(
                f"the saved tuner is version {state['version']} tuning {state['tuned']}, "
                f"not version {VERSION} tuning {list(self.names)}"
            )
        seeds, events = state["seeds"], state["events"]
        for name, value in (
            ("seeds", seeds),
            ("events", events),
            ("asked", state["asked"]),
            ("rewards", state["rewards"]),
        ):
            if not (isinstance(value, list) and len(value) == 2):
                raise ValueError(f"a saved tuner's {name} are a pair, one per seat, got {value!r}")
        if not all(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 for seed in seeds):
            raise ValueError(f"a saved tuner's seeds are whole numbers, got {seeds!r}")
        tuners = [self._replay(seat, seeds[seat], events[seat]) for seat in (0, 1)]
        asked = [self._outstanding(state["events"][seat], state["asked"][seat]) for seat in (0, 1)]
        rewards = [_rewards(r) for r in state["rewards"]]
        expected = state["expected"]
        if expected is not None and not (isinstance(expected, (int, float)) and 0.0 <= expected <= 1.0):
            raise ValueError(f"a saved expected score is in [0, 1], got {expected!r}")
        self.inner.load_state_dict(state["inner"])  # the last check: refused, it leaves the inner adjuster as it was
        self.tuners, self.events, self.seeds = tuners, [list(e) for e in events], list(seeds)
        self.asked, self.rewards, self.expected = asked, rewards, expected
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
            elif isinstance(event, (int, float)) and not isinstance(event, bool) and 0.0 <= event <= 1.0:
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


def _rewards(rewards) -> list[float]:
    ok = isinstance(rewards, list) and all(
        isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r) and 0 <= r <= 1 for r in rewards
    )
    if not ok:
        raise ValueError(f"a saved game's rewards are numbers in [0, 1], got {rewards!r}")
    return [float(r) for r in rewards]
