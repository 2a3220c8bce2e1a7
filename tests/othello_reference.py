"""An independent, deliberately naive Othello for checking the compiled kernels (any board size).

Written from the rulebook, not from games/othello.py: a list-of-lists board, each direction walked
square by square. Slow, obvious, and sharing no code with the kernels.
"""

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


class NaiveOthello:
    def __init__(self, n):
        self.n = n
        self.board = [[-1] * n for _ in range(n)]
        h = n // 2
        self.board[h - 1][h - 1] = self.board[h][h] = 1  # white
        self.board[h - 1][h] = self.board[h][h - 1] = 0  # black
        self.player = 0
        self.over = False

    def copy(self):
        other = NaiveOthello.__new__(NaiveOthello)
        other.n, other.player, other.over = self.n, self.player, self.over
        other.board = [row[:] for row in self.board]
        return other

    def _flips(self, r, c, p):
        if self.board[r][c] != -1:
            return []
        flipped = []
        for dr, dc in DIRECTIONS:
            rr, cc, line = r + dr, c + dc, []
            while 0 <= rr < self.n and 0 <= cc < self.n and self.board[rr][cc] == 1 - p:
                line.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if line and 0 <= rr < self.n and 0 <= cc < self.n and self.board[rr][cc] == p:
                flipped += line
        return flipped

    def _moves(self, p):
        return [r * self.n + c for r in range(self.n) for c in range(self.n) if self._flips(r, c, p)]

    def legal_actions(self):
        if self.over:
            return []
        return self._moves(self.player) or [self.n * self.n]

    def apply(self, action):
        if action != self.n * self.n:
            r, c = divmod(action, self.n)
            for rr, cc in self._flips(r, c, self.player):
                self.board[rr][cc] = self.player
            self.board[r][c] = self.player
        self.player = 1 - self.player
        if not self._moves(0) and not self._moves(1):
            self.over = True

    def returns(self):
        if not self.over:
            return [0.0, 0.0]
        black = sum(row.count(0) for row in self.board)
        white = sum(row.count(1) for row in self.board)
        return [0.0, 0.0] if black == white else [1.0, -1.0] if black > white else [-1.0, 1.0]


def naive_perft(state, depth):
    if depth == 0 or state.over:
        return 1
    total = 0
    for a in state.legal_actions():
        child = state.copy()
        child.apply(a)
        total += naive_perft(child, depth - 1)
    return total
