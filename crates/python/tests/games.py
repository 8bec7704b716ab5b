"""Games written in Python for the tests: the OpenSpiel methods zerosum reads, nothing else."""


LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToeState:
    def __init__(self):
        self.board = [None] * 9
        self.player = 0

    def winner(self):
        for a, b, c in LINES:
            if self.board[a] is not None and self.board[a] == self.board[b] == self.board[c]:
                return self.board[a]
        return None

    def current_player(self):
        return -4 if self.is_terminal() else self.player

    def legal_actions(self):
        if self.is_terminal():
            return []
        return [i for i, cell in enumerate(self.board) if cell is None]

    def apply_action(self, action):
        self.board[action] = self.player
        self.player = 1 - self.player

    def is_terminal(self):
        return self.winner() is not None or all(cell is not None for cell in self.board)

    def returns(self):
        winner = self.winner()
        if winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]

    def observation_tensor(self, player):
        mine = [1.0 if cell == player else 0.0 for cell in self.board]
        theirs = [1.0 if cell == 1 - player else 0.0 for cell in self.board]
        empty = [1.0 if cell is None else 0.0 for cell in self.board]
        return mine + theirs + empty

    def clone(self):
        other = type(self)()
        other.board = list(self.board)
        other.player = self.player
        return other

    def action_to_string(self, player, action):
        return "abc"[action % 3] + str(action // 3 + 1)

    def __str__(self):
        marks = {None: ".", 0: "x", 1: "o"}
        return "\n".join("".join(marks[c] for c in self.board[r * 3:r * 3 + 3]) for r in range(3))


class TicTacToe:
    """Tic-tac-toe with a flat observation: three planes of nine cells."""

    name = "pytictactoe"

    def new_initial_state(self):
        return TicTacToeState()

    def num_distinct_actions(self):
        return 9

    def observation_tensor_shape(self):
        return [27]


def minimax_value(state):
    """The value of `state` for the player to move under perfect play."""
    if state.is_terminal():
        returns = state.returns()
        return returns[state.player]
    best = -2.0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        best = max(best, -minimax_value(child))
    return best
