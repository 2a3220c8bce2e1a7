"""AlphaDDA1, 2 and 3: strength adjusters that weaken an `az` agent by its own net's value [AlphaDDA eqs. 1-7].

Each adjuster reads, before every search, v̄_n c: the mean over the last N_h turns of the game (both
players' turns, fewer at the start) of the clean net's value of the position before that turn, seen
from the adjuster's own player (eq. 1 times its disc colour c_AlphaDDA). Near +1 the net expects the
agent to win, near -1 to lose. The values come from the evaluator with dropout off and are kept per
game (DESIGN section 8: the authors' code carried positions over from one game to the next). AlphaDDA2
with history=damaged reads them as the authors' code does instead: through its net as its last move
damaged it, each move afresh.

- AlphaDDA1 (eqs. 2-3): N_sim = ceil(10^(-A_sim (v̄ c + B_sim0))), at most N_max.
- AlphaDDA2 (eqs. 4-5): dropout probability P_drop = A_drop (v̄ c + P_drop0), clipped to [0, P_max].
- AlphaDDA3 (eqs. 6-7): the search scores edges by UCT without priors on a changed value (`ALPHADDA3_RULE`,
  the rule of its `search.puct` forest).

Signs. The web copy of the paper lost minus signs in Tables A2-A3 and eq. 2 (its PDF text and both
copies' Tables 1-2 print them); the equations decide, and the authors' scripts agree. With A_sim > 0,
eq. 2 falls as v̄ c rises (fewer simulations when winning) only with its leading minus; and B_sim0
must be negative, or N_sim would be 1 at an even game for every Connect4 point of Table A2
(ceil(10^-2.8) at Table 1's; with B_sim0 = -1.4 it is the full 200 at an even game and 7 at
v̄ c = 1). Likewise P_drop0 is negative: with +0.2 the net would be damaged from v̄ c = -0.2 on, at
P_max once the game is even. So Tables A2-A3 read B_sim0 and P_drop0 as negative, as the PDF and
Tables 1-2 print them. Eq. 4 prints v̄_n without c_AlphaDDA; like the authors' code we use v̄ c, the
value from AlphaDDA2's own view, as eqs. 2 and 7 do.
"""

from __future__ import annotations

import math

import numpy as np

from games.jit import kernel
from search.evaluator import MAX_DROPOUT, clean_values
from search.puct import Rule
from search.strength import Knobs, StrengthAdjuster, inter_game_step

