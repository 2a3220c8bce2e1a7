"""A person against the adaptive opponent: adjuster state, the Opponent API, profiles, the terminal session
and the web server (the browser test is in test_play_browser.py)."""

import io
import math
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import games
from search.agents import MCTSAgent, SearchAgent
from search.mcts import SearchResult
from search.strength import InterGame, InterIntra, IntraGame
from tuner.agents import adapts_between_games, make_agent
from tuner.cli import main
from tuner.play import DEFAULT_SPEC, Opponent, OutOfTurn, ProfileError, Profiles

FAST = "mcts:simulations=50,dsa=both"


def _result(w: float) -> SearchResult:
    """Root statistics whose most visited move has win rate `w`."""
    return SearchResult(np.array([0, 1]), np.array([10.0, 5.0]), np.array([w, 0.5]), 15, 0.0)


# --- adjuster state --------------------------------------------------------------------------------------


def test_inter_game_state_round_trip_by_hand():
    adj = InterGame()
    adj.game_over([1.0, -1.0], player=0)  # its win: z -0.375
    adj.game_over([1.0, -1.0], player=1)  # its loss: z + 0.375 * 0.95
    state = adj.state_dict()
    assert state == {
        "kind": "InterGame",
        "z": pytest.approx(-0.375 + 0.35625),
        "dz": pytest.approx(0.375 * 0.95**2),
        "games": 2,
    }
    fresh = InterGame()
    fresh.load_state_dict(state)
    assert (fresh.z, fresh.dz, fresh.games) == (adj.z, adj.dz, 2)
    fresh.game_over([1.0, -1.0], player=0)  # goes on with the restored step, not the starting 0.375
    assert fresh.z == pytest.approx(state["z"] - 0.375 * 0.95**2)


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "IntraGame", "z": 0.0, "moves_made": 0},  # another adjuster's
        {"kind": "InterGame", "z": 0.0, "dz": 0.1},  # a field missing
        {"kind": "InterGame", "z": float("nan"), "dz": 0.1, "games": 1},
        {"kind": "InterGame", "z": "0", "dz": 0.1, "games": 1},
        {"kind": "InterGame", "z": 0.0, "dz": 0.1, "games": 1.5},
        [1, 2],
    ],
)
def test_a_bad_state_is_refused_and_changes_nothing(bad):
    adj = InterGame()
    adj.game_over([1.0, -1.0], player=0)
    before = adj.state_dict()
    with pytest.raises(ValueError, match="saved"):
        adj.load_state_dict(bad)
    assert adj.state_dict() == before


def test_inter_intra_starts_each_game_at_the_inter_level():
    adj = InterIntra(InterGame(dz=0.375), IntraGame(dz=0.1, eps=0.1, moves=10))
    adj.new_game()
    assert adj.before_search(None).z == 0.0
    adj.after_search(None, _result(0.9))  # winning by far: intra steps z down by the full dZ
    assert adj.z == pytest.approx(-0.1)
    adj.game_over([-1.0, 1.0], player=0)  # it lost: the inter level rises by 0.375
    adj.new_game()
    assert adj.z == pytest.approx(0.375)  # the intra step of the last game is forgotten, the level kept
    state = adj.state_dict()
    other = InterIntra(InterGame(dz=0.375), IntraGame(dz=0.1, eps=0.1, moves=10))
    other.load_state_dict(state)
    other.new_game()
    assert other.z == pytest.approx(0.375) and other.inter.dz == pytest.approx(0.375 * 0.95)
    with pytest.raises(ValueError):
        other.load_state_dict({**state, "inter": {"kind": "InterGame", "z": 1.0}})
    assert other.state_dict() == state


def test_alphadda1z_keeps_each_seats_level():
    game = games.load("connect4")
    agent = make_agent(game, "az:net=uniform,dda=alphadda1z,dz_0=0.375", seed=0)
    adj = agent.adjuster
    adj.game_over([1.0, -1.0], player=0)  # seat 0 won: its z_0 falls; seat 1's stays
    state = adj.state_dict()
    assert state["kind"] == "AlphaDDA1Z" and state["z_0"] == pytest.approx([0.6 - 0.375, 0.6])
    fresh = make_agent(game, "az:net=uniform,dda=alphadda1z,dz_0=0.375", seed=1).adjuster
    fresh.load_state_dict(state)
    assert fresh.z_0 == pytest.approx([0.225, 0.6]) and fresh.dz_0 == pytest.approx([0.375 * 0.95, 0.375])


