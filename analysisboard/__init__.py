"""The analysis board: any position or game in a local browser page (``agent.py board``).

A front end of its own above the engine, with no game rules or search of its own:

- ``analysts``: the engines behind the page, each analysis cancellable by a newer request from
  the same page (``timecontrol.StoppableClock``);
- ``verdicts``: a position's analysis as the JSON API gives it: every column's proven result
  (book, solver) or the search's estimate, the course-mode search's view, the evaluations;
- ``games``: the games the review can open (the client's record, a local server's database);
- ``review``: a game judged move by move by the referee (``engine.referee``);
- ``opponents``: the players of ``--players`` the page may play, and its games against them;
- ``diagram``: the position as an SVG or PNG picture (``agent.py board-image``);
- ``app``: the FastAPI app serving the page (``static/``) and the API under it;
- ``cli``: the ``board`` and ``board-image`` commands.
"""
