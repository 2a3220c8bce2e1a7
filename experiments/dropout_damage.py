"""Why AlphaDDA2 plays weaker than the paper's (issue 34, item 3): where its dropout probability sits during games,
and how much dropout damages the shipped net's outputs.

AlphaDDA2 [AlphaDDA eqs. 4-5] damages its net's heads with dropout P_drop = A_drop (v̄ c + P_drop0), clipped to
[0, P_max], v̄ c the clean net's mean value over the last N_h positions from its own view. Table 2's constants were
grid-searched for the paper's net; ours reads another net's values. Three measurements, in one seeded run:

1. Games: AlphaDDA2 at Table 2's constants (eps 0.2, as the authors' test games) against opponents of Tables 5-13,
   both seats. At each of its moves, v̄ c and P_drop: how often it plays clean, in between, and at P_max, by seat
   and by stage of the game; and its score.
2. Damage: the positions of those games (both players' turns, sampled), evaluated clean and at each dropout
   probability with several dropout draws: the value's mean absolute change, how often a clear value (|v| >= 0.2)
   changes sign, how often the policy's first choice stays, and the policy's total variation from the clean one
   (the first-choice agreement of a uniform policy given beside it).
3. Damage to the search: fewer of those positions searched by AlphaZero (N_sim of Table A1, the test games' eps)
   at each dropout probability, every leaf damaged with its own draw as AlphaDDA2's search does, against a clean
   search: how often it picks the clean search's move, how far its root score moves, and on Connect4 how often its
   move keeps the position's game-theoretic value (the bitbully solver, where installed). A second clean search
   (another seed) gives the floor: the agreement that the search's own randomness allows.

    .venv/bin/python -m experiments.dropout_damage [--game connect4] [--opponents minimax1,mcts1] [--games 20]
        [--positions 400] [--draws 4] [--searches 150] [--keys nh=2,a_drop=10,p_drop0=-0.4] [--net PATH] [--seed 0]
        [--out experiments/results/alphadda]

`--keys` sets AlphaDDA2's constants (Table 2's by default), for instance at the point a grid search over our own
net recommends (studies/alphadda2-grid-connect4); `--net` another checkpoint than the shipped net (a wider body,
say). The results' names then carry them.
"""

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

import games
from benchmarks.common import environment
from experiments.alphadda import TEST_EPS, az
from games.rng import derive_seeds
from nets.shipped import make_evaluator
from search import perfect
from search.alphadda import P_MAX, TABLE_2
from search.evaluator import clean_values
from tuner.agents import make_agent
from tuner.match.arena import play_game

PROBABILITIES = (0.1, 0.2, 0.4, 0.6, 0.8, 0.9, P_MAX)
STAGES = 3  # the game's moves in thirds, by AlphaDDA2's own move count


class Recording:
    """AlphaDDA2's agent, noting at each of its moves (ply, v̄ c, the P_drop its search used)."""

    def __init__(self, agent):
        self.agent, self.moves = agent, []

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def select_action(self, state):
        action = self.agent.select_action(state)
        self.moves.append((len(state.history()), self.agent.adjuster.mean, self.agent.strength()["dropout"]))
        return action


def play(game, spec, opponent, n_games, seed):
    """n_games games of `spec` against `opponent` as a match plays them (seats alternating); per game AlphaDDA2's
    seat, its outcome (+1 / 0 / -1), its moves' (ply, v̄ c, P_drop), and every position of the game."""
    a, b = Recording(make_agent(game.name, spec, seed=seed)), make_agent(game.name, opponent, seed=seed + 1)
    out = []
    for index in range(n_games):
        a.moves = []
        result = play_game(game, a, b, seed, index)
        state, positions = game.new_initial_state(), []
        for action in result.moves:
            positions.append(state.clone())
            state.apply_action(action)
        out.append({"seat": result.a_seat, "outcome": result.outcome, "moves": a.moves, "positions": positions})
    return out