def test_dsa_both_is_an_agent_that_adapts_between_games():
    agent = make_agent("connect4", "mcts:dsa=both,simulations=20", seed=0)
    assert isinstance(agent.adjuster, InterIntra) and adapts_between_games("mcts:dsa=both")
    assert agent.adjuster.inter.dz == 0.375 and agent.adjuster.intra.dz0 == 0.1


# --- the Opponent --------------------------------------------------------------------------------------


def test_moves_replies_and_undo_restore_the_game_and_the_adjuster():
    bot = Opponent("connect4", FAST, seed=3)
    bot.new_game(human_first=True)
    bot.move("3")
    first = bot.reply()
    assert first.ply == 1 and first.action in range(7) and 0 <= first.estimate <= 1
    before = (bot.state.history(), bot.adjuster.state_dict(), list(bot.turns))
    bot.move(first.action)  # an action id works as well as its name
    second = bot.reply()
    assert bot.adjuster.state_dict() != before[1]  # the intra-game step moved z
    assert bot.turns == [first, second]
    bot.undo()
    assert (bot.state.history(), bot.adjuster.state_dict(), bot.turns) == before
    bot.undo()
    assert bot.state.history() == [] and bot.turns == []
    with pytest.raises(OutOfTurn, match="not moved yet"):
        bot.undo()


def test_an_illegal_or_malformed_move_changes_nothing():
    bot = Opponent("othello6", FAST, seed=0)
    bot.new_game(human_first=True)
    with pytest.raises(ValueError, match=r"a1 is not a legal move here; legal: c2 b3 e4 d5"):
        bot.move("a1")
    with pytest.raises(ValueError, match="write a square"):
        bot.move("z9")
    with pytest.raises(ValueError, match="not a legal move"):
        bot.move(99)
    assert bot.state.history() == [] and bot.human_to_move
    with pytest.raises(OutOfTurn, match="person's turn"):
        bot.reply()


def test_resigning_teaches_the_opponent_even_before_it_moved():
    bot = Opponent("connect4", "mcts:dsa=inter,simulations=20", seed=0)
    bot.new_game(human_first=True)
    bot.resign()  # its win: Wu's inter-game rule lowers its z by 0.375
    assert bot.result == "loss" and bot.adjuster.z == pytest.approx(-0.375) and bot.record.losses == 1
    with pytest.raises(OutOfTurn, match="over"):
        bot.move("3")


def test_losing_to_the_person_makes_it_stronger():
    # the person plays a strong search against a one-simulation opponent: the person wins, its z rises
    bot = Opponent("connect4", "mcts:dsa=inter,simulations=1", seed=0)
    person = make_agent("connect4", "mcts:simulations=2000", seed=0)
    bot.new_game(human_first=True)
    while not bot.over:
        if bot.human_to_move:
            bot.move(person.select_action(bot.state))
        else:
            bot.reply()
    assert bot.result == "win" and bot.record.wins == 1 and bot.adjuster.z == pytest.approx(0.375)


def test_a_hint_finds_the_win_and_leaves_the_game_alone():
    bot = Opponent("connect4", FAST, seed=0, hint="mcts:simulations=500")
    bot.new_game(human_first=True, moves=[0, 1, 0, 1, 0, 1])  # the person has three in column 0
    adjuster = bot.adjuster.state_dict()
    assert bot.human_to_move and bot.hint() == (0, "0")  # column 0 wins at once
    assert bot.state.history() == [0, 1, 0, 1, 0, 1] and bot.adjuster.state_dict() == adjuster
    with pytest.raises(ValueError, match="not a legal move"):
        bot.new_game(moves=[0] * 7)  # the column is full after six
    with pytest.raises(ValueError, match="ends the game"):
        bot.new_game(moves=[0, 1, 0, 1, 0, 1, 0])


def test_the_same_seed_and_moves_replay_the_same_replies():
    def replies(seed):
        bot = Opponent("connect4", FAST, seed=seed)
        bot.new_game(human_first=True)
        out = []
        for column in (3, 3, 2, 4):
            if bot.over:
                break
            if column in bot.state.legal_actions():
                bot.move(column)
            else:
                bot.move(bot.state.legal_actions()[0])
            out.append(bot.reply().action)
        return out

    assert replies(5) == replies(5)
    assert any(replies(5) != replies(s) for s in (6, 7, 8))


