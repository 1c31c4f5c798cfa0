"""The generator's command line: ``python -m solver.make_book layers|path|build|pack``.

Exit codes (``commandline.ExitStatus``): 0 done, 2 bad usage (an unreachable cluster
included), 4 stopped by ``--hours``, 130 interrupted (Ctrl-C; everything solved so far is in
the work file).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from batch import announce_stopping, open_executor
from commandline import add_executor_arguments
from settings import UsageError
from solver.book import DEFAULT_BOOK_PATH, load_book
from solver.make_book import layers, path
from solver.make_book.build import build
from solver.make_book.work import pack, packed, packed_parts, read_params
from solver.table import TABLE_BITS
from terminal import progress
from vocabulary import ExitStatus


def layer_work(discs: int) -> Path:
    """Layer ``discs``'s work file (``solver/data/layerN-work.jsonl``, its packed parts beside it)."""
    return DEFAULT_BOOK_PATH.with_name(f"layer{discs}-work.jsonl")


SHIPPED_LAYER = 13  # the solved layer the shipped book is built from
DEFAULT_LAYERS_WORK = layer_work(SHIPPED_LAYER)
SUMMARY_PATH = DEFAULT_BOOK_PATH.with_name("book.json")
DEFAULT_LAYER = 8  # a new work file's layer when --discs is not given


def _table_bits(text: str) -> int:
    value = int(text)
    problem = TABLE_BITS.problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _add_executor_options(parser: argparse.ArgumentParser) -> None:
    add_executor_arguments(parser)
    parser.add_argument("--table-bits", type=_table_bits, default=26, metavar="B",
                        help="each worker's solver table: about 2**B entries of 4 bytes (default 26)")
    parser.add_argument("--hours", type=float, default=None, metavar="H",
                        help="send no new work after H hours")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress (into a log, progress is a line now and then anyway)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m solver.make_book",
                                     description=sys.modules["solver.make_book"].__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    lay = sub.add_parser("layers", help="solve every position with a given number of discs")
    lay.add_argument("--discs", type=int, default=None, choices=range(0, 14), metavar="N",
                     help="the layer to solve completely (default: the work file's layer, "
                          f"else {DEFAULT_LAYER})")
    lay.add_argument("--work", type=Path, default=None, metavar="FILE",
                     help="the work file to append to and resume from (default: the layer's,"
                          " layerN-work.jsonl beside the book; without --discs, layer"
                          f" {SHIPPED_LAYER}'s)")
    lay.add_argument("--chunk", type=_positive_int, default=64, metavar="K",
                     help="positions per task (neighbours in key order; default 64)")
    _add_executor_options(lay)
    pth = sub.add_parser("path", help="solve the agent's own path through the opening exactly")
    pth.add_argument("--work", type=Path, default=path.DEFAULT_WORK_PATH, metavar="FILE",
                     help="the work file to append to and resume from (default: %(default)s)")
    pth.add_argument("--first-full", type=int, default=6, metavar="PLY",
                     help="as first player, every position up to PLY discs (default 6)")
    pth.add_argument("--second-full", type=int, default=3, metavar="PLY",
                     help="as second player, every position up to PLY discs (default 3)")
    pth.add_argument("--max-ply", type=int, default=20, metavar="PLY",
                     help="no position with more discs (default 20)")
    pth.add_argument("--easy", type=float, default=0.3, metavar="S",
                     help="a position a fresh solver settles in S seconds is easy (default 0.3)")
    _add_executor_options(pth)
    bld = sub.add_parser("build", help="write the book file from the work files")
    bld.add_argument("--layers-work", type=Path, default=DEFAULT_LAYERS_WORK, metavar="FILE",
                     help="the complete layer's work file (default: %(default)s)")
    bld.add_argument("--path-work", type=Path, default=path.DEFAULT_WORK_PATH, metavar="FILE",
                     help="the path's work file (default: %(default)s)")
    bld.add_argument("--out", type=Path, default=DEFAULT_BOOK_PATH, metavar="FILE",
                     help="the book to write (default: %(default)s)")
    bld.add_argument("--summary", type=Path, default=SUMMARY_PATH, metavar="FILE",
                     help="the build's summary, JSON (default: %(default)s)")
    pck = sub.add_parser("pack", help="bring a work file's compressed copy up to date (a new"
                                      " part holding what the copy lacks), to commit it")
    pck.add_argument("--work", type=Path, default=DEFAULT_LAYERS_WORK, metavar="FILE",
                     help="the work file (default: %(default)s)")
    return parser


