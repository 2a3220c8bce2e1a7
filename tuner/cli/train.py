"""`sparring train GAME --out DIR`: AlphaZero self-play training that resumes where it stopped."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import sys
import time
from pathlib import Path

import games
from tuner.cli.common import GAME_HELP, game_name

RAW = argparse.RawDescriptionHelpFormatter


def on_off(text: str) -> bool:
    """`on` or `off` as a bool (argparse's one-line error for anything else)."""
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"takes on or off, got {text!r}")
    return text == "on"


# option -> (TrainConfig field, type, help); each defaults to the game's Table A1 value or the stored run's
_SETTINGS = {
    "--kind": ("kind", str, "network architecture, a key of nets.ARCHITECTURES (resnet)"),
    "--size": ("size", str, "network size: small (32 filters, for CPUs; default) or paper (256, Table A1)"),
    "--filters": ("filters", int, "override the size's filters"),
    "--blocks": ("blocks", int, "override the size's residual blocks"),
    "--games": ("games", int, "N_self: self-play games per iteration, played at once (30, 10, 10)"),
    "--simulations": ("simulations", int, "N_sim per move (200, 200, 400)"),
    "--c-puct": ("c_puct", float, "C_puct of eq. 8 (1.25)"),
    "--t-opening": ("t_opening", int, "T_opening: plies chosen by eq. 9 (4, 4, 6)"),
    "--tau": ("tau", float, "eq. 9's temperature (50, 20, 40)"),
    "--eps": ("eps", float, "epsilon: chance a simulation leaves the root by a random child (0.2)"),
    "--noise": ("noise", float, "AlphaZero's Dirichlet noise weight at the root (0: off, as the paper)"),
    "--alpha": ("alpha", float, "Dirichlet concentration (0.3)"),
    "--leaves": ("leaves", int, "descents per tree and step with virtual loss (1: the paper's search)"),
    "--cap-fast": (
        "cap_fast",
        int,
        "playout cap randomization: a move is a fast search of CAP_FAST simulations unless drawn as a full one, "
        "and only full searches are recorded (0: off, every move a full search, as the paper)",
    ),
    "--cap-share": ("cap_share", float, "with --cap-fast, the share of moves that are full searches (0.25)"),
    "--random-plies": (
        "random_plies",
        int,
        "random openings: each game first plays up to this many uniformly random moves (the number drawn "
        "uniformly), unsearched and unrecorded unless --opening-share, so the net also learns positions of weak "
        "play (0: off, as the paper)",
    ),
    "--opening-share": (
        "opening_share",
        float,
        "with --random-plies, the share of the random openings' positions that are also searched in full and "
        "recorded, their value target the search's value, so the value head learns weak play's positions from its "
        "own search (0: none)",
    ),
    "--value-mix": (
        "value_mix",
        float,
        "value targets (1 - M) z + M q: the game's result z mixed with the search's root value q of the position "
        "(0: the result alone, as the paper)",
    ),
    "--augment": (
        "augment",
        on_off,
        "on: learn each position in all its board symmetries, as the paper (Connect4 2, the Othellos 8); off: only as "
        "played, to measure what the symmetries give (on)",
    ),
    "--chunk": (
        "chunk",
        int,
        "self-play forwards exactly CHUNK rows at a time (1 or a multiple of 4), so a game's moves do not depend on "
        "the games beside it (what --cluster needs; a new cluster run takes its share size, --games per worker "
        "thread, rounded up to a power of 2 from 4 to 64; else one forward of all rows)",
    ),
    "--queue": ("queue", int, "N_queue: positions kept for learning (20000, 20000, 50000)"),
    "--epochs": ("epochs", int, "N_epoch: passes over the queue per iteration (1)"),
    "--reuse": (
        "reuse",
        float,
        "learn each iteration on REUSE times its new positions (mirrors included), drawn from the queue, instead of "
        "N_epoch passes over the whole queue, so that each position is learnt about REUSE times (0: off, the paper)",
    ),
    "--batch": ("batch", int, "N_batch: positions per mini-batch (2048)"),
    "--lr": (
        "lr",
        float,
        "SGD learning rate (0.02; Table A1 says 0.2, which killed the small net's value head); a begun run takes a "
        "new one from its next iteration",
    ),
    "--momentum": ("momentum", float, "SGD momentum (0.9)"),
    "--weight-decay": ("weight_decay", float, "SGD weight decay (1e-4)"),
    "--seed": ("seed", int, "seeds the initial net and every iteration's games and shuffles (0)"),
    "--eval-every": ("eval_every", int, "iterations between yardstick matches, 0 for none (10)"),
    "--init": ("init", str, "start from this net's weights (fine-tuning; its size unless --size etc. are given)"),
}


