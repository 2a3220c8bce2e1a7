"""Where a search's time goes: selection, expansion, playout, backup and (tuned) allocation, per simulation.

Runs the search's own inlined phases (`search.mcts`: descend, play_on, back_up; the strategy's choose and update)
in a loop that reads the CPU's cycle counter between them, on the same tree and stream as the search. Expansion
happens inside descend; its share is estimated by least squares over the simulations, descend's cycles against
its depth and whether it opened a node. The probes' toll is the timed loop's rate against the plain search's.

    .venv/bin/python -m benchmarks.phases [--game connect4] [--spec mcts] [--simulations 10000] [--rounds 7]
        [--seed 0] [--json out.json]
"""

import argparse
import json
import math
import platform
import time

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

import games
from benchmarks.common import environment, mcts_agent
from benchmarks.search import MID_GAME, our_position
from games.jit import kernel
from search.mcts import FORMULA, N_OPEN, USE_AMAF, USE_MAST, back_up, descend, new_walk, play_on, tables
from search.tree import FREE_NODE, FULL, ROOT
from tuner.agents import make_agent

X86 = ("x86_64", "amd64", "i386", "i686")  # where llvm.readcyclecounter is rdtsc, readable by any program


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (rdtsc on x86): a few dozen cycles a read, not serialising."""

    def codegen(context, builder, signature, args):
        counter = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(counter, [])

    return types.int64(), codegen


@kernel
def read_cycles():
    return cycles()


@kernel
def timed_simulation(g, w, i, ticks, depths, opened):
    """One simulation as `search.mcts.simulate` runs it, the cycles of each phase in ticks[i, :3]; called, not
    inlined, as `simulate` is."""
    n_open = w.settings[N_OPEN]
    formula = w.settings[FORMULA]
    use_mast = w.settings[USE_MAST] == 1
    use_amaf = w.settings[USE_AMAF] == 1
    nodes = w.meta[FREE_NODE]
    t0 = cycles()
    depth = descend(g, w, n_open, formula, use_mast, use_amaf)
    t1 = cycles()
    n_moves = play_on(g, w, depth, use_mast, use_amaf)
    t2 = cycles()
    back_up(g, w, depth, n_moves, use_mast, use_amaf)
    t3 = cycles()
    ticks[i, 0], ticks[i, 1], ticks[i, 2] = t1 - t0, t2 - t1, t3 - t2
    depths[i] = depth
    opened[i] = w.meta[FREE_NODE] - nodes


@kernel
def timed_simulations(
    g, tree, root_state, params, settings, n, rng, max_legal, max_length, logs, roots, start, ticks, depths, opened
):
    """As search.mcts.run_simulations, simulations start .. start + n - 1 timed; returns how many ran."""
    w = new_walk(tree, root_state, params, settings, rng, max_legal, max_length, logs, roots)
    for i in range(start, start + n):
        if w.meta[FULL] == 1:
            return i - start
        timed_simulation(g, w, i, ticks, depths, opened)
    return n


@kernel
def timed_tuned_simulations(
    g,
    tree,
    root_state,
    params,
    settings,
    n,
    rng,
    max_legal,
    max_length,
    logs,
    roots,
    start,
    ticks,
    depths,
    opened,
    steps,
    states,
    values,
    columns,
):
    """As search.mcts.run_tuned_simulations, timed; ticks[i, 3]: both players' choose and update."""
    w = new_walk(tree, root_state, params, settings, rng, max_legal, max_length, logs, roots)
    d = columns.shape[0]
    x = np.zeros((len(states), d), dtype=np.int64)
    for i in range(start, start + n):
        if w.meta[FULL] == 1:
            return i - start
        t0 = cycles()
        for p in range(len(states)):
            steps.choose(states[p], rng, x[p])
            for j in range(d):
                params[p, columns[j]] = values[j, x[p, j]]
        t1 = cycles()
        timed_simulation(g, w, i, ticks, depths, opened)
        t2 = cycles()
        for p in range(len(states)):
            steps.update(states[p], x[p], w.ret[p], rng)
        ticks[i, 3] = t1 - t0 + cycles() - t2
    return n