TABLE_1 = {  # AlphaDDA1 [AlphaDDA Table 1]
    "connect4": {"nh": 3, "a_sim": 2.0, "b_sim0": -1.4, "n_max": 200},
    "othello6": {"nh": 4, "a_sim": 1.4, "b_sim0": -1.6, "n_max": 200},
    "othello": {"nh": 2, "a_sim": 2.8, "b_sim0": -1.4, "n_max": 400},
}
P_MAX = 0.95  # AlphaDDA2's largest dropout probability, every game [AlphaDDA §3.3]
TABLE_2 = {  # AlphaDDA2 [AlphaDDA Table 2]
    "connect4": {"nh": 1, "a_drop": 10.0, "p_drop0": -0.2, "p_max": P_MAX},
    "othello6": {"nh": 4, "a_drop": 5.0, "p_drop0": -0.5, "p_max": P_MAX},
    "othello": {"nh": 4, "a_drop": 20.0, "p_drop0": -0.9, "p_max": P_MAX},
}
TABLE_3 = {  # AlphaDDA3 [AlphaDDA Table 3]
    "connect4": {"nh": 5, "c": 1.25},
    "othello6": {"nh": 1, "c": 0.75},
    "othello": {"nh": 5, "c": 0.6},
}
_Z = {"z_a": 10.0, "z_0": 0.6, "dz_0": 0.375}  # the first alphadda1z-connect4 study's best (interim net); Wu's step
# ours (AlphaDDA1Z): Table 1's AlphaDDA1 beneath, with 4 N_max, so that a seat that keeps losing can out-search
# the AlphaZero it faces (at Table 1's N_max, AlphaZero's own budget, it scored 0.15 as second player on Connect4)
TABLE_1Z = {game: {**TABLE_1[game], "n_max": 4 * TABLE_1[game]["n_max"], **_Z} for game in TABLE_1}
TABLES = {"alphadda1": TABLE_1, "alphadda2": TABLE_2, "alphadda3": TABLE_3, "alphadda1z": TABLE_1Z}
GRID_A2 = {  # the values AlphaDDA1's grid search tried [AlphaDDA Table A2] (B_sim0 negative: see above)
    "connect4": {"nh": (1, 2, 3, 4), "a_sim": (1.6, 2.0, 2.4), "b_sim0": (-1.6, -1.5, -1.4, -1.3, -1.2)},
    "othello6": {"nh": (1, 2, 3, 4, 5), "a_sim": (1.4, 1.6, 2.0, 2.4), "b_sim0": (-1.8, -1.6, -1.4, -1.2)},
    "othello": {"nh": (1, 2, 3, 4, 5), "a_sim": (1.6, 2.0, 2.4, 2.8), "b_sim0": (-1.8, -1.6, -1.4, -1.2)},
}
N_MAX_A2 = {"connect4": (200, 300, 400), "othello6": (200, 300, 400), "othello": (400, 600)}
GRID_A3 = {  # AlphaDDA2's [AlphaDDA Table A3] (P_drop0 negative: see above)
    "connect4": {"nh": (1, 2, 3, 4), "a_drop": (0.5, 1, 5, 10, 20), "p_drop0": (-0.9, -0.8, -0.6, -0.4, -0.2, 0)},
    "othello6": {"nh": (1, 2, 3, 4), "a_drop": (1, 5, 10, 20), "p_drop0": (-0.9, -0.8, -0.6, -0.5, -0.4)},
    "othello": {"nh": (1, 2, 3, 4, 5), "a_drop": (5, 10, 20, 40), "p_drop0": (-0.9, -0.8, -0.6, -0.4)},
}
GRID_A4 = {  # AlphaDDA3's [AlphaDDA Table A4]
    "connect4": {"nh": (1, 2, 3, 4, 5), "c": (0.25, 0.5, 0.75, 1.0, 1.25)},
    "othello6": {"nh": (1, 2, 3, 4, 5), "c": (0.25, 0.5, 0.6, 0.75, 0.9, 1.0)},
    "othello": {"nh": (1, 2, 3, 4, 5), "c": (0.25, 0.5, 0.6, 0.75, 0.9, 1.0)},
}
GRIDS = {
    "alphadda1": {g: {**GRID_A2[g], "n_max": N_MAX_A2[g]} for g in GRID_A2},
    "alphadda2": GRID_A3,
    "alphadda3": GRID_A4,
    "alphadda1z": {  # Table A2's AlphaDDA1 values, z_a of the first alphadda1z study (ours), and z_0 over the
        # range its step between games moves it in: the first study's 0.2-0.8 can neither get weak enough to let
        # Random win nor strong enough to hold MCTS1 (a tuner confined to it scored 1.00 and 0.10 against them)
        g: {
            **GRID_A2[g],
            "n_max": tuple(4 * n for n in N_MAX_A2[g]),
            "z_a": (5, 10, 20, 40),
            "z_0": (-1.0, -0.5, 0.0, 0.3, 0.6, 1.0, 1.5, 2.0),  # 0.6: TABLE_1Z's
        }
        for g in GRID_A2
    },
}


def n_sim(x: float, a_sim: float, b_sim0: float, n_max: int) -> int:
    """AlphaDDA1's simulations at v̄ c = x [AlphaDDA eqs. 2-3]: ceil(10^(-A_sim (x + B_sim0))), in [1, N_max]."""
    exponent = -a_sim * (x + b_sim0)
    if exponent >= math.log10(n_max):  # also keeps 10**exponent from overflowing
        return int(n_max)
    return max(1, min(int(n_max), math.ceil(10.0**exponent)))


def p_drop(x: float, a_drop: float, p_drop0: float, p_max: float) -> float:
    """AlphaDDA2's dropout probability at v̄ c = x [AlphaDDA eqs. 4-5]: A_drop (x + P_drop0) in [0, P_max]."""
    return min(p_max, max(0.0, a_drop * (x + p_drop0)))


