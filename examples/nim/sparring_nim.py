"""Normal-play Nim in plain Python with OpenSpiel's names, for sparring (`pip install examples/nim`, then
`games.load("nim")` or `sparring arena nim mcts random`).

Take any number of objects from one heap; who takes the last object wins. Action heap * 8 + (taken - 1).
"""

TERMINAL = -4  # OpenSpiel's terminal player id


class Nim:
    """The game: heaps of objects, (3, 4, 5) unless told otherwise (at most 8 per heap)."""

    def __init__(self, heaps=(3, 4, 5)):
        if not heaps or any(not 1 <= h <= 8 for h in heaps):
            raise ValueError(f"Nim's heaps hold 1 to 8 objects each, got {heaps}")
        self.heaps = tuple(heaps)

    def new_initial_state(self):
        return NimState(list(self.heaps))

    def num_distinct_actions(self):
        return 8 * len(self.heaps)

    def max_game_length(self):
        return sum(self.heaps)

    def num_players(self):
        return 2


class NimState:
    """A position: what each heap holds, and whose turn it is."""

    def __init__(self, heaps, player=0):
        self.heaps, self.player = heaps, player

    def current_player(self):
        return TERMINAL if self.is_terminal() else self.player

    def legal_actions(self):
        return [h * 8 + k for h, n in enumerate(self.heaps) for k in range(n)]

    def apply_action(self, action):
        self.heaps[action // 8] -= action % 8 + 1
        self.player = 1 - self.player

    def clone(self):
        return NimState(list(self.heaps), self.player)

    def is_terminal(self):
        return sum(self.heaps) == 0

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        winner = 1 - self.player  # the player who took the last object
        return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]

    def action_to_string(self, player, action):
        return f"take {action % 8 + 1} from heap {action // 8}"

    def __str__(self):
        return " ".join(map(str, self.heaps))
