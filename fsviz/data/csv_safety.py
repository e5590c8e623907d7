"""CSV cells safe to open in a spreadsheet program (OWASP: CSV injection).

A spreadsheet program runs a cell that begins with ``=``, ``+``, ``-`` or ``@`` as a formula, and
a tab or carriage return first can hide one: a feature named ``=HYPERLINK("http://…?"&A1)``
written verbatim into an exported CSV would run on the reader's machine when they open it.
OWASP's recommendation is to prefix such a cell with a single quote, which every spreadsheet
program shows as text. :func:`neutralise` does that for names and labels; numbers (``-1``,
``+2.5``) stay as they are, since they cannot be formulas.

The selection and reduced CSVs of the app and the CLI are neutralised by default; their exact
mode (the app's "exact CSV" box, ``fsviz select --csv-raw``) writes names byte for byte, for
programs that read the file back. Parquet and .npz exports keep names exactly either way.
"""

from __future__ import annotations

__all__ = ["FORMULA_STARTS", "neutralise"]

#: first characters that make a spreadsheet cell a formula (or hide one)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """``text`` as a cell a spreadsheet shows as text: a quote before a formula-like start.

    >>> neutralise('=HYPERLINK("x")'), neutralise("-1.5"), neutralise("gene-1"), neutralise("@a")
    ('\\'=HYPERLINK("x")', '-1.5', 'gene-1', "'@a")
    """
    if not text or text[0] not in FORMULA_STARTS:
        return text
    try:
        float(text)
    except ValueError:
        return "'" + text
    return text  # a number, not a formula
