"""Training data for the fitted heuristics: positions labelled by our own solver
(``training.label``).  The fitting itself is ``heuristics.train``: it needs only numpy."""
