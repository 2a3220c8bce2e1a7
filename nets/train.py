"""AlphaZero training in a run folder that survives a crash [AlphaDDA App. 1.3, eq. 10, Table A1].

Each iteration: *Self-play* (N_self games at once, `nets.selfplay`), *Augmentation* (board
symmetries), the examples join a queue of the last N_queue positions, *Learning* (N_epoch passes
over the queue in shuffled mini-batches of N_batch, SGD with momentum and weight decay, loss
eq. 10: (c_win - v)^2 - pi^T log p). The run folder:

    config.json     the TrainConfig, written once; a resumed run must ask for the same one
    checkpoint.pt   all a run needs to go on after its last finished iteration: weights, optimizer,
                    replay queue, the best net so far, the per-iteration history (written atomically)
    net.pt, best.pt the latest and the best network as sparring checkpoints (az:net=DIR/net.pt)
    log.jsonl       one line per finished iteration (rewritten from checkpoint.pt on resume)

Iteration i draws its games and its shuffles from (seed, i) alone, so a run killed at any moment
and resumed ends with the same weights as a run never stopped (on the CPU with the same threads;
CUDA's convolution backward passes are not deterministic). One process at a time trains in a
folder (a lock file, `.lock`). checkpoint.pt is large (the queue: 4-25 MB); a run moved to a new machine
with its small files alone (config.json, log.jsonl, net.pt, best.pt: well under 1 MB to commit) goes on
from net.pt's weights with the queue refilled by self-play and SGD's momentum afresh, and says so in the
first iteration's log line (`regenerated`): not the weights of a run never stopped, but its next iterations.

Where the paper is silent we follow the authors' code (github.com/KazuhisaFujita/AlphaDDA,
AlphaZero/*/train_mp.py, read for facts): a simulation leaves the root by a random child with
probability epsilon; the first T_opening plies use eq. (9), later ones the most visited move;
a mini-batch is N_batch positions and an epoch one pass over the queue. Two differences: our SGD
keeps its momentum from one iteration to the next (theirs starts afresh every iteration), and the
learning rate is 0.02, not Table A1's 0.2: at 0.2 the value head of the small net died within
three iterations (constant output, value loss stuck at 1.11 on a 12,620-position Connect4 queue,
where 0.02 brought it to 0.37 in 8 epochs; docs/deviations.md).
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from filelock import FileLock, Timeout

import games
from games.rng import derive_seeds
from nets.checkpoint import load, save, write_atomically
from nets.evaluator import NetEvaluator, _device, check_chunk
from nets.model import build
from nets.selfplay import Examples, augment, join, play_share, self_play

_A1 = {"c_puct": 1.25, "eps": 0.2, "epochs": 1, "batch": 2048, "lr": 0.02, "momentum": 0.9, "weight_decay": 1e-4}
_KEYS = ("iterations", "games", "simulations", "t_opening", "tau", "queue")
TABLE_A1 = {
    "connect4": {**dict(zip(_KEYS, (600, 30, 200, 4, 50.0, 20000))), **_A1},
    "othello6": {**dict(zip(_KEYS, (600, 10, 200, 4, 20.0, 20000))), **_A1},
    "othello": {**dict(zip(_KEYS, (700, 10, 400, 6, 40.0, 50000))), **_A1},
}
"""AlphaDDA Table A1 per game (N_iter, N_self, N_sim, T_opening, tau, N_queue, C_puct, epsilon, N_epoch,
N_batch, momentum, weight decay; the learning rate is ours, see above). Breakthrough, Knightthrough, Connect 5, Sheep
and Wolf, 9x9 Go, Checkers, Pentago, 3D Tic-Tac-Toe, Quad and TTCC4 are not in the paper: they train with Othello's (the
first six) and 6x6 Othello's."""
TABLE_A1["breakthrough"] = TABLE_A1["othello"]
TABLE_A1["pentago"] = TABLE_A1["othello6"]
TABLE_A1["pentago_ggp"] = TABLE_A1["othello6"]
TABLE_A1["knightthrough"] = TABLE_A1["othello"]
TABLE_A1["connect5"] = TABLE_A1["othello"]
TABLE_A1["tictactoe3d"] = TABLE_A1["othello6"]
TABLE_A1["sheepandwolf"] = TABLE_A1["othello"]
TABLE_A1["quad"] = TABLE_A1["othello6"]
TABLE_A1["go9"] = TABLE_A1["othello"]
TABLE_A1["checkers"] = TABLE_A1["othello"]
TABLE_A1["chinook"] = TABLE_A1["othello"]
TABLE_A1["ttcc4_2p"] = TABLE_A1["othello6"]


