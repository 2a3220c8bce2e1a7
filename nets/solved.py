"""A Connect4 net scored against exact values: the shipped solved test set (nets/data/connect4_solved.csv).

The file holds 1,000 random reachable positions at plies 8-30 with their exact values and best
moves, written by `scripts/make_connect4_solved.py` with the bitbully solver (see there). Scoring a
net needs no solver: one forward over the positions gives
- sign accuracy: on won and lost positions, how often the value head's sign is the true one;
- draws: on drawn positions, how often |v| < 0.5;
- top move keeps the value: how often the policy's most likely legal move keeps the position's
  win, draw or loss, counted where some legal move would not (elsewhere every move does);
- top move is best: how often it is a move of the best score (the fastest win or slowest loss);
and, with a search's budget, how often the root value of a PUCT search over the net has the true sign (what searched
openings teach the head, nets.selfplay). Both signs are also given by band of plies (`PLY_BANDS`): a net trained on
openings of up to k random plies may read the positions past k far worse.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

import numpy as np
import torch

import games
from nets.evaluator import NetEvaluator
from nets.train import TABLE_A1
from search.puct import PUCT, Request

PLY_BANDS = ((8, 13), (14, 19), (20, 25), (26, 30))  # the test set's plies in four bands


@dataclass(frozen=True)
class SolvedPosition:
    moves: str  # columns played from the empty board
    value: int  # exact score for the player to move: > 0 win, 0 draw, < 0 loss
    best: str  # moves of the best score
    keeps: str  # moves that keep the game-theoretic value


def random_position(game, rng: np.random.Generator, low: int = 8, high: int = 30):
    """A uniformly random legal game from the start, stopped at a ply drawn uniformly from [low, high], or None if
    it ended first: how the test set's positions were drawn (scripts/make_connect4_solved.py)."""
    state, ply = game.new_initial_state(), int(rng.integers(low, high + 1))
    while len(state.history()) < ply and not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    return None if state.is_terminal() else state


def value_signs_right(model, planes: np.ndarray, truth: np.ndarray) -> float:
    """How often `model`'s value has the sign `truth` (+1 won, -1 lost, per position) on the positions not drawn
    (truth 0), encoded as `planes`."""
    decided = truth != 0
    with torch.inference_mode():
        _, v = model(torch.from_numpy(planes[decided]).float())
    return float((np.sign(v.numpy()) == truth[decided]).mean())


def score_search_on_solved(
    model, simulations: int, positions: list[SolvedPosition] | None = None, *, seed: int = 0, device: str = "cpu"
) -> dict:
    """How often the root value of a PUCT search of `simulations` over `model`, as self-play searches (Table A1's
    C_puct and eps), has the true sign on the decided ones of `positions` (the shipped set by default), overall and
    by band of plies."""
    if simulations < 2:
        raise ValueError(f"a search needs at least 2 simulations (the first expands the root), got {simulations}")
    positions = load_solved() if positions is None else positions
    decided = [p for p in positions if p.value != 0]
    game, settings = games.load("connect4"), TABLE_A1["connect4"]
    evaluator = NetEvaluator(model, game="connect4", device=device)
    puct = PUCT(game, evaluator, games=len(decided), c_puct=settings["c_puct"], root_eps=settings["eps"])
    requests = []
    for row, p in enumerate(decided):
        puct.reset(row, seed=seed + row)
        requests.append(Request(row, replayed(game, p.moves), simulations))
    with torch.inference_mode():
        scores = np.array([r.score() for r in puct.search(requests)])
    right = (scores - 0.5) * np.array([p.value for p in decided]) > 0
    return {
        "search_simulations": simulations,
        "search_sign_accuracy": float(right.mean()),
        "search_sign_by_plies": by_plies(right, decided),
    }


def by_plies(right: np.ndarray, positions: list[SolvedPosition]) -> dict[str, float]:
    """The share of `right` (one flag per position) in each of `PLY_BANDS` that holds some of `positions`."""
    plies = np.array([len(p.moves) for p in positions])
    bands = {f"{low}-{high}": (plies >= low) & (plies <= high) for low, high in PLY_BANDS}
    return {name: float(right[band].mean()) for name, band in bands.items() if band.any()}


def replayed(game, moves: str):
    """The position after the columns `moves` from the empty board."""
    state = game.new_initial_state()
    for ch in moves:
        state.apply_action(int(ch))
    return state


def load_solved() -> list[SolvedPosition]:
    """The shipped test set."""
    text = resources.files("nets").joinpath("data/connect4_solved.csv").read_text()
    rows = csv.DictReader(text.splitlines())
    return [SolvedPosition(r["moves"], int(r["value"]), r["best"], r["keeps"]) for r in rows]


def score_on_solved(model, positions: list[SolvedPosition] | None = None, *, device: str = "cpu") -> dict:
    """The module docstring's measures of a Connect4 net on `positions` (the shipped set by default)."""
    positions = load_solved() if positions is None else positions
    game = games.load("connect4")
    evaluator = NetEvaluator(model, game="connect4", device=device)
    batch = evaluator.new_batch(game, len(positions))
    legal = []
    for row, p in enumerate(positions):
        state = replayed(game, p.moves)
        batch.put(row, state)
        legal.append(len(state.legal_actions()))
    with torch.inference_mode():
        evaluator.evaluate(batch, len(positions))
    values = batch.values[: len(positions)]
    top = batch.priors[: len(positions)].argmax(axis=1)
    truth = np.sign([p.value for p in positions])
    decided = truth != 0
    some_lose = np.array([len(p.keeps) < n for p, n in zip(positions, legal)])
    keeps = np.array([str(a) in p.keeps for a, p in zip(top, positions)])
    best = np.array([str(a) in p.best for a, p in zip(top, positions)])
    right = np.sign(values[decided]) == truth[decided]
    return {
        "positions": len(positions),
        "sign_accuracy": float(right.mean()),
        "sign_by_plies": by_plies(right, [p for p in positions if p.value]),
        "decided": int(decided.sum()),
        "draws_near_zero": float((np.abs(values[~decided]) < 0.5).mean()) if (~decided).any() else float("nan"),
        "draws": int((~decided).sum()),
        "top_move_keeps_value": float(keeps[some_lose].mean()),
        "nontrivial": int(some_lose.sum()),
        "top_move_is_best": float(best.mean()),
    }
