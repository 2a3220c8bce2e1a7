"""AlphaZero self-play [AlphaDDA App. 1.3]: many games at once through one lock-step PUCT search.

Every game of an iteration is a row of one `search.puct.PUCT` forest, so the positions all games
are waiting on go to the network in one batch (DESIGN section 8). Each move:

    search (N_sim simulations; a simulation leaves the root by a random child with probability eps)
    record  planes = State.encode(), pi = root visit counts / their sum, the player to move
    play    ply < T_opening: eq. (9), exp(N_a / tau); otherwise the most visited move, ties at random

and when a game ends every recorded position gets the result for the player who was to move there
(+1 win, 0 draw, -1 loss): eq. (10)'s c_win on our planes, which are from the mover's view.

Playout cap randomization (ours, after KataGo; off unless `cap_fast` is set): each move is a full search of N_sim
simulations with probability `cap_share`, else a fast one of `cap_fast`, and only the full searches' positions are
recorded. The fast moves still play the game out, so the same simulations play more games (more outcomes for the
value head). Its draws come from a stream of their own, so a `cap_share` of 1 plays the games of a run without it.
Unlike KataGo's, the fast searches keep the root's exploration (eps, noise) and the opening temperature, which on a
few visits makes opening moves nearly uniform: the recorded positions' outcomes follow weaker play than the full
searches'. And the games move in lock-step, so a move waits for the largest search among them
(docs/guides/alphazero.md gives the measured gain).

Random openings (ours; off unless `random_plies` is set): game i first plays k uniformly random moves, k uniform in 0
.. random_plies, none of them searched or recorded unless searched openings are on (below; T_opening counts them), and
a move that would end the game ends the opening instead (play goes on from the position before it). Self-play alone
visits the positions its own play reaches; AlphaDDA reads the value head in games against weak opponents, whose
positions lie elsewhere (the solved set's random positions, `sparring net solved`). The openings draw from a stream of
their own, so `random_plies` 0 plays the games of a run without it.

Searched openings (ours; off unless `opening_share` s is set): each of the opening's positions is, with probability
s, also searched in full and recorded, its value target the search's value q alone (the game's result follows the
opening's random moves, not play); the random move is played all the same, so the openings are those of a run without
it. The position whose random move would end the game is where play starts: the cap and the value mix apply there.
The search reads such positions far better than the head does (the shipped Connect4 net's 200-simulation root
value has the solver's sign on 0.90 of the solved set's random positions, its head on 0.69): the head learns them
from its own search.

Value targets mixed with the search's (ours, after the Oracle devblog's Connect4 AlphaZero; off unless `value_mix` is
set): a recorded position's value target is (1 - m) z + m q, z the game's result for its player to move and q the
root's value after its search, 2 x (the children's values weighted by their visits) - 1, from the same view. The
game's result is a single noisy sample of play that goes on for many moves, weaker early in training; the search's
value is a lower-variance estimate of the same position. Play is unchanged: only the targets move.

`augment` multiplies the examples by the game's board symmetries (Connect4 2, the Othellos 8).

Game i draws its search and its move choices from (seed, i) alone, so an iteration's games can be split by index into
shares played apart (`play_share`, on other machines) and joined in index order (`join`): with an evaluator whose rows
do not depend on one another (a net evaluated in fixed chunks, `nets.evaluator`), the shares hold the examples of
playing all the games at once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from games import load as load_game
from games.rng import derive_seeds, make_rng, randint, uniform
from search.move_choice import choose_by_temperature, choose_move
from search.puct import PUCT, Request


@dataclass(frozen=True)
class Examples:
    """Training positions with their targets; N rows."""

    planes: np.ndarray  # uint8 [N, 3, H, W]: State.encode() (0/1, stored small)
    policy: np.ndarray  # float32 [N, A]: the search's visit distribution at the root, 0 on illegal moves
    value: np.ndarray  # float32 [N]: the game's result for the player to move (+1, 0, -1), or the search's mixed in

    def __len__(self) -> int:
        return len(self.value)


@dataclass(frozen=True)
class SelfPlayStats:
    games: int
    positions: int  # recorded, before augmentation
    moves: int  # searched: the positions recorded and, with a playout cap, the fast moves (not unsearched openings)
    first_wins: int
    draws: int
    simulations: int


def self_play(
    game,
    evaluator,
    *,
    games: int,
    simulations: int,
    seed: int,
    c_puct: float = 1.25,
    t_opening: int = 4,
    tau: float = 50.0,
    eps: float = 0.2,
    noise: float = 0.0,
    alpha: float = 0.3,
    leaves: int = 1,
    cap_fast: int = 0,
    cap_share: float = 0.25,
    random_plies: int = 0,
    opening_share: float = 0.0,
    value_mix: float = 0.0,
    indices=None,
) -> tuple[Examples, SelfPlayStats]:
    """Play `games` games of the net against itself, all in lock-step; return their positions and targets.

    Args:
        game: a games.Game. evaluator: a search.evaluator.Evaluator for it (the net, in eval mode).
        games: N_self, played at once. simulations: N_sim per move. seed: the games' streams derive from it.
        c_puct, t_opening, tau, eps: Table A1's C_puct, T_opening, tau and epsilon (module docstring).
        noise, alpha: AlphaZero's Dirichlet noise at the root (0: none, as the authors' code).
        leaves: descents per tree and step with virtual loss (1: the sequential search).
        cap_fast, cap_share: playout cap randomization (module docstring); cap_fast 0: every move a full search.
        random_plies: the most uniformly random moves a game opens with (module docstring); 0: none.
        opening_share: the share of the opening's positions searched and recorded (module docstring); 0: none.
        value_mix: the search's share m of each value target (module docstring); 0: the game's result alone.
        indices: play only these of the `games` games (a share, module docstring); None: all of them.
    Returns:
        the examples in game order (each game's positions in play order), and counts.
    """
    if cap_fast and not (2 <= cap_fast <= simulations and 0.0 < cap_share <= 1.0):
        raise ValueError(
            f"a playout cap needs 2 <= cap_fast <= simulations and cap_share in (0, 1], got {cap_fast}, {cap_share}"
        )
    if random_plies < 0:
        raise ValueError(f"random_plies (the most random opening moves) must be 0 or more, got {random_plies}")
    if not 0.0 <= opening_share <= 1.0:
        raise ValueError(f"opening_share (the opening positions recorded) must lie in [0, 1], got {opening_share}")
    if not 0.0 <= value_mix <= 1.0:
        raise ValueError(f"value_mix (the search's share of a value target) must lie in [0, 1], got {value_mix}")
    indices = list(range(games)) if indices is None else [int(i) for i in indices]
    if not indices or sorted(set(indices)) != indices or not 0 <= indices[0] <= indices[-1] < games:
        raise ValueError(f"indices must be increasing game indices in [0, {games}), got {indices}")
    search_seed, choice_seed = derive_seeds(seed, count=2, bits=64)
    search_seeds = derive_seeds(search_seed, count=games, bits=64)  # game i's: as PUCT(seed=search_seed) seeds row i
    choice_seeds = derive_seeds(choice_seed, count=games, bits=64)
    cap_seeds = derive_seeds(seed, 1, count=games, bits=64)  # a stream apart: the other seeds stay as they were
    opening_seeds = derive_seeds(seed, 2, count=games, bits=64)  # likewise
    record_seeds = derive_seeds(seed, 3, count=games, bits=64)  # which opening positions are searched: the same moves
    rows = len(indices)
    puct = PUCT(
        game,
        evaluator,
        games=rows,
        c_puct=c_puct,
        leaves=leaves,
        root_eps=eps,
        noise_weight=noise,
        noise_alpha=alpha,
    )
    for row, i in enumerate(indices):
        puct.reset(row, seed=search_seeds[i])
    rngs = [make_rng(choice_seeds[i]) for i in indices]
    caps = [make_rng(cap_seeds[i]) for i in indices]
    openings = [make_rng(opening_seeds[i]) for i in indices]
    records = [make_rng(record_seeds[i]) for i in indices]
    states = [game.new_initial_state() for _ in indices]
    left = [randint(rng, random_plies + 1) for rng in openings]  # the opening's random moves still to play
    a = game.num_distinct_actions()
    planes, policy, movers, searched, opened = ([[] for _ in range(rows)] for _ in range(5))
    active, sims, moves = list(range(rows)), 0, 0
    while active:
        nexts = {}  # the games whose opening position is searched and recorded now: the random move played after
        for i in active:  # the opening's moves that are not recorded need no search
            while left[i]:
                after = random_move(states[i], openings[i])
                if after is None:  # it would end the game: the opening ends, and play goes on from here
                    left[i] = 0
                elif uniform(records[i]) < opening_share:
                    nexts[i] = after
                    break
                else:
                    states[i], left[i] = after, left[i] - 1
        full = {i: i in nexts or cap_fast == 0 or uniform(caps[i]) < cap_share for i in active}
        results = puct.search([Request(i, states[i], simulations if full[i] else cap_fast) for i in active])
        for i, r in zip(active, results):
            state = states[i]
            if full[i]:
                pi = np.zeros(a, dtype=np.float32)
                pi[r.actions] = r.visits / r.visits.sum()
                planes[i].append(state.encode().astype(np.uint8))
                policy[i].append(pi)
                movers[i].append(state.current_player())
                score = r.score()  # None only if no child was visited: the game's result then stands alone
                searched[i].append(np.nan if score is None else 2.0 * score - 1.0)  # for the player to move
                opened[i].append(i in nexts)
            sims += r.simulations
            moves += 1
            if i in nexts:
                states[i], left[i] = nexts[i], left[i] - 1
                continue
            if len(state.history()) < t_opening:  # the game's plies, the opening's counted
                action = choose_by_temperature(r.actions, r.visits, tau, rngs[i])
            else:
                action = choose_move(r.actions, r.visits, np.inf, 0.0, rngs[i])
            state.apply_action(action)
        active = [i for i in active if not states[i].is_terminal()]
    values, first_wins, draws = [], 0, 0
    for i, state in enumerate(states):
        returns = state.returns()
        z, q = np.array([returns[m] for m in movers[i]]), np.array(searched[i])
        q = np.where(np.isnan(q), z, q)
        mixed = (1.0 - value_mix) * z + value_mix * q if value_mix else z
        values.append(np.where(np.array(opened[i], dtype=bool), q, mixed).astype(np.float32))
        first_wins += returns[0] > 0
        draws += returns[0] == 0
    h, w = game.board_shape
    examples = Examples(  # shaped also when no move was a full search
        np.array([p for g in planes for p in g], dtype=np.uint8).reshape(-1, 3, h, w),
        np.array([p for g in policy for p in g], dtype=np.float32).reshape(-1, a),
        np.concatenate(values),
    )
    return examples, SelfPlayStats(rows, len(examples), moves, int(first_wins), int(draws), sims)


def random_move(state, rng):
    """A copy of `state` after a uniformly random legal move, or None if that move ends the game."""
    legal = state.legal_actions()
    after = state.clone()
    after.apply_action(legal[randint(rng, len(legal))])
    return None if after.is_terminal() else after


def play_share(model, indices: list[int], chunk: int, settings: dict) -> tuple[Examples, SelfPlayStats]:
    """Games `indices` of `self_play(game, net, **settings)`, with `model` evaluated on this machine's CPU in
    chunks of `chunk` rows: the share of an iteration a cluster's worker plays (module docstring)."""
    from nets.evaluator import NetEvaluator  # torch: only where a net plays

    game = load_game(model.arch.game)
    return self_play(game, NetEvaluator(model, device="cpu", chunk=chunk), indices=indices, **settings)


def join(parts: list[tuple[Examples, SelfPlayStats]]) -> tuple[Examples, SelfPlayStats]:
    """One iteration's examples and counts from its shares, given in index order (as one `self_play` returns)."""
    arrays = [np.concatenate([getattr(e, f.name) for e, _ in parts]) for f in dataclasses.fields(Examples)]
    counts = [sum(getattr(s, f.name) for _, s in parts) for f in dataclasses.fields(SelfPlayStats)]
    return Examples(*arrays), SelfPlayStats(*counts)


def augment(game, examples: Examples) -> Examples:
    """The examples under every board symmetry of `game` (identity first): planes and policies mapped
    together (games.Game.symmetries), values unchanged. [AlphaDDA App. 1.3: 2 for Connect4, 8 for Othello]"""
    pairs = game.symmetries(examples.planes, examples.policy)
    return Examples(
        np.concatenate([p for p, _ in pairs]),
        np.concatenate([q for _, q in pairs]).astype(np.float32),
        np.tile(examples.value, len(pairs)),
    )
