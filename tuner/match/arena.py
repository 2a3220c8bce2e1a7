"""Matches between agents: seat-balanced, every game seeded from (match seed, game index), run in parallel.

>>> from tuner.match import play_match
>>> result = play_match("connect4", "mcts1", "random", games=4, seed=0)
>>> result.total.games
4

Games alternate seats: game i has agent A first when i is even. In a game of more than two players, A and B take
every assignment to the roles but the all-same ones in turn [SA-MCTS VI-A] (`assignments`; a match plays each as
often), each role played by an agent of its own, and the point of a game goes to the agent with the highest score,
split where both have it; "first" then means that A held the first role.
Each game reseeds every agent from (seed, i), so any game replays alone with `play_game(..., index=i)`. Workers
each own their agents and play their share of games in index order; an agent that adapts between games
therefore sees only its own worker's games (use workers=1 to let it see the whole match).
"""

from __future__ import annotations

import itertools
import socket
import threading
from dataclasses import asdict, dataclass, field

import numpy as np
from joblib import Parallel, delayed, parallel_config

from games import load as load_game
from games.rng import derive_seeds
from tuner.agents import adapts_between_games, batches, changed_net, check_spec, group_key, make_agents, nets_of
from tuner.agents.spec import AgentSpec
from tuner.match.cluster import ClusterError, connect, on_cluster, threads
from tuner.match.stats import Record


@dataclass
class GameResult:
    index: int
    a_seat: int  # agent A's first role: 0 when it moved first
    outcome: float  # +1 / 0 / -1 for agent A: whether it alone, both or B alone had the highest score
    moves: list[int]


@dataclass(frozen=True)
class Resume:
    """Where a match left off: the indices of the games it has played (skipped now) and, where its agents adapt
    between games (so it plays them one after another), their adjusters' states after the last of them, as
    `after_game` was told them (None: an agent without an adjuster, or the match does not adapt)."""

    done: frozenset[int] = frozenset()
    states: tuple = (None, None)


@dataclass
class MatchResult:
    """Agent A's record against agent B: as first player, as second player and in total."""

    game: str
    spec_a: str
    spec_b: str
    seed: int
    first: Record = field(default_factory=Record)
    second: Record = field(default_factory=Record)
    games: list[GameResult] = field(default_factory=list)

    @classmethod
    def of_games(cls, game: str, spec_a: str, spec_b: str, seed: int, games: list[GameResult]) -> "MatchResult":
        """A match's record over the games it played, in any order (however many sittings they took)."""
        result = cls(game, spec_a, spec_b, seed)
        for g in sorted(games, key=lambda g: g.index):
            (result.first if g.a_seat == 0 else result.second).add(g.outcome)
            result.games.append(g)
        return result

    @property
    def total(self) -> Record:
        f, s = self.first, self.second
        return Record(f.wins + s.wins, f.draws + s.draws, f.losses + s.losses)

    def to_dict(self, with_games: bool = False) -> dict:
        out = {
            "game": self.game,
            "spec_a": self.spec_a,
            "spec_b": self.spec_b,
            "seed": self.seed,
            "a_first": self.first.to_dict(),
            "a_second": self.second.to_dict(),
            "total": self.total.to_dict(),
        }
        if with_games:
            out["games"] = [asdict(g) for g in self.games]
        return out


def assignments(players: int) -> list[tuple[int, ...]]:
    """Who plays each role, A (0) or B (1), in the games of a match, in turn: every assignment but the two
    all-same ones [SA-MCTS VI-A]; with two players A first, then B first."""
    return [roles for roles in itertools.product((0, 1), repeat=players) if 0 < sum(roles) < players]


def check_games(game, games: int) -> None:
    """ValueError in one line unless a match of `games` games can be played: at least one, and with more than two
    players a whole number of rounds of the assignments, each played as often [SA-MCTS VI-A]."""
    if games < 1:
        raise ValueError("games must be at least 1")
    per_round = len(assignments(game.players))
    if game.players > 2 and games % per_round:
        raise ValueError(
            f"{game.name} has {game.players} players: a match plays each of the {per_round} assignments of the two "
            f"agents to its roles as often, so give a multiple of {per_round} games, not {games}"
        )


