"""The course server's rules without HTTP: the protocol, the bot, the clock, the versions.

``CourseService.move`` and ``CourseService.stats`` return exactly the JSON bodies the course
server sends, so the HTTP app (``localserver.app``) is a thin wrapper and an in-process client
can call the service directly.  Each body is written by the type the client parses it with
(``course.protocol``'s ``MoveReply``, ``Refusal`` and ``Stats``), in the numbers of the server
version played (``float_results``).  The games and the players' records are kept by
``localserver.store`` (SQLite: a file, or ``":memory:"``), so running games and stats survive a
restart of the server.

What comes from the course's description of its server (``docs/protocol.md``) and what is our
guess:

* From the specification: the fields and their ranges (``stil_id`` a list of ids matching
  ``^[\\w\\d_-]*$`` of at most 50 characters, stored as the sorted ids joined with ``+``;
  ``move`` -1..6; ``api_key``), out-of-range values rejected (HTTP 422 in the app, a
  ``RequestError`` here); the reply ``{status, msg, result, botmove, state}`` with ``state`` row 0
  at the top, 1 = the student's discs, -1 = the bot's; -1 starting a new game and counting a
  running one as a loss; results 1 / 0.5 / -1 / -10; an illegal move ending the game with -10,
  ``status: false`` and ``msg: "Impossible move."``; a wrong key answered with ``status: false``
  and ``msg: "Incorrect API key."``; the stats dict with ``status: null``; the bookkeeping of
  played / won / lost / streak / streak_max / total_reward; the bot (alpha-beta minimax cut off
  at depth 3); the course environment's quirk that a move filling the last cell and connecting
  four is a draw (``full_board_win_is_draw``, on by default); a 5 s limit per move.
* Our guesses: every other message text (who starts, the bot's move, the end of a game); the
  bot's evaluation (``windows5000``) and its random choice among equally good moves; who starts
  (random unless configured); what a late move does (the game is lost with result -1,
  ``status: false`` and a message saying how late it was; the clock runs from our reply to the
  next request, and restarts for running games when the server restarts); a move 0..6 without a
  running game (``status: false``, ``result: 0``, ``state: null``); empty ids (rejected, while
  the specification's pattern would allow them), at most ``MAX_IDS`` ids in a group, duplicate
  ids in a group counted once; the stats of a player who never played (all zeros); the reply to
  stats with a wrong key (``status: false`` with the message and ``stil_id``).

Thread safety: requests for one player (one joined id) are serialised by that player's lock,
so a player's game is never advanced twice at once; requests of different players run in
parallel and only share the store.  A move's time is taken when it arrives, before it waits
for its player's lock.

The protocol's constants and its scoring rule come from ``course.protocol`` (the one
description of the protocol), the rule for ids from ``course.ids`` and the rules of the
settings from ``settings.schema``.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from board import WIDTH, Board
from course.grid import Grid, course_grid
from course.ids import player_key, stil_ids_problem
from course.protocol import (
    MSG_IMPOSSIBLE,
    MSG_WRONG_KEY,
    NEW_GAME,
    NO_MOVE,
    RESULT_RUNNING,
    WIN,
    MoveReply,
    Refusal,
    course_result,
    last_move_result,
)
from localserver.store import GameStore, StoredGame
from localserver.variants import START_MESSAGE_2021, resolve
from outside.faults import AgentFault, AgentStopped
from settings import ConfigError, LocalServerSettings
from settings.loading import describe
from vocabulary import Ending, Outcome

if TYPE_CHECKING:
    from engine.players import Player
    from localserver.bots import Bots

MAX_IDS = 10  # our limit on the ids of one group; the real server's is unknown
MIN_MOVE, MAX_MOVE = NEW_GAME, WIDTH - 1

STUDENT, BOT = 1, -1

Reply = dict[str, Any]
_T = TypeVar("_T")
_Fault = tuple[Ending, str]  # how a bot's fault ends its game: the ending, the words of it


class RequestError(ValueError):
    """A request field is out of range: the course server's validation answers HTTP 422."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class CorruptRecord(RuntimeError):
    """A stored game cannot be right (e.g. not the student's turn): the database was altered."""


