"""One module per file format, its reader and its writer together.

:func:`fsviz.data.load_dataset` and :func:`fsviz.data.save_dataset` (in
:mod:`fsviz.data.loaders`) sniff the format and dispatch here; :mod:`._source` holds what
every reader shares.
"""
