"""Connect Four for EDAP01 "4 in a row": the course skeleton's program, playing by iterative-deepening
alpha-beta search.

    python connect4.py -l                  one game against a random player in the course's environment
    python connect4.py -o                  one game against the course server (--games N: N games)
    python connect4.py -s                  the server's statistics of our ids
    python connect4.py --move 4453         our move in a position (the columns played, 1-7)
    python connect4.py --line              one game by the line protocol (for agent.py rate)

Online, the ids and the key come from the environment: EDAP01_STIL_IDS (a group's ids
comma-separated) and EDAP01_API_KEY; ``--server URL`` plays another server, such as a local
copy of the course's.  Nothing of the ids or the key is ever printed.

``student_move`` is the skeleton's function: the course's 6x7 grid in (row 0 at the top, 1 our
discs, -1 the opponent's), a column 0-6 out.  The search behind it is in ``search/`` (negamax
with alpha-beta and a transposition table, iterative deepening under a deadline), the evaluation
in ``heuristics/windows.py`` (the course's 5000/500 windows), the board in ``board/``, the time
control in ``timecontrol/``.  This file is the program around them: the player, the server, the
local game and the command line.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import requests

from board import Board, BoardError
from board.render import render_rows
from search import SearchResult, TranspositionTable, iterative_deepening
from search.iterative import deepest

COURSE_SERVER = "https://vilde.cs.lth.se/edap01-4inarow/"
SERVER_MOVE_LIMIT = 5.0  # seconds the server allows for a move
SECONDS_PER_MOVE = 3.0  # our thinking time per move
SAFETY_MARGIN = 1.0  # kept free of the server's limit for the network: online, we think
                     # min(SECONDS_PER_MOVE, SERVER_MOVE_LIMIT - SAFETY_MARGIN) from its reply
MIN_DEPTH = 5  # always completed, whatever the clock says (it takes milliseconds)
TABLE_BITS = 22  # a transposition table of about 2**22 entries (64 MiB)
CONNECT_TIMEOUT, READ_TIMEOUT = 5.0, 15.0  # seconds to reach the server, and for its reply
IDS_VARIABLE, KEY_VARIABLE = "EDAP01_STIL_IDS", "EDAP01_API_KEY"
STIL_ID = re.compile(r"[\w-]{1,50}")  # the server's rule for an id
RESULTS = {1.0: "won", 0.5: "draw", -1.0: "lost", -10.0: "lost: an illegal move"}
EXIT_USAGE = 2

Output = Callable[[str], None]


class Problem(Exception):
    """What stops the program, said in one line (exit code 1): the server failed or refused."""

    exit_code = 1


class UsageProblem(Problem):
    """A mistake in the command line or the environment (exit code 2)."""

    exit_code = EXIT_USAGE


@dataclass
class Game:
    """A game played: its result for us (1 won, 0.5 draw, -1 lost, -10 an illegal move) and the
    seconds each of our moves took."""

    result: float = 0.0
    seconds: list[float] = field(default_factory=list)


# --- the player -------------------------------------------------------------------------------

class Player:
    """The search with its transposition table, which it keeps from move to move in a game."""

    def __init__(self, table_bits: int = TABLE_BITS,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.table = TranspositionTable(bits=table_bits)
        self.clock = clock
        self.last: SearchResult | None = None  # what the last move's search found

    def new_game(self) -> None:
        self.table.clear()

    def choose(self, board: Board, deadline: float, depth: int | None = None) -> SearchResult:
        """Search ``board`` one depth deeper at a time until ``deadline`` (a time of ``clock``),
        or to ``depth`` plies; the deepest completed search decides."""
        self.last = deepest(iterative_deepening(board, deadline, clock=self.clock,
                                                min_depth=MIN_DEPTH, max_depth=depth,
                                                table=self.table))
        return self.last


def student_move(state: Any, player: Player, deadline: float) -> int:
    """The skeleton's function: our column (0-6) in the course grid ``state``, where our discs
    are 1 and it is our turn, searched until ``deadline``."""
    return player.choose(Board.from_grid(state, to_move=1), deadline).column


def picture(state: Any) -> str:
    """The course grid as text: x our discs, o the opponent's, the columns 1-7 underneath."""
    return render_rows(np.asarray(state).tolist(), {1: "x", -1: "o", 0: "."})


def move_line(ply: int, column: int, seconds: float, result: SearchResult | None) -> str:
    line = f"{ply:3d}. we play {column + 1}"
    if result is not None:
        line += (f": depth {result.depth}, {result.nodes:,} nodes, score {result.score}"
                 + (" (proven)" if result.proven else ""))
    return line + f", {seconds:.2f} s"


# --- the course server ------------------------------------------------------------------------