def timed_search(searcher, state, n):
    """n simulations of `searcher` (a search.mcts.MCTS) from `state`, timed by phase: (ticks [n, 4], depths [n],
    nodes opened [n], seconds)."""
    searcher.move_root(state.history())
    ticks, depths, opened = np.zeros((n, 4), dtype=np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    g, done, t = searcher.game, 0, time.perf_counter()
    while done < n:
        tree = searcher.tree
        counts = int(tree.visits[tree.meta[ROOT]]) + n + 1
        common = (g.kernels, tree, state.array, searcher.params, searcher.settings, n - done, searcher.rng)
        common += (g.max_legal, g.max_game_length, *tables(int(searcher.settings[FORMULA]), counts))
        common += (done, ticks, depths, opened)
        if searcher.tuners is None:
            done += timed_simulations(*common)
        else:
            compiled = tuple(tuner.compiled for tuner in searcher.tuners)
            tuned = (searcher.tuners[0].steps, compiled, searcher._values, searcher._columns)
            done += timed_tuned_simulations(*common, *tuned)
        if tree.meta[FULL]:
            searcher._grow()
    return ticks, depths, opened, time.perf_counter() - t


def cycles_per_ns(seconds=0.2) -> float:
    """The cycle counter's rate, against perf_counter over a busy wait."""
    c0, t0 = read_cycles(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        pass
    return (read_cycles() - c0) / ((time.perf_counter() - t0) * 1e9)


def split_descend(ticks, depths, opened) -> tuple[float, float, float]:
    """descend's cycles, fitted as a + b * depth + c * [opened a node]: (selection per level b, expansion per opening
    c, expansion's mean cycles a simulation: c times the share of simulations that open a node); nan where every
    simulation opened a node or none did (c cannot be told from a)."""
    expanded = (opened > 0).astype(np.float64)
    if expanded.min() == expanded.max():
        return math.nan, math.nan, math.nan
    design = np.column_stack([np.ones_like(expanded), depths, expanded])
    (a, b, c), *_ = np.linalg.lstsq(design, ticks[:, 0].astype(np.float64), rcond=None)
    return b, c, c * expanded.mean()


def profile(game, spec, state, simulations, rounds, seed, rate) -> dict:
    """Per phase the median over rounds of its mean ns a simulation; the plain and timed rates (medians)."""
    plain_agent, timed_agent = make_agent(game, spec, seed=seed), make_agent(game, spec, seed=seed)
    plain_agent.new_game(seed)  # compile, warm caches and grow the trees (a first growth took 20 ms)
    plain_agent.search.search(state, simulations=simulations)
    timed_agent.new_game(seed)
    timed_search(timed_agent.search, state, simulations)
    rows = []
    for r in range(rounds):
        plain_agent.new_game(seed + r)  # a fresh tree (and tuners) each round, the same for both
        timed_agent.new_game(seed + r)
        plain = plain_agent.search.search(state, simulations=simulations)
        ticks, depths, opened, seconds = timed_search(timed_agent.search, state, simulations)
        ns = ticks.mean(axis=0) / rate
        per_level, per_opening, expansion = split_descend(ticks, depths, opened)
        rows.append(
            {
                "plain_per_s": plain.simulations / plain.seconds,
                "timed_per_s": simulations / seconds,
                "selection_ns": ns[0] - (0.0 if math.isnan(expansion) else expansion / rate),
                "expansion_ns": expansion / rate,
                "playout_ns": ns[1],
                "backup_ns": ns[2],
                "allocation_ns": ns[3],
                "level_ns": per_level / rate,
                "opening_ns": per_opening / rate,
                "depth": float(depths.mean()),
                "opened": float((opened > 0).mean()),
            }
        )
    return {key: float(np.median([row[key] for row in rows])) for key in rows[0]}  # nan if a round could not split


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect4", help="a game of benchmarks.search (connect4)")
    parser.add_argument(
        "--spec",
        default="mcts",
        help="agent spec without its budget: mcts, sp, ap, or a tuned one such as "
        "'sp:tuner=ntbea,tune=C+eps' (CMA-ES's generations are not timed by phase) (mcts)",
    )
    parser.add_argument("--simulations", type=int, default=10000, help="simulations per timed search (10000)")
    parser.add_argument("--rounds", type=int, default=7, help="timed searches per position, plain and timed in turn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if args.game not in MID_GAME:
        parser.error(f"--game takes one of {', '.join(MID_GAME)}; got {args.game!r}")
    if args.simulations < 1 or args.rounds < 1:
        parser.error("--simulations and --rounds take at least 1")
    if platform.machine().lower() not in X86:
        parser.error(f"the cycle counter is read here on x86 only, not on {platform.machine()}")
    game = games.load(args.game)
    mcts_agent(parser, game, args.spec, tuned=True)
    rate = cycles_per_ns()
    results = {"environment": environment(args.seed), "game": args.game, "spec": args.spec, "positions": {}}
    results["simulations"], results["cycles_per_ns"] = args.simulations, rate
    print(
        f"{args.game}, {args.spec}, {args.simulations} simulations, {rate:.2f} cycles/ns; "
        "ns a simulation (share of the phases)"
    )
    print(
        f"{'position':<10}"
        + "".join(f"{p:>16}" for p in ("selection", "expansion", "playout", "backup", "alloc."))
        + f"{'probe toll':>12}"
    )
    for label, plies in (("start", 0), ("mid-game", MID_GAME[args.game])):
        state = our_position(args.game, plies, args.seed)
        row = profile(game, args.spec, state, args.simulations, args.rounds, args.seed, rate)
        results["positions"][label] = row
        cells = [row[f"{p}_ns"] for p in ("selection", "expansion", "playout", "backup", "allocation")]
        total = sum(c for c in cells if not math.isnan(c))  # shares of the timed phases; the probes' toll apart
        print(
            f"{label:<10}"
            + "".join(f"{c:>8.0f} ({c / total:>4.0%})" for c in cells)
            + f"{row['plain_per_s'] / row['timed_per_s'] - 1:>11.0%}"
        )
        print(
            f"{'':<10}plain {1e9 / row['plain_per_s']:.0f} ns a simulation; mean depth {row['depth']:.1f}, "
            f"{row['opened']:.0%} open a node; a level of selection {row['level_ns']:.0f} ns, "
            f"an opening {row['opening_ns']:.0f} ns"
        )
    env = results["environment"]
    print(f"seed {env['seed']}, commit {env['commit']}, python {env['python']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