def drive(records, p_max):
    """Where P_drop sat over AlphaDDA2's moves: shares at 0, in between and at P_max, mean v̄ c and P_drop, the
    share at P_max in each third of its moves, its score."""
    drops = np.array([p for r in records for _, _, p in r["moves"]])
    values = np.array([v for r in records for _, v, _ in r["moves"]])
    by_stage = [[] for _ in range(STAGES)]
    for r in records:
        k = len(r["moves"])
        for i, (_, _, p) in enumerate(r["moves"]):
            by_stage[min(STAGES - 1, i * STAGES // k)].append(p >= p_max)
    score = np.mean([(r["outcome"] + 1) / 2 for r in records])
    return {
        "games": len(records),
        "score": float(score),
        "moves": int(drops.size),
        "clean": float(np.mean(drops == 0)),
        "between": float(np.mean((drops > 0) & (drops < p_max))),
        "at_p_max": float(np.mean(drops >= p_max)),
        "mean_p_drop": float(drops.mean()),
        "mean_value": float(values.mean()),
        "first_move_p_drop": float(np.mean([r["moves"][0][2] for r in records])),
        "at_p_max_by_third": [float(np.mean(s)) if s else None for s in by_stage],
    }


def damage(game, evaluator, positions, draws, seed):
    """Per dropout probability, the changes in the net's value and policy from the clean net's over `positions`,
    each evaluated `draws` times with its own dropout keys."""
    batch = evaluator.new_batch(game, len(positions))
    for row, position in enumerate(positions):
        batch.put(row, position)
    n = len(positions)
    evaluator.evaluate(batch, n)
    clean_v, clean_p = batch.values[:n].copy(), batch.priors[:n].copy()
    clear = np.abs(clean_v) >= 0.2
    legal_counts = batch.legal[:n].sum(axis=1)
    out = {"positions": n, "clear_values": int(clear.sum()), "uniform_first_choice": float(np.mean(1 / legal_counts))}
    for p in PROBABILITIES:
        rows = {"value_abs_change": [], "clear_sign_kept": [], "first_choice_kept": [], "policy_tv": []}
        batch.dropout[:n] = p
        for key in derive_seeds(seed, int(p * 100), count=draws, bits=32):
            batch.keys[:n] = np.arange(n, dtype=np.uint64) + np.uint64(key)
            evaluator.evaluate(batch, n)
            v, pr = batch.values[:n], batch.priors[:n]
            rows["value_abs_change"].append(np.mean(np.abs(v - clean_v)))
            rows["clear_sign_kept"].append(np.mean(np.sign(v[clear]) == np.sign(clean_v[clear])))
            rows["first_choice_kept"].append(np.mean(pr.argmax(axis=1) == clean_p.argmax(axis=1)))
            rows["policy_tv"].append(np.mean(0.5 * np.abs(pr - clean_p).sum(axis=1)))
        out[str(p)] = {k: float(np.mean(v)) for k, v in rows.items()}
    return out


def searched(game, net, positions, seed):
    """Per dropout probability (0 first: a second clean search), AlphaZero's move and root score at each position
    against a clean search's; with the solver (Connect4), the share of its moves keeping the position's value over
    the positions where some move does not."""
    keeps = _keeping_moves(positions) if game.name == "connect4" else None

    def search(p, key):
        agent = make_agent(game.name, az(game.name, net, eps=TEST_EPS, dropout=p), seed=seed)
        moves, scores = [], []
        for i, position in enumerate(positions):
            agent.new_game(derive_seeds(seed, key, i)[0])
            moves.append(agent.select_action(position))
            scores.append(agent.last_search.score())
        return moves, np.array(scores)

    clean_moves, clean_scores = search(0.0, 0)
    out = {"positions": len(positions), "spec": az(game.name, net, eps=TEST_EPS, dropout="P")}
    if keeps is not None:
        out["decisive"] = len(keeps)
        out["clean_keeps_value"] = _share_kept(keeps, clean_moves)
        out["uniform_keeps_value"] = float(
            np.mean([len(k) / len(positions[i].legal_actions()) for i, k in keeps.items()])
        )
    for k, p in enumerate(tqdm((0.0, *PROBABILITIES), desc="searches", file=sys.stderr)):
        moves, scores = search(p, k + 1)
        out[str(p)] = {
            "move_kept": float(np.mean(np.array(moves) == np.array(clean_moves))),
            "score_abs_change": float(np.mean(np.abs(scores - clean_scores))),
        }
        if keeps is not None:
            out[str(p)]["keeps_value"] = _share_kept(keeps, moves)
    return out


def spread(items: list, n: int) -> list:
    """n of `items` evenly spaced (all if there are no more), so that a subset of positions sampled in game order
    still covers every opponent and stage."""
    return items if len(items) <= n else [items[i * len(items) // n] for i in range(n)]


def _keeping_moves(positions) -> dict[int, set] | None:
    """By position index, the moves keeping its game-theoretic value, for the positions where some move does not;
    None without the solver."""
    if not perfect.available():
        return None
    out = {}
    for i, position in enumerate(positions):
        scores = perfect.move_scores(position)
        kept = perfect.keeping(scores)
        if len(kept) < len(scores):
            out[i] = kept
    return out


def _share_kept(keeps, moves) -> float:
    """The share of the decisive positions whose move keeps the value."""
    return float(np.mean([moves[i] in kept for i, kept in keeps.items()]))


def report(result) -> str:
    g = result["game"]
    lines = [
        f"# AlphaDDA2's dropout in play and the damage it does, {g} (issue 34, item 3)",
        "",
        f"`{result['command']}`; AlphaDDA2 as `{result['spec']}` (Table 2's constants where it names none). "
        f"{result['note']}",
        "",
        f"The clean net's value of the start position, first player's view: {result['start_value']:+.2f}.",
        "",
        "## Where P_drop sat, per opponent and AlphaDDA2's seat",
        "",
        "| opponent | seat | games | AlphaDDA2's score | its moves | clean | in between | at P_max | mean v̄ c "
        "| P_drop at its first move | at P_max by third of its moves |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["drive"]:
        d = row["stats"]
        thirds = " / ".join("-" if x is None else f"{x:.2f}" for x in d["at_p_max_by_third"])
        lines.append(
            f"| {row['opponent']} | {row['seat']} | {d['games']} | {d['score']:.2f} | {d['moves']} | {d['clean']:.2f} "
            f"| {d['between']:.2f} | {d['at_p_max']:.2f} | {d['mean_value']:+.2f} | {d['first_move_p_drop']:.2f} "
            f"| {thirds} |"
        )
    dmg = result["damage"]
    lines += [
        "",
        f"## Damage: {dmg['positions']} positions of those games, {result['draws']} dropout draws each",
        "",
        f"Uniform policy's first-choice agreement with the clean net's: {dmg['uniform_first_choice']:.2f}; clear "
        f"values (|v| >= 0.2): {dmg['clear_values']}.",
        "",
        "| P_drop | value's mean abs change | clear values keeping their sign | policy's first choice kept "
        "| policy total variation |",
        "|---|---|---|---|---|",
    ]
    for p in PROBABILITIES:
        d = dmg[str(p)]
        lines.append(
            f"| {p} | {d['value_abs_change']:.3f} | {d['clear_sign_kept']:.2f} | {d['first_choice_kept']:.2f} "
            f"| {d['policy_tv']:.3f} |"
        )
    lines += _search_report(result.get("search"))
    env = result["environment"]
    lines += ["", f"seed {env['seed']}, commit {env['commit']}, {env['date']}."]
    return "\n".join(lines) + "\n"


def _search_report(srch) -> list[str]:
    if srch is None:
        return []
    solver = "decisive" in srch
    lines = [
        "",
        f"## Damage to the search: {srch['positions']} of those positions, `{srch['spec']}`",
        "",
        "Each searched clean and at each P_drop (every leaf its own dropout draw), against a clean search of another "
        "seed"
        + (
            f"; by the solver, {srch['decisive']} positions are decisive (some move loses value), where the "
            f"clean search keeps the value with {srch['clean_keeps_value']:.2f} of its moves and a uniformly random "
            f"move would with {srch['uniform_keeps_value']:.2f}."
            if solver
            else "."
        ),
        "",
        "| P_drop | the clean search's move kept | root score's mean abs change (win 1, loss 0) |"
        + (" moves keeping the value |" if solver else ""),
        "|---|---|---|" + ("---|" if solver else ""),
    ]
    for p in (0.0, *PROBABILITIES):
        d = srch[str(p)]
        kept = f" {d['keeps_value']:.2f} |" if solver else ""
        lines.append(f"| {p} | {d['move_kept']:.2f} | {d['score_abs_change']:.3f} |{kept}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect4", choices=sorted(TABLE_2))
    parser.add_argument("--opponents", default="minimax1,mcts1", help="comma-separated agent specs")
    parser.add_argument("--games", type=int, default=20, help="games per opponent, seats alternating")
    parser.add_argument("--positions", type=int, default=400, help="positions sampled for the damage measure")
    parser.add_argument("--draws", type=int, default=4, help="dropout draws per position and probability")
    parser.add_argument("--searches", type=int, default=150, help="positions searched at each P_drop (0: none)")
    parser.add_argument("--keys", default="", help="AlphaDDA2's constants instead of Table 2's: nh=..,a_drop=..")
    parser.add_argument("--net", help="a checkpoint of the game's to play and damage instead of the shipped net")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="experiments/results/alphadda", help="folder for the .json and .md")
    args = parser.parse_args()
    if args.searches < 0:
        parser.error(f"--searches must be 0 (none) or more, got {args.searches}")
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be even and at least 2 (seats alternate), got {args.games}")
    os.makedirs(args.out, exist_ok=True)
    game = games.load(args.game)
    keys = dict(pair.split("=", 1) for pair in args.keys.split(",") if pair)
    unknown = set(keys) - set(TABLE_2[args.game])
    if unknown:
        parser.error(f"--keys takes {', '.join(TABLE_2[args.game])}; got {', '.join(sorted(unknown))}")
    try:
        evaluator = make_evaluator(args.net, game, device="cpu")
    except ValueError as e:
        parser.error(str(e))
    spec = az(args.game, args.net, dda="alphadda2", eps=TEST_EPS, **keys)  # Table 2's constants unless --keys
    p_max = float({**TABLE_2[args.game], **keys}["p_max"])
    opponents = [o for o in args.opponents.split(",") if o]
    rng = np.random.default_rng(args.seed)
    drive_rows, positions = [], []
    for m, opponent in enumerate(tqdm(opponents, desc="matches", file=sys.stderr)):
        records = play(game, spec, opponent, args.games, args.seed + m)
        for seat in (0, 1):
            mine = [r for r in records if r["seat"] == seat]
            drive_rows.append({"opponent": opponent, "seat": seat, "stats": drive(mine, p_max)})
        positions += [p for r in records for p in r["positions"]]
    sample = [positions[i] for i in sorted(rng.choice(len(positions), min(args.positions, len(positions)), False))]
    start_value = clean_values(evaluator, evaluator.new_batch(game, 1), [game.new_initial_state()])[0]
    result = {
        "game": args.game,
        "command": "python -m experiments.dropout_damage " + " ".join(sys.argv[1:]),
        "spec": spec,
        "note": f"{args.games} games per opponent, seats alternating; seat 0: AlphaDDA2 moved first.",
        "draws": args.draws,
        "start_value": float(start_value),
        "drive": drive_rows,
        "damage": damage(game, evaluator, sample, args.draws, args.seed),
        "search": searched(game, args.net, spread(sample, args.searches), args.seed) if args.searches > 0 else None,
        "environment": environment(args.seed),
    }
    tags = [f"-{k}{v}" for k, v in keys.items()] + ([f"-{Path(args.net).stem}"] if args.net else [])
    base = os.path.join(args.out, f"dropout-{args.game}" + "".join(tags))
    with open(base + ".json", "w") as f:
        json.dump(result, f, indent=1)
    with open(base + ".md", "w") as f:
        f.write(report(result))
    print(report(result))


if __name__ == "__main__":
    main()
