"""9x9 Go against OpenSpiel's `go(board_size=9)` move for move (legal moves, the board, the end and its returns over
1,000 random games that include kos, superkos and the move limit), and the rules by hand: captures, suicide, ko, area
scoring and komi."""

import random

import numpy as np
import pytest

import games
from games.go import Go

GO = games.load("go9")


def play(moves, game=GO):
    state = game.new_initial_state()
    for m in moves.split():
        state.apply_action(state.string_to_action(m))
    return state


@pytest.mark.openspiel
def test_random_games_follow_openspiel_move_for_move():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
    theirs_game = pyspiel.load_game("go(board_size=9)")
    rng = random.Random(0)
    ends, kos = set(), 0
    for _ in range(1000):
        ours, theirs = GO.new_initial_state(), theirs_game.new_initial_state()
        while not theirs.is_terminal():
            assert not ours.is_terminal()
            legal = ours.legal_actions()
            assert legal == theirs.legal_actions()
            action = rng.choice(legal)
            ours.apply_action(action)
            theirs.apply_action(action)
            kos += ours.array[4] != 0
            black, white = np.array(theirs.observation_tensor(0)).reshape(4, 9, 9)[:2]  # then empty, white to play
            # theirs from row 1 up, ours drawn from row 9 down
            assert all(np.array_equal(a, b[::-1]) for a, b in zip(ours.planes(), (black == 1, white == 1)))
        assert ours.is_terminal() and ours.returns() == list(theirs.returns())
        s, length = ours.array, len(ours.history())
        ends.add("superko" if s[3] == 3 else "limit" if length == 162 else "two passes")
    assert ends == {"superko", "limit", "two passes"} and kos > 100


def _bits(words) -> set:
    return {w * 64 + i for w, word in enumerate(words) for i in range(64) if int(word) >> i & 1}


def test_chain_records_atari_points_and_legal_moves_match_a_flood_fill_at_every_move():
    """The kernels' incremental records (each chain's stones and liberties, each colour's atari points) and the legal
    moves decided from them, against chains found afresh by flooding the board, at every move of 30 random games
    (over 300 captures). The legal moves by the rules: an empty point, not the ko point, where the stone has an empty
    neighbour, joins an own chain with another liberty, or takes an opposing chain's last one."""
    from games.go import ATARI, BOARD, HEAD, KO, LIBERTIES, NEIGHBOURS, PASS, STONES

    rng = random.Random(1)
    captures = ataris = crowded = 0
    for _ in range(30):
        state = GO.new_initial_state()
        while not state.is_terminal():
            s = state.array
            board = [int(x) for x in s[BOARD : BOARD + 81]]
            atari, liberties_of = {1: set(), 2: set()}, {}
            for p in range(81):
                if board[p] == 0 or p in liberties_of:
                    continue
                chain, todo = {p}, [p]
                while todo:
                    for q in NEIGHBOURS[todo.pop()]:
                        if q >= 0 and board[q] == board[p] and q not in chain:
                            chain.add(q)
                            todo.append(q)
                liberties = {q for c in chain for q in NEIGHBOURS[c] if q >= 0 and board[q] == 0}
                liberties_of.update(dict.fromkeys(chain, liberties))
                head = int(s[HEAD + p])
                assert all(int(s[HEAD + c]) == head for c in chain)
                assert _bits(s[STONES + 2 * head : STONES + 2 * head + 2]) == chain
                assert _bits(s[LIBERTIES + 2 * head : LIBERTIES + 2 * head + 2]) == liberties
                if len(liberties) == 1:
                    atari[board[p]] |= liberties
            for colour in (1, 2):
                assert _bits(s[ATARI + 2 * (colour - 1) : ATARI + 2 * colour]) == atari[colour]
                ataris += len(atari[colour])
            me = int(s[2]) + 1
            legal = []
            for p in range(81):
                near = [q for q in NEIGHBOURS[p] if q >= 0]
                if board[p] != 0 or p == int(s[KO]) - 1:
                    continue
                crowded += all(board[q] != 0 for q in near)
                if any(
                    board[q] == 0 or (board[q] == me) == (liberties_of[q] != {p}) for q in near
                ):  # an empty neighbour; an own chain with another liberty; an opposing chain's last liberty
                    legal.append(p)
            assert state.legal_actions() == [*legal, PASS]
            stones = np.count_nonzero(board)
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            captures += action != PASS and np.count_nonzero(state.array[BOARD : BOARD + 81]) <= stones
    assert captures > 300 and ataris > 1000 and crowded > 10000


def test_a_chain_without_liberties_is_captured_and_suicide_is_illegal():
    # black surrounds white's e5 on three sides (white plays elsewhere); f5 takes its last liberty
    state = play("e4 e5 d5 a9 e6 a8 f5")
    black, white = state.planes()
    assert not white[4, 4] and white.sum() == 2  # e5 (row 5, column e) gone; a9 and a8 stay
    # white may not play into e5, a point whose four neighbours are black: it would have no liberty
    assert state.string_to_action("e5") not in state.legal_actions()


def test_a_ko_cannot_be_retaken_at_once():
    # black d5 e4 e6 around white e5; white f4 f6 g5 around f5; black f5, into white's eye, takes e5
    state = play("d5 e5 e4 f4 e6 f6 a1 g5 f5")
    assert state.planes()[1][4, 4] == 0  # e5 empty
    # white retaking at e5 would capture the single stone f5 right back: the ko point forbids it for one move
    assert state.string_to_action("e5") not in state.legal_actions()
    state.apply_action(state.string_to_action("a9"))  # white plays elsewhere, black answers elsewhere
    state.apply_action(state.string_to_action("b1"))
    assert state.string_to_action("e5") in state.legal_actions()


def test_area_scoring_and_komi():
    """Black walls off column a-c (27 points with its 9 stones on c), white the rest with d: 27 against 54 by
    area; with komi 7.5 white wins by 34.5, and a komi of 0 changes nothing of who wins but the margin."""
    moves = []
    for r in range(1, 10):
        moves += [f"c{r}", f"d{r}"]
    state = play(" ".join(moves + ["pass", "pass"]))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    from games.go import score

    assert score(state.array.copy()) == 27 - 54 - 7.5
    # black's wall on e, white's on f: black 45, white 36; komi 7.5 keeps black ahead by 1.5, komi 9.5 does not
    moves = []
    for r in range(1, 10):
        moves += [f"e{r}", f"f{r}"]
    assert play(" ".join(moves + ["pass", "pass"])).returns() == [1.0, -1.0]
    high = Go(komi=9.5)
    assert high.name == "go9(komi=9.5)"
    assert play(" ".join(moves + ["pass", "pass"]), high).returns() == [-1.0, 1.0]
    assert games.load("go9(komi=9.5)").komi == 9.5
    for bad, why in (("go9(size=13)", "takes no such parameter"), ("go9(komi=x)", "as numbers")):
        with pytest.raises(ValueError, match=why):
            games.load(bad)


def test_two_passes_end_it_and_names_round_trip():
    state = play("pass")
    assert not state.is_terminal()
    state.apply_action(81)
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]  # an empty board: white wins by komi
    assert GO.new_initial_state().action_to_string(80) == "j9"
    with pytest.raises(ValueError, match="e.g. 'e5'"):
        GO.new_initial_state().string_to_action("i5")
    with pytest.raises(ValueError, match="komi must be"):
        Go(komi=0.3)