def _config(args, threads: int | None = None):
    """The run's TrainConfig: the stored one when --out holds a run, else Table A1's, with the options given; a
    new run on a cluster of `threads` worker threads takes a chunk of its share's size unless one is given."""
    from nets.train import TrainConfig
    from tuner.cli.common import CommandError

    given = {field: getattr(args, field) for field, _, _ in _SETTINGS.values() if getattr(args, field) is not None}
    stored = args.out / "config.json"
    if args.out.exists() and not args.out.is_dir():
        raise CommandError(f"--out {args.out} is a file, not a folder: choose a folder for the run")
    if "init" in given:  # stored resolved: the same command run again from the same folder goes on
        given = {**given, "init": str(Path(given["init"]).resolve())}
    try:
        if stored.exists():
            try:
                base = json.loads(stored.read_text())
            except (OSError, ValueError) as e:
                raise CommandError(f"{stored} is unreadable ({e}): restore it, or train into a new --out") from None
            if not isinstance(base, dict):
                raise CommandError(f"{stored} holds no run settings (not a JSON object): restore it or use a new --out")
            if base.get("game") != args.game:
                raise CommandError(f"{args.out} holds a {base.get('game')} run, not {args.game}: use another --out")
            config = TrainConfig(**{**base, **given})
        else:
            if "init" in given:
                given = {**_arch_of(given["init"], args.game), **given}
            config = TrainConfig.for_game(args.game, **given)
            if threads is not None and "chunk" not in given:
                config = dataclasses.replace(config, chunk=share_chunk(config.games, threads))
        config.check()
    except (TypeError, ValueError) as e:
        raise CommandError(str(e)) from None
    return config


