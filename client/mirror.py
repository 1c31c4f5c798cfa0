"""Our copy of a game against the server, and the rules that keep it true.

``Mirror`` holds our ``Board`` and who started, and reconciles every reply of the server with
it (``Mirror.apply``): the server's board is the truth; when a reply cannot follow from our
move and a single bot move, that is a ``Desync`` and the game loop stops rather than search a
position that is not the real one.  Replies that leave fields out are worked out from the
board in hand (``docs/protocol.md``).

``resume_problem`` says when an unfinished game in the record can be continued safely: every
move we sent has its reply recorded, and the record's board follows from its moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from board import Board, InvalidMoveString
from client.records import STATUS_RUNNING, STATUS_STARTING, STATUS_STOPPED, RecordedGame
from course.errors import Desync
from course.grid import Grid, as_grid
from course.protocol import (
    LOSS,
    NO_MOVE,
    RESULT_NAMES,
    RESULT_RUNNING,
    WIN,
    MoveReply,
    last_move_result,
    result_ending,
)
from vocabulary import Ending, column_label


def _describe_difference(server: Grid, ours: Grid) -> str:
    names = {1: "ours", -1: "the bot's", 0: "empty"}
    for r, (srow, orow) in enumerate(zip(server, ours, strict=True)):
        for c, (s, o) in enumerate(zip(srow, orow, strict=True)):
            if s != o:
                return f"row {r} column {c} is {names[s]} on the server but {names[o]} in our mirror"
    return "no difference"


@dataclass(frozen=True, slots=True)
class Applied:
    """What a reply to our move meant, once reconciled with the mirror: the game's ``result``
    (``RESULT_RUNNING`` while it goes on), the bot's column (None: it did not move, or the
    server did not say where, see ``note``), and a note when the server's account differs from
    our rules or leaves something out (its result is kept: it is the truth)."""

    result: float
    bot: int | None
    note: str | None


@dataclass
class Mirror:
    """Our copy of a game: ``board`` after the ``columns`` played, and who started
    (``bot_opening``: the bot's first column when it started a game we saw begin)."""

    board: Board
    we_started: bool
    bot_opening: int | None = None

    @property
    def our_turn(self) -> bool:
        return (self.board.moves % 2 == 0) == self.we_started

    def grid(self) -> Grid:
        """The board as the server shows it: 1 for our discs, -1 for the bot's."""
        return as_grid(self.board.to_grid(1 if self.our_turn else -1))

    @classmethod
    def start(cls, reply: MoveReply) -> Mirror:
        """The mirror of a new game from the server's reply to -1; raises ``Desync``.

        Who starts: the bot if ``botmove`` is a column; we if it is -1.  A null ``botmove``
        leaves it to the board: an empty one (or a null one) means we start, a single bot disc
        that the bot started there.
        """
        if reply.finished:
            raise Desync(f"the reply to a new game says it is already over (result {reply.result:g})")
        botmove = reply.botmove
        if botmove is None and reply.state is not None:
            botmove = _new_bot_disc(Board(), reply.state, "the new game's board")
        if botmove is None or botmove == NO_MOVE:
            mirror = cls(Board(), we_started=True)
        else:
            mirror = cls(Board().play(botmove), we_started=False, bot_opening=botmove)
        if reply.state is not None and reply.state != mirror.grid():
            raise Desync(
                "the new game's board is not what its reply says (bot "
                + ("did not move" if botmove in (None, NO_MOVE) else f"played {botmove}")
                + f"): {_describe_difference(reply.state, mirror.grid())}"
            )
        return mirror

    @classmethod
    def from_record(cls, record: RecordedGame) -> Mirror:
        """The mirror of a recorded game (call ``resume_problem`` first)."""
        assert record.we_started is not None
        return cls(record.game.board, record.we_started)

    def apply(self, column: int, reply: MoveReply) -> Applied:
        """Play our ``column`` and the bot's reply, and check the server's board and result.

        Null fields are worked out from what is in hand: a null ``botmove`` from a new bot
        disc on the server's board (none: the bot did not move); a null ``result`` from the
        board (over by our rules, or going on); a null ``state`` is not checked.  Raises
        ``Desync`` if the reply cannot follow from our mirror, or leaves the game going on
        without saying where the bot played.
        """
        assert self.our_turn and self.board.can_play(column)
        board = self.board.play(column)
        ours_ended = board.is_over()
        bot = reply.botmove
        if bot is None and reply.state is not None:
            bot = _new_bot_disc(board, reply.state, f"after our move {column}, the server's board")
        note = None
        if bot is None:
            if not ours_ended and not reply.finished:
                raise Desync(f"the server's reply to our move {column} says neither where the bot"
                             " played nor what the board is, and the game goes on")
            if not ours_ended:
                note = "the server did not say where the bot played its last disc"
        elif bot != NO_MOVE:
            if ours_ended:
                raise Desync(f"the bot played {bot} although our move {column} ended the game")
            if not board.can_play(bot):
                raise Desync(f"the bot played {bot}, a full column in our mirror")
            board = board.play(bot)
        elif not ours_ended and reply.result in (None, RESULT_RUNNING):
            raise Desync(f"the bot did not answer our move {column} but the game goes on")
        self.board = board
        if reply.state is not None and reply.state != self.grid():
            raise Desync(
                f"after our move {column} and the bot's {bot}, "
                + _describe_difference(reply.state, self.grid())
            )
        played = None if bot == NO_MOVE else bot
        if reply.result is None:  # the board in hand tells
            result = self.expected_result() if board.is_over() else RESULT_RUNNING
            return Applied(result, played, note)
        if reply.result == RESULT_RUNNING:
            if board.is_over():
                raise Desync("the game is over by our rules but the server says it goes on")
            return Applied(RESULT_RUNNING, played, note)
        expected = self.expected_result() if board.is_over() else None
        if expected != reply.result and bot is not None:
            ours = "that it goes on" if expected is None else f"{expected:g}"
            note = (f"the server scored the game {reply.result:g} ({RESULT_NAMES[reply.result]})"
                    f" where our rules give {ours}; the server's result counts")
        return Applied(reply.result, played, note)

    def ending(self, result: float) -> Ending:
        """How the game the server scored ``result`` (for us) ended, as far as the mirror's
        board shows (``result_ending``)."""
        winner_moved_last = (result == WIN) != self.our_turn
        return result_ending(result, four=self.board.last_mover_won() and winner_moved_last)

    def expected_result(self) -> float:
        """The result our rules give the mirror, for us (the course's full-board quirk included)."""
        result = last_move_result(self.board)
        # It is the last mover's: ours unless it is our turn now.
        return LOSS if result == WIN and self.our_turn else result


def _new_bot_disc(board: Board, state: Grid, what: str) -> int | None:
    """The column of the one bot disc ``state`` has beyond ``board`` (bot to move), -1 if none.

    Raises ``Desync`` if ``state`` differs from ``board`` in any other way.
    """
    ours = as_grid(board.to_grid(-1))  # the bot is to move: its discs are -1
    changed = [(r, c) for r in range(len(ours)) for c in range(len(ours[0]))
               if state[r][c] != ours[r][c]]
    if not changed:
        return NO_MOVE
    if len(changed) == 1:
        row, col = changed[0]
        discs = sum(1 for line in ours if line[col] != 0)
        landing = len(ours) - 1 - discs  # row 0 is the top
        if state[row][col] == -1 and board.can_play(col) and row == landing:
            return col
    raise Desync(f"{what} differs from our mirror by more than one bot disc:"
                 f" {_describe_difference(state, ours)}")


def resume_problem(record: RecordedGame) -> str | None:
    """Why the unfinished ``record`` cannot be resumed safely, or None if it can.

    Safe means: (1) every move we sent has its reply recorded, so the record's last board
    is the one the server holds unless someone else played in between; (2) that board
    follows from the recorded moves and it is our turn in it.  Then our next move is chosen
    for that board, and the server's reply is checked like any other: if the server's game is
    not that one any more, the reply shows it and the client stops (``Desync``).
    """
    name = f"game #{record.id} (started {record.started_at})"
    if record.status == STATUS_STARTING:
        return (f"the start of {name} was sent but no reply was recorded: the server may have"
                " started a game we know nothing of")
    if record.status == STATUS_STOPPED:
        return f"{name} was stopped in an unknown state: {record.game.detail}"
    if record.status != STATUS_RUNNING:
        return f"{name} is {record.status}"
    pending = record.pending
    if pending is not None:
        return (f"our move {pending.ply} (column {column_label(pending.column)}) in {name} was sent"
                " but its reply"
                " was never recorded: the server may or may not have played it")
    if record.we_started is None or record.last_state is None:
        return f"the record of {name} does not say who started or what the board is"
    try:
        mirror = Mirror.from_record(record)
    except InvalidMoveString as exc:
        return f"the record of {name} has impossible moves: {exc}"
    if not mirror.our_turn or mirror.board.is_over():
        return f"the record of {name} does not end with our turn"
    if mirror.grid() != record.last_state:
        return f"the record of {name} does not match its last board"
    return None
