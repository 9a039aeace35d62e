"""A stand-in for the few parts of python-chess that cformer's duck typing
uses (Debian 12 has no python3-chess): Move.uci(), and Board's fen(),
move_stack, root() and push_uci(). Board's fen() knows only the root's FEN,
or a given final_fen, a marker a test can use to see which one was read."""

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class Move:
    def __init__(self, uci):
        self._uci = uci

    def uci(self):
        return self._uci


class Board:
    def __init__(self, fen=STARTING_FEN, moves=(), final_fen=None):
        self._root = fen
        self.move_stack = [Move(m) for m in moves]
        self._final = final_fen

    def push_uci(self, uci):
        self.move_stack.append(Move(uci))

    def root(self):
        return Board(self._root)

    def fen(self):
        if self._final is not None:
            return self._final
        assert not self.move_stack, "the stand-in knows only its root's FEN"
        return self._root