def test_its_estimate_points_the_right_way():
    bot = Opponent("connect4", "mcts:simulations=2000", seed=0)
    bot.new_game(human_first=True, moves=[0, 1, 0, 1, 0, 1, 6])  # both have three; the opponent is to move
    turn = bot.reply()
    assert turn.action == 1 and turn.estimate > 0.9 and bot.result == "loss"  # it wins at once, and knows it
    bot.new_game(human_first=True, moves=[2, 2, 3, 3, 4])  # the person threatens columns 1 and 5 at once
    assert bot.reply().estimate < 0.2  # whichever it blocks, it loses


def test_a_resigned_game_is_over():
    bot = Opponent("connect4", FAST, seed=0)
    bot.new_game(human_first=True)
    bot.resign()
    assert bot.over and not bot.human_to_move and bot.result == "loss"
    for call in (bot.undo, bot.resign, bot.hint, lambda: bot.move(3)):
        with pytest.raises(OutOfTurn, match="over"):
            call()


def test_the_strength_shown_is_the_one_its_next_move_uses():
    bot = Opponent("connect4", "mcts:dsa=both,simulations=50", seed=1)
    bot.new_game(human_first=True)
    assert bot.strength() == {"z": 0.0, "simulations": 50}
    bot.move(3)
    turn = bot.reply()
    assert bot.strength() == turn.strength and turn.strength["z"] == pytest.approx(bot.adjuster.z)
    bot.move(3)
    bot.reply()
    bot.undo()
    assert bot.strength()["z"] == pytest.approx(bot.adjuster.z) == pytest.approx(turn.strength["z"])
    dda = Opponent("connect4", "az:net=uniform,dda=alphadda1", seed=0)
    dda.new_game(human_first=True)
    assert dda.strength() is None  # AlphaDDA's knobs follow the position: unknown before its first search
    dda.move(3)
    assert dda.reply().strength == dda.strength() and dda.strength()["simulations"] >= 1


def test_alphadda3_s_estimate_is_its_clean_value_as_a_score():
    bot = Opponent("connect4", "az:net=playout,dda=alphadda3", seed=0)
    bot.new_game(human_first=True)
    bot.move(3)
    turn = bot.reply()
    assert turn.estimate == pytest.approx((bot.adjuster.mean + 1) / 2)  # not eq. 7's distances, which stay <= 0.5


# --- profiles ------------------------------------------------------------------------------------------


def _lose_one(bot):
    bot.new_game(human_first=True)
    bot.resign()


def test_a_profile_remembers_the_level_across_sessions(tmp_path):
    path = tmp_path / "p.sqlite"
    first = Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path, seed=0)
    _lose_one(first)
    _lose_one(first)
    level = first.adjuster.z
    assert level == pytest.approx(-0.375 - 0.375 * 0.95)
    reordered = "mcts:simulations=20,dsa=inter"  # the same spec: the same profile
    again = Opponent("connect4", reordered, profile="ada", profiles=path, seed=1)
    assert again.adjuster.z == pytest.approx(level) and again.adjuster.dz == pytest.approx(0.375 * 0.95**2)
    assert (again.record.wins, again.record.draws, again.record.losses) == (0, 0, 2)
    other = Opponent("connect4", "mcts:dsa=inter,simulations=30", profile="ada", profiles=path)  # another spec
    assert other.adjuster.z == 0.0 and other.record.games == 0
    history = Profiles(path).history("ada", "connect4", "mcts:dsa=inter,simulations=20")
    assert [h["result"] for h in history] == ["loss", "loss"] and history[1]["state"]["z"] == pytest.approx(level)
    assert [p.name for p in Profiles(path).list()] == ["ada"]  # the spec that never finished a game saved nothing


def test_a_file_that_is_not_ours_is_refused_untouched(tmp_path):
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ProfileError, match="cannot use .* as a profile database"):
        Profiles(garbage)
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    content = foreign.read_bytes()
    with pytest.raises(ProfileError, match="not a sparring profile database"):
        Opponent("connect4", FAST, profile="ada", profiles=foreign)
    assert foreign.read_bytes() == content
    with pytest.raises(ProfileError, match="is a folder"):
        Profiles(tmp_path)


def test_a_damaged_profile_is_an_error_not_a_fresh_start(tmp_path):
    path = tmp_path / "p.sqlite"
    _lose_one(Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path))
    with sqlite3.connect(path) as db:
        db.execute('UPDATE profiles SET state = \'{"kind": "InterGame", "z": \'')
    with pytest.raises(ProfileError, match="damaged"):
        Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path)
    with sqlite3.connect(path) as db:
        db.execute("""UPDATE profiles SET state = '{"kind": "IntraGame", "z": 0.0, "moves_made": 0}'""")
    with pytest.raises(ProfileError, match="does not fit this opponent: the saved state is a IntraGame's"):
        Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path)
    with pytest.raises(ValueError, match="bad profile name"):
        Opponent("connect4", FAST, profile=" ", profiles=path)


