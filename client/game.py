"""The online game loop: one game against a ``CourseServer``, checked on every reply, recorded.

The loop keeps a mirror of the game (``Mirror``: our ``Board`` and who started) and compares
it with the board the server sends after every move.  The server's board is the truth; if it
differs from what our move and the bot's reported move should give, the loop stops with
``Desync`` instead of searching a position that is not the real one.

Time: the server allows 5 s per move, counted (as far as we can see) from its reply to our
next request.  Our clock starts when a reply has been received, and the engine gets what is
left of ``move_budget`` (``min(agent.seconds_per_move, 5 - agent.safety_margin)``) after the
reply was checked; the move is recorded and sent right after.  The seconds recorded per move
are measured the same way: from the reply received to the move about to be sent.

Resuming: when the client was stopped during a game, the record (``client.records``) knows
the last board the server sent and whether any move of ours is in doubt.  A game is resumed
only when that is *safe*, see ``resume_problem``.  The server's clock has been running since
its last reply: a resumed move gets only what is left of the budget, and a warning says when
the move will most likely be ruled late.

Each step is recorded before anything about it is printed, so a failure while printing (a
closed pipe, Ctrl-C) never leaves a move marked in doubt that the server had answered.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from board import Board, InvalidMoveString
from client.protocol import (
    DRAW,
    ILLEGAL,
    LOSS,
    NO_MOVE,
    RESULT_NAMES,
    RESULT_RUNNING,
    WIN,
    ClientError,
    CourseServer,
    Desync,
    Grid,
    ImpossibleMove,
    LostOnServer,
    MoveReply,
    RequestRejected,
    ServerUnreachable,
    WrongApiKey,
    as_grid,
    last_move_result,
)
from client.records import (
    ONLINE,
    STATUS_RUNNING,
    STATUS_STARTING,
    STATUS_STOPPED,
    GameRecord,
    Records,
)
from settings import SERVER_MOVE_LIMIT, AgentSettings

if TYPE_CHECKING:
    from engine import Decision

BOT_NAME = "server bot"
# The least time the engine is given, even when checking and recording a reply took long:
# its minimum depth is searched anyway, and this keeps the budget positive.
MIN_THINK_SECONDS = 0.01

Clock = Callable[[], float]
Output = Callable[[str], None]


class EngineMoveError(RuntimeError):
    """The engine chose a column that cannot be played: a bug in the engine, never sent."""


class Chooser(Protocol):
    """What the loop needs of the engine (``engine.Engine`` is one)."""

    def new_game(self) -> None: ...

    def choose(self, board: Board, seconds: float | None = None) -> Decision: ...


def move_budget(agent: AgentSettings) -> float:
    """Seconds to think per move: the configured time, capped below the server's 5 s limit."""
    return min(agent.seconds_per_move, SERVER_MOVE_LIMIT - agent.safety_margin)


# --- the mirror ------------------------------------------------------------------------------


def format_score(decision: Decision) -> str:
    """The engine's score, with a proven result said in words (``win at disc 23``, ``draw``)."""
    if decision.source in ("book", "solver"):
        # Pons' scale: positive a win, 0 a draw; unproven: only the outcome is known.
        kind = "win" if decision.score > 0 else "draw" if decision.score == 0 else "loss"
        return f"{kind} ({decision.score:+d})" if decision.proven else f"{kind} kept"
    if decision.source == "search":
        from search import WIN, is_loss_score, is_win_score

        if is_win_score(decision.score):
            return f"win at disc {WIN - decision.score}"
        if is_loss_score(decision.score):
            return f"loss at disc {WIN + decision.score}"
    return f"{decision.score:+d}"


def format_move(ply: int, column: int, decision: Decision, seconds: float) -> str:
    """The line printed for one of our moves: column, depth, score, nodes and seconds."""
    return (f"{ply:3d}. we play {column}   depth {decision.depth:2d}  nodes {decision.nodes:>11,}"
            f"  {seconds:6.3f} s  score {format_score(decision)} ({decision.source})")


