"""The compiled heart of the exact solver: null-window negamax over Pons' score scale.

Scores are from the view of the side to move, on Pons' scale: 0 for a draw, and for a win
``22 - k`` where ``k`` is the number of discs the winner has played when the game ends (its
winning disc included); a loss is the negative of the opponent's win.  With ``n`` discs on the
board, the side to move can at best win with its next disc, ``(43 - n) // 2``, and at worst
lose to the opponent's next one, ``-((42 - n) // 2)``.  A score depends on the position only,
never on the path to it, so table entries hold for every root.

What keeps the tree small, after Pascal Pons' solver:

- a **score window** ``[alpha, beta]`` narrowed at each node by the best and worst scores still
  possible with the discs left, and by the table's bound;
- **null-window search**: ``solve`` narrows ``[low, high]`` with windows of width one, in
  Pons' order (the range's middle, moved out to half the range's end on its side of 0); from
  ``FULL_WINDOW_PLIES`` discs on, where fewer moves are left, one search over the whole window
  takes fewer nodes than the narrowing (Pons' End-Easy set, 29-41 discs: 23 nodes a position
  instead of 33; positions from random play, 24 discs: 7 % fewer, 30 discs: 35 % fewer);
- a **transposition table** (``solver.table``) of lower and upper bounds;
- **anticipation of losing moves**: only moves that do not hand the opponent a win at once are
  searched; two opponent threats at once, or nothing but gifts, are a loss one move ahead;
- **threat-count move ordering**: moves creating the most cells where we would complete four
  first, centre first among equals;
- **parity rules** (Allis' claimeven and odd threat, as cheap bounds): a side with no line of
  four left free cannot win; a first player to move that cannot fit four into the cells the
  opponent's claimeven leaves it cannot win (and loses if the opponent's claimeven cells hold a
  four); a first player with an odd threat the second player cannot outrun wins by zugzwang.
  They fire deep in the tree, near zugzwang endgames, and cut the nodes of Pons' Middle-Medium
  set by 28 % (``tests/test_solver.py`` checks them against plain minimax);
- **symmetry**: in a position equal to its mirror image, only columns 0-3 are searched;
- **the opening book**: at a node with at most as many discs as the book's complete layers,
  the book's bounds on the score (``pack_entries``, ``book_bounds``) narrow the window like
  the table's, so a line that reaches a booked position stops there; one disc past them, the
  booked positions before the opponent's last disc bound a root's score from below, and from
  above where one's booked column leads to it (``book_position_bounds``).

No I/O, no clock.  The caller bounds the work with a node limit, and the search counts its
nodes in ``counters`` (``timecontrol.counters``, as for ``search.negamax``; the last row of
``work``): past the limit, ``counters[ABORTED]`` is set and scores are meaningless; no entry is
stored for an unfinished node, so calling ``solve`` again (``RESUME``) with a new limit walks back to
where it stopped through table hits, and the window narrowed so far is kept in
``counters[LOW]`` and ``counters[HIGH]``.  The tactics (wins at once, moves that hand the
opponent a win, move ordering) are the search's too (``board.tactics``).

A compiled call from Python costs about 40 ns per argument, as much as a node: so the
compiled entries take three arrays, the table (``solver.table``), ``work`` (the search's stack
and its counters) and the packed book.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from board import bits
from board.keys import mirror
from board.tactics import CELL_BITS, LANE_COLUMNS, non_losing_moves, order_moves, winning_moves
from solver.table import (
    lookup,
    prefetch,
    prefetch_for_store,
    probe,
    promote,
    put,
    slots,
    small_at,
    small_full,
    small_probe,
)
from timecontrol.counters import ABORTED, BASE_SLOTS, NODE_LIMIT, NODES

CELLS = bits.CELLS
# Every score lies in [MIN_SCORE, MAX_SCORE] = [-21, 21] (the empty board's bounds).
MIN_SCORE = -(CELLS // 2)
MAX_SCORE = (CELLS + 1) // 2

# counters[] slots after the shared ones (timecontrol.counters)
LOW = BASE_SLOTS  # the score is known to be >= counters[LOW] ...
HIGH = BASE_SLOTS + 1  # ... and <= counters[HIGH]
TOTAL = BASE_SLOTS + 2  # the nodes of every ``solve`` call with this ``work``
N_COUNTERS = BASE_SLOTS + 3

# What ``solve`` returns when it is not a score.
UNFINISHED = 100  # the node limit stopped the search: call again with RESUME to go on
GAME_OVER = -100  # the position is a finished game: there is nothing to solve
# ``solve``'s window to go on from where the previous call stopped (any low > high).
RESUME = (1, 0)

# Table values (7 bits, solver.table): 0 = no entry; 1..43 an upper bound u stored as u + 22;
# 44..86 a lower bound l stored as l + 65.  Every bound of every position fits, the root's
# included.
_UPPER_BIAS = 1 - MIN_SCORE
FIRST_LOWER = MAX_SCORE - MIN_SCORE + 2
LOWER_BIAS = FIRST_LOWER - MIN_SCORE

_EVEN_ROWS = bits.BOTTOM_ROW * 0b010101  # rows 0, 2 and 4 (row 0 at the bottom)
_ODD_ROWS = bits.BOTTOM_ROW * 0b101010
_TOP = bits.BOTTOM_ROW << bits.HEIGHT  # the row above the board
LEFT_HALF = bits.column_mask(0) | bits.column_mask(1) | bits.column_mask(2) | bits.column_mask(3)
# Beyond this many discs a position is almost never its own mirror image: skip the test.
SYMMETRY_PLIES = 12
# A position equal to its mirror image has the same discs in columns 0 and 6: a quick test
# first (the mask has no bits beyond column 6).
_COLUMN_0 = (1 << bits.HEIGHT) - 1  # the cells of column 0
_COLUMN_6_SHIFT = 6 * bits.H1
TABLE_PLIES = 36
# In the small table (``solver.table``: a probe is a cache hit) a node is worth its entry two
# discs deeper: Pons' End-Easy set, 22.4 nodes a position instead of 23.2.
SMALL_TABLE_PLIES = 38
assert SMALL_TABLE_PLIES >= TABLE_PLIES  # a search from SMALL_TABLE_PLIES discs needs no table
# Enhanced transposition cutoffs are tried at nodes with fewer discs than this; in the small
# table, whose probes are cache hits, wherever the children may have entries (Pons' sets,
# up to 6 % fewer nodes than with ETC_PLIES, no slower).
ETC_PLIES = 30
SMALL_ETC_PLIES = SMALL_TABLE_PLIES - 1
# Beyond them, the children's slots are prefetched once a call has searched this many nodes.
PREFETCH_NODES = 10_000
# From this many discs on, ``solve`` searches its whole window at once (see ``solve``).
FULL_WINDOW_PLIES = 24


# Stack slots of a ply's row: the ordered move cells first, then the node's state while its
# children are searched.
_S_ALPHA = 7
_S_BETA = 8
_S_NEXT = 9  # index of the child being searched
_S_COUNT = 10  # number of children
_S_POS = 11
_S_MASK = 12
_S_INDEX = 13  # table index of the node
_S_WIDTH = 14
# The row of ``work`` that holds the counters, after the stack's rows 0 to CELLS.
COUNTERS_ROW = CELLS + 1
assert N_COUNTERS <= _S_WIDTH

# A booked position as one int64 (``pack_entries``): its canonical key (below ``2**49``) above
# a 6-bit code of its value (an exact score ``s`` as ``s - MIN_SCORE``, 0-42; ``WIN_CODE`` and
# ``LOSS_CODE`` for a win or a loss known as an outcome only; a draw is always exact) above the
# 3-bit column keeping it.  Sorted entries sort by key.
BOOK_KEY_SHIFT = 9
CODE_SHIFT = 3
CODE_MASK = 63
COLUMN_MASK = 7
WIN_CODE = MAX_SCORE - MIN_SCORE + 1
LOSS_CODE = WIN_CODE + 1


def new_work() -> np.ndarray:
    """The search's working memory: its stack, one row per ply (see the ``_S_*`` slots), and
    the counters in row ``COUNTERS_ROW``, where the window narrowed so far waits between
    ``solve`` calls."""
    return np.zeros((COUNTERS_ROW + 1, _S_WIDTH), dtype=np.int64)


@njit(cache=True, inline="always")
def pack_entry(key: int, score: int, column: int, exact: bool) -> int:
    """One booked position as its int64 (see above): ``score`` exact, or where ``exact`` is
    false the outcome."""
    if exact or score == 0:
        code = score - MIN_SCORE
    else:
        code = WIN_CODE if score > 0 else LOSS_CODE
    return (key << BOOK_KEY_SHIFT) | (code << CODE_SHIFT) | column


@njit(cache=True)
def pack_entries(keys: np.ndarray, scores: np.ndarray, columns: np.ndarray, exact: np.ndarray,
                 out: np.ndarray) -> None:
    """Write the entries (sorted canonical keys; scores, exact or, where ``exact`` is 0, the
    outcome; columns) into ``out`` (int64, one per key; ``keys`` may be ``out`` itself)."""
    for i in range(keys.size):
        out[i] = pack_entry(int(keys[i]), int(scores[i]), int(columns[i]),
                            exact[i] != 0)


@njit(cache=True, inline="always")
def book_bounds(entry: int) -> tuple[int, int]:
    """The lower and the upper bound on the score of a packed book entry."""
    code = (entry >> CODE_SHIFT) & CODE_MASK
    if code < WIN_CODE:
        return code + MIN_SCORE, code + MIN_SCORE
    if code == WIN_CODE:
        return 1, MAX_SCORE
    return MIN_SCORE, -1


def no_book() -> np.ndarray:
    """The packed book of a search without a book (element 0: no complete layer), read only
    as a book's is."""
    book = np.array([-1], dtype=np.int64)
    book.flags.writeable = False
    return book


