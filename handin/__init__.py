"""The assignment's hand-in (``agent.py handin``): the course-mode player on its own, made of the
project's modules, to submit as it is and to run with the course's packages only."""