# settings added after run folders existed, with the value a folder without them ran with
ADDED_LATER = {
    "cap_fast": 0,
    "cap_share": 0.25,
    "random_plies": 0,
    "opening_share": 0.0,
    "value_mix": 0.0,
    "reuse": 0.0,
    "augment": True,
}


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides what a run computes; a run folder keeps one for its whole life."""

    game: str
    kind: str = "resnet"  # nets.ARCHITECTURES (runs from before kinds existed: resnet)
    size: str = "small"  # nets.SIZES[game]
    filters: int | None = None  # overrides of the size's body (tiny nets in tests)
    blocks: int | None = None
    games: int = 30  # N_self, played at once
    simulations: int = 200  # N_sim
    c_puct: float = 1.25
    t_opening: int = 4
    tau: float = 50.0
    eps: float = 0.2  # a simulation leaves the root by a random child (authors' code)
    noise: float = 0.0  # AlphaZero's Dirichlet noise weight at the root (not in the paper)
    alpha: float = 0.3
    leaves: int = 1  # descents per tree and step, virtual loss (1: the paper's sequential search)
    cap_fast: int = 0  # playout cap randomization (nets.selfplay): a fast search's simulations, 0: off (the paper)
    cap_share: float = 0.25  # with it, the share of moves that are full searches, the only ones recorded
    random_plies: int = 0  # random openings (nets.selfplay): the most random moves a game opens with, 0: none
    opening_share: float = 0.0  # with them, the share of the opening's positions searched and recorded, 0: none
    value_mix: float = 0.0  # the search's share of a value target (nets.selfplay), 0: the game's result (the paper)
    augment: bool = True  # learn each position in all its board symmetries (App. 1.3), False: as played only
    chunk: int | None = None  # self-play's forwards in fixed chunks of rows (a run spread over a cluster), else whole
    queue: int = 20000  # N_queue
    epochs: int = 1
    reuse: float = 0.0  # learn on reuse x the iteration's new (augmented) positions drawn from the queue, 0: epochs
    batch: int = 2048
    lr: float = 0.02  # ours, not Table A1's 0.2 (module docstring)
    momentum: float = 0.9
    weight_decay: float = 1e-4
    seed: int = 0
    eval_every: int = 10  # iterations between yardstick matches (0: none)
    init: str | None = None  # a checkpoint whose weights the run starts from (fine-tuning), else seeded ones

    @classmethod
    def for_game(cls, game: str, **overrides) -> TrainConfig:
        """Table A1's settings for `game` (those of its kind for a game with parameters, e.g. `go9(komi=6.5)`), with
        `overrides` (None values ignored)."""
        if games.base_name(game) not in TABLE_A1:
            raise ValueError(
                f"no training settings for {game!r}: AlphaZero trains on sparring's own games ({', '.join(TABLE_A1)}); "
                "a game from outside has no network planes: play it with mcts"
            )
        defaults = {k: v for k, v in TABLE_A1[games.base_name(game)].items() if k != "iterations"}
        return cls(game=game, **{**defaults, **{k: v for k, v in overrides.items() if v is not None}})

    def check(self) -> None:
        """ValueError in one line for a setting that cannot work."""
        games.load(self.game)
        if (self.filters is not None and self.filters < 1) or (self.blocks is not None and self.blocks < 0):
            raise ValueError(f"filters must be at least 1 and blocks 0 or more, got {self.filters} and {self.blocks}")
        build(self.game, self.size, kind=self.kind, **self.net_overrides())  # unknown kind, size or override
        positive = ("games", "leaves", "queue", "epochs")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.simulations < 2:
            raise ValueError(f"simulations must be at least 2 (the first expands the root), got {self.simulations}")
        if self.batch < 2:
            raise ValueError("batch must be at least 2 (batch norm needs two positions)")
        for name in ("eps", "noise", "momentum", "value_mix", "opening_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {getattr(self, name)}")
        for name in ("tau", "lr", "alpha", "c_puct"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for name in ("weight_decay", "t_opening", "random_plies"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")
        check_chunk(self.chunk)
        if self.eval_every < 0:
            raise ValueError(f"eval_every must be 0 (never) or more, got {self.eval_every}")
        if self.cap_fast and not 2 <= self.cap_fast < self.simulations:
            raise ValueError(
                f"cap_fast (a fast search's simulations) must be 0 (off) or from 2 to below simulations "
                f"({self.simulations}), got {self.cap_fast}"
            )
        if not 0.0 < self.cap_share <= 1.0:
            raise ValueError(f"cap_share (the share of full searches) must lie in (0, 1], got {self.cap_share}")
        if self.reuse < 0 or (self.reuse and self.epochs != 1):
            raise ValueError(f"reuse must be 0 (off) or positive, and is given instead of epochs, got {self.reuse}")
        if not self.cap_fast and self.cap_share != ADDED_LATER["cap_share"]:
            raise ValueError("cap_share applies only with cap_fast (the playout cap): give both, or neither")
        if self.opening_share and not self.random_plies:
            raise ValueError("opening_share applies only with random_plies (random openings): give both, or neither")

    def play_settings(self) -> dict:
        """What `nets.selfplay.self_play` takes of these settings (all but the seed)."""
        names = ("games", "simulations", "c_puct", "t_opening", "tau", "eps", "noise", "alpha", "leaves")
        added = ("cap_fast", "cap_share", "random_plies", "opening_share", "value_mix")
        return {k: getattr(self, k) for k in names + added}

    def net_overrides(self) -> dict:
        return {k: v for k, v in (("filters", self.filters), ("blocks", self.blocks)) if v is not None}


class RunError(ValueError):
    """A run folder that cannot be used as asked; the message is one line saying why and what to do."""


class ReplayQueue:
    """The last `capacity` training positions, oldest overwritten first (N_queue)."""

    def __init__(self, game, capacity: int):
        a, shape = game.num_distinct_actions(), (3, *game.board_shape)
        self.planes = np.zeros((capacity, *shape), dtype=np.uint8)
        self.policy = np.zeros((capacity, a), dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.size, self.head = 0, 0

    def add(self, examples: Examples) -> None:
        capacity = len(self.value)
        keep = slice(max(0, len(examples) - capacity), len(examples))
        rows = (self.head + np.arange(keep.stop - keep.start)) % capacity
        self.planes[rows], self.policy[rows], self.value[rows] = (
            examples.planes[keep],
            examples.policy[keep],
            examples.value[keep],
        )
        self.head = int((self.head + len(rows)) % capacity)
        self.size = min(capacity, self.size + len(rows))

    def contents(self) -> Examples:
        return Examples(self.planes[: self.size], self.policy[: self.size], self.value[: self.size])

    def state_dict(self) -> dict:
        arrays = {k: torch.from_numpy(getattr(self, k)) for k in ("planes", "policy", "value")}
        return {**arrays, "size": self.size, "head": self.head}

    def load_state_dict(self, state: dict) -> None:
        for k in ("planes", "policy", "value"):
            getattr(self, k)[:] = state[k].numpy()
        self.size, self.head = int(state["size"]), int(state["head"])


def learn(
    model, optimizer, examples: Examples, *, batch: int, epochs: int, generator: torch.Generator, device: torch.device
) -> dict:
    """`epochs` passes over `examples` in shuffled mini-batches of `batch` with eq. (10)'s loss.

    A last mini-batch of one position is skipped (batch norm cannot train on one). Returns the
    position-weighted mean value loss (c_win - v)^2, policy loss -pi^T log p, and the SGD steps."""
    model.train()
    n, totals, steps, seen = len(examples), np.zeros(2), 0, 0
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator).numpy()
        for start in range(0, n, batch):
            rows = order[start : start + batch]
            if len(rows) < 2:
                continue
            x = torch.from_numpy(examples.planes[rows]).to(device, torch.float32)
            pi = torch.from_numpy(examples.policy[rows]).to(device)
            z = torch.from_numpy(examples.value[rows]).to(device)
            logits, v = model(x)
            loss_v = ((z - v) ** 2).mean()
            loss_p = -(pi * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
            optimizer.zero_grad()
            (loss_v + loss_p).backward()
            optimizer.step()
            totals += len(rows) * np.array([loss_v.item(), loss_p.item()])
            steps += 1
            seen += len(rows)
    model.eval()
    return {"loss_value": totals[0] / max(seen, 1), "loss_policy": totals[1] / max(seen, 1), "steps": steps}


class Run:
    """A training run in a folder: created fresh or resumed from its last finished iteration.

    Args:
        folder: the run folder (created if missing; an existing one must hold a run of the same config).
        config: the run's settings (TrainConfig.for_game gives Table A1's).
        device: "auto", "cpu", "cuda" or "cuda:N", where self-play and learning run; not part of the
            config, so a run may move between machines.
        provenance: plain data recorded in every network the run writes (command, commit, versions).
        spread, shares: self-play elsewhere. spread(function, calls, shared) returns [function(*call) for call
            in calls], run on other machines with the arguments in `shared` sent to each once (the top layer's
            cluster: tuner.match.cluster.spread). Each iteration's games go there in `shares` parts by index
            (nets.selfplay.play_share), played on the CPU in config.chunk rows per forward: the games this
            machine's CPU plays with that chunk, where the workers' CPUs and torch build are its own. None: here.
    """

    def __init__(
        self,
        folder,
        config: TrainConfig,
        *,
        device: str = "auto",
        provenance: dict | None = None,
        spread=None,
        shares: int = 1,
    ):
        config.check()
        if spread is not None and config.chunk is None:
            raise RunError(
                f"{folder} forwards its self-play batches whole (no chunk), so games played apart would differ "
                "from those played here: train on a cluster into a new --out (it takes a chunk)"
            )
        if shares < 1:
            raise ValueError(f"shares must be at least 1, got {shares}")
        self.spread, self.shares = spread, shares
        self.folder, self.config = Path(folder), config
        self.device = _device(device)
        self.provenance = dict(provenance or {})
        self.game = games.load(config.game)
        start = self._start_net()
        self._open_folder()
        self._lock = FileLock(self.folder / ".lock")
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise RunError(f"another process is training in {self.folder}; wait for it or stop it first") from None
        try:
            self._load(start)
        except BaseException:
            self.close()
            raise

    def _load(self, start) -> None:
        """The fresh net, optimizer and queue, then the folder's checkpoint over them if it has one,
        else the weights of `start` (the net of config.init) if given."""
        config = self.config
        for leftover in self.folder.glob(".*.tmp"):  # a write cut short by a kill
            leftover.unlink()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed)
            self.model = build(config.game, config.size, kind=config.kind, **config.net_overrides())
        self.model.to(self.device)
        self.optimizer = torch.optim.SGD(
            self.model.parameters(), lr=config.lr, momentum=config.momentum, weight_decay=config.weight_decay
        )
        self.queue = ReplayQueue(self.game, config.queue)
        self.iteration, self.history, self.regenerated = 0, [], False
        if (self.folder / "checkpoint.pt").exists():
            self._resume()
        elif _read_log(self.folder / "log.jsonl"):
            self._regenerate()
        elif start is not None:
            self.model.load_state_dict(start.state_dict())
            self.provenance["init"] = start.meta["provenance"]
        if self.iteration == 0:
            self.best_iteration, self.best_state = 0, _copy_state(self.model)
        if self.earlier_lr is not None:
            self._change_lr()
        self._export()
        self.evaluator = NetEvaluator(self.model, device=str(self.device), chunk=self.config.chunk)

    def _start_net(self):
        """The net of `config.init` when the run starts from it (checked before the folder is touched), else None: a
        run that has begun goes on from its own files (on a new machine the init file need not be there)."""
        config = self.config
        if config.init is None or any((self.folder / name).exists() for name in ("checkpoint.pt", "log.jsonl")):
            return None
        try:
            start = load(config.init, game=config.game)
        except ValueError as e:
            raise RunError(str(e)) from None
        with torch.random.fork_rng(devices=[]):  # leaves the caller's random stream alone
            fresh = build(config.game, config.size, kind=config.kind, **config.net_overrides())
        if start.arch != fresh.arch:
            raise RunError(
                f"--init {config.init} is a {start.describe()}, but this run builds a {fresh.describe()}: "
                f"give --size, --filters and --blocks to match it"
            )
        return start

    def _open_folder(self) -> None:
        path = self.folder / "config.json"
        wanted = dataclasses.asdict(self.config)
        if path.exists():
            try:
                stored = json.loads(path.read_text())
            except (OSError, ValueError) as e:
                raise RunError(f"{path} is unreadable ({e}); restore it or start a new run with another --out") from e
            stored = {**ADDED_LATER, **stored}  # a run from before these settings ran without them
            # the one setting a run may change when it goes on: the learning rate, stepped down as a schedule would
            changed = [f"{k} {stored.get(k)!r} -> {v!r}" for k, v in wanted.items() if stored.get(k) != v and k != "lr"]
            self.earlier_lr = stored["lr"] if stored["lr"] != wanted["lr"] else None
            if changed:
                raise RunError(
                    f"{self.folder} holds a run with other settings ({'; '.join(changed)}): "
                    f"resume it with the same settings, or train into a new --out"
                )
            return
        self.earlier_lr = None
        if self.folder.exists() and any(not p.name.startswith(".") for p in self.folder.iterdir()):
            raise RunError(f"{self.folder} is not empty and holds no training run (no config.json): use a new --out")
        self.folder.mkdir(parents=True, exist_ok=True)
        self._write_config()

    def _write_config(self) -> None:
        text = json.dumps(dataclasses.asdict(self.config), indent=1).encode()
        write_atomically(self.folder / "config.json", lambda f: f.write(text))

    def _write_log(self) -> None:
        lines = "".join(json.dumps(r) + "\n" for r in self.history).encode()
        write_atomically(self.folder / "log.jsonl", lambda f: f.write(lines))

    def _change_lr(self) -> None:
        """Go on at the rate given, the optimizer having restored the earlier one; a log's lines from before each
        line recorded its rate get the rate they ran at, then config.json takes the new one."""
        for group in self.optimizer.param_groups:
            group["lr"] = self.config.lr
        if any("lr" not in r for r in self.history):
            for r in self.history:
                r.setdefault("lr", self.earlier_lr)
            self._write_log()
        self._write_config()

    def _resume(self) -> None:
        path = self.folder / "checkpoint.pt"
        try:
            blob = torch.load(path, map_location=self.device, weights_only=True)
            self.model.load_state_dict(blob["model"])
            self.optimizer.load_state_dict(blob["optimizer"])
            self.queue.load_state_dict({k: v.cpu() if torch.is_tensor(v) else v for k, v in blob["queue"].items()})
            self.best_state = blob["best_state"]
            self.iteration, self.best_iteration = int(blob["iteration"]), int(blob["best_iteration"])
            self.history = json.loads(blob["history"])
            if "init" in blob:
                self.provenance["init"] = json.loads(blob["init"])
        except Exception as e:  # any damage: say so, never start over silently
            why = " ".join(str(e).split())[:200]
            raise RunError(f"{path} cannot be read ({why}); restore it, or start a new run with another --out") from e
        self.model.eval()
        self._write_log()

    def _regenerate(self) -> None:
        """Go on without checkpoint.pt: the weights of net.pt, the best net of best.pt, the history of log.jsonl;
        the queue starts empty and refills by self-play, the optimizer's momentum starts afresh."""
        history, path = _read_log(self.folder / "log.jsonl"), self.folder / "net.pt"
        if not path.exists():
            raise RunError(
                f"{self.folder} holds a run's log but neither checkpoint.pt nor net.pt: restore one of them (net.pt "
                "goes on from its weights), or start a new run with another --out"
            )
        try:
            net = load(path, game=self.config.game)
        except ValueError as e:
            raise RunError(f"{self.folder} has no checkpoint.pt, and {e}") from None
        if net.arch != self.model.arch:
            raise RunError(
                f"{self.folder} has no checkpoint.pt, and its net.pt is a {net.describe()} where the run builds a "
                f"{self.model.describe()}: restore the run's own net.pt, or start a new run with another --out"
            )
        iteration = int(net.meta["provenance"].get("iteration", 0))
        if [r["iteration"] for r in history] != list(range(1, iteration + 1)):
            raise RunError(
                f"{self.folder} has no checkpoint.pt, and its net.pt is at iteration {iteration} where log.jsonl "
                f"ends at {history[-1]['iteration']}: restore checkpoint.pt, or start a new run from the net with "
                f"--init {path} and another --out"
            )
        self.model.load_state_dict(net.state_dict())
        self.iteration, self.history, self.regenerated = iteration, history, True
        self.best_iteration, self.best_state = iteration, _copy_state(self.model)
        if (self.folder / "best.pt").exists():
            try:
                best = load(self.folder / "best.pt", game=self.config.game)
                self.best_iteration = int(best.meta["provenance"]["iteration"])
                if best.arch != self.model.arch or not 0 <= self.best_iteration <= iteration:
                    raise ValueError(f"a {best.describe()} of iteration {self.best_iteration}, not this run's")
            except (ValueError, KeyError, TypeError) as e:
                why = e if isinstance(e, ValueError) else "it records no iteration"
                raise RunError(
                    f"{self.folder} has no checkpoint.pt, and its best.pt cannot serve ({why}): restore it, or delete "
                    "it to go on with net.pt as the best so far"
                ) from None
            self.best_state = best.state_dict()
        if "init" in net.meta["provenance"]:
            self.provenance["init"] = net.meta["provenance"]["init"]
        self.model.eval()

    def _checkpoint(self) -> None:
        blob = {
            "iteration": self.iteration,
            "model": _copy_state(self.model),
            "optimizer": self.optimizer.state_dict(),
            "queue": self.queue.state_dict(),
            "best_state": self.best_state,
            "best_iteration": self.best_iteration,
            "history": json.dumps(self.history),
            **({"init": json.dumps(self.provenance["init"])} if "init" in self.provenance else {}),
        }
        buffer = io.BytesIO()
        torch.save(blob, buffer)
        write_atomically(self.folder / "checkpoint.pt", lambda f: f.write(buffer.getbuffer()))

    def _export(self) -> None:
        """net.pt and best.pt from the state in memory (after a resume: the last finished iteration)."""
        save(self.folder / "net.pt", self.model, self._provenance(self.iteration))
        current = _copy_state(self.model)
        self.model.load_state_dict(self.best_state)
        save(self.folder / "best.pt", self.model, self._provenance(self.best_iteration))
        self.model.load_state_dict(current)

    def _provenance(self, iteration: int) -> dict:
        games_played = sum(r["games"] for r in self.history[:iteration])
        seconds = sum(r["self_play_seconds"] + r["learn_seconds"] for r in self.history[:iteration])
        return {
            **self.provenance,
            "trained": iteration > 0,
            "iteration": iteration,
            "self_play_games": games_played,
            "training_seconds": round(seconds, 1),
            "config": dataclasses.asdict(self.config),
        }

    def _cpu_copy(self):
        """The net as it stands, on the CPU (built there: a copy on the device first would double its memory)."""
        c = self.config
        with torch.random.fork_rng(devices=[]):
            model = build(c.game, c.size, kind=c.kind, **c.net_overrides())
        model.load_state_dict({k: v.cpu() for k, v in self.model.state_dict().items()})
        return model.eval()

    def close(self) -> None:
        """Let another process (or Run) train in the folder."""
        self._lock.release()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _learning_set(self, added: int, generator: torch.Generator) -> Examples:
        """What the iteration learns on: the whole queue (N_epoch passes), or with `reuse` that many times the
        iteration's new positions drawn from it at random, so that a position is learnt about `reuse` times while it
        is queued (the whole queue, once an iteration, learns each position N_queue / new times: on Connect4 about 12
        times, and 52 with the playout cap)."""
        queued = self.queue.contents()
        if not self.config.reuse:
            return queued
        rows = torch.randperm(len(queued), generator=generator)[: round(self.config.reuse * added)].numpy()
        return Examples(queued.planes[rows], queued.policy[rows], queued.value[rows])

    def step(self, evaluate=None) -> dict:
        """Run one iteration and commit it to the folder; return its history record.

        evaluate(iteration, net_path, best_path) -> dict with a bool "promote" is called when the
        iteration is a multiple of eval_every; its record joins the history, and "promote" makes the
        new net the best one. After an exception the folder holds the last committed iteration but
        this object does not: close it and open the folder again to go on."""
        c, i = self.config, self.iteration + 1
        play_seed, learn_seed = derive_seeds(c.seed, i, count=2, bits=64)
        start = time.perf_counter()
        settings = {**c.play_settings(), "seed": play_seed}
        if self.spread is None:
            examples, stats = self_play(self.game, self.evaluator, **settings)
        else:
            model = self._cpu_copy()  # what the workers play with
            shares = np.array_split(np.arange(c.games), min(c.games, self.shares))
            calls = [(model, share.tolist(), c.chunk, settings) for share in shares]
            examples, stats = join(self.spread(play_share, calls, (model,)))
        played = time.perf_counter()
        added = augment(self.game, examples) if c.augment else examples
        self.queue.add(added)
        generator = torch.Generator().manual_seed(learn_seed)
        losses = learn(
            self.model,
            self.optimizer,
            self._learning_set(len(added), generator),
            batch=c.batch,
            epochs=c.epochs,
            generator=generator,
            device=self.device,
        )
        learned = time.perf_counter()
        record = {
            "iteration": i,
            **({"regenerated": True} if self.regenerated else {}),  # the first after going on without checkpoint.pt
            "seed": play_seed,  # the iteration's games replay from it (nets.selfplay.self_play)
            "games": stats.games,
            "positions": stats.positions,
            "moves": stats.moves,
            "first_wins": stats.first_wins,
            "draws": stats.draws,
            "queue": self.queue.size,
            "lr": c.lr,
            **{k: round(v, 5) if isinstance(v, float) else v for k, v in losses.items()},
            "self_play_seconds": round(played - start, 3),
            "learn_seconds": round(learned - played, 3),
            "positions_per_second": round(stats.positions / (played - start), 1),
            "moves_per_second": round(stats.moves / (played - start), 1),  # above it with the playout cap
            "simulations_per_second": round(stats.simulations / (played - start), 1),
        }
        self.iteration, self.regenerated = i, False
        self.history.append(record)
        save(self.folder / "net.pt", self.model, self._provenance(i))
        if evaluate is not None and c.eval_every and i % c.eval_every == 0:
            result = evaluate(i, self.folder / "net.pt", self.folder / "best.pt")
            record["eval"] = result
            if result.get("promote"):
                self.best_iteration, self.best_state = i, _copy_state(self.model)
        record["seconds"] = round(time.perf_counter() - start, 3)
        self._checkpoint()  # the commit point: a crash before it redoes iteration i from the same seeds
        with open(self.folder / "log.jsonl", "a") as f:
            f.write(json.dumps(record) + "\n")
        if record.get("eval", {}).get("promote"):
            save(self.folder / "best.pt", self.model, self._provenance(i))
        return record


def _read_log(path: Path) -> list[dict]:
    """The iterations of a run's log.jsonl (none if missing), up to a torn last line that a kill left half-written."""
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return rows


def _copy_state(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}
