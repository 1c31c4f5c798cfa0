"""``python -m solver.make_book``: see ``solver.make_book.cli``."""

import sys

from solver.make_book.cli import main

sys.exit(main())