class ValueAdjuster(StrengthAdjuster):
    """The value history all three AlphaDDAs share: v̄ c from the clean net, per game [AlphaDDA eq. 1].

    `evaluator` is the agent's evaluator (`search.evaluator`); its value is from the view of the
    player to move, turned here to the view of the player this adjuster plays for.
    """

    TUNABLE = {"nh": "nh"}

    def __init__(self, game, evaluator, nh: int):
        if nh < 1:
            raise ValueError(f"N_h is a number of values, at least 1, got {nh}")
        self.game, self.evaluator, self.nh = game, evaluator, int(nh)
        self.batch = evaluator.new_batch(game, self.nh)
        super().__init__()

    def retune(self, values):
        super().retune(values)
        self.nh = max(1, self.nh)
        if self.nh > self.batch.capacity:
            self.batch = self.evaluator.new_batch(self.game, self.nh)

    def balance(self, state):
        """The clean net's value of `state` as a score of the player to move, (v + 1) / 2 (learnt beforehand by
        the az agents, else evaluated here)."""
        self.mean_value(state)
        sign = 1.0 if state.current_player() == 0 else -1.0
        return (1.0 + sign * self.values[len(state.history())]) / 2.0

    def reset(self):
        self.new_game()

    def new_game(self):
        self.history: list[int] = []  # the game's moves as far as `values` knows them
        self.values: dict[int, float] = {}  # plies played -> clean value there, from the first player's view
        self.mean = 0.0  # v̄ c at the last search

    def pending(self, state) -> list[tuple[int, object]]:
        """The positions whose clean values v̄ c at `state` still lacks, for the az agents to learn beforehand."""
        return self.missing(state)

    def missing(self, state) -> list[tuple[int, object]]:
        """The positions whose values v̄ c at `state` still lacks, as (ply, position), oldest first: the last N_h
        positions before a turn, the current one included. A `state` of another game starts the history afresh."""
        history = state.history()
        if history[: len(self.history)] != self.history:  # another game: start its history afresh
            self.new_game()
        self.history = list(history)
        plies = range(max(0, len(history) - self.nh + 1), len(history) + 1)
        replay, out = self.game.new_initial_state(), []
        for ply in (p for p in plies if p not in self.values):
            for action in history[len(replay.history()) : ply]:
                replay.apply_action(action)
            out.append((ply, replay.clone()))
        return out

    def read(self, positions: list) -> np.ndarray:
        """The values of `positions` (each from its player to move's view) that v̄ c averages: the clean net's."""
        return clean_values(self.evaluator, self.batch, positions)

    def learn(self, ply: int, position, value: float) -> None:
        """The net's `value` of `position` (clean, or as AlphaDDA2's damaged history read it), reached at ply `ply`,
        from the view of its player to move."""
        self.values[ply] = (1.0 if position.current_player() == 0 else -1.0) * value

    def mean_value(self, state) -> float:
        """v̄ c at `state`: the mean of the values of the last N_h positions before a turn, the current one
        included, each from the view of the player to move in `state`. Values not yet learnt are read here
        (the az agents learn the clean ones beforehand, all games in one forward)."""
        missing = self.missing(state)
        if missing:
            values = self.read([position for _, position in missing])
            for (ply, position), value in zip(missing, values):
                self.learn(ply, position, float(value))
        history = state.history()
        plies = range(max(0, len(history) - self.nh + 1), len(history) + 1)
        sign = 1.0 if state.current_player() == 0 else -1.0  # c_AlphaDDA
        self.mean = sign * float(np.mean([self.values[p] for p in plies]))
        return self.mean


class AlphaDDA1(ValueAdjuster):
    """AlphaDDA1: the search's simulations follow the value [AlphaDDA eqs. 2-3]."""

    TUNABLE = {**ValueAdjuster.TUNABLE, "a_sim": "a_sim", "b_sim0": "b_sim0", "n_max": "n_max"}

    def __init__(self, game, evaluator, *, nh, a_sim, b_sim0, n_max):
        super().__init__(game, evaluator, nh)
        self.a_sim, self.b_sim0, self.n_max = float(a_sim), float(b_sim0), int(n_max)

    def before_search(self, state):
        return Knobs(simulations=n_sim(self.mean_value(state), self.a_sim, self.b_sim0, self.n_max))