def game_seeds(seed: int, index: int, players: int = 2) -> list[int]:
    """The seeds of the agents in game `index` of a match seeded `seed`: A's and B's with two players; in a game of
    more, each plays up to players - 1 roles with an agent apiece, A's agents' seeds first, then B's."""
    return derive_seeds(seed, index, count=2 * (players - 1), bits=64)


def seat_agents(players: int, index: int) -> list[tuple[int, int]]:
    """For each role of game `index`, (side, k): the k-th agent of A (side 0) or of B (side 1) plays it."""
    roles = assignments(players)[index % (2**players - 2)]
    return [(side, roles[:r].count(side)) for r, side in enumerate(roles)]


def split_point(scores, roles) -> int:
    """A's outcome, +1 / 0 / -1: the point of a game goes to the agent whose role scored highest, split (0) where
    both agents have such a role [SA-MCTS VI-A]. roles[r]: 0 where A plays role r, 1 where B does."""
    top = max(scores)
    a, b = (any(s == top for s, side in zip(scores, roles) if side == who) for who in (0, 1))
    return int(a) - int(b)


def play_game(game, agent_a, agent_b, seed: int, index: int) -> GameResult:
    """Game `index` of a match: seats alternate with the index, every agent reseeded from (seed, index). In a game of
    more than two players, agent_a and agent_b are lists of players - 1 agents each (see `seat_agents`)."""
    n = game.players
    sides = [list(side) if isinstance(side, (list, tuple)) else [side] for side in (agent_a, agent_b)]
    if any(len(side) != n - 1 for side in sides):
        raise ValueError(f"{game.name} has {n} players: give each side {n - 1} agents, one for each role it may play")
    seeds = game_seeds(seed, index, n)
    where = seat_agents(n, index)
    seats = [sides[side][k] for side, k in where]
    for role, ((side, k), agent) in enumerate(zip(where, seats)):
        agent.new_game(seeds[side * (n - 1) + k], seat=role)
    state = game.new_initial_state()
    while not state.is_terminal():
        action = seats[state.current_player()].select_action(state)
        for agent in seats:
            agent.observe(state, action)
        state.apply_action(action)
    returns = state.returns()
    for agent in seats:
        agent.game_over(returns)
    roles = [side for side, _ in where]
    return GameResult(index, roles.index(0), split_point(state.scores(), roles), state.history())


def _groups(game, specs, seeds):
    """Agents for slots playing `specs`: one `make_agents` group per group key, so that batching agents
    (az) of different specs that can share a search share it. Returns (groups, where): slot k's agent
    is groups[g][j] for (g, j) = where[k]."""
    by_key: dict = {}
    for k, spec in enumerate(specs):
        by_key.setdefault(group_key(spec), []).append(k)
    groups, where = [], [None] * len(specs)
    for ks in by_key.values():
        for j, k in enumerate(ks):
            where[k] = (len(groups), j)
        groups.append(make_agents(game, [specs[k] for k in ks], seeds=[seeds[k] for k in ks]))
    return groups, where


def worker_nets(game_name: str, specs, nets: dict[str, str]) -> None:
    """On a cluster's worker: ClusterError in one line unless the nets `specs` name are, here, the files `nets` gives
    (`nets_of`, where the run started). A net is named, not sent, so a worker on another checkout would otherwise
    play another file under the same name, or fail to find one."""
    try:
        here = nets_of(game_name, specs)
    except ValueError as error:
        raise ClusterError(f"worker {socket.gethostname()} cannot play the run's nets: {error}") from None
    name = changed_net(nets, here)
    if name is not None:
        raise ClusterError(
            f"worker {socket.gethostname()} has the net {name!r} at digest {here.get(name)} where the run "
            f"started with {nets.get(name)}: give every worker the same nets (the same checkout)"
        )


def check_cluster_nets(address: str, game_name: str, specs) -> None:
    """ClusterError unless every worker of the cluster at `address` has the nets `specs` name as this machine has
    them: checked before a study asks for trials, which a worker refusing its share would fail (and retry)."""
    nets = nets_of(game_name, specs)
    if nets:
        client = connect(address)
        try:
            client.run(worker_nets, game_name, list(specs), nets)
        finally:
            client.close()