class Server:
    """The course server over HTTP: form-encoded POSTs of our ids, the key and a move."""

    def __init__(self, url: str, ids: Sequence[str], key: str) -> None:
        self.url = url if url.endswith("/") else url + "/"
        self.ids = list(ids)
        self.key = key
        self.session = requests.Session()

    def masked(self, text: str) -> str:
        """``text`` with our ids and key starred out (a server may repeat them)."""
        for secret in sorted([*self.ids, self.key], key=len, reverse=True):
            shown = secret[:2] if len(secret) > 2 else ""
            text = text.replace(secret, shown + "*" * (len(secret) - len(shown)))
        return text

    def post(self, endpoint: str, **fields: int) -> dict[str, Any]:
        form: dict[str, Any] = {"stil_id": self.ids, "api_key": self.key, **fields}
        try:
            response = self.session.post(self.url + endpoint, data=form,
                                         timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
        except requests.RequestException as exc:
            raise Problem(f"no reply from {self.url}{endpoint}: {type(exc).__name__}") from None
        if response.status_code == 404 and endpoint == "stats":
            raise Problem(f"the server at {self.url} has no stats endpoint (an older version)")
        if response.status_code != 200:
            raise Problem(f"the server answered HTTP {response.status_code} to {endpoint}")
        try:
            reply = response.json()
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise Problem(f"the server's reply to {endpoint} is not a JSON object")
        return reply

    def move(self, column: int) -> dict[str, Any]:
        """Send a move (0-6; -1 starts a new game, and a game still running is lost)."""
        reply = self.post("move", move=column)
        if reply.get("status") is False and reply.get("result") in (None, 0):
            raise Problem(f"the server refused move {column}: {self.masked(str(reply.get('msg')))}")
        return reply


def credentials(env: Mapping[str, str]) -> tuple[list[str], str]:
    """Our ids and the course key, from the environment as the project's agent.py reads them."""
    ids = [part.strip() for part in env.get(IDS_VARIABLE, "").split(",") if part.strip()]
    key = env.get(KEY_VARIABLE, "")
    if not ids or not key.strip():
        raise UsageProblem(f"set {IDS_VARIABLE} (your STIL id; a group's ids comma-separated) and"
                      f" {KEY_VARIABLE} (the course's key) to play online")
    for index, stil_id in enumerate(ids):
        if not STIL_ID.fullmatch(stil_id):
            raise UsageProblem(f"{IDS_VARIABLE}: id {index + 1} is not 1-50 letters, digits, '_' or '-'")
    return ids, key


def play_online(server: Server, player: Player, seconds: float, out: Output = print) -> Game:
    """One game against ``server``.

    The server's board is the truth: every reply's ``state`` replaces ours (an older server
    version sends none: then our move and its ``botmove`` are played on our copy).  The time
    for a move counts from the server's reply, as the server's own clock does.
    """
    budget = min(seconds, SERVER_MOVE_LIMIT - SAFETY_MARGIN)
    game = Game()
    player.new_game()
    reply = server.move(-1)
    received = time.perf_counter()
    state = np.zeros((6, 7), dtype=int)
    out(server.masked(str(reply.get("msg") or "a new game")))
    while True:
        if reply.get("state") is not None:
            state = np.array(reply["state"], dtype=int)
        ply = int(np.count_nonzero(state))
        if reply.get("botmove") not in (None, -1):
            out(f"{ply:3d}. bot plays {int(reply['botmove']) + 1}")
        out(picture(state))
        if reply.get("result") not in (None, 0):
            game.result = float(reply["result"])
            return game
        try:
            column = student_move(state, player, max(received + budget, time.perf_counter() + 0.01))
        except BoardError as exc:
            raise Problem(f"the server's board is not a position of this game: {exc}") from None
        game.seconds.append(time.perf_counter() - received)
        out(move_line(ply + 1, column, game.seconds[-1], player.last))
        reply = server.move(column)
        received = time.perf_counter()
        if reply.get("state") is None:  # no board sent: ours, with both moves played
            state = Board.from_grid(state, 1).play(column).to_grid(-1)
            if reply.get("botmove") not in (None, -1):
                state = Board.from_grid(state, -1).play(int(reply["botmove"])).to_grid(1)


def play_local(player: Player, seconds: float, rng: random.Random, out: Output = print) -> Game:
    """One game in the course's environment against a player of random columns, who starts
    half the games, as in the skeleton."""
    from gym_connect_four import ConnectFourEnv  # built directly: gym.make's checker fails on NumPy 2

    env = ConnectFourEnv()
    env.reset(board=None)
    game = Game()
    player.new_game()
    our_turn = rng.random() < 0.5
    out("we start" if our_turn else "the random player starts")
    while True:
        ply = int(np.count_nonzero(env.board)) + 1
        if our_turn:
            start = time.perf_counter()
            column = student_move(env.board, player, start + seconds)
            game.seconds.append(time.perf_counter() - start)
            out(move_line(ply, column, game.seconds[-1], player.last))
            _, reward, done, _ = env.step(column)
        else:
            column = rng.choice(sorted(env.available_moves()))
            out(f"{ply:3d}. random plays {column + 1}")
            env.change_player()  # the environment's rewards are the mover's
            _, reward, done, _ = env.step(column)
            env.change_player()
        if done:
            out(picture(env.board))
            game.result = 0.5 if reward == 0.5 else 1.0 if our_turn else -1.0
            return game
        our_turn = not our_turn
        if our_turn:
            out(picture(env.board))


# --- the command line -------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    group = found.add_mutually_exclusive_group()
    group.add_argument("-l", "--local", action="store_true", help="play against a random player")
    group.add_argument("-o", "--online", action="store_true", help="play against the server")
    group.add_argument("--line", action="store_true",
                       help="play one game by the line protocol on the standard input and output")
    group.add_argument("--move", nargs="+", metavar="MOVES",
                       help="print our move in each position as JSON (a move string: the columns"
                            " played, 1-7; '' is the empty board)")
    found.add_argument("-s", "--stats", action="store_true", help="print the server's statistics")
    found.add_argument("--server", default=COURSE_SERVER, metavar="URL",
                       help=f"the course server's address (default {COURSE_SERVER})")
    found.add_argument("--games", type=int, default=1, metavar="N",
                       help="games to play with -l or -o (default 1)")
    found.add_argument("--time", type=float, default=SECONDS_PER_MOVE, metavar="S",
                       help=f"seconds to think per move (default {SECONDS_PER_MOVE:g}; online at"
                            f" most {SERVER_MOVE_LIMIT - SAFETY_MARGIN:g})")
    found.add_argument("--depth", type=int, metavar="D",
                       help="with --move: search exactly D plies, whatever the time")
    return found


def show_moves(positions: Sequence[str], seconds: float, depth: int | None, out: Output) -> None:
    """Our move in each position, one JSON line each, every search from an empty table."""
    player = Player()
    for moves in positions:
        board = Board.from_moves(moves.strip())
        if board.is_over():
            raise UsageProblem(f"the game {moves!r} is over: there is no move to make")
        player.new_game()
        start = time.perf_counter()
        result = player.choose(board, math.inf if depth is not None else start + seconds, depth)
        out(json.dumps({"moves": moves.strip(), "column": result.column, "score": result.score,
                        "depth": result.depth, "nodes": result.nodes,
                        "seconds": round(time.perf_counter() - start, 4)}))


def play_lines(lines: Iterable[str], out: Output) -> None:
    """Play one game by the line protocol of the project's outside agents, so that its ``rate``
    and ``tournament`` can run this program confined in a process of its own: ``connect4 1
    SECONDS`` is answered ``ready``, each ``position MOVES SECONDS`` (the columns played, 1-7;
    ``-`` for none) with our column 1-7, ``quit`` ends."""
    player = Player()
    for line in lines:
        words = line.split()
        if words[:1] == ["connect4"]:
            player.choose(Board(), time.perf_counter(), depth=1)  # loaded before the first move
            out("ready connect4.py")
        elif words[:1] == ["position"] and len(words) == 3:
            start = time.perf_counter()
            board = Board.from_moves("" if words[1] == "-" else words[1])
            out(str(player.choose(board, start + float(words[2])).column + 1))
        elif words[:1] == ["quit"]:
            return


def play_games(args: argparse.Namespace, server: Server | None, out: Output) -> None:
    """``--games`` games, online against ``server`` or else locally, and a line summing them up."""
    player = Player()
    rng = random.Random()
    games: list[Game] = []
    for number in range(1, args.games + 1):
        out(f"game {number} of {args.games}")
        game = (play_online(server, player, args.time, out) if server is not None
                else play_local(player, args.time, rng, out))
        games.append(game)
        out(f"game {number}: {RESULTS.get(game.result, f'result {game.result}')}")
    results = [game.result for game in games]
    won, drawn = results.count(1.0), results.count(0.5)
    streak = next((i for i, r in enumerate(reversed(results)) if r < 0), len(results))
    slowest = max(max(game.seconds, default=0.0) for game in games)
    out(f"{len(games)} game(s): {won} won, {drawn} drawn, {len(games) - won - drawn} lost;"
        f" the last {streak} without a loss; slowest move {slowest:.2f} s")


def main(argv: Sequence[str] | None = None, out: Output = print,
         env: Mapping[str, str] | None = None) -> int:
    """The program: ``argv`` (default: the command line's), printing with ``out``, the ids and
    the key from ``env`` (default: the environment); its exit code."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments:  # as the skeleton: no flag, the help
        parser().print_help(sys.stderr)
        return 1
    args = parser().parse_args(arguments)
    try:
        if args.games < 1 or not 0 < args.time < math.inf or (args.depth is not None
                                                               and args.depth < 1):
            raise UsageProblem("--games and --depth must be at least 1, --time a positive number")
        if args.move:
            show_moves(args.move, args.time, args.depth, out)
            return 0
        if args.line:
            play_lines(sys.stdin, lambda line: print(line, flush=True))
            return 0
        if not re.match(r"https?://[^/]", args.server):
            raise UsageProblem(f"--server must be an http:// or https:// address, not {args.server!r}")
        server = None
        if args.online or args.stats:
            ids, key = credentials(os.environ if env is None else env)
            server = Server(args.server, ids, key)
        if args.local or args.online:
            play_games(args, server if args.online else None, out)
        if args.stats and server is not None:
            stats = server.post("stats")
            stats.pop("stil_id", None)  # our ids: not printed
            out(json.dumps(stats))
        return 0
    except Problem as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BoardError as exc:  # a move string given to --move
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
