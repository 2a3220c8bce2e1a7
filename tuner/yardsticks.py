"""Measured progress of a training run: yardstick matches every few iterations, and the run's report.

`Yardsticks` is the `evaluate` hook of `nets.train.Run.step`: the new net (`az` at the run's N_sim,
plain eq. 8 and most-visited moves, the agent the shipped targets measure) plays a short seeded,
seat-balanced match against each fixed yardstick (MCTS1, Minimax1 where the game has one) and
against the best net so far. Two nets that both play their most visited move would repeat one
game per seat, so in the net-against-net match both sides open with eq. (9) for T_opening plies,
as in self-play. The new net becomes the best one when it scores more than half of that match.

`write_report` turns the run's history into `report.md`, `loss.png` and `score.png`.
"""

from __future__ import annotations

import json
from pathlib import Path

from matplotlib.figure import Figure

from games import load as load_game
from games.rng import derive_seeds
from tuner.match import format_interval, play_match


class Yardsticks:
    """Plays the matches of one evaluation; `__call__(iteration, net_path, best_path) -> record`."""

    def __init__(self, config, *, games: int = 10, opponents: list[str] | None = None, device: str = "auto"):
        self.config, self.games, self.device = config, games, device
        has_minimax = "minimax1" in load_game(config.game).evaluations
        self.opponents = opponents if opponents is not None else ["mcts1"] + (["minimax1"] if has_minimax else [])

    def az(self, path, opening: bool = False) -> str:
        c = self.config
        spec = f"az:net={path},simulations={c.simulations},c_puct={c.c_puct},device={self.device}"
        return spec + (f",t_opening={c.t_opening},tau={c.tau}" if opening else "")

    def __call__(self, iteration: int, net_path, best_path) -> dict:
        seed = derive_seeds(self.config.seed, iteration, 1)[0]
        record = {"games": self.games, "seed": seed, "matches": {}}
        pairs = [(o, self.az(net_path), o) for o in self.opponents]
        pairs.append(("best", self.az(net_path, opening=True), self.az(best_path, opening=True)))
        for label, a, b in pairs:
            result = play_match(self.config.game, a, b, games=self.games, seed=seed)
            t = result.total
            record["matches"][label] = {
                "wins": t.wins,
                "draws": t.draws,
                "losses": t.losses,
                "score": t.score,
                "ci95": list(t.score_interval()),
            }
        record["promote"] = record["matches"]["best"]["score"] > 0.5
        return record


def write_report(folder, history: list[dict], config, provenance: dict) -> Path:
    """report.md, loss.png and score.png in `folder` from the run's history; returns report.md's path."""
    folder = Path(folder)
    its = [r["iteration"] for r in history]
    fig = Figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    ax.plot(its, [r["loss_value"] for r in history], label="value loss (c_win - v)^2")
    ax.plot(its, [r["loss_policy"] for r in history], label="policy loss -pi log p")
    ax.set_xlabel("iteration")
    ax.set_ylabel("mean loss over the queue")
    ax.legend()
    fig.tight_layout()
    fig.savefig(folder / "loss.png", dpi=110)
    evals = [r for r in history if "eval" in r]
    labels = list(evals[-1]["eval"]["matches"]) if evals else []
    fig = Figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    for label in labels:
        pts = [(r["iteration"], r["eval"]["matches"][label]) for r in evals if label in r["eval"]["matches"]]
        x = [i for i, _ in pts]
        y = [m["score"] for _, m in pts]
        ax.errorbar(
            x,
            y,
            yerr=[[s - m["ci95"][0] for s, (_, m) in zip(y, pts)], [m["ci95"][1] - s for s, (_, m) in zip(y, pts)]],
            marker="o",
            capsize=3,
            label=f"against {label}",
        )
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("iteration")
    ax.set_ylabel("score of the net (95% CI)")
    if labels:
        ax.legend()
    fig.tight_layout()
    fig.savefig(folder / "score.png", dpi=110)
    lines = [
        f"# Training run: {config.game}, {config.size} net",
        "",
        f"{len(history)} iterations, {sum(r['games'] for r in history)} self-play games, "
        f"{sum(r['positions'] for r in history)} positions (before augmentation), "
        f"{sum(r['seconds'] for r in history) / 3600:.2f} h; seed {config.seed}, commit {provenance.get('commit')}.",
        "",
        "![losses](loss.png)",
        "",
        "![scores](score.png)",
        "",
        "| iteration | " + " | ".join(f"against {label} (95% CI)" for label in labels) + " |",
        "|---|" + "---|" * len(labels),
    ]
    for r in evals:
        cells = []
        for label in labels:
            m = r["eval"]["matches"].get(label)
            cells.append(f"{m['score']:.2f} {format_interval(m['ci95'])}" if m else "")
        lines.append(f"| {r['iteration']} | " + " | ".join(cells) + " |")
    if history:
        recent = history[-10:]
        rate = sum(r["positions"] for r in recent) / sum(r["self_play_seconds"] for r in recent)
        lines += ["", f"Self-play: {rate:.0f} positions/s over the last {len(recent)} iterations."]
    lines += ["", "Settings:", "", "```", json.dumps(config.__dict__, indent=1), "```", ""]
    path = folder / "report.md"
    path.write_text("\n".join(lines))
    return path