def request_player(stil_ids: Sequence[str]) -> str:
    """The player a request is for: its ids checked, then the key the group is stored under
    (``course.ids.player_key``: sorted, joined with ``+``).

    Raises ``RequestError`` for a missing, empty, too long or malformed id.
    """
    if isinstance(stil_ids, str):  # a bare string would be split into letters
        stil_ids = [stil_ids]
    ids = list(stil_ids)
    if len(ids) > MAX_IDS:
        raise RequestError("stil_id", f"at most {MAX_IDS} ids, got {len(ids)}")
    problem = stil_ids_problem(ids)
    if problem is not None:
        raise RequestError("stil_id", problem[1])
    return player_key(ids)


def check_move(move: int) -> int:
    if isinstance(move, bool) or not isinstance(move, int):
        raise RequestError("move", f"must be an integer, got {move!r}")
    if not MIN_MOVE <= move <= MAX_MOVE:
        raise RequestError("move", f"must be between {MIN_MOVE} and {MAX_MOVE}, got {move}")
    return move


class _LockedRandom:
    """The service's ``random.Random``, shared by the request threads: one draw at a time.
    A ``search.bot.TieBreaker``, so the bot draws its ties from it."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._lock = threading.Lock()

    def choice(self, seq: Sequence[_T], /) -> _T:
        with self._lock:
            return self._rng.choice(seq)


class NoStatsEndpoint(LookupError):
    """This server version has no stats endpoint (the app answers HTTP 404)."""


class CourseService:
    """Games against the course's bot for any number of players, kept in SQLite.

    ``variant`` and the switches after it (None: the variant's) say which version of the
    course server to behave like (``localserver.variants``).  ``bots`` (``localserver.bots``)
    replaces the course's bot by a player of any spec, one per game (``serve --bot SPEC``):
    a fault of that player (an outside agent late, crashed...: ``outside.AgentFault``, or any
    error) ends its game as won by the student, the fault in the game's note.
    """

    def __init__(
        self,
        db_path: str,
        *,
        api_key: str,
        bot_depth: int = 3,
        time_limit: float = 5.0,
        full_board_win_is_draw: bool = True,
        variant: str = "current",
        bot: str | None = None,
        first: str | None = None,
        null_start_reply: bool | None = None,
        float_results: bool | None = None,
        stats_endpoint: bool | None = None,
        every_start_lost: bool | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
        bots: Bots | None = None,
    ) -> None:
        switches = {"bot": bot, "first": first, "null_start_reply": null_start_reply,
                    "float_results": float_results, "stats_endpoint": stats_endpoint,
                    "every_start_lost": every_start_lost}
        # The rules of [local_server] in config.toml, checked the same way (settings.schema).
        try:
            LocalServerSettings.model_validate({
                "db": db_path, "api_key": api_key, "bot_depth": bot_depth,
                "time_limit": time_limit, "full_board_win_is_draw": full_board_win_is_draw,
                "variant": variant, **switches})
        except ValidationError as exc:
            lines = describe(exc, LocalServerSettings, prefix="local_server")
            raise ConfigError("; ".join(lines)) from None
        self.behaviour = resolve(variant, {name: (value, f"local_server.{name}")
                                           for name, value in switches.items()
                                           if value is not None},
                                 variant_source="local_server.variant")
        self.variant = variant
        self.db_path = db_path
        self.api_key = api_key
        self.bot = self.behaviour.bot
        self.bot_depth = bot_depth
        self.first = self.behaviour.first
        self.time_limit = float(time_limit)
        self.full_board_win_is_draw = full_board_win_is_draw
        self._rng = _LockedRandom(rng or random.Random())
        self._clock = clock
        self._players_lock = threading.Lock()
        self._player_locks: dict[str, threading.Lock] = {}
        # When the reply before each running game's next move was sent (by ``clock``).  Kept
        # in memory only: a monotonic clock means nothing after a restart, so a game found in
        # the database gets a fresh allowance with its first move after the restart.
        self._last_reply: dict[int, float] = {}
        self.store = GameStore(db_path)
        self.bots = bots
        self._game_bots: dict[int, Player] = {}  # running game id -> its bot (with ``bots``)
        self._game_bots_lock = threading.Lock()

    def close(self) -> None:
        if self.bots is not None:
            with self._game_bots_lock:
                running = list(self._game_bots.values())
                self._game_bots.clear()
            for bot in running:
                self.bots.game_over(bot)
        self.store.close()

    # --- locks --------------------------------------------------------------------------------

    def _player_lock(self, player: str) -> threading.Lock:
        with self._players_lock:
            lock = self._player_locks.get(player)
            if lock is None:
                lock = self._player_locks[player] = threading.Lock()
            return lock

    # --- the bot ------------------------------------------------------------------------------

    def _bot_move(self, board: Board) -> int:
        from search.bot import bot_move, random_move  # imported here: it loads the compiled search

        if self.bot == "random":
            return random_move(board, self._rng)
        return bot_move(board, self.bot_depth, self._rng)

    def warm_up(self) -> None:
        """Compile (or load) the bot's search now rather than on the first game."""
        if self.bots is None and self.bot == "minimax":
            self._bot_move(Board())

    def _new_bot(self, player: str) -> Player | None:
        """A new game's bot from ``bots`` (None: the course's bot plays)."""
        if self.bots is None:
            return None
        bot = self.bots.for_game(player)
        bot.new_game()
        return bot

    def _game_bot(self, game: StoredGame) -> Player | None:
        """The running game's bot (a game of before a restart gets a new one)."""
        if self.bots is None:
            return None
        with self._game_bots_lock:
            bot = self._game_bots.get(game.id)
        if bot is None:
            bot = self._new_bot(game.player)
            assert bot is not None
            with self._game_bots_lock:
                self._game_bots[game.id] = bot
        return bot

    def _drop_bot(self, game_id: int) -> None:
        if self.bots is None:
            return
        with self._game_bots_lock:
            bot = self._game_bots.pop(game_id, None)
        if bot is not None:
            self.bots.game_over(bot)

    def _move_of(self, bot: Player | None, board: Board) -> tuple[int, _Fault | None]:
        """The bot's column, or ``NO_MOVE`` and how its fault ends the game (the ending and
        the words of it)."""
        if bot is None:
            return self._bot_move(board), None
        try:
            column = bot.choose(board)
        except AgentFault as fault:
            return NO_MOVE, (fault.kind, fault.detail)
        except AgentStopped as stopped:
            return NO_MOVE, (Ending.STOPPED, stopped.detail)
        except Exception as exc:  # a bot's failure loses its game, the server goes on
            return NO_MOVE, (Ending.ERROR, f"{type(exc).__name__}: {exc}")
        if isinstance(column, bool) or not isinstance(column, int) or not board.can_play(column):
            return NO_MOVE, (Ending.ILLEGAL, f"answered {column!r}, not a free column")
        return column, None

    def _ends(self, board: Board) -> float:
        """The result of the move that made ``board`` for its mover (``last_move_result``)."""
        return last_move_result(board, full_board_win_is_draw=self.full_board_win_is_draw)

    # --- the protocol -------------------------------------------------------------------------

    def move(self, stil_ids: list[str], move: int, api_key: str) -> Reply:
        """``POST move``: the reply body ``{status, msg, result, botmove, state}``, written by
        the type the client reads it with, in this server version's numbers.

        Raises ``RequestError`` for out-of-range fields (the app answers HTTP 422).
        """
        reply = self._move(stil_ids, move, api_key)
        return reply.to_json(float_results=self.behaviour.float_results)

    def _move(self, stil_ids: list[str], move: int, api_key: str) -> MoveReply | Refusal:
        # The time limit counts from arrival, not from when the player's lock is free.
        arrived = self._clock()
        player = request_player(stil_ids)
        check_move(move)
        if api_key != self.api_key:
            return Refusal(MSG_WRONG_KEY)
        with self._player_lock(player):
            game = self.store.running(player)
            if move == NEW_GAME:
                return self._new_game(player, game)
            if game is None:
                return Refusal("No game is running: send move -1 to start a new game.")
            return self._play(game, move, arrived)

    def _new_game(self, player: str, running: StoredGame | None) -> MoveReply:
        first = self.first if self.first != "random" else self._rng.choice(("student", "bot"))
        student_first = first == "student"
        board = Board()
        botmove = NO_MOVE
        bot = self._new_bot(player)
        fault = None
        if not student_first:
            botmove, fault = self._move_of(bot, board)
            if fault is None:
                board = board.play_unchecked(botmove)
        lost_start = None
        if running is None and self.behaviour.every_start_lost:
            # As a server version did: the -1 itself is booked as a lost game.
            lost_start = "Every new game (-1) is booked as a lost game on this server."
        game_id = self.store.start(player, student_first, [] if botmove < 0 else [botmove],
                                   abandon=running, lost_start=lost_start,
                                   bot=None if bot is None else bot.name)
        if running is not None:
            self._drop_bot(running.id)
        if bot is not None:
            with self._game_bots_lock:
                self._game_bots[game_id] = bot
        prefix = "Your running game was counted as a loss. " if running is not None else ""
        if fault is not None:
            game = self.store.running(player)
            assert game is not None and bot is not None
            msg = f"{prefix}{self._bot_lost(game, (), bot, fault)}"
            return MoveReply(msg, WIN, NO_MOVE, _grid(board, student_first))
        if self.behaviour.null_start_reply:  # first is "student" then (see variants.resolve)
            reply = MoveReply(START_MESSAGE_2021, None, None, None)
        else:
            if student_first:
                msg = f"{prefix}New game: you start."
            else:
                msg = f"{prefix}New game: the bot started and played column {botmove}."
            reply = MoveReply(msg, RESULT_RUNNING, botmove, _grid(board, student_first))
        if running is not None:
            self._last_reply.pop(running.id, None)
        self._last_reply[game_id] = self._clock()
        return reply

    def _play(self, game: StoredGame, col: int, arrived: float) -> MoveReply | Refusal:
        board = game.board  # the stored moves were legal when stored; only their order is checked
        student_first = game.student_first
        if board.is_over() or board.first_player_to_move != student_first:
            raise CorruptRecord(f"game {game.id} of {game.player}: not the student's turn")
        columns = list(game.game.columns)
        last = self._last_reply.get(game.id)
        if self.time_limit > 0 and last is not None and arrived - last > self.time_limit:
            late = arrived - last
            msg = (f"Time limit exceeded: your move came {late:.2f} s after the server's reply"
                   f" (the limit is {self.time_limit:g} s). The game is lost.")
            return Refusal(msg, self._end(game, columns, Outcome.LOSS, Ending.LATE, msg),
                           _grid(board, student_first))
        if not board.can_play(col):
            result = self._end(game, columns, Outcome.LOSS, Ending.ILLEGAL,
                               f"Impossible move: column {col} is full.")
            return Refusal(MSG_IMPOSSIBLE, result, _grid(board, student_first))
        board = board.play_unchecked(col)
        columns.append(col)
        over = self._ends(board)
        if over != RESULT_RUNNING:
            return self._over(game, columns, board, over, None)
        bot = self._game_bot(game)
        botmove, fault = self._move_of(bot, board)
        if fault is not None:
            assert bot is not None
            return MoveReply(self._bot_lost(game, columns, bot, fault), WIN, NO_MOVE,
                             _grid(board, student_first))
        board = board.play_unchecked(botmove)
        columns.append(botmove)
        over = self._ends(board)
        if over != RESULT_RUNNING:
            return self._over(game, columns, board, over, botmove)
        self.store.advance(game, columns)
        self._last_reply[game.id] = self._clock()
        return MoveReply(f"The bot played column {botmove}.", RESULT_RUNNING, botmove,
                         _grid(board, student_first))

    def _over(self, game: StoredGame, columns: Sequence[int], board: Board, result: float,
              bot: int | None) -> MoveReply:
        """End ``game`` on the board: the move that made ``board`` (the student's, or the
        bot's in column ``bot``) won it or filled the board, ``result`` for its mover."""
        outcome, msg = _over_words(board, result, bot)
        course = self._end(game, columns, outcome, _board_ending(outcome), msg)
        return MoveReply(msg, course, NO_MOVE if bot is None else bot,
                         _grid(board, game.student_first))

    def _end(self, game: StoredGame, columns: Sequence[int], student: Outcome, ending: Ending,
             note: str) -> float:
        """End ``game`` with the student's outcome, how and why; the course's result of it."""
        self.store.finish(game, game.ended(columns, student, ending, note))
        self._last_reply.pop(game.id, None)
        self._drop_bot(game.id)
        return course_result(student, ending)

    def _bot_lost(self, game: StoredGame, columns: Sequence[int], bot: Player,
                  fault: _Fault) -> str:
        """End ``game`` as won by the student after its bot's fault (or after the bot was
        stopped from outside its sandbox: the course's protocol has no game without a result,
        and the student is not to pay for it: the server's ruling); the message."""
        ending, detail = fault
        if ending is Ending.STOPPED:
            ending = Ending.RULED
            msg = (f"You won: the bot ({bot.name}) was stopped from outside its sandbox, no fault"
                   f" of its own: {detail}")
        else:
            msg = f"You won: the bot ({bot.name}) lost by a fault, {ending.value}: {detail}"
        self._end(game, columns, Outcome.WIN, ending, msg)
        return msg

    def stats(self, stil_ids: list[str], api_key: str) -> Reply:
        """``POST stats``: the stats dict (its ``status`` is null, as on the course server),
        written by the type the client reads it with.

        Raises ``NoStatsEndpoint`` on a server version without stats.
        """
        if not self.behaviour.stats_endpoint:
            raise NoStatsEndpoint("this version of the course server has no stats endpoint")
        player = request_player(stil_ids)
        if api_key != self.api_key:
            return Refusal(MSG_WRONG_KEY).stats_json(player)
        return self.store.stats(player).to_json()


def _over_words(board: Board, result: float, bot: int | None) -> tuple[Outcome, str]:
    """The student's outcome and the server's words when the move that made ``board`` ends the
    game with ``result`` for its mover: the student's (``bot`` None), or the bot's in column
    ``bot``.  The course's environment scores a last disc that fills the board and connects
    four as a draw (``full_board_win_is_draw``): said so."""
    if result == WIN:
        return ((Outcome.WIN, "You won!") if bot is None
                else (Outcome.LOSS, f"The bot played column {bot} and won."))
    if board.last_mover_won():
        four = "your four in a row" if bot is None else f"the bot's four in a row in column {bot}"
        return Outcome.DRAW, (f"Draw: {four} filled the board, and a full board is a draw in the"
                              " course environment.")
    return Outcome.DRAW, ("Draw: the board is full." if bot is None
                          else f"Draw: the bot played column {bot} and the board is full.")


def _board_ending(student: Outcome) -> Ending:
    """How a game the board decided ended: a draw fills the board (the course's environment
    scores a full board's four as one too), anything else is four in a row."""
    return Ending.FULL if student is Outcome.DRAW else Ending.FOUR


def _grid(board: Board, student_first: bool) -> Grid:
    """``board`` as a reply's ``state``: the student's discs are 1 whoever is to move."""
    return course_grid(board, student_to_move=board.first_player_to_move == student_first)


__all__ = [
    "MAX_IDS",
    "CorruptRecord",
    "CourseService",
    "NoStatsEndpoint",
    "RequestError",
    "check_move",
    "request_player",
]
