"""The online game loop: one game against a ``CourseServer``, checked on every reply, recorded.

The loop keeps a mirror of the game (``client.mirror``) and checks it against every reply; a
reply that cannot follow from it stops the game with ``Desync`` instead of searching a
position that is not the real one.

Time: the server allows 5 s per move, counted (as far as we can see) from its reply to our
next request.  Our clock starts when a reply has been received, and the engine gets what is
left of ``move_budget`` (``min(agent.seconds_per_move, 5 - agent.safety_margin)``) after the
reply was checked; the move is recorded and sent right after.  The seconds recorded per move
are measured the same way: from the reply received to the move about to be sent.

Resuming: when the client was stopped during a game, the record (``client.records``) knows
the last board the server sent and whether any move of ours is in doubt.  A game is resumed
only when that is *safe* (``client.mirror.resume_problem``).  The server's clock has been running since
its last reply: a resumed move gets only what is left of the budget, and a warning says when
the move will most likely be ruled late.

Each step is recorded before anything about it is printed, so a failure while printing (a
closed pipe, Ctrl-C) never leaves a move marked in doubt that the server had answered.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from board import Board
from client.display import format_move, our_side, render_grid, server_says
from client.mirror import Mirror, resume_problem
from client.outcome import OurGame
from client.records import ONLINE, RecordedGame, Records
from course.errors import (
    ClientError,
    Desync,
    ImpossibleMove,
    LostOnServer,
    RequestRejected,
    ServerUnreachable,
    WrongApiKey,
)
from course.protocol import ILLEGAL, LOSS, RESULT_RUNNING, SERVER_MOVE_LIMIT, CourseServer
from settings import AgentSettings
from timecontrol import Clock, Limit
from vocabulary import Ending, column_label

if TYPE_CHECKING:
    from engine import Decision
    from engine.games import PlayedMove

BOT_NAME = "server bot"
# The least time the engine is given, even when checking and recording a reply took long:
# its minimum depth is searched anyway, and this keeps the budget positive.
MIN_THINK_SECONDS = 0.01

Output = Callable[[str], None]


class EngineMoveError(RuntimeError):
    """The engine chose a column that cannot be played: a bug in the engine, never sent."""


class Decider(Protocol):
    """What the loop needs of the engine (``engine.Engine`` is one): a decision within a limit,
    not a player's bare column (``engine.players.Player``)."""

    def new_game(self) -> None: ...

    def decide(self, board: Board, limit: Limit) -> Decision: ...


def move_budget(agent: AgentSettings, seconds: float | None = None) -> float:
    """Seconds to think per move: ``seconds`` (``online --time``) or else the configured time,
    capped below the server's 5 s limit (the settings keep ``safety_margin`` below it)."""
    wanted = agent.seconds_per_move if seconds is None else seconds
    return min(wanted, SERVER_MOVE_LIMIT - agent.safety_margin)


