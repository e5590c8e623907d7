"""The old private name of :mod:`fsviz.data.formats.source` (kept for code written against it).

The helpers every reader shares now have public names there (``Source``, ``parse_error``,
``readonly``, ``resolve_format``, ...); import them from :mod:`fsviz.data.formats.source`.
"""

from fsviz.data.formats.source import *  # noqa: F403 - the public names, as before
from fsviz.data.formats.source import (  # noqa: F401 - the old private names
    FSVIZ_TAG as _FSVIZ_TAG,
)
