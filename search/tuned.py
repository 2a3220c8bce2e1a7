"""Self-adaptive DDA: an allocation strategy tunes a strength adjuster's settings on-line (DESIGN section 10).

SA-MCTS's loop one level up [SA-MCTS Fig. 1]: where SA-MCTS asks a strategy for search-control values
before each simulation and tells it the playout's result, `TunedAdjuster` asks for the adjuster's
settings (AlphaDDA1's A_sim, B_sim0, ...; Wu's dz, epsilon; the softmax level z) for each round of two
of its agent's moves (or, per game, of two games) and tells the strategy how far that setting's effect on
the game missed a fair one. The strategies are handed in (the composition root, `tuner.agents`, makes them), one per
seat: the first move is worth much in Connect4, so each seat learns its own setting from its own games.

The reward, in [0, 1], says how far the setting's effect on the game missed what a fair setting does, as
a stationary function of the setting, so that the strategies (which maximise a reward's mean) settle on a
fair setting. An earlier reward, the step of the expected score toward the aim, was not: a setting earned
much above the aim and little below it, and a cold review found the strategies then held the score by
alternating extremes (NMC played the fair one of three per-game settings in 28% of games; per move 8-13% of
moves were at a balancing level). The aim is 1 - target (the target is the opponent's score: 0.6 lets the
person win 60%).
- Per move: a miss is the step of the agent's expected score from before its move to before its next one
  (the last to the game's result, win 1, draw 0.5, loss 0), less the step a fair setting makes, `PULL` of
  the way to the aim: `miss(s, s2, aim) = (s2 - s) - PULL (aim - s)`. The step holds both what the setting
  gave up (or kept) and the opponent's reply, so it reads the opponent as it is. The expected score is
  AlphaDDA's clean value where the adjuster has one (`balance`, read before the search: undamaged by the
  settings being tuned); otherwise the search's own (`SearchResult.score`), known only after the search, so
  the setting is asked there, in force for that move's choice and the next search's budget. A step is noisy:
  the opponent's replies vary and either judge errs (over 30 Connect4 games of the tables' softmax-z agent the
  clean value moved by a median 0.030 between the agent's moves, the search's score by 0.056, with sds of
  0.16 and 0.15: experiments/results/judge_noise), and noise flattens a reward of one step, such as the earlier
  1 - tanh(|miss| / STEP), alike for every setting, so that the fair one no longer stands out. So a setting
  plays a round of two moves and is told 1/2 - tanh(e1 e2 / STEP^2) / 2 of its two misses, whose mean is least
  at the fair setting however noisy the judge: the product's mean is the squared mean miss, less a term from
  the judge's error at the score the two misses share (alike for settings searched alike), plus PULL times the
  variance of the setting's own first step (the second miss starts where the first ended): a setting whose
  moves vary more (a softmax level that draws among moves of unlike values) is told less than a steadier one
  with the same mean miss, as the earlier |miss| did too (a round cut short by a game's end goes on into the
  seat's next game). On synthetic matches (experiments.dda_reward: games of 17 moves, each
  reply handing over a gain that the right level gives back, results drawn from the final value, N(0, noise)
  added to the value read; 5 seeds x 6 gains and targets, games 51-100; NMC with the on-line UCB constant of
  tuner.agents.adjusters.DDA_SETTINGS) NMC's score stayed 0.046 and 0.072
  from the aim at noise 0.1 and 0.2 where |miss| per move left it 0.111 and 0.163 away (about even at 0.05,
  0.073 against 0.065, and noise-free, 0.049 against 0.047); EA gains at every noise, NTBEA from noise 0.05
  (noise-free it loses, 0.112 against 0.095); LSI and CMA-ES, which commit to one level, gain at some noises
  and lose at others (LSI at 0.1 and 0.2, CMA-ES at 0 and 0.1). PULL 0.2 and
  STEP 0.05: of PULL 0.1-0.3 x STEP 0.03-0.1 at noise 0.1, PULL 0.2 held NMC's score nearest (0.046 at STEP
  0.05 with 55% of its moves at a fair level, 0.044 at 0.1 with 48%); PULL 0.3 held EA's and NTBEA's nearer
  (0.072 and 0.066 against 0.077 and 0.123).
  The shared term is alike only for settings searched alike: a setting below its floor, which cuts the
  budget and makes the search's score noisier (down to one playout's 0 or 1), earns a higher reward with
  the same mean miss, which leans the strategies toward the weaker settings. Tune `floor` with care where
  there is no clean value (or tune z alone, the default); AlphaDDA's clean value has no such lean.
- Per game (`per="game"`): a game's result is a single draw of 0, 1/2 or 1, and any reward from one draw is
  linear in the setting's win rate (best at an extreme), so each setting plays a round of two of the seat's
  games and is told 1/2 - tanh(e1 e2 / m) / 2 of their misses e = result - aim, m = max(aim, 1 - aim)^2:
  E[e1 e2] = (mean miss)^2 for independent games, least (and the reward highest) at the fair setting. On
  three settings winning 0.1, 0.5 and 0.9 of games, NMC then played the fair one in 92% of games 101-300
  (28% before) and LSI in 80% (its halving's ties, common with rewards from two results, are drawn at random;
  taken by row order they gave 100% here). A round cut short by the end of a match goes on into the seat's next game.

Forgetting (`forget`, in (0, 1]): after each game it played, a seat's strategy forgets (Strategy.forget), so the
tuner follows a person who improves: NMC and NTBEA weigh every reward learnt so far `forget` times as much
(NMC keeps its total, so its exploration grows as old rewards fade); LSI, once settled, plays its winner for a
budget of asks and then starts a new round; CMA-ES starts one once pycma has stopped; EA, whose choices read
only the current generation's rewards, and grid and random, which read none, go on as before.
State: what each seat's strategy learnt (`Strategy.state_dict`: its statistics and stream, of a size set by
its space, not by the games played), the setting each seat asked last, and the inner adjuster's own; the
settings in force are put back into the inner adjuster, whose own state may not hold them. A saved state that
does not match its digest or does not fit is refused whole. Version 4 kept each strategy as the log of what
it was asked and told (growing without bound, and refused after any change to a strategy's code): it is
replayed once on load and saved as version 5 from then on.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Callable, Protocol

import numpy as np

from search.strength import StrengthAdjuster, _check_fields

VERSION = 5  # of state_dict's layout (4: each strategy as a replay log; 3: rewarded one step toward the aim)
STEP = 0.05  # a round whose two moves miss by this much earns 1/2 - tanh(1) / 2: moves change a score by 0.01-0.1
PULL = 0.2  # the share of its distance to the aim that a fair setting's move closes


class Tuner(Protocol):
    """What TunedAdjuster needs of an allocation strategy (tuner.strategies gives it)."""

    def ask(self) -> np.ndarray: ...

    def tell(self, x, reward: float) -> None: ...

    def values(self, x) -> list[float]: ...

    def forget(self, factor: float) -> None: ...

    any_point: bool  # whether a tell may be of a point it did not ask (another copy's: merged in)

    def state_dict(self) -> dict: ...

    def load_state_dict(self, state: dict) -> None: ...


def miss(score: float, after: float, aim: float) -> float:
    """How far a step of the expected score from `score` to `after` misses a fair one, PULL of the way to `aim`."""
    return (after - score) - PULL * (aim - score)


def round_reward(first: float, second: float, scale: float) -> float:
    """A round's reward in [0, 1] from its two misses: 1/2 - tanh(first * second / scale) / 2."""
    return 0.5 - 0.5 * math.tanh(first * second / scale)