def test_two_sessions_on_one_profile_lose_nothing(tmp_path):
    path = tmp_path / "p.sqlite"
    spec = "mcts:dsa=inter,simulations=20"
    a = Opponent("connect4", spec, profile="ada", profiles=path, seed=0)
    b = Opponent("connect4", spec, profile="ada", profiles=path, seed=1)  # the page and the terminal, say
    for bot in (a, b, a):
        _lose_one(bot)  # each new game starts from the profile's latest level
    saved = Profiles(path).load("ada", "connect4", spec)
    assert (saved.wins, saved.draws, saved.losses) == (0, 0, 3)
    assert saved.state["z"] == pytest.approx(-0.375 * (1 + 0.95 + 0.95**2))


def test_games_that_overlap_on_one_profile_both_move_the_level(tmp_path):
    path = tmp_path / "p.sqlite"
    spec = "mcts:dsa=inter,simulations=20"
    a = Opponent("connect4", spec, profile="ada", profiles=path, seed=0)
    b = Opponent("connect4", spec, profile="ada", profiles=path, seed=1)
    a.new_game(human_first=True)
    b.new_game(human_first=True)  # both start from the same level...
    a.resign()
    b.resign()  # ...and the second to finish adds its step on top of the first's
    saved = Profiles(path).load("ada", "connect4", spec)
    assert saved.losses == 2 and saved.state["games"] == 2
    assert saved.state["z"] == pytest.approx(-0.375 - 0.375 * 0.95)


def test_a_request_that_fails_midway_puts_everything_back(monkeypatch):
    from tuner.play.web import RequestError, attempt

    bot = Opponent("connect4", "mcts:dsa=both,simulations=50", seed=0)
    bot.new_game(human_first=True)
    bot.move(3)
    bot.reply()
    before = (bot.state.history(), bot.adjuster.state_dict(), bot.agent.seat, bot.agent.rng.copy(), bot.strength())

    def fails_after_the_adjuster_moved(self, state, result):
        raise RuntimeError("disk full")

    monkeypatch.setattr(SearchAgent, "choose", fails_after_the_adjuster_moved)  # after_search has run
    with pytest.raises(RequestError, match="the game is as it was") as caught:
        attempt(bot, lambda o: (o.move(2), o.reply()))
    assert caught.value.status == 500
    assert bot.state.history() == before[0] and bot.adjuster.state_dict() == before[1]
    assert bot.agent.seat == before[2] and (bot.agent.rng == before[3]).all() and bot.strength() == before[4]
    with pytest.raises(RequestError, match="the game is as it was"):
        attempt(bot, lambda o: (o.new_game(human_first=False), o.reply()))  # a new game whose first move fails
    assert bot.state.history() == before[0] and bot.agent.seat == before[2] and bot.human == 0


def test_explicit_defaults_share_the_profile(tmp_path):
    path = tmp_path / "p.sqlite"
    _lose_one(Opponent("connect4", "mcts:dsa=both", profile="ada", profiles=path))
    again = Opponent("connect4", "mcts:simulations=1000,dsa=both,c=0.5", profile="ada", profiles=path)
    assert again.record.losses == 1 and again.adjuster.inter.z == pytest.approx(-0.375)


def _damaged(path, sql):
    _lose_one(Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path))
    with sqlite3.connect(path) as db:
        db.executescript(sql)


@pytest.mark.parametrize(
    "sql, message, listed",
    [
        ("DROP TABLE profiles;", "is damaged .table profiles has columns none", 2),
        ("UPDATE profiles SET wins = 'lots';", "is damaged .its wins, draws and losses are .'lots'", 2),
        ("UPDATE profiles SET state = NULL;", "1 game but no adjuster state", 0),  # listing needs no state
        ("PRAGMA user_version = 7;", "holds profiles of schema 7, and this sparring reads schema 1", 2),
    ],
)
def test_every_kind_of_damage_is_one_line_never_a_fresh_start(tmp_path, sql, message, listed, capsys):
    path = tmp_path / "p.sqlite"
    _damaged(path, sql)
    with pytest.raises(ProfileError, match=message):
        Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path)
    assert main(["profiles", "--profiles", str(path)]) == listed
    assert capsys.readouterr().err.count("\n") == (listed == 2)  # an error is one line