def render_grid(grid: Grid) -> str:
    """A course grid as text: X = our discs, O = the bot's, row 0 at the top."""
    symbols = {1: "X", -1: "O", 0: "."}
    lines = [" ".join(symbols[v] for v in row) for row in grid]
    lines.append(" ".join(str(c) for c in range(len(grid[0]))))
    return "\n".join(lines)


def _describe_difference(server: Grid, ours: Grid) -> str:
    names = {1: "ours", -1: "the bot's", 0: "empty"}
    for r, (srow, orow) in enumerate(zip(server, ours, strict=True)):
        for c, (s, o) in enumerate(zip(srow, orow, strict=True)):
            if s != o:
                return f"row {r} column {c} is {names[s]} on the server but {names[o]} in our mirror"
    return "no difference"


@dataclass
class Mirror:
    """Our copy of a game: ``board`` after the ``columns`` played, and who started."""

    board: Board
    we_started: bool

    @property
    def our_turn(self) -> bool:
        return (self.board.moves % 2 == 0) == self.we_started

    def grid(self) -> Grid:
        """The board as the server shows it: 1 for our discs, -1 for the bot's."""
        return as_grid(self.board.to_grid(1 if self.our_turn else -1))

    @classmethod
    def start(cls, reply: MoveReply) -> Mirror:
        """The mirror of a new game from the server's reply to -1; raises ``Desync``."""
        if reply.result != RESULT_RUNNING:
            raise Desync(f"the reply to a new game says it is already over (result {reply.result:g})")
        if reply.botmove == NO_MOVE:
            mirror = cls(Board(), we_started=True)
        else:
            mirror = cls(Board().play(reply.botmove), we_started=False)
        if reply.state is not None and reply.state != mirror.grid():
            raise Desync(
                "the new game's board is not what its reply says (bot "
                + ("did not move" if reply.botmove == NO_MOVE else f"played {reply.botmove}")
                + f"): {_describe_difference(reply.state, mirror.grid())}"
            )
        return mirror

    @classmethod
    def from_record(cls, record: GameRecord) -> Mirror:
        """The mirror of a recorded game (call ``resume_problem`` first)."""
        assert record.we_started is not None
        return cls(Board.from_moves(record.columns, one_based=False), record.we_started)

    def apply(self, column: int, reply: MoveReply) -> str | None:
        """Play our ``column`` and the bot's reply, and check the server's board and result.

        Raises ``Desync`` if the reply cannot follow from our mirror; returns a note when the
        server scores the end differently from our rules (its result is kept: it is the truth).
        """
        assert self.our_turn and self.board.can_play(column)
        board = self.board.play(column)
        ours_ended = board.is_over()
        if reply.botmove != NO_MOVE:
            if ours_ended:
                raise Desync(f"the bot played {reply.botmove} although our move {column} ended the game")
            if not board.can_play(reply.botmove):
                raise Desync(f"the bot played {reply.botmove}, a full column in our mirror")
            board = board.play(reply.botmove)
        elif reply.result == RESULT_RUNNING:
            raise Desync(f"the bot did not answer our move {column} but the game goes on")
        self.board = board
        if reply.state is not None and reply.state != self.grid():
            raise Desync(
                f"after our move {column} and the bot's {reply.botmove}, "
                + _describe_difference(reply.state, self.grid())
            )
        if reply.result == RESULT_RUNNING:
            if board.is_over():
                raise Desync("the game is over by our rules but the server says it goes on")
            return None
        expected = self.expected_result()
        if expected != reply.result:
            return (f"the server scored the game {reply.result:g} ({RESULT_NAMES[reply.result]})"
                    f" where our rules give {expected:g}; the server's result counts")
        return None

    def expected_result(self) -> float:
        """The result our rules give the mirror, for us (the course's full-board quirk included)."""
        result = last_move_result(self.board)
        # It is the last mover's: ours unless it is our turn now.
        return LOSS if result == WIN and self.our_turn else result


# --- resuming --------------------------------------------------------------------------------