class TunedAdjuster(StrengthAdjuster):
    """`inner`'s settings `names` (keys of its TUNABLE) chosen by a strategy per seat, `make_tuner(seed)` seeded
    `seeds[seat]` (a loaded state brings what they learnt); `make_tuner(seed, settings)` makes one with a saved
    strategy's settings instead of a fresh one's ({}: the strategy's own defaults, as version 4 made them).

    target: the opponent's score to aim at (the agent aims at 1 - target); per: "move" (a setting per two
    of the seat's searches) or "game" (one per two of its games); forget: what the rewards learnt so far
    weigh after each game.
    """

    def __init__(
        self,
        inner: StrengthAdjuster,
        make_tuner: Callable[..., Tuner],
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
        # a round's scale: two moves' misses of STEP, or a game's largest squared miss
        self.scale = STEP**2 if per == "move" else max(self.aim, 1.0 - self.aim) ** 2
        self.RULE = inner.RULE
        if hasattr(inner, "evaluator"):
            self.evaluator = inner.evaluator  # the az agent checks that it reads its forest's
        super().__init__()

    # --- the hooks --------------------------------------------------------------------------------

    def reset(self):
        self.inner.reset()
        self.tuners = [self.make_tuner(seed) for seed in self.start_seeds]
        self.last: list[np.ndarray | None] = [None, None]  # per seat: the setting it asked last, told or not
        self.first: list[float | None] = [None, None]  # per seat: the first miss of its round under way
        self.asked: list[np.ndarray | None] = [None, None]  # per seat: the setting in force, not yet told
        self.in_force: int | None = None  # the seat whose last ask the inner adjuster holds (None: its defaults)
        self.new_game()

    def new_game(self):
        self.inner.new_game()
        self.lessons: list[list] = []  # this game's tells [seat, point, reward] and forgets [seat, None, factor]
        self.judged: list[float | None] = [None, None]  # per seat: its expected score before its last move
        self.played = [False, False]  # per seat: whether it has moved this game
        self.by_search = False  # whether the last search is judged by its own score (no clean value)

    def before_search(self, state):
        seat = state.current_player()
        self._restore(seat)
        score = self.inner.balance(state)
        if score is not None:
            self._judge(seat, score)
        if self.asked[seat] is None and (score is not None or self.per == "game"):
            self._ask(seat)
        self.played[seat], self.by_search = True, score is None
        return self.inner.before_search(state)

    def after_search(self, state, result):
        if self.per == "game" or not self.by_search:
            return self.inner.after_search(state, result)
        seat = state.current_player()
        score = result.score()  # the search's expected score: none if nothing below the root was visited
        if score is not None:
            self._judge(seat, score)
        asked = self.asked[seat] is None
        if asked:
            self._ask(seat)  # in force for this move's choice (and the next search's budget)
        knobs = self.inner.after_search(state, result)
        return self.inner.preview() if knobs is None and asked else knobs

    def game_over(self, returns, player):
        self.inner.game_over(returns, player)
        if not self.played[player]:
            return
        score = (1.0 + float(returns[player])) / 2.0
        if self.per == "game" and self.asked[player] is not None:  # (None: a state saved since told it)
            self._miss(player, score - self.aim)
        elif self.per == "move":
            if self.asked[player] is not None and self.judged[player] is None:
                self._tell(player, 0.5)  # none of its searches gave an expected score: nothing to judge it by
            self._judge(player, score)  # its last move: to the result
        if self.factor < 1.0:
            self.tuners[player].forget(self.factor)
            self.lessons.append([player, None, self.factor])

    def observe(self, state, action):
        self.inner.observe(state, action)

    def preview(self):
        return self.inner.preview()

    def pending(self, state):
        return self.inner.pending(state)

    def learn(self, ply, position, value):
        self.inner.learn(ply, position, value)

    # --- asking and telling -----------------------------------------------------------------------

    def _ask(self, seat: int) -> None:
        x = self.tuners[seat].ask()
        self.asked[seat], self.last[seat], self.in_force = x, x, seat
        self.inner.retune(dict(zip(self.names, self.tuners[seat].values(x))))

    def _restore(self, seat: int) -> None:
        """Put the seat's own setting in force (the inner adjuster may hold the other seat's): its last asked, or
        if it never asked while the other seat's is in force, a first one of its own now."""
        if self.in_force == seat:
            return
        if self.last[seat] is not None:
            self.inner.retune(dict(zip(self.names, self.tuners[seat].values(self.last[seat]))))
            self.in_force = seat
        elif self.in_force is not None:
            self._ask(seat)

    def _judge(self, seat: int, score: float) -> None:
        """The seat's expected score before its move (or the result, after its last) is `score`: per move, the
        step from the last judgement to here is a miss of the setting in force."""
        if self.per == "move" and self.asked[seat] is not None and self.judged[seat] is not None:
            self._miss(seat, miss(self.judged[seat], score, self.aim))
        self.judged[seat] = score

    def _miss(self, seat: int, error: float) -> None:
        """One miss of the seat's setting in a round of two (its moves, or per game its games): the first is
        kept, the second ends the round."""
        if self.first[seat] is None:
            self.first[seat] = error
        else:
            self._tell(seat, round_reward(self.first[seat], error, self.scale))

    def _tell(self, seat: int, reward: float) -> None:
        self.tuners[seat].tell(self.asked[seat], reward)
        self.lessons.append([seat, self.asked[seat].tolist(), reward])
        self.asked[seat], self.first[seat] = None, None

    def merged(self, stored: dict, returns, player: int) -> dict:
        """This game's lesson on top of `stored`, which another session saved while this game was played: the
        inner adjuster's game_over on the stored one, and this game's tells and forgets told again to the stored
        strategies where a strategy takes a tell of any point (NMC, grid, random); a strategy that awaits the
        reward of its own point (NTBEA, EA, LSI, CMA-ES) keeps the other session's lesson alone, forgetting as
        this game did. A round's first miss tells nothing until its second (per game, a round's first game
        teaches only its forgetting; per move, a round cut short by the game's end), so a round is one
        session's."""
        lessons = self.lessons
        self.load_state_dict(stored)
        self.inner.game_over(returns, player)
        for seat, x, value in lessons:
            tuner = self.tuners[seat]
            if x is None:
                tuner.forget(value)
            elif tuner.any_point:
                tuner.tell(np.array(x), value)
        self.lessons = []
        return self.state_dict()

    # --- state ---------------------------------------------------------------------------------------

    def state_dict(self):
        state = {
            "kind": type(self).__name__,
            "version": VERSION,
            "tuned": list(self.names),
            "inner": self.inner.state_dict(),
            "tuners": [tuner.state_dict() for tuner in self.tuners],
            "last": [None if x is None else x.tolist() for x in self.last],
            "asked": [None if x is None else x.tolist() for x in self.asked],
            "judged": list(self.judged),
            "played": list(self.played),
            "first": list(self.first),
            "in_force": self.in_force,
            "lessons": [list(lesson) for lesson in self.lessons],
        }
        return {**state, "digest": _digest(state)}

    def load_state_dict(self, state):
        if isinstance(state, dict) and state.get("version") == 4:
            state = self._from_version_4(state)
        fields = ("version", "tuned", "inner", "tuners", "last", "asked", "judged", "played", "first", "in_force")
        _check(state, (*fields, "lessons"), self.names)
        for name in fields[3:-1]:
            if not (isinstance(state[name], list) and len(state[name]) == 2):
                raise ValueError(f"a saved tuner's {name} are a pair, one per seat, got {state[name]!r}")
        last, asked, judged, played, first = (state[k] for k in ("last", "asked", "judged", "played", "first"))
        if not all(v is None or _score(v) for v in judged) or not all(isinstance(p, bool) for p in played):
            raise ValueError(
                f"a saved tuner's judged values are scores or null and played flags, got {judged!r}, {played!r}"
            )
        if not all(v is None or abs(_number(v)) <= 1.0 for v in first):
            raise ValueError(f"a saved tuner's first misses are numbers in [-1, 1] or null, got {first!r}")
        if any(asked[seat] is not None and asked[seat] != last[seat] for seat in (0, 1)):
            raise ValueError("a saved tuner's asked setting is not its seat's last one")
        if any(first[seat] is not None and asked[seat] is None for seat in (0, 1)):
            raise ValueError("a saved tuner has a round's first miss but no setting asked for it")
        in_force = state["in_force"]
        if in_force is not None and not (in_force in (0, 1) and not isinstance(in_force, bool) and last[in_force]):
            raise ValueError(f"a saved tuner's setting in force is a seat that asked one, or null, got {in_force!r}")
        tuners = [self._made_as(seed, saved) for seed, saved in zip(self.start_seeds, state["tuners"])]
        lessons = self._lessons(tuners, state["lessons"])
        for tuner, saved in zip(tuners, state["tuners"]):
            tuner.load_state_dict(saved)
        points = [
            [None if x is None else self._point(tuners[seat], x) for x in (last[seat], asked[seat])] for seat in (0, 1)
        ]
        self.inner.load_state_dict(state["inner"])  # the last check: refused, it leaves the inner adjuster as it was
        self.tuners = tuners
        self.last, self.asked = [p[0] for p in points], [p[1] for p in points]
        self.judged, self.played = [None if v is None else float(v) for v in judged], list(played)
        self.first = [None if v is None else float(v) for v in first]
        self.in_force = in_force
        self.lessons = lessons
        if in_force is not None:  # the settings in force, which the inner adjuster's own state may not hold
            self.inner.retune(dict(zip(self.names, tuners[in_force].values(self.last[in_force]))))

    def _made_as(self, seed: int, saved) -> Tuner:
        """A strategy to load `saved` into, with the settings it was made with (a change of the defaults since
        then must not refuse what a profile learnt); ValueError in one line if they are not a strategy's."""
        settings = saved.get("settings") if isinstance(saved, dict) else None
        if settings is not None and not isinstance(settings, dict):
            raise ValueError(f"a saved strategy's settings are a dict, got {settings!r}")
        return self.make_tuner(seed, settings)

    def _lessons(self, tuners: list[Tuner], lessons) -> list[list]:
        """A saved game's tells [seat, point, reward] and forgets [seat, null, factor]; ValueError if malformed."""
        if not isinstance(lessons, list):
            raise ValueError(f"a saved tuner's lessons are a list, got {lessons!r}")
        out = []
        for lesson in lessons:
            ok = isinstance(lesson, list) and len(lesson) == 3 and lesson[0] in (0, 1) and _score(lesson[2])
            if not ok or isinstance(lesson[0], bool) or (lesson[1] is None and lesson[2] == 0):
                raise ValueError(f"a saved tuner's lesson is [seat, point or null, number in [0, 1]], got {lesson!r}")
            if lesson[1] is not None:
                self._point(tuners[lesson[0]], lesson[1])
            out.append([lesson[0], lesson[1], float(lesson[2])])
        return out

    def _point(self, tuner: Tuner, x) -> np.ndarray:
        """A saved point of `tuner`'s space as an array: value indices (compiled strategies) or a point of
        [0, 1]^d (CMA-ES); ValueError in one line if it is neither."""
        indices = isinstance(x, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in x)
        unit = isinstance(x, list) and all(0.0 <= _number(v) <= 1.0 for v in x)
        try:
            if not (indices or unit) or len(x) != len(self.names) or min(x) < 0:
                raise ValueError
            point = np.array(x, dtype=np.int64 if indices else np.float64)
            tuner.values(point)
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"a saved tuner's setting {x!r} is not a point of its space") from None
        return point

    def _from_version_4(self, state: dict) -> dict:
        """A version-4 state (each seat's strategy as the log of what it was asked and told, seeded) as version 5:
        replayed once into fresh strategies, which then save what they learnt; ValueError if it does not replay."""
        fields = ("version", "tuned", "seeds", "inner", "events", "asked", "judged", "played", "first", "in_force")
        _check(state, fields, self.names, version=4)
        seeds, events, asked = state["seeds"], state["events"], state["asked"]
        if not all(isinstance(v, list) and len(v) == 2 for v in (seeds, events, asked)):
            raise ValueError(f"a saved tuner's seeds, events and asked settings are pairs, got {seeds!r}, {asked!r}")
        if not all(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 for seed in seeds):
            raise ValueError(f"a saved tuner's seeds are whole numbers, got {seeds!r}")
        tuners = [self._replay(seed, log) for seed, log in zip(seeds, events)]
        last = [next((e for e in reversed(log) if isinstance(e, list)), None) for log in events]
        for seat in (0, 1):
            open_ask = events[seat][-1] if events[seat] and isinstance(events[seat][-1], list) else None
            if state["asked"][seat] != open_ask:
                raise ValueError("a saved tuner's asked setting does not match its events")
        kept = {k: state[k] for k in ("inner", "asked", "judged", "played", "first", "in_force")}
        kept["lessons"] = []  # (version 4 kept none: a game merged into another session's loses its tells)
        tuners = [t.state_dict() for t in tuners]
        state = {
            "kind": type(self).__name__,
            "version": VERSION,
            "tuned": state["tuned"],
            "tuners": tuners,
            "last": last,
        }
        state.update(kept)
        return {**state, "digest": _digest(state)}

    def _replay(self, seed: int, events) -> Tuner:
        """A strategy seeded `seed` after the version-4 log `events` (an ask's point, a reward, None: forgotten);
        ValueError in one line if they do not replay exactly (another version's, or damaged)."""
        if not isinstance(events, list):
            raise ValueError("a saved tuner's events are a list")
        tuner, asked = self.make_tuner(seed, {}), None  # with the settings version 4 made strategies with
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


def _check(state, fields: tuple[str, ...], names: tuple[str, ...], version: int = VERSION) -> None:
    """A saved tuner's version and tuned keys, fields and digest; ValueError in one line naming the first wrong."""
    if isinstance(state, dict) and (state.get("version") != version or state.get("tuned") != list(names)):
        raise ValueError(
            f"the saved tuner is version {state.get('version')} tuning {state.get('tuned')}, "
            f"not version {VERSION} tuning {list(names)}: start its tuning afresh"
        )
    _check_fields(state, "TunedAdjuster", fields + ("digest",))
    if state["digest"] != _digest({k: v for k, v in state.items() if k != "digest"}):
        raise ValueError("the saved tuner does not match its digest: damaged, or edited by hand")


def _digest(state: dict) -> str:
    """A checksum of a saved tuner's fields: replaying checks its asks, this the rest (a reward changed in [0, 1]
    replays as well as the true one)."""
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def _number(value) -> float:
    """`value` if it is a finite number, else NaN (which no bound holds)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else math.nan


def _score(value) -> bool:
    return 0.0 <= _number(value) <= 1.0