class OnlineGame:
    """Plays one game against ``server`` with ``engine``, writing it to ``records``."""

    def __init__(
        self,
        server: CourseServer,
        engine: Decider,
        records: Records,
        stil_ids: Sequence[str],
        *,
        budget: float,
        out: Output = print,
        clock: Clock = time.perf_counter,
        title: str | None = None,
        checkpoint: Callable[[], None] | None = None,
    ) -> None:
        """``title`` names the game in the log (``game 2 of 5``; by default its record number);
        ``checkpoint`` is called after each move is chosen, before it is sent: it may raise
        ``KeyboardInterrupt`` (``client.interrupt``), leaving the game resumable."""
        self.server = server
        self.engine = engine
        self.records = records
        self.stil_ids = list(stil_ids)
        self.budget = budget
        self.out = out
        self.clock = clock
        self.title = title
        self.checkpoint = checkpoint
        self.moves: list[PlayedMove] = []

    # The two ways in: a new game, or a recorded one.

    def play_new(self) -> OurGame:
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
        first_bot = mirror.bot_opening
        self.records.started(game_id, mirror.we_started, mirror.grid(), first_bot)
        who = ("we start" if mirror.we_started else
               f"the bot starts in column {column_label(first_bot)}" if first_bot is not None
               else "the bot starts")
        who += f"; {our_side(mirror.we_started)}; columns 1-7 as in move strings"
        name = f"{self.title} (record #{game_id})" if self.title else f"game #{game_id}"
        self.out(f"{name}: {who}" + (f" ({server_says(reply.msg)})" if reply.msg else ""))
        self.out(render_grid(mirror.grid(), mirror.we_started))
        return self._play(game_id, mirror, received, resumed=False)

    def resume(self, record: RecordedGame) -> OurGame:
        """Continue a recorded game that ``resume_problem`` found safe."""
        problem = resume_problem(record)
        assert problem is None, problem
        self.engine.new_game()
        mirror = Mirror.from_record(record)
        since = max(0.0, (datetime.now(UTC) - record.last_reply_at).total_seconds())
        self.out(f"resuming game #{record.id} from the record: {mirror.board.moves} discs played,"
                 f" our turn ({our_side(mirror.we_started)}); the server's last reply came"
                 f" {since:.1f} s ago")
        # The server's clock ran meanwhile: thinking, the connect timeout and any retry of our
        # next move get what is left of its 5 s.
        self.server.replied_ago(since)
        if since < SERVER_MOVE_LIMIT:
            received = self.clock() - since
        else:
            # Late whatever we do now, so think as usual: the server may still accept it.
            received = self.clock()
            self.out(f"warning: that is more than the {SERVER_MOVE_LIMIT:g} s the server allows"
                     " per move: it will most likely rule our move late and count the game as"
                     " lost (no worse than giving it up with -1)")
        self.out(render_grid(mirror.grid(), mirror.we_started))
        return self._play(record.id, mirror, received, resumed=True)

    def _play(self, game_id: int, mirror: Mirror, received: float, *, resumed: bool) -> OurGame:
        while True:
            deadline = max(received + self.budget, self.clock() + MIN_THINK_SECONDS)
            decision = self.engine.decide(mirror.board, Limit(deadline))
            if self.checkpoint is not None:
                self.checkpoint()
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
                impossible = isinstance(exc, ImpossibleMove)
                lost = f"our move {ply} (column {column_label(column)}): {exc}"
                self.records.finish(game_id, ILLEGAL if impossible else LOSS, lost, exc.state,
                                    ending=Ending.ILLEGAL if impossible else Ending.RULED)
                self.out(f"{ply:3d}. we play {column_label(column)}: {exc}")
                return self._outcome(game_id, resumed)
            except ClientError as exc:
                if exc.in_doubt:
                    # The unconfirmed move stays in the record: the next run will not resume.
                    self.records.stop(game_id, f"our move {ply} (column {column_label(column)})"
                                               f" is in doubt: {exc}")
                elif isinstance(exc, (ServerUnreachable, RequestRejected, WrongApiKey)):
                    # Nothing was played: the game can be resumed from the same board later.
                    self.records.unsent(game_id, ply)
                else:
                    self.records.unsent(game_id, ply)
                    self.records.stop(game_id, f"our move {ply} (column {column_label(column)})"
                                               f" was refused: {exc}")
                raise
            received = self.clock()
            try:
                applied = mirror.apply(column, reply)
            except Desync as exc:
                self.records.stop(game_id, f"desync: {exc}")
                self.out(format_move(ply, column, decision, took))
                if reply.state is not None:
                    self.out("the server's board:\n" + render_grid(reply.state, mirror.we_started))
                raise
            state = reply.state if reply.state is not None else mirror.grid()
            remarks = [server_says(reply.msg)] if reply.msg else []
            remarks += [f"note: {applied.note}"] if applied.note else []
            over = applied.result != RESULT_RUNNING
            self.records.replied(game_id, ply, took, applied.bot, state, applied.result,
                                 "; ".join(remarks) or None,
                                 ending=mirror.ending(applied.result) if over else None)
            from engine.games import PlayedMove  # the engine is loaded: a move was chosen

            self.moves.append(PlayedMove.of(ply, column, took, decision))
            self.out(format_move(ply, column, decision, took))
            if applied.bot is not None:
                self.out(f"{ply + 1:3d}. bot plays {column_label(applied.bot)}")
            self.out(render_grid(state, mirror.we_started) + ("" if reply.state is not None
                                           else "\n(the server sent no board: this is our mirror's)"))
            if over:
                for line in remarks:
                    self.out(line)
                return self._outcome(game_id, resumed)

    def _outcome(self, game_id: int, resumed: bool) -> OurGame:
        """The finished game as the record has it, our moves of this run with their decisions."""
        record = self.records.game(game_id)
        assert record.our_side is not None
        ours = {move.ply: move for move in self.moves}
        game = dataclasses.replace(record.game, moves=tuple(ours.get(move.ply, move)
                                                            for move in record.game.moves))
        return OurGame(game, record.our_side, game_id, resumed)


__all__ = ["BOT_NAME", "Decider", "EngineMoveError", "OnlineGame", "move_budget"]