def _run_pack(args: argparse.Namespace) -> ExitStatus:
    if not args.work.exists():
        if packed_parts(args.work):
            raise UsageError(f"{args.work}: no such work file, only its packed copy, which"
                             " holds everything there is")
        raise UsageError(f"{args.work}: no such work file (nor {packed(args.work).name})")
    written = pack(args.work)
    parts = packed_parts(args.work)
    size = sum(part.stat().st_size for part in parts)
    print(f"{args.work}: {'wrote ' + str(written) if written else 'the packed copy was up to date'};"
          f" {len(parts)} part(s), {size:,} bytes", file=sys.stderr)
    return ExitStatus.OK


def _run_layers(args: argparse.Namespace, stop_at: float) -> ExitStatus:
    if args.work is None:
        args.work = DEFAULT_LAYERS_WORK if args.discs is None else layer_work(args.discs)
    recorded = read_params(args.work).get("layer")
    if args.discs is None:
        args.discs = recorded if isinstance(recorded, int) else DEFAULT_LAYER
    elif recorded is not None and recorded != args.discs:
        raise UsageError(f"{args.work} holds layer {recorded}, not {args.discs}: give another"
                         " --work file (or no --discs, to go on with it)")
    layer = layers.pending(args.discs, args.work)
    # A book complete to the layer below bounds many of the layer's positions at once.  (Not a
    # book that holds the layer itself: solving it again checks the book, it does not copy it.)
    with_book = args.discs > 0 and load_book().complete_discs == args.discs - 1
    print(f"layer {args.discs}: {layer.total} positions, {layer.done} already in {args.work}"
          + (f"; the shipped book (complete to {args.discs - 1} discs) bounds them" if with_book
             else ""), file=sys.stderr)
    with open_executor(args.workers, args.scheduler) as executor, \
            progress(len(layer.todo), f"layer {args.discs}", enabled=not args.quiet) as advance:
        run = layers.generate(layer, args.work, executor, table_bits=args.table_bits,
                              with_book=with_book, chunk=args.chunk, stop_at=stop_at,
                              on_interrupt=announce_stopping("chunk"),
                              progress=lambda solved, _seconds: advance(solved))
    print(f"layer {args.discs}: {run.solved} positions solved in {run.seconds:.0f} s;"
          f" {run.done + run.solved} of {run.total} in {args.work}", file=sys.stderr)
    return ExitStatus.OK if run.complete else ExitStatus.OUT_OF_TIME


def _run_path(args: argparse.Namespace, stop_at: float) -> ExitStatus:
    with open_executor(args.workers, args.scheduler) as executor:
        generator = path.Generator(args.work, args.first_full, args.second_full, args.max_ply,
                                   args.easy, args.table_bits, executor, stop_at,
                                   None if args.quiet else path.print_record,
                                   announce_stopping("solve"))
        complete = generator.run()
    print(f"{'complete' if complete else 'stopped by --hours'}: {generator.new} new positions,"
          f" {len(generator.records)} in {args.work}", file=sys.stderr)
    return ExitStatus.OK if complete else ExitStatus.OUT_OF_TIME


def _run_build(args: argparse.Namespace) -> ExitStatus:
    for work in (args.layers_work, args.path_work):
        if not work.exists() and not packed(work).exists():
            raise UsageError(f"{work}: no such work file (nor {packed(work).name}): the book is"
                             " left as it is")
    info = build(args.out, args.summary, path_work=args.path_work, layers_work=args.layers_work)
    print(json.dumps(info, indent=2))
    if info["complete_discs"] < 0 and info["layer"] is not None:
        print(f"warning: layer {info['layer']} is not complete yet"
              f" ({info['layer_positions_solved']} positions solved): {args.out} has no complete"
              " layers, only the positions solved", file=sys.stderr)
    return ExitStatus.OK


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is Ctrl-C, or an error it caused (numba turns an interrupt while it
    compiles into a ``RuntimeError``)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def main(argv: list[str] | None = None) -> ExitStatus:
    args = _parser().parse_args(argv)
    stop_at = time.monotonic() + (args.hours * 3600 if getattr(args, "hours", None) else float("inf"))
    try:
        if args.command == "build":
            return _run_build(args)
        if args.command == "pack":
            return _run_pack(args)
        if args.command == "layers":
            return _run_layers(args, stop_at)
        return _run_path(args, stop_at)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not _interrupted(exc):
            raise
        print("interrupted: what was solved is in the work file; run again to go on",
              file=sys.stderr)
        return ExitStatus.INTERRUPTED