def share_chunk(games: int, threads: int) -> int:
    """Rows per forward for games split over `threads`: the share's size rounded up to a power of 2 from 4 to 64 (1
    for a share of one game: `nets.evaluator.check_chunk`).
    A chunk wider than the share forwards empty rows, a narrower one more forwards (`benchmarks.selfplay`, 2 cores:
    30 games at 80% of whole forwards' speed in chunks of 32 and 65% in 16; 8 games at 92% in 8 and 49% in 32)."""
    share = -(-games // max(1, threads))
    return 1 if share == 1 else min(64, max(4, 1 << (share - 1).bit_length()))


def _arch_of(path: str, game: str) -> dict:
    """The kind, size, filters and blocks of the net at `path`, as TrainConfig fields (one-line error if unreadable)."""
    import nets

    arch = nets.load(path, game=game).arch
    if arch.size in nets.SIZES[games.base_name(game)]:
        return {"kind": arch.kind, "size": arch.size}
    return {"kind": arch.kind, "size": "small", "filters": arch.filters, "blocks": arch.blocks}


def _train(args) -> int:
    from games.game import two_players_only
    from nets.train import TABLE_A1, Run
    from tuner.cli.common import CommandError
    from tuner.provenance import environment
    from tuner.yardsticks import Yardsticks

    try:
        two_players_only(games.load(args.game), "sparring train trains", "play it with mcts, sp or ap (no net)")
    except ValueError as error:
        raise CommandError(str(error)) from None
    if args.eval_games < 0:
        raise CommandError(f"--eval-games must be 0 or more, got {args.eval_games}")
    if args.iterations is not None and args.iterations < 1:
        raise CommandError(f"--iterations must be at least 1, got {args.iterations}")
    if args.hours is not None and not args.hours > 0:
        raise CommandError(f"--hours must be positive, got {args.hours}: leave it out to train to --iterations")
    if args.eval_games and "," in str(args.out):
        raise CommandError(f"--out {args.out} has a comma, which agent specs cannot hold: choose another folder name")
    table = TABLE_A1.get(games.base_name(args.game), {})  # none for a game without settings: _config refuses it
    target = args.iterations if args.iterations is not None else table.get("iterations")
    command = "sparring " + " ".join(sys.argv[1:]) if sys.argv[1:] else "sparring train"
    with contextlib.ExitStack() as stack:
        spread, shares = None, 1
        if args.cluster is not None:
            from tuner.match import cluster

            try:
                client = stack.enter_context(cluster.connect(args.cluster))
            except ValueError as e:
                raise CommandError(str(e)) from None
            spread, shares = functools.partial(cluster.spread, client), cluster.threads(client)
        config = _config(args, shares if spread is not None else None)
        provenance = {"command": command, **environment(config.seed)}
        try:
            run = Run(args.out, config, device=args.device, provenance=provenance, spread=spread, shares=shares)
        except ValueError as e:
            raise CommandError(str(e)) from None
        yardsticks = Yardsticks(config, games=args.eval_games, device=args.device) if args.eval_games else None
        with run:
            return _loop(run, args, config, target, yardsticks, provenance)


def _loop(run, args, config, target, yardsticks, provenance) -> int:
    """Iterations until `target` or --hours, with a progress bar and the report after every evaluation."""
    from tqdm import tqdm

    from tuner.cli.common import CommandError
    from tuner.yardsticks import write_report

    if run.iteration >= target:
        print(f"{args.out}: already at iteration {run.iteration} of {target}; raise --iterations to go on")
        return 0
    print(
        f"{args.out}: {config.game}, {run.model.describe()}; iteration {run.iteration} -> {target} on "
        f"{run.device}, seed {config.seed}",
        file=sys.stderr,
    )
    if run.regenerated:
        print(
            f"{args.out} has no checkpoint.pt: going on from net.pt (iteration {run.iteration}) with an empty queue, "
            "which self-play refills, and fresh momentum",
            file=sys.stderr,
        )
    deadline = time.monotonic() + args.hours * 3600 if args.hours is not None else None
    played = sum(r["games"] for r in run.history)
    with tqdm(
        total=target,
        initial=run.iteration,
        desc=f"train {config.game}",
        unit="it",
        file=sys.stderr,
        disable=None,
        dynamic_ncols=True,
    ) as bar:
        while run.iteration < target and (deadline is None or time.monotonic() < deadline):
            try:
                record = run.step(yardsticks)
            except ValueError as e:  # the cluster lost the iteration's games: the folder holds the one before
                raise CommandError(str(e)) from None
            played += record["games"]
            bar.update(1)
            bar.set_postfix(
                games=played,
                pos_s=record["positions_per_second"],
                v=record["loss_value"],
                p=record["loss_policy"],
                refresh=False,
            )
            if "eval" in record or run.iteration == target or (deadline and time.monotonic() >= deadline):
                write_report(args.out, run.history, config, provenance)
    if "eval" in (run.history[-1] if run.history else {}):
        scores = ", ".join(f"{k} {m['score']:.2f}" for k, m in run.history[-1]["eval"]["matches"].items())
        print(f"last yardsticks (iteration {run.history[-1]['iteration']}): {scores}", file=sys.stderr)
    print(
        f"{args.out}: iteration {run.iteration} of {target}; the net is {args.out / 'net.pt'}"
        + ("" if run.iteration >= target else " (run the same command to go on)")
    )
    return 0


def add_commands(sub) -> None:
    """The `train` command, on the main parser's subparsers."""

    train = sub.add_parser(
        "train",
        help="AlphaZero self-play training in a run folder that resumes",
        description="Train a policy-value net by AlphaZero self-play (AlphaDDA App. 1.3) with Table A1's\n"
        "settings, each overridable. The run folder keeps checkpoints, the replay queue, a log and a\n"
        "report; running the same command again resumes after the last finished iteration, also after\n"
        "a crash or kill. Settings not given are taken from the stored run, and a setting that differs\n"
        "from it is refused, but for --lr: a run goes on at a new learning rate (stepped down at the end of\n"
        "training), its queue and momentum kept, each log line recording its rate. Every --eval-every\n"
        "iterations the net plays short matches against MCTS1, Minimax1 and the best net so far (report.md,\n"
        "score.png).",
        epilog="examples:\n  sparring train connect4 --out runs/c4 --hours 2\n"
        "  sparring train connect4 --out runs/c4 --iterations 1200 --lr 0.002   (go on at a lower rate)\n"
        "  sparring train othello6 --out runs/o6 --iterations 100 --device cuda\n"
        "  sparring arena connect4 'az:net=runs/c4/net.pt' mcts1 --games 100",
        formatter_class=RAW,
    )
    train.add_argument("game", type=game_name, metavar="GAME", help=GAME_HELP)
    train.add_argument("--out", required=True, type=Path, metavar="DIR", help="the run folder (created or resumed)")
    budget = train.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=int, metavar="N", help="train up to iteration N (Table A1's N_iter)")
    budget.add_argument("--hours", type=float, metavar="H", help="stop after the iteration in which H hours pass")
    train.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda or cuda:N (auto)")
    train.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play each iteration's self-play games on a Dask cluster (its scheduler, e.g. tcp://10.0.0.5:8786; "
        "needs sparring[cluster]), split by game over its worker threads, each on its CPU; learning stays here. "
        "The games equal those this machine's CPU plays with the same --chunk",
    )
    train.add_argument("--eval-games", type=int, default=10, help="games per yardstick match, 0 for none (10)")
    for option, (field, kind, text) in _SETTINGS.items():
        train.add_argument(option, dest=field, type=kind, default=None, help=text)
    train.set_defaults(run=_train)
