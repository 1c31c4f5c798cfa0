"""The opening book's generator: ``python -m solver.make_book layers|path|build|pack``.

The book (``solver.book``) is built from two work files of solved positions:

- ``layers``: **every** position any play can reach with a given number of discs (13 for the
  shipped book), mirror-reduced, each solved for its outcome (win, draw or loss for the side to
  move) and a column that keeps it (``solver.make_book.layers``).  The shallower positions
  need no solving: ``build`` works them out from the deepest layer by looking its positions up.
- ``path``: the positions on the agent's own path through the opening, solved exactly (the
  column and score), deeper than the complete layers reach (``solver.make_book.path``).

The solves run through the ``batch`` executor: a local process pool, or the workers of a Dask
cluster given its scheduler's address; each worker keeps one solver
(``solver.make_book.worker``).  Every answer is appended to its work file (JSON lines,
``solver.make_book.work``) as soon as it is known, so an interrupted run resumes where it
stopped.  ``build`` merges both work files into the book file; ``pack`` adds a work file's new
lines to its shipped gzip parts.
"""
