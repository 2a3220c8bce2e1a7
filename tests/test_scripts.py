"""Every experiment and benchmark script runs, as a module, at a tiny budget: none of them can rot."""

import math
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.phases import X86

ROOT = Path(__file__).resolve().parent.parent

SCRIPTS = [
    ("experiments.sa_mcts", ["--quick", "--tables", "5", "--workers", "1", "--out", "{tmp}"]),
    ("experiments.strength", ["--quick", "--out", "{tmp}"]),
    ("experiments.alphadda", ["tables", "--quick", "--out", "{tmp}"]),
    ("experiments.alphadda", ["strength", "--quick", "--anchors", "paper", "--out", "{tmp}"]),
    ("benchmarks.cold_start", ["--scenarios", "demo", "--json", "{tmp}/out.json"]),
    ("benchmarks.playouts", ["--seconds", "0.01", "--rounds", "1", "--json", "{tmp}/out.json"]),
    ("benchmarks.search", ["--quick", "--json", "{tmp}/out.json"]),
    ("benchmarks.evaluator", ["--quick", "--json", "{tmp}/out.json"]),
    ("benchmarks.forward", ["--games", "connect4", "--sizes", "small", "--rounds", "1", "--json", "{tmp}/out.json"]),
    (
        "benchmarks.forward",
        ["--layouts", "--games", "connect4", "--sizes", "small", "--rounds", "1", "--batch", "8"]
        + ["--json", "{tmp}/out.json"],
    ),
    (  # a compiled strategy and pycma's: each compiled one is a variant of its own to compile
        "benchmarks.tuning_overhead",
        [
            "--simulations",
            "30",
            "--rounds",
            "1",
            "--steps",
            "99",
            "--strategies",
            "nmc,cmaes",
            "--json",
            "{tmp}/o.json",
        ],
    ),
    (
        "benchmarks.dda_tuning",
        [
            "--agents",
            "mcts:simulations=5,dsa=fixed",
            "--cycles",
            "3",
            "--rounds",
            "1",
            "--moves",
            "1",
            "--json",
            "{tmp}/o.json",
        ],
    ),
    ("experiments.judge_noise", ["--games", "1", "--out", "{tmp}"]),
    (
        "experiments.value_ceiling",
        ["--positions", "30", "--chunk", "10", "--held-out", "10", "--sizes", "20", "--bodies", "4x1", "--epochs", "1"]
        + ["--data", "{tmp}/data", "--out", "{tmp}"],
    ),
    (
        "experiments.optimal_moves",
        ["--agents", "mcts:simulations=20", "--opponents", "random", "--games", "2", "--out", "{tmp}/o.json"],
    ),
    (
        "experiments.dropout_damage",
        ["--opponents", "random", "--games", "2", "--positions", "8", "--draws", "1", "--searches", "2"]
        + ["--out", "{tmp}"],
    ),
    (
        "experiments.dda_reward",
        ["--seeds", "1", "--games", "2", "--pulls", "0.2", "--steps", "0.05", "--noises", "0", "--out", "{tmp}"],
    ),
    (
        "experiments.profile_convergence",
        [
            "--games",
            "2",
            "--repetitions",
            "1",
            "--opponent",
            "mcts:simulations=10,dsa=both,dda_target=0.6",
            "--out",
            "{tmp}",
        ],
    ),
    ("benchmarks.value_history", ["--games", "2", "--simulations", "4", "--rounds", "1", "--json", "{tmp}/o.json"]),
    (
        "experiments.online_dda",
        [
            "tables",
            "--games",
            "1",
            "--configs",
            "fixed-nmc",
            "dsa-both",
            "--options",
            "simulations=4",
            "--out",
            "{tmp}",
        ],
    ),
    (
        "experiments.online_dda",
        ["shift", "--games", "1", "--repeats", "2", "--configs", "alphadda1-ntbea", "--options", "simulations=4"]
        + ["--out", "{tmp}"],
    ),
    ("benchmarks.outside", ["--simulations", "20", "--rounds", "1", "--json", "{tmp}/outside.json"]),
    ("benchmarks.phases", ["--simulations", "50", "--rounds", "1", "--json", "{tmp}/phases.json"]),
    (
        "benchmarks.samplers",
        ["--seeds", "2", "--trials", "50", "--problems", "mixed", "--samplers", "ntbea,lsi,tpe", "--retime", "1"]
        + ["--out", "{tmp}"],
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("module, args", SCRIPTS, ids=[" ".join([m, *a[:1]]) for m, a in SCRIPTS])
def test_script_runs_at_a_tiny_budget(module, args, tmp_path):
    command = [sys.executable, "-m", module, *(a.replace("{tmp}", str(tmp_path)) for a in args)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)  # one torch thread: conftest
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert any(tmp_path.iterdir()), "the script wrote nothing"


@pytest.mark.parametrize(
    "module, args, says",
    [
        ("benchmarks.phases", ["--spec", "mcts:nosuch=1"], "nosuch"),
        ("benchmarks.phases", ["--spec", "minimax1"], "does not search with search.mcts"),
        ("benchmarks.ab", ["--against", "HEAD", "--search", "connect4:sp:tuner=nmc"], "tunes on-line"),
        ("benchmarks.ab", ["--against", "HEAD", "--tune", "C+bogus"], "bogus"),
    ],
)
def test_a_benchmark_given_a_spec_it_cannot_time_says_why_in_one_line(module, args, says):
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert says in proc.stderr.strip().splitlines()[-1]


HAS_HISTORY = (
    bool(shutil.which("git"))
    and not subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode
)


@pytest.mark.slow
@pytest.mark.skipif(not HAS_HISTORY, reason="benchmarks.ab reads the other commit from git: this checkout has none")
@pytest.mark.parametrize("mode", [["--steps", "300"], ["--search", "connect4:ap", "--simulations", "300"]])
def test_an_ab_of_a_commit_against_itself_finds_the_same_choices(mode, tmp_path):
    """benchmarks.ab against HEAD (this code, loaded twice) reports the same asks or root visits, and times both."""
    import json

    out = tmp_path / "ab.json"
    command = [sys.executable, "-m", "benchmarks.ab", "--against", "HEAD", "--rounds", "2", *mode, "--json", str(out)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["same"] is True and all(len(ns) == 2 and min(ns) > 0 for ns in result["ns"].values())


@pytest.mark.skipif(
    platform.machine().lower() not in X86,
    reason="benchmarks.phases reads the x86 cycle counter",
)
@pytest.mark.parametrize("spec", ["mcts", "ap", "sp:tuner=ntbea,tune=C+eps"])
def test_the_phase_profile_times_the_search_itself(spec):
    """benchmarks.phases's timed loop grows the very tree the search grows (same seed, same visits and values at
    the root, through a growth of the tree), and every phase it times takes time."""
    import games
    from benchmarks.phases import timed_search
    from search.tree import root_statistics
    from tuner.agents import make_agent

    game = games.load("connect4")
    state = game.new_initial_state()
    state.apply_action(3)
    plain, timed = make_agent(game, spec, seed=5), make_agent(game, spec, seed=5)
    plain.new_game(1)
    timed.new_game(1)
    plain.search.search(state, simulations=10000)
    ticks, depths, opened, _ = timed_search(timed.search, state, 10000)
    for ours, theirs in zip(root_statistics(timed.search.tree), root_statistics(plain.search.tree)):
        np.testing.assert_array_equal(ours, theirs)
    assert timed.search.tree.visits.shape[0] > 4096, "the tree never grew"
    assert (ticks[:, :3] > 0).all() and (ticks[:, 3] > 0).all() == (plain.search.tuners is not None)
    assert depths.max() > 1 and 0 < (opened > 0).mean() < 1


def test_an_alphadda_run_cut_off_goes_on_from_the_games_it_saved(tmp_path, monkeypatch):
    """A run that saved two games of its first match plays only the rest, and its matches are an uninterrupted
    run's, game for game; the runs it returns count the saved games apart (their time unknown: the file kept no
    runs) or as the file recorded them from its own; a partial file of other matches is not used; the file goes at
    the end."""
    import json

    import experiments.alphadda as ex

    matches = [("mcts:simulations=5", "random"), ("random", "mcts:simulations=5")]
    results, runs = ex.play("connect4", matches, 4, 0, "whole")
    whole = [m.to_dict(with_games=True) for m in results]
    assert [r["games"] for r in runs] == [8] and runs[0]["seconds"] > 0
    partial = tmp_path / "tables.partial.json"
    saved = {
        "matches": [[a, b, m, 4] for m, (a, b) in enumerate(matches)],
        "games": [whole[0]["games"][:2], []],
        "states": [[None, None], [None, None]],
    }
    resumed, played, counted = [], [], []
    real = ex.play_matches

    def spy(*args, resume, **kwargs):
        played.append([sorted(r.done) for r in resume])
        return real(*args, resume=resume, **kwargs)

    monkeypatch.setattr(ex, "play_matches", spy)
    earlier = [{"commit": "abc1234", "seconds": 5.0, "games": 2}]
    for file in (saved, {**saved, "runs": earlier}, {**saved, "matches": [["random", "random", 0, 4]] * 2}):
        partial.write_text(json.dumps(file))
        results, runs = ex.play("connect4", matches, 4, 0, "go on", str(partial))
        resumed.append([m.to_dict(with_games=True) for m in results])
        counted.append([(r["commit"] if r is not runs[-1] else "this run", r["games"]) for r in runs])
        assert not partial.exists()
    assert played == [[[0, 1], []], [[0, 1], []], [[], []]] and resumed == [whole, whole, whole]
    assert counted == [[(None, 2), ("this run", 6)], [("abc1234", 2), ("this run", 6)], [("this run", 8)]]


def test_an_alphadda_run_goes_on_only_from_games_of_the_same_nets(tmp_path, monkeypatch):
    """A partial file whose games played another file under the net's name (a better net shipped since) is not
    gone on from: its games would mix two nets in one table. One that played this file is."""
    import json

    import experiments.alphadda as ex
    from tuner.agents import nets_of

    matches = [("az:net=connect4,simulations=2", "random")]
    (results,), _ = ex.play("connect4", matches, 2, 0, "whole")
    digest = nets_of("connect4", ["az:net=connect4"])["connect4"]
    played = []
    real = ex.play_matches

    def spy(*args, resume, **kwargs):
        played.append(sorted(resume[0].done))
        return real(*args, resume=resume, **kwargs)

    monkeypatch.setattr(ex, "play_matches", spy)
    partial = tmp_path / "tables.partial.json"
    for nets in ({"connect4": "0" * 12}, {"connect4": digest}):
        partial.write_text(
            json.dumps(
                {
                    "matches": [[*matches[0], 0, 2]],
                    "nets": nets,
                    "games": [results.to_dict(with_games=True)["games"][:1]],
                    "states": [[None, None]],
                }
            )
        )
        ex.play("connect4", matches, 2, 0, "go on", str(partial))
    assert played == [[], [0]]


def test_an_alphadda_page_counts_the_time_of_every_run_that_played_it():
    import experiments.alphadda as ex

    env = {"commit": "abc1234"}
    one = {"runs": [{"commit": "abc1234", "seconds": 5400.0, "games": 800}], "seconds": 5400.0, "environment": env}
    cut = [{"commit": None, "seconds": None, "games": 1245}, {"commit": "def5678", "seconds": 3600.0, "games": 955}]
    assert ex.played_by(one) == "90 min, commit abc1234"
    assert ex.played_by({**one, "runs": cut}) == (
        "2 runs: 1245 games before runs were recorded; 955 games at def5678, 60 min"
    )
    assert ex.played_by({"seconds": 60.0, "environment": env}) == "1 min, commit abc1234"  # a page of before runs


def test_alphadda_tables_as_the_authors_ran_them(monkeypatch):
    """--flavour authors: N_h capped at 2 (Tables 1-3 give Connect4 3, 1 and 5), AlphaDDA2 reading through its
    damaged net up to 0.99, and MCTS1-4 with the code's UCT; the paper flavour keeps the tables' points and plain
    MCTS1-4."""
    import argparse

    import experiments.alphadda as ex

    monkeypatch.setattr(ex, "play", lambda *args: ([], []))  # the specs only, no games
    for flavour in ("authors", "paper"):
        specs = ex.tables(
            argparse.Namespace(game="connect4", quick=False, flavour=flavour, games=2, seed=0, partial=None)
        )["specs"]
        nh = {a: [k for k in specs[a].split(",") if k.startswith("nh=")] for a in ex.ADJUSTERS}
        if flavour == "authors":
            assert nh == {"alphadda1": ["nh=2"], "alphadda2": ["nh=1"], "alphadda3": ["nh=2"], "alphadda1z": []}
            assert [specs[f"mcts{i}"] for i in range(1, 5)] == [f"mcts{i}:uct=code" for i in range(1, 5)]
            assert specs["alphadda2"].endswith(",history=damaged,p_max=0.99")  # AlphaDDA2.py's reading and clamp
        else:
            assert all(v == [] for v in nh.values()) and specs["mcts3"] == "mcts3"
            assert "history" not in specs["alphadda2"] and "p_max" not in specs["alphadda2"]
        assert specs["minimax1"] == ("minimax1:tree=code" if flavour == "authors" else "minimax1")
        assert "uct" not in specs["az"]


def test_alphadda_authors_page_says_how_its_own_run_played():
    """The authors' flavour gained AlphaDDA2's damaged reading and their Minimax after its connect4-v1 page was
    played: each page names, and lists the spec of, what its own run played and nothing it did not."""
    import json

    import experiments.alphadda as ex

    def flavour_line(name):
        with open(f"experiments/results/alphadda/{name}.json") as f:
            page = ex.tables_report(json.load(f), "connect4")
        return next(line for line in page.splitlines() if line.startswith("As the authors'"))

    now, before = flavour_line("tables-connect4-authors"), flavour_line("tables-connect4-authors-v1")
    assert "damaged net" in now and "worst leaf" in now and "minimax2 `minimax2:tree=code`" in now
    assert "damaged" not in before and "worst leaf" not in before and "minimax" not in before
    assert "mcts4 `mcts4:uct=code`" in now and "mcts4 `mcts4:uct=code`" in before and "az `" not in now


def test_dropout_records_the_seat_and_the_p_drop_of_table_2_at_each_alphadda2_move():
    """Each recorded move of AlphaDDA2 is its own (seat 0 moves at even plies) and carries the v̄ c and P_drop that
    Table 2's Connect4 row gives from the clean net's value of that position (N_h 1): P_drop = 10 (v - 0.2) in
    [0, 0.95], computed here from the net, not read from the adjuster."""
    import games
    from experiments.dropout_damage import play
    from nets.shipped import make_evaluator
    from search.evaluator import clean_values

    game = games.load("connect4")
    spec = "az:net=connect4,simulations=8,dda=alphadda2,eps=0.2"
    records = play(game, spec, "random", 2, 5)
    assert [r["seat"] for r in records] == [0, 1]
    evaluator = make_evaluator(None, game, device="cpu")
    for r in records:
        assert r["moves"] and all(ply % 2 == r["seat"] for ply, _, _ in r["moves"])
        at = [r["positions"][ply] for ply, _, _ in r["moves"]]
        values = clean_values(evaluator, evaluator.new_batch(game, len(at)), at)
        for (_, mean, p), v in zip(r["moves"], values):  # a forward's rounding depends on its batch size
            assert math.isclose(mean, v, abs_tol=1e-5)
            assert math.isclose(p, min(0.95, max(0.0, 10 * (v - 0.2))), abs_tol=1e-4)


def test_dropout_drive_shares_by_hand():
    """AlphaDDA2's P_drop over its moves: shares clean / in between / at P_max, means, first moves, thirds."""
    from experiments.dropout_damage import drive

    records = [
        {"seat": 0, "outcome": 1.0, "moves": [(0, 0.5, 0.95), (2, 0.1, 0.0), (4, 0.25, 0.5)]},
        {"seat": 0, "outcome": -1.0, "moves": [(0, 0.3, 0.95)]},
    ]
    d = drive(records, 0.95)
    assert (d["games"], d["moves"], d["score"]) == (2, 4, 0.5)
    assert (d["clean"], d["between"], d["at_p_max"]) == (0.25, 0.25, 0.5)
    assert math.isclose(d["mean_p_drop"], 0.6) and math.isclose(d["mean_value"], 0.2875)
    assert d["first_move_p_drop"] == 0.95 and d["at_p_max_by_third"] == [1.0, 0.0, 0.0]


def test_dropout_search_judges_moves_by_the_solver():
    """Known truths: at the start only the centre keeps Connect4's first-player win [Allis 1988]; facing three
    stacked in column 0, only the block keeps the value; a position every move of which keeps the value is not
    counted. The searched subset is spread over the whole sample (every opponent and stage), not its head."""
    pytest.importorskip("bitbully")
    import games
    from experiments.dropout_damage import _keeping_moves, _share_kept, spread

    game = games.load("connect4")
    start, threat, won = game.new_initial_state(), game.new_initial_state(), game.new_initial_state()
    for a in (0, 1, 0, 1, 0):
        threat.apply_action(a)
    for a in (3, 0, 3, 0, 3, 1):  # three stacked in the centre, the first player to move: every move wins
        won.apply_action(a)
    keeps = _keeping_moves([start, threat, won])
    assert keeps[0] == {3} and keeps[1] == {0} and 2 not in keeps
    assert _share_kept(keeps, [3, 0, 3]) == 1.0 and _share_kept(keeps, [2, 0, 3]) == 0.5
    assert spread(list(range(10)), 3) == [0, 3, 6] and spread([1, 2], 5) == [1, 2]


def test_dropout_search_finds_the_win_in_one_clean_and_reports_every_p_drop():
    """Known truth: with three of its own stacked in column 0 and the opponent's three in column 1, the first player
    wins by playing 0 and loses by anything else. Both clean searches take the win (kept value 1.0, the same move);
    every P_drop gets a row of shares."""
    pytest.importorskip("bitbully")
    import games
    from experiments.dropout_damage import PROBABILITIES, searched

    game = games.load("connect4")
    state = game.new_initial_state()
    for a in (0, 1, 0, 1, 0, 1):
        state.apply_action(a)
    out = searched(game, None, [state], seed=3)
    assert out["decisive"] == 1 and out["clean_keeps_value"] == 1.0 and out["uniform_keeps_value"] == 1 / 7
    assert out["0.0"]["move_kept"] == 1.0 and out["0.0"]["keeps_value"] == 1.0
    for p in PROBABILITIES:
        assert out[str(p)]["move_kept"] == out[str(p)]["keeps_value"]  # the clean move is the only keeping one
        assert 0.0 <= out[str(p)]["score_abs_change"] <= 1.0


def test_dropout_search_plays_each_row_at_its_own_p_drop_seeded_apart(monkeypatch):
    """Each row's agent searches at that row's P_drop (a row left clean would still pass the win-in-one test), and
    every search has a seed of its own: a second clean search seeded as the reference would agree with it on every
    move by construction. Without a solver (6x6 Othello) no value is judged."""
    from types import SimpleNamespace

    import experiments.dropout_damage as dd
    import games

    specs, seeds = [], []

    class Recorder:
        last_search = SimpleNamespace(score=lambda: 0.5)

        def new_game(self, seed):
            seeds.append(seed)

        def select_action(self, state):
            return state.legal_actions()[0]

    def make_agent(game, spec, seed):
        specs.append(spec)
        return Recorder()

    monkeypatch.setattr(dd, "make_agent", make_agent)
    game = games.load("othello6")
    start = game.new_initial_state()
    later = start.clone()
    later.apply_action(later.legal_actions()[0])
    out = dd.searched(game, None, [start, later], seed=5)
    rows = (0.0, *dd.PROBABILITIES)
    assert [spec.rsplit("dropout=", 1)[1] for spec in specs] == ["0.0", *map(str, rows)]
    assert len(seeds) == 2 * (1 + len(rows)) and len(set(seeds)) == len(seeds)
    assert "decisive" not in out and all(out[str(p)] == {"move_kept": 1.0, "score_abs_change": 0.0} for p in rows)


def test_the_paper_tables_read_as_printed():
    """experiments.alphadda's transcription of AlphaDDA Tables 5-13: corner values checked by hand against
    the paper, and every row's win, loss and draw rates summing to 1 (a shifted column would break it)."""
    from experiments.alphadda import OPPONENTS, paper_tables

    tables = paper_tables()
    assert tables["connect4"]["total"]["alphadda1"]["random"] == (0.98, 0.02, 0.0)  # Table 5
    assert tables["othello6"]["first"]["alphadda3"]["minimax2"] == (0.98, 0.02, 0.0)  # Table 9
    assert tables["othello"]["second"]["alphadda3"]["minimax1"] == (0.16, 0.5, 0.34)  # Table 13
    for game in ("connect4", "othello6", "othello"):
        for seat in ("total", "first", "second"):
            for adjuster in ("alphadda1", "alphadda2", "alphadda3"):
                rows = tables[game][seat][adjuster]
                assert list(rows) == OPPONENTS
                assert all(abs(sum(r) - 1.0) <= 0.011 for r in rows.values()), (game, seat, adjuster)


def test_distinct_games_are_counted_per_seat():
    """Three first-seat games, two of them the same moves, and three different second-seat games: 2 and 3
    (seats swapped would say 3 and 2; a count over both seats 4)."""
    from experiments.alphadda import distinct_games
    from tuner.match.arena import GameResult, MatchResult

    games = [
        GameResult(0, 0, 1.0, [3, 3, 2]),
        GameResult(1, 1, -1.0, [3, 3, 2]),
        GameResult(2, 0, 1.0, [3, 3, 2]),
        GameResult(3, 1, -1.0, [4, 3]),
        GameResult(4, 0, 1.0, [2, 3]),
        GameResult(5, 1, 0.0, [5, 5]),
    ]
    match = MatchResult("connect4", "a", "b", 0, games=games)
    assert distinct_games(match) == {"a_first": 2, "a_second": 3}


def test_a_replayed_game_counts_once_per_seat_and_from_a_s_side():
    """Three copies of a first-seat win, two of a second-seat draw, and a second-seat win with the first game's
    moves: three observations, 1, 0.5 and 1 (all six games: six; one key for both seats: two; B's side: 0, 0.5, 0);
    and a rating from 25 copies of one game per seat is the rating from one copy."""
    from experiments.alphadda import RATED, distinct, rate
    from tuner.match.arena import GameResult, MatchResult

    win, draw = [3, 3, 2], [5, 5]
    games = [GameResult(i, 0, 1.0, win) for i in range(3)] + [GameResult(3 + i, 1, 0.0, draw) for i in range(2)]
    match = MatchResult("connect4", "a", "b", 0, games=[*games, GameResult(5, 1, 1.0, win)])
    assert sorted(distinct(match).values()) == [0.5, 1.0, 1.0]

    def against(copies):  # one win as first player and one loss as second, each played `copies` times
        games = [GameResult(2 * i, 0, 1.0, win) for i in range(copies)]
        games += [GameResult(2 * i + 1, 1, -1.0, draw) for i in range(copies)]
        return MatchResult("connect4", "a", "b", 0, games=games)

    rated = {name: 1000.0 + 100 * k for k, name in enumerate(RATED)}
    once, often = rate([against(1)] * len(RATED), rated), rate([against(25)] * len(RATED), rated)
    assert once.elo == pytest.approx(often.elo) and once.high - once.low == pytest.approx(often.high - often.low)


def test_the_tables_sum_counts_scores_within_the_band_ours_and_the_paper_s():
    """AlphaDDA1 on Connect4 scoring 0.66 against MCTS2 (out) and 0.35 against Random (in): 1 of 2; the paper's
    0.46 + 0.00 / 2 against MCTS2 is in, its 0.98 against Random out: (1). AlphaDDA1Z has no paper column."""
    from experiments.alphadda import in_sum

    rows = [
        {"adjuster": a, "opponent": o, "total": {"score": s}}
        for a, o, s in (
            ("alphadda1", "mcts2", 0.66),
            ("alphadda1", "random", 0.35),
            ("alphadda1z", "mcts2", 0.5),
            ("alphadda1z", "random", 0.7),
        )
    ]
    lines = in_sum({"rows": rows}, "connect4")
    assert "| alphadda1 | 0.660 (0.460) | 0.350 (0.980) | 1 of 2 (1) |" in lines
    assert "| alphadda1z | 0.500 | 0.700 | 1 of 2 |" in lines
    rows[0]["total"]["score"] = 0.345  # just outside, and shown so (two decimals would print 0.35, as if inside)
    assert "| alphadda1 | 0.345 (0.460) | 0.350 (0.980) | 1 of 2 (1) |" in in_sum({"rows": rows}, "connect4")


def test_the_paper_findings_read_our_numbers():
    """Hand-made ratings: the N_sim gaps are later minus earlier, C_puct's range leaves out C_puct 0."""
    from experiments.alphadda import paper_findings

    elo = {
        ("simulations", 1): 900,
        ("simulations", 5): 1000,
        ("simulations", 20): 1300,
        ("simulations", 40): 1400,
        ("simulations", 400): 1450,
        ("c_puct", 0.0): 700,
        ("c_puct", 1.0): 1500,
        ("c_puct", 4.0): 1420,
        ("dropout", 0.0): 1500,
        ("dropout", 0.95): 1100,
    }
    rows = [{"key": k, "value": v, "elo": e, "ci95": [e - 10, e + 10]} for (k, v), e in elo.items()]
    text = "\n".join(paper_findings({"rows": rows, "anchors": {"random": 930.6}}, "connect4"))
    assert "5 to 20: +300" in text and "40 to 400: +50" in text
    assert "C_puct 0: 700 [690, 710]; the others: 1420 to 1500" in text
    assert "P_drop 0.95: 1100 [1090, 1110]; Random held at 931" in text


def test_online_dda_distance_from_fair_is_unbiased_and_pooled_over_opponents_by_hand():
    """Games alternate seats. A 20-game block of 15 wins then 5 losses scores 0.75: seat 0 won 8 of its 10 (sample
    variance 1.6 / 9), seat 1 7 (2.1 / 9), so the score's variance is (1.6 / 90 + 2.1 / 90) / 4 and the estimate of
    (p - 1/2)^2 is 0.0625 - 3.7 / 360; a seat that wins every game beside one that loses every game is fair, with
    no noise (over both seats' games the variance would be 0.25 x 20 / 19 and the square negative); one agent
    beaten every game and one never: 0.5 (pooled as squares, a 0.0 and a 1.0 do not cancel)."""
    from experiments.online_dda import distance, off_fair

    def match(outcomes):
        return {"games": [{"index": i, "outcome": o, "a_seat": i % 2} for i, o in enumerate(outcomes)]}

    three_to_one = [1.0] * 15 + [-1.0] * 5
    assert distance({"a": match(three_to_one)}) == [pytest.approx(math.sqrt(0.0625 - 3.7 / 360))]
    assert distance({"a": match([1.0, -1.0] * 10)}) == [0.0]
    assert distance({"a": match([1.0] * 40), "b": match([-1.0] * 40)}) == [0.5, 0.5]
    pooled = distance({"a": match(three_to_one), "b": match([1.0, -1.0] * 10)})
    assert pooled == [pytest.approx(math.sqrt((0.0625 - 3.7 / 360) / 2))]
    assert off_fair([0.3, 0.2, 0.1, 0.15, 0.05]) == 3  # beyond a fair config's 0.12
    assert off_fair([0.1, 0.0]) == 0


def test_online_dda_shift_measures_pool_the_runs_by_hand():
    """Two runs of 30 games a strength. Run A: 30 wins, then 10 losses and 20 draws; run B: 30 draws, then 10
    losses, 10 draws, 10 wins. Before: (30 + 15) / 60; blocks after the jump: 0, (0.5 + 0.5) / 2, (0.5 + 1) / 2;
    after 20 games: A 0.5, B 1.0, mean 0.75 +- t sd / sqrt(2) with Student's t of 1 degree of freedom, 12.706;
    the last block is out of the band: never
    re-balanced. With B's last block draws, the blocks are 0, 0.5, 0.5: re-balanced 10 games after the jump."""
    from experiments.online_dda import shift_measures

    a = {"scores": [1.0] * 30 + [0.0] * 10 + [0.5] * 20}
    b = {"scores": [0.5] * 30 + [0.0] * 10 + [0.5] * 10 + [1.0] * 10}
    m = shift_measures([a, b], 30)
    assert (m["before"], m["blocks"], m["late"], m["rebalanced"]) == (0.75, [0.0, 0.5, 0.75], 0.75, None)
    half = 12.7062047 * np.std([0.5, 1.0], ddof=1) / math.sqrt(2)
    assert m["late_ci"] == [pytest.approx(0.75 - half), pytest.approx(0.75 + half)]
    b["scores"][-10:] = [0.5] * 10
    assert shift_measures([a, b], 30)["rebalanced"] == 10


def test_d_metric_sums_win_loss_gaps_per_seat_over_the_last_games():
    """Against each grid agent, 60 early losses (ignored) then 40 games: first seat 15 wins, 5 losses; second seat
    10 losses, 10 draws: |15 - 5| + |0 - 10| = 20 per agent, 100 over the five (pooled over seats it would be
    |15 - 15| = 0; the first 40 games, 20 per seat, all losses: 200)."""
    from experiments.online_dda import GRID_OPPONENTS, d_metric

    def game(i, outcome):
        return {"index": i, "a_seat": i % 2, "outcome": outcome}

    def late_outcome(i):  # i even: the first seat; odd: the second
        return (1.0 if i < 30 else -1.0) if i % 2 == 0 else (-1.0 if i < 20 else 0.0)

    match = {"games": [game(i, -1.0) for i in range(60)] + [game(60 + i, late_outcome(i)) for i in range(40)]}
    assert d_metric({o: match for o in GRID_OPPONENTS}) == 100.0
    early = {"games": match["games"][:40]}
    assert d_metric({o: early for o in GRID_OPPONENTS}) == 200.0


@pytest.mark.slow
def test_online_dda_tables_resume_a_crashed_match_at_its_next_game(tmp_path, monkeypatch):
    """A tables run that dies after its third game (checkpointed after each) and is run again ends with the
    games of a run never stopped: the learning agent's tuner picked up where it was, not from its defaults."""
    import argparse

    from experiments import online_dda

    monkeypatch.setattr(online_dda, "OPPONENTS", ["random", "mcts4"])
    monkeypatch.setattr(online_dda, "CHECKPOINT", 0)
    monkeypatch.setattr(online_dda, "report", lambda *_: None)
    args = dict(game="connect4", games=4, seed=2, options="simulations=4", configs=["fixed-nmc"], batch=1, redo=[])
    straight = online_dda.tables(argparse.Namespace(part="tables", **args), str(tmp_path / "straight.json"))

    def crashing(game, matches, after_game, **kw):
        calls = []

        def told(m, result, states):
            after_game(m, result, states)
            calls.append(m)
            if len(calls) == 3:
                raise KeyboardInterrupt

        return play_matches(game, matches, after_game=told, **kw)

    path = str(tmp_path / "resumed.json")
    play_matches = online_dda.play_matches
    monkeypatch.setattr(online_dda, "play_matches", crashing)
    with pytest.raises(KeyboardInterrupt):
        online_dda.tables(argparse.Namespace(part="tables", **args), path)
    monkeypatch.setattr(online_dda, "play_matches", play_matches)
    saved = online_dda.load(path, argparse.Namespace(**args))
    assert sum(len(m["games"]) for m in saved["running"]["fixed-nmc"].values()) == 3
    resumed = online_dda.tables(argparse.Namespace(part="tables", **args), path)
    for o in ["random", "mcts4"]:
        games = [straight["configs"]["fixed-nmc"]["matches"][o], resumed["configs"]["fixed-nmc"]["matches"][o]]
        assert [[g["moves"] for g in m["games"]] for m in games][0] == [g["moves"] for g in games[1]["games"]]
        assert games[0]["total"] == games[1]["total"]
    assert resumed["running"] == {}
    # --redo plays a config again: a result tampered with in the file comes back as played
    resumed["configs"]["fixed-nmc"]["matches"]["random"]["games"] = []
    online_dda.save(resumed, path)
    redone = online_dda.tables(argparse.Namespace(part="tables", **{**args, "redo": ["fixed-nmc"]}), path)
    assert redone["configs"]["fixed-nmc"]["matches"] == straight["configs"]["fixed-nmc"]["matches"]


def test_online_dda_shift_resumes_a_crashed_config_at_its_next_game(tmp_path, monkeypatch):
    """A shift run that dies in the fourth game of its second run (checkpointed after each) and is run again plays
    that run's games 3-5 alone and ends with the scores and the tuner of a run never stopped: the agent picked up
    where it was, not afresh; the two runs were seeded apart (seed 2, then 4)."""
    import argparse
    import json

    from experiments import online_dda

    monkeypatch.setattr(online_dda, "CHECKPOINT", 0)
    monkeypatch.setattr(online_dda, "report", lambda *_: None)
    args = dict(
        game="connect4",
        games=3,
        seed=2,
        options="simulations=4",
        configs=["fixed-nmc"],
        weak=2,
        strong=40,
        repeats=2,
        redo=[],
    )
    play_game, played = online_dda.play_game, []

    def told(game, agent, person, seed, index):
        if (seed, index) == (4, 3) and crash:
            raise KeyboardInterrupt
        result = play_game(game, agent, person, seed, index)
        played.append((seed, index, json.dumps(agent.adjuster.state_dict(), sort_keys=True)))
        return result

    make_agent, made = online_dda.make_agent, []

    def making(game, spec, seed):
        made.append((spec.split(":")[0], seed))
        return make_agent(game, spec, seed=seed)

    monkeypatch.setattr(online_dda, "play_game", told)
    monkeypatch.setattr(online_dda, "make_agent", making)
    crash = False
    straight = online_dda.shift(argparse.Namespace(part="shift", **args), str(tmp_path / "straight.json"))
    assert [s for s, *_ in played] == [2] * 6 + [4] * 6
    assert made == [("az", 2), ("mcts", 3), ("mcts", 3), ("az", 4), ("mcts", 5), ("mcts", 5)]  # each run its own
    tuned, played[:] = played[-1][2], []
    path, crash = str(tmp_path / "resumed.json"), True
    with pytest.raises(KeyboardInterrupt):
        online_dda.shift(argparse.Namespace(part="shift", **args), path)
    saved = online_dda.load(path, argparse.Namespace(**args))
    running = saved["running"]["fixed-nmc"]
    assert (running["run"], len(running["scores"])) == (1, 3) and running["state"] is not None
    assert len(saved["configs"]["fixed-nmc"]["runs"]) == 1
    played[:], crash = [], False
    resumed = online_dda.shift(argparse.Namespace(part="shift", **args), path)
    assert [(s, i) for s, i, _ in played] == [(4, 3), (4, 4), (4, 5)] and played[-1][2] == tuned
    assert resumed["running"] == {}
    runs = [[(r["seed"], r["scores"]) for r in out["configs"]["fixed-nmc"]["runs"]] for out in (straight, resumed)]
    assert runs[0] == runs[1]
    resumed["configs"]["fixed-nmc"]["spec"] += ",floor=-1"  # runs made with another spec are never pooled
    online_dda.save(resumed, path)
    with pytest.raises(SystemExit, match="runs of fixed-nmc with another spec .*add --redo fixed-nmc"):
        online_dda.shift(argparse.Namespace(part="shift", **args), path)


def test_samplers_are_compared_with_tpe_seed_by_seed():
    """Seeds 0-2: NTBEA's regrets 0.1, 0.5, 0.2 against TPE's 0.3, 0.5, 0.1: better on one, equal on one, worse
    on one; LSI counts only its run planned for the budget."""
    from benchmarks.samplers import against

    def row(sampler, seed, regret, trials=200):
        return {"problem": "p", "sampler": sampler, "seed": seed, "trials": trials, "regret": {"50": regret}}

    rows = [row("ntbea", k, r) for k, r in enumerate((0.1, 0.5, 0.2))] + [
        row("tpe", k, r) for k, r in enumerate((0.3, 0.5, 0.1))
    ]
    assert against(rows, "p", "ntbea", 50) == (1, 1, 1)
    rows += [row("lsi", 0, 0.9, trials=200), row("lsi", 0, 0.0, trials=50)]
    assert against(rows, "p", "lsi", 50) == (1, 0, 0) and against(rows, "p", "tpe", 50) is None


def test_a_run_is_dirty_when_code_changed_not_when_a_results_folder_did(tmp_path, monkeypatch):
    """A long experiment's checkpoint rewrites a committed results file: runs beside it are not '+dirty' for that,
    but are for a changed source file."""
    import subprocess

    from tuner import provenance

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "experiments" / "results").mkdir(parents=True)
    (tmp_path / "experiments" / "results" / "r.json").write_text("{}")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start")
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    assert not provenance.commit().endswith("+dirty")
    (tmp_path / "experiments" / "results" / "r.json").write_text('{"games": 1}')
    assert not provenance.commit().endswith("+dirty") and provenance.commit() != "unknown"
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance.commit().endswith("+dirty")


def test_optimal_moves_are_judged_by_the_solvers_values():
    """Both players with three in a column and the first to move: the win now (column 3) is optimal and best;
    blocking the other column (0) still wins, later: optimal, not best; anything else loses. The second player's
    moves came in lost positions (every one keeps the value) and none was its slowest loss. Wilson's interval
    by hand."""
    pytest.importorskip("bitbully")
    from experiments.optimal_moves import judge, wilson

    opening = [3, 0, 3, 0, 3, 0]
    assert judge([*opening, 3], seat=0) == (4, 4, 4, 4, 4)  # every one of its positions had a losing move
    assert judge([*opening, 0], seat=0) == (4, 4, 4, 4, 3)
    assert judge([*opening, 6], seat=0) == (3, 4, 3, 4, 3)
    assert judge([*opening, 3], seat=1) == (3, 3, 0, 0, 0)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