@njit(cache=True)
def win_now_score(moves: int) -> int:
    """The score of winning with the next disc when ``moves`` discs are on the board."""
    return (CELLS + 1 - moves) // 2


@njit(cache=True)
def score_bounds(moves: int) -> tuple[int, int]:
    """The lowest and highest score possible with ``moves`` discs on the board."""
    return -((CELLS - moves) // 2), win_now_score(moves)


@njit(cache=True)
def _book_entry(key: int, book: np.ndarray) -> int:
    """The index in the packed ``book`` of the position whose key is ``key`` (or of its mirror
    image), 0 if it is not booked."""
    mirrored = mirror(key)
    canonical = mirrored if mirrored < key else key
    at = 1 + np.searchsorted(book[1:], canonical << BOOK_KEY_SHIFT)  # [0]: discs
    if at < book.size and (book[at] >> BOOK_KEY_SHIFT) == canonical:
        return int(at)
    return 0


@njit(cache=True)
def book_position_bounds(pos: int, mask: int, moves: int, book: np.ndarray) -> tuple[int, int]:
    """A lower and an upper bound on the score of a position (``pos`` the discs of the side to
    move) by what the book knows: within its complete layers, its entry's; one disc beyond
    them, from the positions before the opponent's last disc, which are all booked; else (and
    without a book) ``(MIN_SCORE, MAX_SCORE)``.

    One disc beyond the complete layers:

    - A position scores at least the negation of any parent's score (the parent's side could
      have played into it): a parent lost for its side proves this position won, a drawn one
      proves it not lost.
    - When a parent's booked column is the one played into this position, that column keeps
      the parent's value: this position scores exactly its negation (with outcomes only, a
      parent won by that column proves this position lost, a drawn one proves it drawn).

    This is the one layer beyond the book where the book knows anything: the search's nodes
    all lie deeper than its root.
    """
    low, high = MIN_SCORE, MAX_SCORE
    if moves <= book[0]:
        at = _book_entry(pos + mask, book)
        return book_bounds(book[at]) if at else (low, high)
    if moves != book[0] + 1 or book.size == 1:
        return low, high
    theirs = pos ^ mask
    tops = ((mask + bits.BOTTOM_ROW) >> 1) & mask  # the top disc of each column
    rest = tops & theirs
    while rest:
        cell = rest & -rest
        rest ^= cell
        key = (theirs ^ cell) + (mask ^ cell)
        at = _book_entry(key, book)
        if at:
            lowest, highest = book_bounds(book[at])
            if -highest > low:
                low = -highest
            # The parent's booked column, stored in the orientation of the smaller key; in a
            # position equal to its mirror image, either of a mirror pair of columns.
            col = bits.popcount(cell - 1) // bits.H1
            flipped = mirror(key)
            booked = book[at] & COLUMN_MASK
            if flipped < key:
                booked = bits.WIDTH - 1 - booked
            leads = booked == col or (flipped == key and booked == bits.WIDTH - 1 - col)
            if leads and -lowest < high:
                high = -lowest  # the parent's column leads here: its value, negated
    return low, high


@njit(inline="always")
def _etc_bound(pos: int, mask: int, candidates: int, table: np.ndarray, size: int,
               small: int) -> int:
    """The best lower bound on the node's score that the children's upper bounds in the table
    give (``MIN_SCORE - 1`` if none)."""
    best = MIN_SCORE - 1
    child = pos ^ mask
    rest = candidates
    while rest:
        cell = rest & -rest
        rest ^= cell
        key = child + (mask | cell)
        val = lookup(table, size, small, key)
        if 0 < val < FIRST_LOWER and _UPPER_BIAS - val > best:
            best = _UPPER_BIAS - val  # the child scores at most val - _UPPER_BIAS
    return best


@njit(inline="always")
def _odd_free(mask: int) -> int:
    """The free cells of the columns with an odd number of free cells."""
    odd = (mask + bits.BOTTOM_ROW) & _ODD_ROWS  # the next cell of each such column
    return (((odd << 1) | (odd << 3) | (odd << 5)) & _TOP) - odd


@njit(inline="always")
def _claimeven_cap(pos: int, mask: int) -> int:
    """A cap on the score of the first player to move (``pos`` its discs): 0 when it cannot
    win, -1 when it loses, ``MAX_SCORE`` when nothing is known.

    The opponent can answer each of our moves on top of it (claimeven): in a column with an
    even number of free cells we then get only its free cells of rows 0, 2 and 4, the opponent
    those of 1, 3 and 5.  When we fill a column with an odd number of free cells (there is an
    even number of those), the opponent plays in another such column: we may get any cell of
    those.  If no four fit in what we may get, we cannot win; if then four fit in what the
    opponent surely gets, we lose.
    """
    odd_free = _odd_free(mask)
    even_free = bits.BOARD_MASK & ~mask & ~odd_free
    if bits.has_four(pos | odd_free | (even_free & _EVEN_ROWS)):
        return MAX_SCORE
    if bits.has_four((pos ^ mask) | (even_free & _ODD_ROWS)):
        return -1
    return 0


@njit(cache=True)
def _odd_threat_wins(first: int, mask: int) -> bool:
    """Whether the first player (``first`` its discs; the second player to move) wins by
    zugzwang with an odd threat.

    We answer each of the opponent's moves on top of it (follow-up).  In a column with an
    odd number of free cells the opponent then gets the rows 1, 3 and 5 and we get 2 and 4, so
    a cell of ours completing four in such a column, in row 2 or 4, is ours in the end unless
    the opponent wins first.  When the opponent fills another odd column, we play the bottom
    of a third one (there always is one).  The opponent gets the free cells of rows 0, 2, 4 of
    the even columns, rows 1, 3, 5 of the threat's column, and may get any of the other odd
    columns: if no four fit in those, it cannot win first.
    """
    odd_free = _odd_free(mask)
    return _odd_threats_win(first, mask, odd_free,
                            bits.winning_cells(first, mask) & odd_free & _EVEN_ROWS)


@njit(inline="always")
def _odd_threats_win(first: int, mask: int, odd_free: int, threats: int) -> bool:
    """``_odd_threat_wins`` given the free cells of the odd columns and the first player's
    threats among them on rows 0, 2 and 4."""
    if threats == 0:
        return False
    second = first ^ mask
    base = second | (bits.BOARD_MASK & ~mask & ~odd_free & _EVEN_ROWS)
    while threats:
        cell = threats & -threats
        column = bits.column_mask(bits.popcount(cell - 1) // bits.H1)
        threats &= ~column
        if not bits.has_four(base | (odd_free & ~column) | (odd_free & column & _ODD_ROWS)):
            return True
    return False


def _borrowed(array: np.ndarray) -> np.ndarray:
    """The same array without its owner (a null meminfo), for the search's loop: each inlined
    call that takes an array counts a reference to it on the way in and out, two atomic
    operations on its owner per call and per node, and the alias's counts are no-ops.  Valid
    while the caller holds the array.  Run as Python (``NUMBA_DISABLE_JIT=1``), the array."""
    return array


def _alias_intrinsic(typingctx: object, array: types.Array) -> object:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(signature.args[0])(context, builder, args[0])
        alias = context.make_array(signature.return_type)(context, builder)  # zero-filled
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(alias, name, getattr(source, name))
        return alias._getvalue()

    return array(array), codegen


_alias: Any = intrinsic(_alias_intrinsic)  # called from compiled code only


@overload(_borrowed, inline="always")
def _borrowed_compiled(array: Any) -> Any:
    def implementation(array: Any) -> Any:
        return _alias(array)

    return implementation


@njit(inline="always")
def _narrow(alpha: int, beta: int, low: int, high: int) -> tuple[int, int]:
    """The window ``[alpha, beta]`` narrowed by bounds ``[low, high]`` on the node's score.
    When the bounds settle the node (the window comes back empty), both ends are its value:
    ``low`` if it reaches ``beta``, else ``high`` if it falls to ``alpha``."""
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha, alpha
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta, beta
    return alpha, beta


@njit(inline="always")
def _rule_bounds(pos: int, mask: int, moves: int, root: int, beta: int) -> tuple[int, int]:
    """Bounds on the score of a node in which neither side can win with its next disc (we
    cannot: checked before entering it; the opponent cannot: it has moves that do not lose):
    the scores possible two discs on, capped by the rules that tell a side cannot win.

    A side with no line of four left free of the other's discs cannot win.  (In a null window
    only one of the two can matter: a cap of 0 on our score cuts only when ``beta > 0``, a
    floor of 0 only when ``alpha < 0``, as then ``beta <= 0``.)

    The parity rules for the side to move are tried at the root only: each rule is tried by the
    player about to move for each of its moves (``_second_player_floor``,
    ``_odd_threat_after_a_move``), so a position where one holds is cut before it is entered,
    and in a null window a parent that entered this node has tried it here already.
    """
    low, high = score_bounds(moves + 2)
    if beta > 0:
        if high > 0 and not bits.has_four(bits.BOARD_MASK & ~(pos ^ mask)):
            high = 0
    elif low < 0 and not bits.has_four(bits.BOARD_MASK & ~pos):
        low = 0
    if moves == root and beta > -1 and high > -1:
        if moves & 1 == 0:
            high = min(high, _claimeven_cap(pos, mask))
        elif _odd_threat_wins(pos ^ mask, mask):
            high = -1
    return low, high


@njit(inline="always")
def _book_window(pos: int, mask: int, moves: int, alpha: int, beta: int,
                 book: np.ndarray) -> tuple[int, int]:
    """``[alpha, beta]`` narrowed by the book's bounds on a position of its complete layers."""
    if moves <= book[0]:
        at = _book_entry(pos + mask, book)
        if at:
            lowest, highest = book_bounds(book[at])
            return _narrow(alpha, beta, lowest, highest)
    return alpha, beta


@njit(inline="always")
def _table_window(val: int, alpha: int, beta: int) -> tuple[int, int]:
    """``[alpha, beta]`` narrowed by the table's bound ``val`` on the node (0: none)."""
    if val >= FIRST_LOWER:
        return _narrow(alpha, beta, val - LOWER_BIAS, MAX_SCORE)
    if val > 0:
        return _narrow(alpha, beta, MIN_SCORE, val - _UPPER_BIAS)
    return alpha, beta


@njit(inline="always")
def _prefetch_children(pos: int, mask: int, candidates: int, table: np.ndarray,
                       size: int) -> None:
    """The children's slots, fetched ahead of their probes."""
    child = pos ^ mask
    rest = candidates
    while rest:
        cell = rest & -rest
        rest ^= cell
        prefetch(table, size, (child + (mask | cell)) % size)


@njit(inline="always")
def _second_player_floor(pos: int, mask: int, candidates: int, alpha: int, beta: int) -> int:
    """A lower bound on the score of the second player to move (``alpha`` if none better):
    after one of its moves, the claimeven bound of the opponent caps the opponent's score.

    (If the opponent fits four in its discs and the empty cells of rows 0, 2, 4 we cannot play
    now, it does so after each of our moves: the bound holds for none.)"""
    opp = pos ^ mask
    if bits.has_four(opp | (bits.BOARD_MASK & ~(mask | (mask + bits.BOTTOM_ROW)) & _EVEN_ROWS)):
        return alpha
    floor = alpha
    rest = candidates
    while rest:
        cell = rest & -rest
        rest ^= cell
        cap = _claimeven_cap(opp, mask | cell)
        if -cap > floor:
            floor = -cap
            if floor >= 1 or floor >= beta:
                break
    return floor


@njit(cache=True)
def _mirror_half(pos: int, mask: int, candidates: int) -> int:
    """The moves worth searching: in a position equal to its mirror image, columns 0-3."""
    if ((mask & _COLUMN_0) == (mask >> _COLUMN_6_SHIFT) and mirror(pos) == pos
            and mirror(mask) == mask):
        return candidates & LEFT_HALF
    return candidates


@njit(inline="always")
def _odd_threat_after_a_move(pos: int, mask: int, candidates: int, n: int, stack: np.ndarray,
                             moves: int) -> bool:
    """Whether the first player to move wins by the odd-threat rule after one of its moves.

    A threat must lie on row 0, 2 or 4 of a column left with an odd number of free cells;
    ``order_moves`` left each move's threats in the stack's next row (when it sorted two moves
    or more)."""
    lanes = np.uint64(moves + 1)
    for i in range(bits.WIDTH):
        cell = candidates & LANE_COLUMNS[i]
        if cell == 0:
            continue
        if n > 1:
            threats = stack[lanes, i] & _EVEN_ROWS
        else:
            threats = bits.winning_cells(pos | cell, mask | cell) & _EVEN_ROWS
        if threats == 0:
            continue
        odd = _odd_free(mask | cell)
        if threats & odd and _odd_threats_win(pos | cell, mask | cell, odd, threats & odd):
            return True
    return False


@njit(inline="always")
def _enter(pos: int, mask: int, moves: int, root: int, alpha: int, beta: int,
           table: np.ndarray, size: int, small: int, stack: np.ndarray, book: np.ndarray,
           nodes: int) -> tuple[int, int, int, int]:
    """Enter a node with the window ``[alpha, beta]``: ``(value, 0, ...)`` when the rules
    settle it without a child searched, else ``(0, n, alpha, beta)`` with its ``n`` children
    in order in its row of ``stack`` (``order_moves``) and its state beside them (``_S_*``),
    the window narrowed.

    The rules come cheapest and most often cutting first: the scores the discs left allow
    and the parity rules at the root; the book; the table, whose cutoffs come before the
    rules tried for each move (the same nodes, less work); then, before the children are
    searched, the enhanced transposition cutoffs, the second player's claimeven floor, the
    mirror image, and after the move ordering (whose threats it reads) the first player's
    odd-threat rule.

    The rules tried at most nodes are inlined (``inline="always"``); the seldom tried ones are
    called (``_book_entry``, within the book's layers; ``_mirror_half``, below
    ``SYMMETRY_PLIES`` discs; ``_odd_threat_wins``, at the root): numba's inlining copies the
    inlined code once per block of it, and inlined they took a second of ``solve``'s compile
    (7.2 s against 6.2 s) for no speed.
    """
    candidates = non_losing_moves(pos, mask)
    if candidates == 0:
        return score_bounds(moves)[0], 0, alpha, beta  # the opponent wins with its next disc
    if moves >= CELLS - 2:
        return 0, 0, alpha, beta  # two cells left, no win for either side in them
    low, high = _rule_bounds(pos, mask, moves, root, beta)
    alpha, beta = _narrow(alpha, beta, low, high)
    if alpha >= beta:
        return alpha, 0, alpha, beta
    alpha, beta = _book_window(pos, mask, moves, alpha, beta, book)
    if alpha >= beta:
        return alpha, 0, alpha, beta
    # Near the end of the game a subtree is cheaper to search again than a table probe,
    # which is a cache miss: no table beyond TABLE_PLIES discs (index -1).  In the small
    # table (``small`` >= 0) the index is only a mark (0: the node's entry is stored).
    index = -1
    if moves < (SMALL_TABLE_PLIES if small >= 0 else TABLE_PLIES):
        key = pos + mask
        if small >= 0:
            index = 0
            val = small_probe(table, small, key)
        else:
            index = key % size
            prefetch_for_store(table, index)  # this node's entry, stored on its way back
            val = probe(table, size, index, key)
        alpha, beta = _table_window(val, alpha, beta)
        if alpha >= beta:
            return alpha, 0, alpha, beta
    if moves < (SMALL_ETC_PLIES if small >= 0 else ETC_PLIES):
        # Enhanced transposition cutoff: a child whose table entry caps its score proves
        # ours at least the negation of that cap, before any child is searched.
        cut = _etc_bound(pos, mask, candidates, table, size, small)
        if cut >= beta:
            return cut, 0, alpha, beta
    elif moves < TABLE_PLIES - 1 and nodes > PREFETCH_NODES and small < 0:
        # Without the cutoffs above reading the children's entries, each child's probe would
        # wait for memory (once the search has grown: in a small one the slots are empty and
        # the prefetches wasted).
        _prefetch_children(pos, mask, candidates, table, size)
    if moves & 1 and alpha < 1:
        alpha, beta = _narrow(alpha, beta,
                              _second_player_floor(pos, mask, candidates, alpha, beta), MAX_SCORE)
        if alpha >= beta:
            return alpha, 0, alpha, beta
    if moves < SYMMETRY_PLIES:
        candidates = _mirror_half(pos, mask, candidates)
    n = order_moves(pos, mask, candidates, 0, stack, moves)
    if moves & 1 == 0 and alpha < 1 and _odd_threat_after_a_move(pos, mask, candidates, n,
                                                                  stack, moves):
        alpha, beta = _narrow(alpha, beta, 1, MAX_SCORE)
        if alpha >= beta:
            return alpha, 0, alpha, beta
    row = np.uint64(moves)  # (an unsigned index needs no check for a negative one)
    stack[row, _S_ALPHA] = alpha
    stack[row, _S_BETA] = beta
    stack[row, _S_NEXT] = 0
    stack[row, _S_COUNT] = n
    stack[row, _S_POS] = pos
    stack[row, _S_MASK] = mask
    stack[row, _S_INDEX] = index
    return 0, n, alpha, beta


@njit(inline="always")
def _child_returned(score: int, moves: int, stack: np.ndarray, table: np.ndarray,
                    size: int, small: int) -> tuple[int, int]:
    """A child of the node in ``stack``'s row ``moves`` scored ``score`` for the node:
    ``(value, -1)`` when the node is done (its bound stored in the table), else
    ``(0, i)`` with ``i`` the next child to search."""
    row = np.uint64(moves)
    beta = stack[row, _S_BETA]
    index = stack[row, _S_INDEX]
    if score >= beta:
        value, bound = score, score + LOWER_BIAS
    else:
        alpha = stack[row, _S_ALPHA]
        if score > alpha:
            alpha = score
            stack[row, _S_ALPHA] = alpha
        i = stack[row, _S_NEXT] + 1
        if i < stack[row, _S_COUNT]:
            stack[row, _S_NEXT] = i
            return 0, i
        value, bound = alpha, alpha + _UPPER_BIAS
    if index >= 0:  # one call for both bounds: each inlined copy of ``put`` costs compile time
        put(table, size, small, index, stack[row, _S_POS] + stack[row, _S_MASK], bound)
    return value, -1


@njit(inline="always")
def _promoted(size: int, stack: np.ndarray, root: int, moves: int) -> None:
    """The small table was moved into the large one in the middle of a search: the nodes on
    the stack, from ``root`` to the parent of the node at ``moves`` discs, get their large
    table's slots for the entries they store on their way back."""
    for ply in range(root, moves):
        row = np.uint64(ply)
        if stack[row, _S_INDEX] >= 0:
            stack[row, _S_INDEX] = (stack[row, _S_POS] + stack[row, _S_MASK]) % size


@njit(cache=True)
def negamax(
    pos: int,
    mask: int,
    moves: int,
    alpha: int,
    beta: int,
    table: np.ndarray,
    work: np.ndarray,
    book: np.ndarray,
) -> int:
    """The score of the position (``pos`` = discs of the side to move) within ``[alpha, beta]``.

    Requires ``alpha < beta``, a position not over, and that the side to move cannot win with
    its next disc (the caller checks that).  For the returned ``v`` and the true score ``s``:

    - ``v <= alpha``: ``s <= v`` (an upper bound);
    - ``v >= beta``: ``s >= v`` (a lower bound);
    - otherwise ``v == s``.

    The recursion is unrolled onto ``work``'s rows (row ``moves`` per node) so that the whole
    search is one compiled loop: a node is entered (``_enter``: settled by the rules, or its
    children ordered), then its value handed up (``_child_returned``) until a node has a child
    left to search, which is entered next.  A search that fills the small table moves it into
    the large one (``promote``) and goes on there.  One loop serves both tables (``small``,
    -1 once the large one is in use): a loop per table took 9 s more to compile, as each copy
    of the inlined rules costs seconds.
    """
    root = moves
    size = slots(table)
    small = small_at(table, size)
    stack, table, book = _borrowed(work), _borrowed(table), _borrowed(book)
    counters = stack[COUNTERS_ROW]
    nodes = counters[NODES]
    limit = counters[NODE_LIMIT]
    while True:
        if small >= 0 and small_full(table):
            promote(table)
            _promoted(size, stack, root, moves)
            small = -1
        nodes += 1
        if nodes > limit:
            counters[NODES] = nodes
            counters[ABORTED] = 1
            return 0
        value, n, alpha, beta = _enter(pos, mask, moves, root, alpha, beta, table, size, small,
                                       stack, book, nodes)
        child = 0
        if n == 0:  # settled: hand the value up to a node with a child left to search
            while True:
                if moves == root:
                    counters[NODES] = nodes
                    return value
                moves -= 1
                value, child = _child_returned(-value, moves, stack, table, size, small)
                if child >= 0:
                    break
            row = np.uint64(moves)
            pos, mask = stack[row, _S_POS], stack[row, _S_MASK]
            alpha, beta = stack[row, _S_ALPHA], stack[row, _S_BETA]
        pos, mask = pos ^ mask, mask | (stack[np.uint64(moves), np.uint64(child)] & CELL_BITS)
        alpha, beta = -beta, -alpha
        moves += 1


@njit(inline="always")
def _half(x: int) -> int:
    """``x / 2`` rounded toward zero, as C does (Pons' choice of windows depends on it)."""
    return -((-x) // 2) if x < 0 else x // 2


@njit(cache=True)
def solve(
    pos: int,
    mask: int,
    moves: int,
    low: int,
    high: int,
    node_limit: int,
    table: np.ndarray,
    work: np.ndarray,
    book: np.ndarray,
) -> tuple[int, int]:
    """Narrow ``[low, high]`` around the score of the position (``pos`` the discs of the side
    to move) with null-window searches, within ``node_limit`` nodes; return the result and
    the nodes searched (also added to ``counters[TOTAL]``).

    ``[low, high]`` must hold the score, and is first narrowed to ``score_bounds(moves)``:
    ``[MIN_SCORE, MAX_SCORE]`` for the exact score, or ``[-1, 1]`` for its sign only (the
    result then has the score's sign, and may be any value of that sign the search proved).
    With ``low > high`` (``RESUME``) the call goes on from the window the previous one left in
    ``work``.  The result is the score, or
    ``UNFINISHED`` when the node limit stopped the search (call again with ``RESUME`` to go
    on), or ``GAME_OVER`` for a finished game; the score of winning at once is returned
    without a node searched.

    From ``FULL_WINDOW_PLIES`` discs on, one search over the whole window replaces the
    narrowing (fewer nodes where few moves are left).  One compiled call does it all, and the
    nodes come back with the result rather than from the counters: on the easiest positions
    each operation of the Python around the call costs as much as a few nodes.  ``negamax`` is
    called, not inlined: inlined into both loops it made ``solve`` take 27 s to compile instead
    of 8, for no speed (the empty board, ``bench/empty_board.py``, took as long either way).
    """
    counters = work[COUNTERS_ROW]
    if low <= high:
        if bits.has_four(pos ^ mask) or moves >= CELLS:
            return GAME_OVER, 0
        if winning_moves(pos, mask):
            return win_now_score(moves), 0
        lowest, highest = score_bounds(moves)
        counters[LOW] = max(low, lowest)
        counters[HIGH] = min(high, highest)
        size = slots(table)
        if moves < TABLE_PLIES - 1 and small_at(table, size) < 0:
            # The root's children's slots, fetched for the entries their searches will store
            # (the root fetches its own on entry).
            child = pos ^ mask
            rest = non_losing_moves(pos, mask)
            while rest:
                cell = rest & -rest
                rest ^= cell
                prefetch_for_store(table, (child + (mask | cell)) % size)
    counters[NODES] = 0
    counters[NODE_LIMIT] = node_limit
    counters[ABORTED] = 0
    low = counters[LOW]
    high = counters[HIGH]
    full_window = moves >= FULL_WINDOW_PLIES
    while low < high:
        if full_window:
            # One search over the whole window: its result is the score where it lies inside.
            r = negamax(pos, mask, moves, low, high, table, work, book)
            if counters[ABORTED]:
                break
            if r <= low:
                high = r
            elif r >= high:
                low = r
            else:
                low = high = r
            continue
        med = low + (high - low) // 2
        if med <= 0 and _half(low) < med:
            med = _half(low)
        elif med >= 0 and _half(high) > med:
            med = _half(high)
        r = negamax(pos, mask, moves, med, med + 1, table, work, book)
        if counters[ABORTED]:
            break
        if r <= med:
            high = r
        else:
            low = r
    counters[LOW] = low
    counters[HIGH] = high
    nodes = min(counters[NODES], node_limit)  # an aborted search counted one node past it
    counters[TOTAL] += nodes
    # int(): compiled, a no-op; run as Python (NUMBA_DISABLE_JIT=1), no NumPy integers out.
    return int(low if low >= high else UNFINISHED), int(nodes)


# ``solve``'s argument types, as the solver makes its arrays: six ints, the table
# (``solver.table.new_entries``), ``work`` (``new_work``) and the packed book (``solver.book.Book.packed``,
# read only: a mapped file).
SOLVE_SIGNATURE = (types.int64,) * 6 + (
    types.Array(types.uint32, 1, "C"), types.Array(types.int64, 2, "C"),
    types.Array(types.int64, 1, "C", readonly=True))


def solve_entry() -> Callable[..., tuple[int, int]]:
    """``solve`` as machine code for ``SOLVE_SIGNATURE``, called without numba's dispatch.

    On every call numba's dispatcher types each argument to pick the compiled version: for
    ``solve``'s nine about 150 ns, 4 % of the easiest solves (Pons' End-Easy set).  The compiled
    version's own entry skips that, so its arguments must have exactly those types: an array of
    another type is not converted, and may be misread.  Loads the compiled code (or compiles it)
    now.  With the JIT disabled (``NUMBA_DISABLE_JIT=1``) this is ``solve`` itself.
    """
    compile_for = getattr(solve, "compile", None)
    entry: Callable[..., tuple[int, int]] = solve if compile_for is None else compile_for(SOLVE_SIGNATURE)
    return entry
