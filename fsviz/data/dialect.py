"""What a file is, by its bytes, and how a delimited text file is written.

:func:`sniff_bytes` tells a workbook, an HDF5 (AnnData, MATLAB 7.3) file, Parquet,
MATLAB, gzip or other binary data from text by their first bytes, whatever the file is
called; :func:`sniff_dialect` finds the separator (``,`` ``;`` tab ``|`` or runs of
whitespace), the decimal mark (``.`` or ``,``) and a thousands separator of a text table
from its first lines.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import zipfile

__all__ = ["BINARY_KINDS", "describe_kind", "is_series_matrix", "sniff_bytes", "sniff_dialect"]

#: the lines around a GEO series matrix's table
GEO_BEGIN, GEO_END = "!series_matrix_table_begin", "!series_matrix_table_end"


def is_series_matrix(head: bytes) -> bool:
    """True for the first bytes of a GEO series matrix text file."""
    text = head.lstrip(b"\xef\xbb\xbf")
    return text.startswith((b"!Series_", b"!Sample_")) or GEO_BEGIN.encode() in head


#: what each binary kind is called in notes and messages
BINARY_KINDS = {
    "xlsx": "an Excel workbook (.xlsx)",
    "xls": "an old Excel workbook (.xls)",
    "ods": "an OpenDocument spreadsheet (.ods)",
    "hdf5": "an HDF5 file (AnnData .h5ad or MATLAB 7.3)",
    "h5ad": "an AnnData file (.h5ad)",
    "parquet": "a Parquet file",
    "mat": "a MATLAB .mat file",
    "npz": "a NumPy .npz archive",
    "zip": "a zip archive",
    "gzip": "a gzip-compressed file",
    "bzip2": "a bzip2-compressed file",
    "xz": "an xz-compressed file",
    "pdf": "a PDF document",
    "png": "a PNG image",
    "jpeg": "a JPEG image",
    "binary": "binary data (not text)",
}


def describe_kind(kind: str) -> str:
    """Plain words for a kind of :func:`sniff_bytes`."""
    return BINARY_KINDS.get(kind, kind)


def _zip_kind(data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = zf.namelist()
            if "mimetype" in names:
                mime = zf.read("mimetype")[:100]
                if b"opendocument.spreadsheet" in mime:
                    return "ods"
            if any(nm.startswith("xl/") for nm in names):
                return "xlsx"
            if names and all(nm.endswith(".npy") for nm in names):
                return "npz"
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        # only the head was given: look for the member names in the raw bytes
        if b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet" in data[:200]:
            return "ods"
        if b"xl/" in data or b"[Content_Types].xml" in data[:2000]:
            return "xlsx"
        if b".npy" in data[:2000]:
            return "npz"
    return "zip"


def sniff_bytes(head: bytes, data: bytes | None = None) -> str:
    """The kind of a file from its first bytes.

    Parameters
    ----------
    head : bytes
        The first bytes (a few KiB are plenty).
    data : bytes, optional
        The whole file, to look inside zip archives (else only ``head`` is searched).

    Returns
    -------
    str
        ``"text"`` or one of the keys of :data:`BINARY_KINDS`.

    Examples
    --------
    >>> sniff_bytes(b"a;b\\n1,5;2\\n"), sniff_bytes(b"\\x1f\\x8b\\x08\\x00"), sniff_bytes(b"PAR1....")
    ('text', 'gzip', 'parquet')
    """
    if head.startswith(b"\x89HDF\r\n\x1a\n"):
        return "hdf5"
    if head.startswith(b"MATLAB"):
        return "mat"
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _zip_kind(data if data is not None else head)
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "xls"
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"BZh"):
        return "bzip2"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if head.startswith(b"%PDF"):
        return "pdf"
    if head.startswith(b"\x89PNG"):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    sample = head[:4096]
    if b"\x00" in sample.replace(b"\x00\x00", b"") or b"\x00" in sample:
        if not sample.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 text has NULs too
            return "binary"
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 13, 12))
    if sample and controls > len(sample) * 0.05:
        return "binary"
    return "text"


_NUM_DOT = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")
_NUM_COMMA = re.compile(r"^[-+]?(\d+,\d*|,\d+)([eE][-+]?\d+)?$")
_THOUSANDS_COMMA = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$")
_THOUSANDS_DOT = re.compile(r"^[-+]?\d{1,3}(\.\d{3})+(,\d+)?$")
_THOUSANDS_SPACE = re.compile(r"^[-+]?\d{1,3}([ \u00a0\u202f]\d{3})+([.,]\d+)?$")


def _fields(lines: list[str], sep: str) -> list[list[str]]:
    if sep == r"\s+":
        return [ln.split() for ln in lines]
    return list(csv.reader(lines, delimiter=sep))


def sniff_dialect(text: str, *, allow_whitespace: bool = True) -> tuple[str, str, str | None]:
    return _sniff_dialect(text, bool(allow_whitespace))


@functools.lru_cache(maxsize=4)
def _sniff_dialect(text: str, allow_whitespace: bool) -> tuple[str, str, str | None]:
    """``(sep, decimal, thousands)`` of a delimited table from its first lines.

    The separator is the candidate (tab, ``;``, ``,``, ``|``, then runs of whitespace when
    ``allow_whitespace``) that splits the header and the data lines into the same number
    (> 1) of fields, preferring the one that gives the most fields when several do
    (quoted fields are respected). The decimal mark is ``,`` when the separator is not a
    comma and data cells look like ``1,5`` with none like ``1.5`` (or like ``1.234,5``);
    ``.`` otherwise. A thousands separator is reported when cells look like
    ``1,234,567.5`` or ``1.234.567,5``, so such numbers are not read as text or as small
    decimals.

    Parameters
    ----------
    text : str
        The first lines of the file (a complete last line is not needed).
    allow_whitespace : bool, default=True
        Try whitespace-separated columns too (``.txt``/``.dat``).

    Returns
    -------
    (str, str, str or None)

    Examples
    --------
    >>> sniff_dialect("a;b;c\\n1,5;2,25;x\\n3,0;4,5;y\\n")
    (';', ',', None)
    >>> sniff_dialect("a,b\\n1.5,2\\n")
    (',', '.', None)
    """
    lines = [ln for ln in text.splitlines(keepends=True) if ln.strip() and not ln.startswith("#")]
    if text and not text.endswith(("\n", "\r")) and len(lines) > 2:
        lines = lines[:-1]  # the last line may be cut
    lines = lines[:20] if sum(map(len, lines[:5])) < 200_000 else lines[:4]  # very wide: a few lines
    if not lines:
        return ",", ".", None
    best, best_score = ",", (-1, 0)
    candidates = ["\t", ";", ",", "|"] + ([r"\s+"] if allow_whitespace else [])
    for sep in candidates:
        try:
            rows = _fields(lines, sep)
        except csv.Error:
            continue
        widths = [len(r) for r in rows]
        if widths[0] < 2:
            continue
        consistent = sum(1 for w in widths if w == widths[0]) / len(widths)
        if consistent < 0.9:  # a separator splits the header and the data lines alike
            continue
        # whitespace only when nothing else splits the lines consistently
        score = (int(consistent >= 0.9) * (1 if sep == r"\s+" else 2), widths[0] if consistent >= 0.9 else 0)
        if score > best_score:
            best, best_score = sep, score
    sep = best
    rows = _fields(lines[:21], sep)[1:] if len(lines) > 1 else []
    cells = [c.strip() for r in rows for c in r[:200]]  # a sample of cells is plenty
    dot = sum(1 for c in cells if _NUM_DOT.match(c) and "." in c)
    comma = sum(1 for c in cells if _NUM_COMMA.match(c))
    th_comma = sum(1 for c in cells if _THOUSANDS_COMMA.match(c))
    th_dot = sum(
        1 for c in cells if _THOUSANDS_DOT.match(c) and "," in c or re.match(r"^\d{1,3}(\.\d{3}){2,}$", c)
    )
    th_space = sum(1 for c in cells if _THOUSANDS_SPACE.match(c))
    decimal, thousands = ".", None
    if sep != ",":
        if th_dot and not dot:
            decimal, thousands = ",", "."
        elif comma and (not dot or comma > 3 * dot):
            decimal = ","
        elif th_comma and dot:
            thousands = ","
    elif th_comma and any(f'"{c}"' in text for c in cells if _THOUSANDS_COMMA.match(c)):
        thousands = ","  # "1,234.5" quoted in a comma-separated file
    if thousands is None and th_space and sep != r"\s+":
        thousands = " "
    return sep, decimal, thousands


sniff_dialect.__doc__ = _sniff_dialect.__doc__