def resume_problem(record: GameRecord) -> str | None:
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
        return f"{name} was stopped in an unknown state: {record.note}"
    if record.status != STATUS_RUNNING:
        return f"{name} is {record.status}"
    pending = record.pending
    if pending is not None:
        return (f"our move {pending.ply} (column {pending.column}) in {name} was sent but its reply"
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


# --- the game --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveStat:
    """One of our moves: what the engine said and how long it took.

    ``seconds`` runs from the server's reply received to our move about to be sent (online) or
    around the engine's call (local); ``think`` is the engine's own part of it.
    """

    ply: int
    column: int
    depth: int
    score: int
    nodes: int
    seconds: float
    source: str
    think: float


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game, online or local (``game_id`` is None for a local game not recorded)."""

    game_id: int | None
    result: float
    we_started: bool
    columns: tuple[int, ...]
    our_moves: tuple[MoveStat, ...]
    resumed: bool = False
    note: str | None = None


def tally(outcomes: Iterable[GameOutcome]) -> tuple[int, int, int]:
    """Won, drawn and lost games (an illegal move is a loss)."""
    results = [o.result for o in outcomes]
    wins = sum(1 for r in results if r == WIN)
    draws = sum(1 for r in results if r == DRAW)
    return wins, draws, len(results) - wins - draws


def slowest_move(outcomes: Iterable[GameOutcome]) -> tuple[GameOutcome, MoveStat] | None:
    """Our slowest move over ``outcomes`` and its game, or None if we made no move."""
    moves = [(o, m) for o in outcomes for m in o.our_moves]
    return max(moves, key=lambda pair: pair[1].seconds, default=None)


class OnlineGame:
    """Plays one game against ``server`` with ``engine``, writing it to ``records``."""

    def __init__(
        self,
        server: CourseServer,
        engine: Chooser,
        records: Records,
        stil_ids: Sequence[str],
        *,
        budget: float,
        out: Output = print,
        clock: Clock = time.perf_counter,
    ) -> None:
        self.server = server
        self.engine = engine
        self.records = records
        self.stil_ids = list(stil_ids)
        self.budget = budget
        self.out = out
        self.clock = clock
        self.moves: list[MoveStat] = []

    # The two ways in: a new game, or a recorded one.

    def play_new(self) -> GameOutcome:
        """Start a game with -1 and play it to the end."""
        self.engine.new_game()
        game_id = self.records.begin(ONLINE, self.server.name, self.stil_ids, BOT_NAME)
        try:
            reply = self.server.start_game()
        except ClientError as exc:
            if exc.in_doubt:
                self.records.stop(game_id, f"the start's reply was lost: {exc}")
            else:
                self.records.discard(game_id)
            raise
        received = self.clock()
        try:
            mirror = Mirror.start(reply)
        except Desync as exc:
            self.records.stop(game_id, f"desync: {exc}")
            raise
        first_bot = None if mirror.we_started else reply.botmove
        self.records.started(game_id, mirror.we_started, mirror.grid(), first_bot)
        who = "we start" if mirror.we_started else f"the bot starts in column {reply.botmove}"
        self.out(f"game #{game_id}: {who}" + (f" (server: {reply.msg})" if reply.msg else ""))
        self.out(render_grid(mirror.grid()))
        return self._play(game_id, mirror, received, resumed=False)

    def resume(self, record: GameRecord) -> GameOutcome:
        """Continue a recorded game that ``resume_problem`` found safe."""
        problem = resume_problem(record)
        assert problem is None, problem
        self.engine.new_game()
        mirror = Mirror.from_record(record)
        since = max(0.0, (datetime.now(UTC) - record.last_reply_at).total_seconds())
        self.out(f"resuming game #{record.id} from the record: {mirror.board.moves} discs played,"
                 f" our turn; the server's last reply came {since:.1f} s ago")
        if since < SERVER_MOVE_LIMIT:
            received = self.clock() - since  # the server's clock ran meanwhile: use what is left
        else:
            # Late whatever we do now, so think as usual: the server may still accept it.
            received = self.clock()
            self.out(f"warning: that is more than the {SERVER_MOVE_LIMIT:g} s the server allows"
                     " per move: it will most likely rule our move late and count the game as"
                     " lost (no worse than giving it up with -1)")
        self.out(render_grid(mirror.grid()))
        return self._play(record.id, mirror, received, resumed=True)

    def _play(self, game_id: int, mirror: Mirror, received: float, *, resumed: bool) -> GameOutcome:
        while True:
            left = self.budget - (self.clock() - received)
            decision = self.engine.choose(mirror.board, max(left, MIN_THINK_SECONDS))
            column = decision.column
            ply = mirror.board.moves + 1
            if not mirror.board.can_play(column):
                # Sending it would lose the game with -10; stopping leaves it running, resumable.
                raise EngineMoveError(
                    f"internal error: the engine chose column {column}, which cannot be played"
                    f" at disc {ply} of game #{game_id} ({decision.source}); nothing was sent,"
                    " the game is still running on the server"
                )
            self.records.sent(game_id, ply, column, decision, self.clock() - received)
            took = self.clock() - received
            try:
                reply = self.server.play(column)
            except (ImpossibleMove, LostOnServer) as exc:
                result = ILLEGAL if isinstance(exc, ImpossibleMove) else LOSS
                lost = f"our move {ply} (column {column}): {exc}"
                self.records.finish(game_id, result, lost, exc.state)
                self.out(f"{ply:3d}. we play {column}: {exc}")
                return self._outcome(game_id, result, mirror, resumed, lost)
            except ClientError as exc:
                if exc.in_doubt:
                    # The unconfirmed move stays in the record: the next run will not resume.
                    self.records.stop(game_id, f"our move {ply} (column {column}) is in doubt: {exc}")
                elif isinstance(exc, (ServerUnreachable, RequestRejected, WrongApiKey)):
                    # Nothing was played: the game can be resumed from the same board later.
                    self.records.unsent(game_id, ply)
                else:
                    self.records.unsent(game_id, ply)
                    self.records.stop(game_id, f"our move {ply} (column {column}) was refused: {exc}")
                raise
            received = self.clock()
            try:
                note = mirror.apply(column, reply)
            except Desync as exc:
                self.records.stop(game_id, f"desync: {exc}")
                self.out(format_move(ply, column, decision, took))
                if reply.state is not None:
                    self.out("the server's board:\n" + render_grid(reply.state))
                raise
            bot = None if reply.botmove == NO_MOVE else reply.botmove
            state = reply.state if reply.state is not None else mirror.grid()
            self.records.replied(game_id, ply, took, bot, state, reply.result)
            self.moves.append(MoveStat(ply, column, decision.depth, decision.score, decision.nodes,
                                       took, decision.source, decision.seconds))
            self.out(format_move(ply, column, decision, took))
            if bot is not None:
                self.out(f"{ply + 1:3d}. bot plays {bot}")
            self.out(render_grid(state) + ("" if reply.state is not None
                                           else "\n(the server sent no board: this is our mirror's)"))
            if reply.finished:
                if reply.msg:
                    self.out(f"server: {reply.msg}")
                if note:
                    self.out(f"note: {note}")
                return self._outcome(game_id, reply.result, mirror, resumed, note)

    def _outcome(
        self, game_id: int, result: float, mirror: Mirror, resumed: bool, note: str | None
    ) -> GameOutcome:
        record = self.records.game(game_id)
        return GameOutcome(
            game_id=game_id,
            result=result,
            we_started=mirror.we_started,
            columns=tuple(record.columns),
            our_moves=tuple(self.moves),
            resumed=resumed,
            note=note,
        )


__all__ = [
    "BOT_NAME",
    "DRAW",
    "LOSS",
    "WIN",
    "EngineMoveError",
    "GameOutcome",
    "Mirror",
    "MoveStat",
    "OnlineGame",
    "move_budget",
    "render_grid",
    "resume_problem",
    "slowest_move",
    "tally",
]
