"""``python -m fsviz``: the command line (see :mod:`fsviz.cli`)."""

import sys

from fsviz.cli import main

sys.exit(main())
