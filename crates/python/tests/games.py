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


class RaceState:
    """Race to 10: the mover adds 1 or 2 to a shared total, and after adding 2 moves again,
    so turns do not alternate; whoever brings the total to 10 or more wins."""

    def __init__(self):
        self.total = 0
        self.player = 0
        self.winner = None

    def current_player(self):
        return -4 if self.is_terminal() else self.player

    def legal_actions(self):
        return [] if self.is_terminal() else [0, 1]

    def apply_action(self, action):
        self.total += action + 1
        if self.total >= 10:
            self.winner = self.player
        elif action == 0:
            self.player = 1 - self.player

    def is_terminal(self):
        return self.winner is not None

    def returns(self):
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def observation_tensor(self, player):
        return [1.0 if i == self.total else 0.0 for i in range(10)]

    def clone(self):
        other = RaceState()
        other.total, other.player, other.winner = self.total, self.player, self.winner
        return other

    def action_to_string(self, player, action):
        return f"+{action + 1}"

    def __str__(self):
        return f"total {self.total}, player {self.player} to move"


class Race:
    name = "race"

    def new_initial_state(self):
        return RaceState()

    def num_distinct_actions(self):
        return 2

    def observation_tensor_shape(self):
        return [10]


def race_value(state):
    """The value of `state` for its mover under perfect play (turns may repeat)."""
    if state.is_terminal():
        return 0.0
    best = -1.0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.is_terminal():
            value = 1.0
        elif child.current_player() == state.current_player():
            value = race_value(child)
        else:
            value = -race_value(child)
        best = max(best, value)
    return best


class KalahState:
    """Kalah with three pits a side and `seeds` seeds in each: sowing counter-clockwise past
    the mover's own store (index 3 for the first player, 7 for the second), skipping the
    opponent's; a last seed in the mover's store moves again, so turns do not alternate; a
    last seed in an empty pit of the mover's captures it and the pit opposite. When one side
    is empty the other side's seeds go to its owner; the larger store wins, equal stores
    draw."""

    def __init__(self, seeds=3):
        self.pits = [seeds] * 3 + [0] + [seeds] * 3 + [0]
        self.player = 0

    def current_player(self):
        return -4 if self.is_terminal() else self.player

    def legal_actions(self):
        if self.is_terminal():
            return []
        return [a for a in range(3) if self.pits[a + 4 * self.player] > 0]

    def apply_action(self, action):
        pits, own = self.pits, 4 * self.player
        store, theirs = own + 3, 7 - own
        index = action + own
        seeds, pits[index] = pits[index], 0
        while seeds:
            index = (index + 1) % 8
            if index != theirs:
                pits[index] += 1
                seeds -= 1
        if own <= index < store and pits[index] == 1 and pits[6 - index] > 0:
            pits[store] += pits[index] + pits[6 - index]
            pits[index] = pits[6 - index] = 0
        if sum(pits[0:3]) == 0 or sum(pits[4:7]) == 0:
            pits[3] += sum(pits[0:3])
            pits[7] += sum(pits[4:7])
            pits[0:3] = pits[4:7] = [0, 0, 0]
        elif index != store:
            self.player = 1 - self.player

    def is_terminal(self):
        return sum(self.pits[0:3]) == 0 and sum(self.pits[4:7]) == 0

    def returns(self):
        if not self.is_terminal() or self.pits[3] == self.pits[7]:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.pits[3] > self.pits[7] else [-1.0, 1.0]

    def observation_tensor(self, player):
        own = 4 * player
        mine, theirs = self.pits[own:own + 4], self.pits[4 - own:8 - own]
        return [count / 6.0 for count in mine + theirs]

    def clone(self):
        other = KalahState()
        other.pits, other.player = list(self.pits), self.player
        return other

    def action_to_string(self, player, action):
        return "abc"[action]

    def __str__(self):
        return f"pits {self.pits}, player {self.player} to move"


class Kalah:
    name = "kalah"

    def new_initial_state(self):
        return KalahState()

    def num_distinct_actions(self):
        return 3

    def observation_tensor_shape(self):
        return [8]


def kalah_values(state, memo={}):
    """Each legal action's value for the mover of `state` under perfect play (the mover may
    move again after it)."""
    values = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.is_terminal():
            values[action] = child.returns()[state.player]
        else:
            key = (tuple(child.pits), child.player)
            if key not in memo:
                memo[key] = max(kalah_values(child).values())
            same = child.current_player() == state.player
            values[action] = memo[key] if same else -memo[key]
    return values