def test_a_damaged_page_is_one_line(tmp_path, capsys):
    path = tmp_path / "p.sqlite"
    _damaged(path, "")
    data = bytearray(path.read_bytes())
    data[4096:8192] = b"\xff" * 4096  # the second page: the profiles table
    path.write_bytes(bytes(data))
    with pytest.raises(ProfileError, match="damaged|cannot use"):
        Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path)
    assert main(["profiles", "--profiles", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# --- the terminal session ------------------------------------------------------------------------------


def test_the_terminal_session_through_stdin(tmp_path, monkeypatch, capsys):
    path = tmp_path / "p.sqlite"
    lines = ["3", "9", "x3", "hint", "undo", "2", "resign", "n", "resign", "y", "y", "quit"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    code = main(
        [
            "play",
            "connect4",
            "--opponent",
            "mcts:dsa=inter,simulations=30",
            "--seed",
            "2",
            "--profile",
            "ada",
            "--profiles",
            str(path),
            "--hint",
            "mcts:simulations=100",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "error: bad connect4 action '9': write a column number from 0 to 6" in out
    assert "error: bad connect4 action 'x3'" in out
    assert "Hint: " in out and "Took back your last move and its reply." in out
    assert out.count("It plays ") == 3  # replies to 3 (taken back) and to 2; its first move of game two
    assert out.count("Resign? It counts as a loss.") == 2  # the first asked and said no: the game went on
    assert "You lost. profile 'ada': 1 game against it, you won 0, drew 0, lost 1." in out
    # its level learnt from the loss: 228 + 102 x 0.375 Elo below z = +inf, by the Connect4 curve (tuner.play.level)
    assert "New game: you play second, as o; it starts about 270 Elo below its best (an estimate): z -0.38, 30 " in out
    assert "Left the game unfinished: it is not counted." in out
    saved = Profiles(path).load("ada", "connect4", "mcts:dsa=inter,simulations=30")
    assert saved.losses == 1 and saved.state["z"] == pytest.approx(-0.375)


def test_play_refuses_a_bad_opponent_in_one_line(capsys):
    assert main(["play", "connect4", "--opponent", "mcts:sims=3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown key 'sims'" in err[0]


# --- the web server ------------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path):
    """client() -> a new browser (its own cookies) on one server."""
    from starlette.testclient import TestClient

    from tuner.play.web import make_app

    app = make_app(profiles=tmp_path / "web.sqlite", seed=0, hint="mcts:simulations=50")
    return lambda: TestClient(app, base_url="http://127.0.0.1")


def test_the_endpoints_play_a_game(client):
    c = client()
    assert c.get("/").status_code == 200 and "sparring" in c.get("/").text
    assert c.get("/api/state").status_code == 404
    games_offered = {g["name"]: g for g in c.get("/api/options").json()["games"]}
    assert games_offered["connect4"]["opponents"][0]["spec"] == DEFAULT_SPEC
    assert "chinesecheckers3" not in games_offered  # three players: not one opponent
    view = c.post("/api/new", json={"game": "connect4", "opponent": FAST, "first": True}).json()
    assert view["human_to_move"] and len(view["legal"]) == 7 and view["legal"][3]["to"] == [5, 3]
    view = c.post("/api/move", json={"move": 3}).json()
    assert view["plies"] == 2 and view["board"][5][3] == 1 and len(view["turns"]) == 1
    assert view["turns"][0]["strength"]["simulations"] == 50 and view["human_to_move"]
    reply = view["last"]["to"]
    assert view["board"][reply[0]][reply[1]] == 2
    hint = c.post("/api/hint", json={}).json()["hint"]
    assert hint["action"] in range(7) and c.get("/api/state").json()["plies"] == 2
    assert c.post("/api/undo", json={}).json()["plies"] == 0
    done = c.post("/api/resign", json={}).json()
    assert done["over"] and done["result"] == "loss" and done["record"]["losses"] == 1


def test_bad_requests_get_4xx_and_change_nothing(client):
    c = client()
    c.post("/api/new", json={"game": "connect4", "opponent": FAST})
    c.post("/api/move", json={"move": 0})
    before = c.get("/api/state").json()
    for body, status, message in [
        ({"move": 9}, 400, "not a legal move"),
        ({"move": "seven"}, 400, "bad connect4 action"),
        ({"move": True}, 400, "give the move"),
        ({}, 400, "give the move"),
    ]:
        r = c.post("/api/move", json=body)
        assert r.status_code == status and message in r.json()["error"]
    r = c.post("/api/move", content=b"move=3", headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    r = c.post("/api/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    assert c.get("/api/state").json() == before
    for body, message in [
        ({"game": "chess"}, "unknown game"),
        ({"game": "connect4", "opponent": "mcts:sims=3"}, "unknown key"),
        ({"game": "connect4", "opponent": "az:net=/etc/passwd"}, "shipped nets only"),
        ({"game": "connect4", "opponent": "mcts:simulations=10000000"}, "more than the page allows"),
        ({"game": "connect4", "first": "yes"}, "first is true"),
    ]:
        r = c.post("/api/new", json=body)
        assert r.status_code == 400 and message in r.json()["error"]
    assert c.get("/api/state").json() == before  # a refused new game leaves the old one
    c.post("/api/resign", json={})
    r = c.post("/api/move", json={"move": 3})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_sessions_are_separate_and_run_at_once(client):
    clients = [client() for _ in range(4)]  # one server; a TestClient keeps its own cookies: one browser each
    seeds = {
        c.post("/api/new", json={"game": "connect4", "opponent": FAST, "first": True}).json()["seed"] for c in clients
    }
    assert len(seeds) == 4

    def play(k):
        c = clients[k]
        for column in (k, k, k + 1):  # each browser its own moves
            c.post("/api/move", json={"move": column})
        return c.get("/api/state").json()

    with ThreadPoolExecutor(4) as pool:
        views = list(pool.map(play, range(4)))
    for k, view in enumerate(views):
        assert view["plies"] == 6 and not view["over"]
        assert view["board"][5][k] == 1 and view["board"][5][k + 1] in (1, 2)  # its own first move, at the bottom


@pytest.mark.slow
def test_one_session_s_long_search_does_not_hold_up_another(client):
    slow, quick = client(), client()
    slow.post("/api/new", json={"game": "connect4", "opponent": "mcts:time=2", "first": True})  # 2 s a move
    quick.post("/api/new", json={"game": "connect4", "opponent": FAST, "first": True})
    with ThreadPoolExecutor(1) as pool:
        thinking = pool.submit(slow.post, "/api/move", json={"move": 3})
        time.sleep(0.3)
        began = time.monotonic()
        assert quick.post("/api/move", json={"move": 3}).status_code == 200
        waited = time.monotonic() - began
        assert not thinking.done() and waited < 1.0  # answered while the other search was still running
        assert thinking.result().status_code == 200


def test_the_page_keeps_learning_between_games_without_a_profile(client):
    c = client()
    first = c.post("/api/new", json={"game": "connect4", "opponent": "mcts:dsa=both,simulations=30"}).json()
    assert first["strength"]["z"] == 0.0
    after = c.post("/api/resign", json={}).json()
    assert after["over"] and not after["human_to_move"] and after["legal"] == [] and after["to_move"] is None
    second = c.post("/api/new", json={"game": "connect4", "opponent": "mcts:dsa=both,simulations=30"}).json()
    assert second["strength"]["z"] == pytest.approx(-0.375) and second["record"]["losses"] == 1  # it won: weaker
    other = c.post("/api/new", json={"game": "connect4", "opponent": "mcts:dsa=both,simulations=40"}).json()
    assert other["strength"]["z"] == 0.0 and other["record"]["games"] == 0  # another opponent starts afresh


def test_a_failing_search_leaves_the_game_as_it_was(client, monkeypatch):
    c = client()
    c.post("/api/new", json={"game": "connect4", "opponent": FAST})
    before = c.get("/api/state").json()

    def broken(self, state):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(MCTSAgent, "select_action", broken)
    r = c.post("/api/move", json={"move": 3})
    assert r.status_code == 500 and "the game is as it was" in r.json()["error"]
    assert c.get("/api/state").json() == before
    monkeypatch.setattr(MCTSAgent, "select_action", lambda self, state: (_ for _ in ()).throw(ValueError("x")))
    r = c.post("/api/move", json={"move": 3})
    assert r.status_code == 400 and c.get("/api/state").json() == before


def test_the_page_refuses_searches_it_cannot_bound_and_other_hosts(client):
    c = client()
    for game, spec, key in [
        ("connect4", "minimax:depth=60", "depth="),
        ("othello", "minimax:endgame=64", "endgame="),
        ("connect4", "az:net=uniform,dda=alphadda1,nh=100000000", "nh="),
        ("connect4", "az:net=uniform,leaves=100000", "leaves="),
        ("connect4", "az:net=uniform,simulations=5000", "simulations="),
        ("connect4", "mcts:time=3600", "time="),
        ("connect4", "sp:tuner=cmaes,popsize=1000000", "on-line tuners"),
    ]:
        r = c.post("/api/new", json={"game": game, "opponent": spec})
        assert r.status_code == 400 and key in r.json()["error"], spec
        assert "set-cookie" not in r.headers  # a refused game leaves no session behind
    from starlette.testclient import TestClient

    from tuner.play.web import make_app

    rebound = TestClient(make_app(), base_url="http://attacker.example")  # a page whose name points at 127.0.0.1
    assert rebound.get("/api/options").status_code == 400


# --- profiles on the command line ------------------------------------------------------------------------


def test_elo_below_best_follows_the_measured_curves_by_hand():
    """Connect4's z curve: 228 Elo below z = +inf at z = 0, 102 more per unit lower, none above z = 2.23, at
    most 398; 165 Elo per halving of the simulations (tuner.play.level's sources)."""
    from tuner.play.level import describe_level, elo_below_best

    assert elo_below_best(math.inf) == 0 and elo_below_best(3.0) == 0
    assert elo_below_best(0.0) == pytest.approx(228.1) and elo_below_best(-1.0) == pytest.approx(330.5)
    assert elo_below_best(-9.0) == 398.0 and elo_below_best(math.inf, 0.25) == pytest.approx(330.0)
    assert describe_level(12.0) == "at about its best" and describe_level(266.5).startswith("about 270 Elo below")


def test_profiles_list_the_level_each_starts_at_and_delete_asks(tmp_path, monkeypatch, capsys):
    path = tmp_path / "p.sqlite"
    bot = Opponent("connect4", "mcts:dsa=inter,simulations=20", profile="ada", profiles=path, seed=1)
    bot.new_game()
    bot.resign()  # its win: z falls to -0.375
    capsys.readouterr()
    assert main(["profiles", "list", "--profiles", str(path)]) == 0  # the option after the command
    out = capsys.readouterr().out
    assert "its next game starts about 270 Elo below its best (an estimate): z -0.38, 20 simulations" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["profiles", "delete", "ada", "--profiles", str(path)]) == 2  # no terminal: it needs --yes
    assert "add --yes" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", _Tty("n\n"))
    assert main(["profiles", "delete", "ada", "--profiles", str(path)]) == 0
    assert "nothing deleted" in capsys.readouterr().out and len(Profiles(path).list()) == 1
    monkeypatch.setattr("sys.stdin", _Tty(""))  # Ctrl-D at the prompt: a no
    assert main(["profiles", "delete", "ada", "--profiles", str(path)]) == 0
    assert "nothing deleted" in capsys.readouterr().out and len(Profiles(path).list()) == 1
    none = tmp_path / "none.sqlite"
    assert main(["profiles", "--profiles", str(none)]) == 0 and not none.exists()  # looking creates nothing
    monkeypatch.setattr("sys.stdin", _Tty("y\n"))
    assert main(["profiles", "delete", "ada", "--profiles", str(path)]) == 0
    assert "deleted 1 profile of 'ada'" in capsys.readouterr().out and Profiles(path).list() == []
    assert main(["profiles", "delete", "ada", "--yes", "--profiles", str(path)]) == 2
    assert "no profile 'ada'" in capsys.readouterr().err


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_the_page_s_coordinates_name_squares_as_the_moves_do_and_the_ending_is_shown():
    """Every legal move's text ends with its square's column and row labels; Connect4's vertical four in column 0
    (moves 0 1 0 1 0 1 0) is the winning line, rows 2-5; Connect 5's diagonal b2-f6 (x on b2 c3 d4 e5 f6, o on
    the a-file between) is its five squares; a full Othello board counts every disc."""
    from tuner.play.web import coordinates, ending

    for name in (
        "connect4",
        "othello6",
        "othello",
        "breakthrough",
        "knightthrough",
        "connect5",
        "tictactoe3d",
        "sheepandwolf",
    ):
        game = games.load(name)
        state, labels = game.new_initial_state(), coordinates(game)
        for action in state.legal_actions():
            row, col = state.action_squares(action)[1]
            assert state.action_to_string(action).endswith(labels["cols"][col] + (labels["rows"] or [""] * 8)[row])
    c4 = games.load("connect4").new_initial_state()
    for action in (0, 1, 0, 1, 0, 1, 0):
        c4.apply_action(action)
    p0, p1 = c4.planes()
    board = (p0.astype(int) + 2 * p1.astype(int)).tolist()
    assert ending(c4.game, board, c4.returns()) == {"cells": [[2, 0], [3, 0], [4, 0], [5, 0]], "count": None}
    c5 = games.load("connect5").new_initial_state()
    for name in ("b2", "a1", "c3", "a3", "d4", "a5", "e5", "a7", "f6"):
        c5.apply_action(c5.string_to_action(name))
    p0, p1 = c5.planes()
    board = (p0.astype(int) + 2 * p1.astype(int)).tolist()
    assert c5.returns() == [1.0, -1.0]
    assert ending(c5.game, board, c5.returns())["cells"] == [[k, k] for k in range(1, 6)]
    full = [[1] * 6 for _ in range(4)] + [[2] * 6 for _ in range(2)]
    assert ending(games.load("othello6"), full, [1.0, -1.0])["count"] == [24, 12]


def test_the_page_plays_a_game_from_outside_as_its_text_and_a_list_of_moves(client, nim):
    """Nim (3, 4, 5) has no board of pieces: the page offers it, shows its own text and names every legal move;
    the person takes a whole heap at a time (action heap * 8 + count - 1) until the game ends."""
    c = client()
    offered = {g["name"]: g for g in c.get("/api/options").json()["games"]}
    assert offered["nim"]["drawn"] is False and offered["connect4"]["drawn"] is True
    assert [o["spec"] for o in offered["nim"]["opponents"]][:3] == [DEFAULT_SPEC, "mcts:dsa=both", "mcts:dsa=intra"]
    assert not any(o["spec"].startswith("az") for o in offered["nim"]["opponents"])  # no planes: no AlphaZero
    view = c.post("/api/new", json={"game": "nim", "opponent": FAST, "first": True}).json()
    assert view["board"] is None and view["text"] == "3 4 5" and view["coordinates"] is None
    assert len(view["legal"]) == 12 and view["legal"][2] == {
        "action": 2,
        "text": "take 3 from heap 0",
        "from": None,
        "to": None,
    }
    while not view["over"]:
        heaps = [int(h) for h in view["text"].split()]
        heap = next(h for h, n in enumerate(heaps) if n)
        view = c.post("/api/move", json={"move": heap * 8 + heaps[heap] - 1}).json()
        assert view["last"]["text"].startswith("take ")
    assert view["text"] == "0 0 0" and view["result"] in ("win", "loss") and view["ending"] is None


def test_the_terminal_plays_a_game_from_outside_by_move_names_and_numbers(nim, monkeypatch, capsys):
    """Nim in the terminal: its own text for a board, moves by name or number, refusals naming the legal moves (its
    names hold spaces: comma-separated). Seed 1's opponent answers heap 0 taken with 3 from heap 1 (0 1 5)."""
    lines = ["take 3 from heap 0", "take 9 from heap 1", "12", "8", "n"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["play", "nim", "--opponent", "mcts:simulations=30", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "New game: you play first, as player 0" in out and "\n3 4 5\n" in out and "> 0 4 5\n" in out
    assert "It plays take 3 from heap 1" in out and "\n0 1 5\n" in out
    assert (
        "error: 'take 9 from heap 1' is not a move: give a move's name (take 1 from heap 1, take 1 from heap 2, " in out
    )
    assert "error: take 5 from heap 1 is not a legal move here; legal: take 1 from heap 1, take 1 from heap 2, " in out
    assert "> 0 0 5\n" in out and "It plays take 5 from heap 2" in out and "You lost." in out


def test_a_broken_game_package_leaves_the_page_playing_the_others(client, monkeypatch):
    """An installed package whose game fails to load: the page offers every other game, and asking for the broken
    one is a one-line 400, not a server error."""
    from importlib.metadata import EntryPoint

    point = EntryPoint(name="broken", value="no_such_module_here:Game", group=games.ENTRY_POINTS)
    monkeypatch.setattr(games, "entry_points", lambda group: [point] if group == games.ENTRY_POINTS else [])
    c = client()
    offered = [g["name"] for g in c.get("/api/options").json()["games"]]
    assert "connect4" in offered and "broken" not in offered
    answer = c.post("/api/new", json={"game": "broken", "opponent": FAST})
    assert answer.status_code == 400 and "cannot be loaded here" in answer.json()["error"]
    assert c.post("/api/new", json={"game": "connect4", "opponent": FAST}).status_code == 200
