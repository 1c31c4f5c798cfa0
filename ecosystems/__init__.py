"""Our engine in other arenas, and their bots in ours: Kaggle ConnectX, PettingZoo, OpenSpiel.

- ``ecosystems.connectx``: ConnectX's ``agent(observation, configuration)``; ``ecosystems.submission``
  writes it as a Kaggle submission (``agent.py kaggle``, ``ecosystems.cli``);
- ``ecosystems.pettingzoo``: a policy for PettingZoo's ``connect_four_v3`` (AEC API);
- ``ecosystems.openspiel``: a ``pyspiel.Bot`` for OpenSpiel's ``connect_four``, and the
  conversions between its states and observations and our ``Board``;
- ``ecosystems.players``: the player specs of the other arenas' bots (``kaggle:negamax``,
  ``kaggle:random``, ``openspiel:mcts:N``) beside ours (``engine.players``), for the
  tournament, ``local`` and ``report``.

Each adapter converts the arena's board to ours through ``Board``'s own edges (a course grid, a
move list) and plays through ``engine.Engine.decide`` (``ecosystems.session``): no second copy
of the rules or the search.  The arenas' packages are the optional ``arenas`` extra
(``ecosystems.extras``); nothing here imports them until it is used.
"""