class AlphaDDA2(ValueAdjuster):
    """AlphaDDA2: the dropout probability of the net's heads follows the value [AlphaDDA eqs. 4-5].

    history="clean": the value comes from the undamaged net, as the paper says. history="damaged": as the
    authors' test scripts ran it, each move reads its window afresh through the net at the P_drop its last move
    set (fresh draws, from this adjuster's own stream, seeded by `seed`; 0 at a game's first move, where theirs
    kept the last game's), so a damaged, noisy value decides the next P_drop.
    """

    HISTORIES = ("clean", "damaged")
    TUNABLE = {**ValueAdjuster.TUNABLE, "a_drop": "a_drop", "p_drop0": "p_drop0"}

    def __init__(self, game, evaluator, *, nh, a_drop, p_drop0, p_max, history="clean", seed=0):
        if not 0.0 <= p_max <= MAX_DROPOUT:
            raise ValueError(f"P_max is a dropout probability in [0, {MAX_DROPOUT}] (the paper's {P_MAX}), got {p_max}")
        if history not in self.HISTORIES:
            raise ValueError(
                f"history is {' or '.join(self.HISTORIES)} (the net that reads the values), got {history!r}"
            )
        super().__init__(game, evaluator, nh)
        self.a_drop, self.p_drop0, self.p_max = float(a_drop), float(p_drop0), float(p_max)
        self.damaged, self.rng = history == "damaged", np.random.default_rng(seed)

    def new_game(self):
        super().new_game()
        self.p = 0.0  # the P_drop in force: the last move's

    def pending(self, state):
        return [] if self.damaged else super().pending(state)  # damaged values are its own to read

    def mean_value(self, state) -> float:
        if self.damaged:
            self.values = {}  # every move reads its whole window again, as the net now is
        return super().mean_value(state)

    def read(self, positions: list) -> np.ndarray:
        if not self.damaged:
            return super().read(positions)
        keys = self.rng.integers(0, 2**63, size=len(positions), dtype=np.uint64)
        for row, (position, key) in enumerate(zip(positions, keys)):
            self.batch.put(row, position, dropout=self.p, key=int(key))
        self.evaluator.evaluate(self.batch, len(positions))
        return self.batch.values[: len(positions)].copy()

    def before_search(self, state):
        self.p = p_drop(self.mean_value(state), self.a_drop, self.p_drop0, self.p_max)
        return Knobs(dropout=self.p)


@kernel(inline="always")
def eq6_score(q, prior, n_a, parent_n, c):
    """Eq. (6): Q + C sqrt(2 ln(N + 1) / (1 + N_a)), without the prior (parent_n is N + 1, see search.puct)."""
    # [AlphaDDA eq. 6]
    return q + c * math.sqrt(2.0 * math.log(parent_n) / (1.0 + n_a))


@kernel(inline="always")
def eq7_value(v, target):
    """Eq. (7) from the edge's mover's view: -|v_m + v̄ c| (see AlphaDDA3)."""
    # [AlphaDDA eq. 7]
    return -abs(v + target)


ALPHADDA3_RULE = Rule(eq6_score, eq7_value)  # the search of AlphaDDA3's forests, target = v̄ c per row


class AlphaDDA3(ValueAdjuster):
    """AlphaDDA3: the search scores edges by eq. (6) over the values of eq. (7), aiming at v̄ c (`search.puct`).

    How we read eqs. (6)-(7). Eq. (6) is UCT without priors, W/n + C sqrt(2 ln(N + 1) / (n + 1)),
    with N the visits of the edge's parent (its children's sum, as the authors' code counts it).
    Eq. (7) replaces every backed-up value by -|v + v̄_n c(s, a) c_AlphaDDA|. The paper writes v(s_t),
    the edge's own state; we read it, as the authors' code does, as the value of the simulation's leaf
    (the value being backed up), as a disc colour (+1: the first player wins). Written from the view of
    the edge's mover, whose value is v_m = v c(s, a), this is -|v_m + v̄ c| for both players' edges:
    AlphaDDA3 prefers moves after which its own value is -v̄ c (it plays worse the more it has been
    winning), and expects its opponent to keep AlphaDDA3's value at v̄ c, as the paper's prose says
    ("AlphaDDA3 prefers the move in which v(s_t) is -v̄_n"; the web copy lost that minus) and the
    authors' code (`num_func` 9) does. Eq. 6 prints W(s_t, a)/N(s_t); like the authors' code we divide
    by the edge's visits n(s_t, a), the mean.
    Its search is a forest under `ALPHADDA3_RULE` (`RULE`: an az agent refuses any other); eq. (6)'s C is the
    spec's `c`, which the search takes per game (a knob, so that a tuner may set it between moves).
    """

    RULE = ALPHADDA3_RULE
    TUNABLE = {**ValueAdjuster.TUNABLE, "c": "c"}

    def __init__(self, game, evaluator, *, nh, c):
        super().__init__(game, evaluator, nh)
        self.c = float(c)

    def before_search(self, state):
        return Knobs(target=self.mean_value(state), c=self.c)