def _play_share(game_name, tables, on_game, concurrent, states=None, keep=False, nets=None) -> list[list[GameResult]]:
    """A worker's share: the games of every table (spec_a, spec_b, seed, indices), up to `concurrent` of each
    table at a time (one at a time where an agent adapts between games) in slots that each own their agents
    (A's, then B's: one each with two players, players - 1 each with more). Every step asks each group of
    agents for its moves in all the games where it is to move at once, so agents that batch their searches
    (az) share one forward among those games, across tables too. Game i of a table plays as
    `play_game(..., index=i)`, and a slot plays its games in index order. `states[t]`: adjuster states (A's,
    B's) that table t's agents start from, where it plays one by one; `on_game(t, result, states)` is told each
    game, with those states after it where it does and `keep` asks for them (a state is a copy of all an
    adjuster learnt: not made for nobody), else None. `nets`: the digests of the nets the specs name, as the run
    found them where it started (`nets_of`); a worker whose files differ (another checkout) refuses in one line
    rather than play another net under the same name."""
    game = load_game(game_name)
    if nets is not None:
        worker_nets(game_name, [spec for table in tables for spec in table[:2]], nets)
    n = game.players
    per_side = n - 1
    table_of, slot_seeds, one_by_one = [], [], []
    for t, (spec_a, spec_b, seed, indices) in enumerate(tables):
        one_by_one.append(adapts_between_games(spec_a) or adapts_between_games(spec_b))
        slots = min(1 if one_by_one[t] else concurrent, len(indices))
        table_of += [t] * slots
        slot_seeds += [[seed + 2 * per_side * k + j for j in range(2 * per_side)] for k in range(slots)]
    columns = [
        _groups(game, [tables[t][j // per_side] for t in table_of], [s[j] for s in slot_seeds])
        for j in range(2 * per_side)
    ]
    waiting = [list(reversed([int(i) for i in table[3]])) for table in tables]
    results: list[list[GameResult]] = [[] for _ in tables]

    def agents(k):
        """Slot k's agents: A's, then B's."""
        return [groups[where[k][0]][where[k][1]] for groups, where in columns]

    def adjusters(k):
        return [getattr(agent, "adjuster", None) for agent in agents(k)]

    for k, t in enumerate(table_of):
        for adjuster, state in zip(adjusters(k), (states or {}).get(t) or (None, None)):
            if state is not None and one_by_one[t]:
                if adjuster is None:
                    raise ValueError(
                        f"a resumed match gives an adjuster state to {tables[t][0]} or {tables[t][1]}, "
                        "which has no adjuster"
                    )
                adjuster.load_state_dict(state)

    def start(k):
        """The next game of slot k's table: (index, state, the column of each role's agent), agents reseeded as
        play_game does."""
        t = table_of[k]
        if not waiting[t]:
            return None
        i = waiting[t].pop()
        seeds, mine = game_seeds(tables[t][2], i, n), agents(k)
        seated = [side * per_side + j for side, j in seat_agents(n, i)]
        for role, column in enumerate(seated):
            mine[column].new_game(seeds[column], seat=role)
        return i, game.new_initial_state(), seated

    playing = [start(k) for k in range(len(table_of))]
    while any(playing):
        for column, (groups, where) in enumerate(columns):
            to_move = [k for k, p in enumerate(playing) if p and p[2][p[1].current_player()] == column]
            for g, group in enumerate(groups):
                ks = [k for k in to_move if where[k][0] == g]
                actions = group.select_actions([where[k][1] for k in ks], [playing[k][1] for k in ks])
                for k, action in zip(ks, actions):
                    i, state, seated = playing[k]
                    players = [agents(k)[c] for c in seated]
                    for agent in players:
                        agent.observe(state, action)
                    state.apply_action(action)
                    if state.is_terminal():
                        returns = state.returns()
                        for agent in players:
                            agent.game_over(returns)
                        roles = [c // per_side for c in seated]
                        result = GameResult(i, roles.index(0), split_point(state.scores(), roles), state.history())
                        results[table_of[k]].append(result)
                        if on_game is not None:
                            saved = None
                            if keep and one_by_one[table_of[k]]:
                                saved = tuple(None if a is None else a.state_dict() for a in adjusters(k))
                            on_game(table_of[k], result, saved)
                        playing[k] = start(k)
    return results


def play_match(
    game,
    spec_a: str | AgentSpec,
    spec_b: str | AgentSpec,
    *,
    games: int,
    seed: int = 0,
    workers: int = 1,
    backend: str = "threads",
    cluster: str | None = None,
    concurrent: int | None = None,
    progress=None,
) -> MatchResult:
    """Play a seat-balanced match of A against B (DESIGN section 6).

    Args:
        game: a game or its name.
        spec_a, spec_b: agent specs (text or parsed `AgentSpec`).
        games: games in all; A moves first in the even-numbered ones (with more players, game i takes
            `assignments(players)[i % len]`, and games must be a multiple of their number).
        seed: the match seed; game i reseeds both agents from (seed, i), so it replays alone.
        workers: games played at once; backend: "threads" (the compiled searches release the GIL),
            "processes" (joblib's loky) or "cluster": the Dask scheduler at address `cluster` spreads the
            workers' shares over its machines (workers 1: one share per worker thread of the cluster).
        concurrent: games each worker plays in lock-step, so that agents which batch their searches
            (az) evaluate the positions of all of them in one forward; default 256 when an agent
            batches, else 1. A match whose agent adapts between games (dsa=inter, dda=alphadda1z)
            plays its games one after another whatever the setting. Games are the same whatever the
            setting (each is seeded by its index).
        progress: an object with `update(n)` (e.g. a tqdm bar), told after every game (threads) or share.
    Returns:
        A's wins, draws and losses as first player, as second player and in total, and every game.
    """
    (result,) = play_matches(
        game,
        [(spec_a, spec_b, seed, games)],
        workers=workers,
        backend=backend,
        cluster=cluster,
        concurrent=concurrent,
        progress=progress,
    )
    return result


def play_matches(
    game,
    matches: list[tuple],
    *,
    workers: int = 1,
    backend: str = "threads",
    cluster: str | None = None,
    concurrent: int | None = None,
    progress=None,
    resume: list[Resume | None] | None = None,
    after_game=None,
) -> list[MatchResult]:
    """Play several matches (spec_a, spec_b, seed, games) at once: each as `play_match` would, game for game,
    but a worker plays its share of all of them together, so batching agents (az) of every match that
    can share a search (`group_key`) share its forwards. `concurrent` caps the games of each match
    in lock-step per worker; the other arguments are play_match's.

    A long run checkpoints with `after_game(m, result, states)`, told every game of match m as it ends (with
    its agents' adjuster states after it where the match adapts between games, else None), and picks up
    from there with `resume[m]`: the match plays only the games not yet done, its agents starting from
    those states, and returns those games alone. Both need workers=1 and threads (one agent pair sees
    the whole match, and the callback runs in this process)."""
    name = game if isinstance(game, str) else game.name
    g = load_game(name)
    if not matches:
        raise ValueError("no matches to play")
    for *_, games in matches:
        check_games(g, games)
    names = [(str(a), str(b)) for a, b, *_ in matches]  # the results keep the specs as they were given
    # parsed and checked once, here at the edge, before any worker starts; below, every use takes the parsed spec
    matches = [(check_spec(g, a), check_spec(g, b), seed, games) for a, b, seed, games in matches]
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if backend not in ("threads", "processes", "cluster"):
        raise ValueError(f"unknown backend {backend!r}: use threads, processes or cluster")
    if (backend == "cluster") != (cluster is not None):
        raise ValueError("a cluster's address goes with backend='cluster', and that backend needs one")
    if concurrent is None:
        batching = any(batches(s) for m in matches for s in m[:2])
        concurrent = 256 if batching else 1
    if concurrent < 1:
        raise ValueError("concurrent must be at least 1")
    resume = list(resume) if resume is not None else [None] * len(matches)
    if len(resume) != len(matches):
        raise ValueError(f"resume gives {len(resume)} matches' places, not one per match ({len(matches)})")
    if (after_game is not None or any(resume)) and (workers != 1 or backend != "threads"):
        raise ValueError("resume and after_game need workers=1 and backend='threads'")
    resume = [r or Resume() for r in resume]
    client = connect(cluster) if backend == "cluster" else None  # unreachable: one line, before any game
    nets = nets_of(g, [spec for m in matches for spec in m[:2]]) if client is not None else None  # checked there
    # shares per match: `workers`; on a cluster with none asked for, its worker threads, but a match whose agents
    # adapt between games stays one share (one machine plays it as one sequence: the cluster plays the same games)
    split = [workers] * len(matches)
    if client is not None and workers == 1:
        split = [1 if any(adapts_between_games(s) for s in m[:2]) else threads(client) for m in matches]
    # worker w plays the w-th part of every match that has one: shares[w] = [(match, its games)]
    todo = [np.array([i for i in range(m[3]) if i not in r.done], dtype=int) for m, r in zip(matches, resume)]
    parts = [np.array_split(indices, max(1, min(n, len(indices)))) for n, indices in zip(split, todo)]
    shares = [
        [(m, part[w]) for m, part in enumerate(parts) if w < len(part) and len(part[w])]
        for w in range(max(map(len, parts)))
    ]
    tables = [[(*matches[m][:3], indices) for m, indices in share] for share in shares]
    lock = threading.Lock()

    def on_game(share, t, result, states):
        with lock:
            if progress is not None:
                progress.update(1)
            if after_game is not None:
                after_game(share[t][0], result, states)

    if backend == "threads":
        jobs = Parallel(n_jobs=max(1, len(shares)), backend="threading")(
            delayed(_play_share)(
                name,
                table,
                lambda t, result, states, share=share: on_game(share, t, result, states),
                concurrent,
                {t: resume[m].states for t, (m, _) in enumerate(share)},
                after_game is not None,
            )
            for share, table in zip(shares, tables)
        )
    else:
        jobs = []
        with on_cluster(client) if client is not None else parallel_config(backend="loky"):
            for share_results in Parallel(n_jobs=len(shares), return_as="generator")(
                delayed(_play_share)(name, share, None, concurrent, nets=nets) for share in tables
            ):
                jobs.append(share_results)
                if progress is not None:
                    progress.update(sum(len(r) for r in share_results))
    played: list[list[GameResult]] = [[] for _ in matches]
    for share, job in zip(shares, jobs):
        for (m, _), games_played in zip(share, job):
            played[m] += games_played
    out = []
    for (spec_a, spec_b), (_, _, seed, _), games_played in zip(names, matches, played):
        result = MatchResult(name, spec_a, spec_b, seed)
        for r in sorted(games_played, key=lambda r: r.index):
            (result.first if r.a_seat == 0 else result.second).add(r.outcome)
            result.games.append(r)
        out.append(result)
    return out


def round_robin(
    game,
    specs: list[str],
    *,
    games: int,
    seed: int = 0,
    workers: int = 1,
    backend="threads",
    cluster: str | None = None,
    progress=None,
) -> list[MatchResult]:
    """Every pair of `specs` plays a seat-balanced match of `games` games; the pair's seed comes from (seed, i, j)."""
    if len(set(specs)) != len(specs):
        raise ValueError("each agent spec may appear only once in a tournament")
    matches = []
    for i, a in enumerate(specs):
        for j in range(i + 1, len(specs)):
            (pair_seed,) = derive_seeds(seed, i, j)
            matches.append(
                play_match(
                    game,
                    a,
                    specs[j],
                    games=games,
                    seed=pair_seed,
                    workers=workers,
                    backend=backend,
                    cluster=cluster,
                    progress=progress,
                )
            )
    return matches


def pair_scores(matches: list[MatchResult]) -> dict[tuple[str, str], list[float]]:
    """{(spec_a, spec_b): A's score (1, 0.5, 0) in each game, in game order}."""
    return {(m.spec_a, m.spec_b): [(g.outcome + 1) / 2 for g in m.games] for m in matches}