class AlphaDDA1Z(AlphaDDA1):
    """Beyond the paper: AlphaDDA1 whose move choice follows the value too, so that it can play as badly as
    its opponent needs, Random included.

    The paper's AlphaDDA1/2 cannot get weaker than one simulation or a damaged net: they still beat
    Random (its Tables 5-7), and its discussion proposes weakening further. Here the move is drawn by
    Wu et al.'s softmax-z rule over N_i + 1 of every legal move (probability (N_i + 1)^z / sum_j
    (N_j + 1)^z; with rth=0 no move is cut), with z = Z_a (Z_0 - v̄ c): large while AlphaDDA1Z is
    losing (its most visited move), 0 at v̄ c = Z_0 (every legal move alike: Random's play), negative
    above (the least visited moves, searched or not). Counting unsearched moves matters: over the
    searched ones only, z <= 0 still chose among the moves the priors liked, and beat Random 0.84 as
    first player. The search budget is AlphaDDA1's eqs. 2-3.

    Between games Z_0 moves by Wu et al.'s inter-game rule: down by dZ_0 after a win (mistakes at a
    lower value), up after a loss, dZ_0 shrinking by 0.95 a game to at least 0.03; it stays in
    [-1, 2] (-1: z <= 0 throughout; 2: z at least z_a (2 - 1) = z_a, near AlphaDDA1 itself).
    The budget follows Z_0 too: eqs. 2-3 read v̄ c - (Z_0 - its start), so a seat that keeps losing also
    searches more, up to N_max. Against AlphaZero this is what it takes: our net rates the first
    player as winning, eqs. 2-3 then cut the search to 40-60 simulations against AlphaZero's 200, and
    AlphaDDA1 at Table 1's point lost all 50 games as first player (at B_sim0 -2.5 it scored 0.83).
    The value steers within a game and Z_0 learns across games how far the opponent can be pushed.
    Each seat keeps its own Z_0 and step, learnt from its own games: the first move is worth much in
    Connect4, and one Z_0 for both seats balanced the total against Random (0.52 over 100 games) by
    winning as first player and losing as second (0.88 and 0.16). dz_0 = 0 keeps Z_0 fixed.
    """

    STATE = ("z_0", "dz_0")  # per seat: what a profile keeps between sessions
    TUNABLE = {**AlphaDDA1.TUNABLE, "z_a": "z_a", "z_0": "z_0"}  # tuned, z_0 has no step (adjusters.STEPPED)
    Z0_RANGE = (-1.0, 2.0)
    DECAY, DZ_MIN = 0.95, 0.03  # Wu et al.'s inter-game schedule

    def __init__(self, game, evaluator, *, nh, a_sim, b_sim0, n_max, z_a, z_0, dz_0=0.0):
        self.z_a, self.z_start, self.dz_start = float(z_a), float(z_0), float(dz_0)
        super().__init__(game, evaluator, nh=nh, a_sim=a_sim, b_sim0=b_sim0, n_max=n_max)

    def reset(self):
        super().reset()
        self.z_0, self.dz_0 = [self.z_start] * 2, [self.dz_start] * 2  # per seat

    def before_search(self, state):
        x, z_0 = self.mean_value(state), self.z_0[state.current_player()]
        budget = n_sim(x - (z_0 - self.z_start), self.a_sim, self.b_sim0, self.n_max)  # more after losses
        return Knobs(simulations=budget, z=self.z_a * (z_0 - x), every_move=True)

    def retune(self, values):
        super().retune({k: v for k, v in values.items() if k != "z_0"})
        if "z_0" in values:
            self.z_0 = [float(values["z_0"])] * 2

    def game_over(self, returns, player):
        dz = self.dz_0[player]
        if dz == 0.0:
            return
        z_0 = self.z_0[player] + inter_game_step(returns[player], dz)
        self.z_0[player] = min(self.Z0_RANGE[1], max(self.Z0_RANGE[0], z_0))
        self.dz_0[player] = max(self.DZ_MIN, dz * self.DECAY)


ADJUSTERS = {"alphadda1": AlphaDDA1, "alphadda2": AlphaDDA2, "alphadda3": AlphaDDA3, "alphadda1z": AlphaDDA1Z}
