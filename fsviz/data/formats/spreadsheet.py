"""Spreadsheets (.xlsx, .xls, .ods) through ``pandas.read_excel`` with python-calamine: the sheet
reader and the loader (a sheet then goes the same table path as CSV; no writer).

calamine is a fast Rust reader of every Excel and OpenDocument format (no openpyxl, xlrd
or odfpy needed); a workbook is read sheet by sheet, the first row as the header.

calamine builds a sheet's whole rectangle of cells at once, from its first to its last used
cell, and aborts the process when that does not fit: one cell at XFD1048576 in a 1.5 KB file
asks for 512 GiB. So before calamine sees a workbook, :func:`check_workbook` reads what the
file declares: the bytes its zip members unpack to (a sheet of 2 GB of whitespace compresses
to 2 MB), and for .xlsx the rectangle of the chosen sheet from its cell references, and
checks both against the memory budget. The app and the CLI also read in the sandbox child
(:mod:`fsviz.data.sandbox`), for what cannot be read off the file (.xls, .ods).
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from typing import Any

from fsviz.data.budget import check_memory, format_bytes

__all__ = ["check_workbook", "list_sheets", "read_sheet"]

#: bytes a cell of a sheet's rectangle takes while it is read: calamine's cell (32 bytes,
#: measured: 512 GiB for 16,384 x 1,048,576 cells), the Python list slot and value, and pandas'
#: frame of them. Measured at the library door (peak RSS over the imports, 2,000,000 cells):
#: 90 B a numeric cell, 109 B a short text cell; 48 let a 1 GB budget take 2.2 GB (issue 46)
CELL_BYTES = 128
_CELL_REF = re.compile(rb'<c\b[^>]*?\sr="([A-Z]{1,3})([0-9]{1,7})"')
_ROW_REF = re.compile(rb'<row\b[^>]*?\sr="([0-9]{1,7})"')
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _handle(path_or_buffer: Any):
    """A path, or a fresh BytesIO of a buffer's content (calamine reads from the start)."""
    if isinstance(path_or_buffer, (str, os.PathLike)):
        return os.fspath(path_or_buffer)
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(path_or_buffer))
    if hasattr(path_or_buffer, "getvalue"):
        return io.BytesIO(path_or_buffer.getvalue())
    if hasattr(path_or_buffer, "seek"):
        path_or_buffer.seek(0)
    return io.BytesIO(path_or_buffer.read())


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def _zip_of(path_or_buffer: Any) -> zipfile.ZipFile | None:
    h = _handle(path_or_buffer)
    try:
        return zipfile.ZipFile(h)
    except (zipfile.BadZipFile, OSError, ValueError):
        return None  # .xls (BIFF) or not a workbook: calamine says what it is


def _sheet_parts(z: zipfile.ZipFile) -> dict[str, str]:
    """.xlsx: sheet name -> its worksheet part (from xl/workbook.xml and its relationships)."""
    import xml.etree.ElementTree as ET

    try:
        book = ET.fromstring(z.read("xl/workbook.xml"))
        rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    except (KeyError, ET.ParseError):
        return {}
    target = {r.get("Id"): r.get("Target", "") for r in rels}
    out = {}
    for el in book.iter():
        if el.tag.endswith("}sheet") or el.tag == "sheet":
            part = target.get(el.get(f"{{{_REL_NS}}}id"), "")
            part = part.lstrip("/") if part.startswith("/") else f"xl/{part}"
            out[str(el.get("name"))] = os.path.normpath(part).replace(os.sep, "/")
    return out


def _tags(buf, offset: int):
    """Positions (plus ``offset``) of the ``<row`` and ``<c`` start tags in a chunk of sheet XML."""
    import numpy as np

    b = np.frombuffer(buf, dtype=np.uint8)
    lt = np.flatnonzero(b[:-4] == 60)  # "<"; the last 4 bytes are carried into the next chunk
    end = (32, 62, 47, 9, 10, 13)  # " ", ">", "/", tab, newline, CR
    cell = lt[(b[lt + 1] == 99) & np.isin(b[lt + 2], end)]
    row = lt[(b[lt + 1] == 114) & (b[lt + 2] == 111) & (b[lt + 3] == 119) & np.isin(b[lt + 4], end)]
    return row + offset, cell + offset


def _rectangle(z: zipfile.ZipFile, part: str) -> tuple[int, int]:
    """(rows, columns) of the rectangle of cells calamine would build for a worksheet part, read
    in one streamed pass: the extent of the cell references, or for cells without references
    the number of rows times the most cells in one row, whichever is larger."""
    import numpy as np

    lo_r = lo_c = 1 << 30
    hi_r = hi_c = 0
    n_rows = widest = current = 0
    tail, offset = b"", 0
    with z.open(part) as fh:
        while True:
            chunk = fh.read(1 << 22)
            text = tail + chunk
            cut = len(text) if not chunk else max(text.rfind(b"<"), 0)
            body, tail = text[:cut], text[cut:]
            if len(tail) > 1 << 20:  # one tag over 1 MiB: nothing in it is a reference
                tail = b""
            for col, row in _CELL_REF.findall(body):
                c, r = _column_number(col), int(row)
                lo_c, hi_c, lo_r, hi_r = min(lo_c, c), max(hi_c, c), min(lo_r, r), max(hi_r, r)
            for row in _ROW_REF.findall(body):
                lo_r, hi_r = min(lo_r, int(row)), max(hi_r, int(row))
            rows, cells = _tags(body + b"    ", offset)
            if len(rows):
                per_row = np.bincount(np.searchsorted(rows, cells), minlength=len(rows) + 1)
                widest = max(widest, current + int(per_row[0]), int(per_row[1:].max(initial=0)))
                current = int(per_row[-1])
            else:
                current += len(cells)
                widest = max(widest, current)
            n_rows += len(rows)
            offset += len(body)
            if not chunk:
                break
    by_refs = (hi_r - lo_r + 1, hi_c - lo_c + 1) if hi_r else (0, 0)
    return max(by_refs[0], n_rows), max(by_refs[1], widest)


def check_workbook(path_or_buffer: Any, sheet: str | None, budget, who: str) -> None:
    """Refuse a workbook whose declared sizes exceed the memory budget, before calamine reads it.

    Parameters
    ----------
    path_or_buffer : str, Path, bytes or binary file-like
    sheet : str or None
        The sheet that will be read (its rectangle is checked for .xlsx); None: the first.
    budget : int, str or None
        As ``memory_budget`` of :func:`~fsviz.data.load_dataset` (0: no check).
    who : str

    Raises
    ------
    MemoryBudgetError
        The zip members unpack to more than the budget, or the sheet's rectangle of cells
        (first to last used cell) would take more.
    """
    z = _zip_of(path_or_buffer)
    if z is None:
        return
    with z:
        unpacked = sum(max(int(i.file_size), 0) for i in z.infolist())
        check_memory(
            unpacked, f"the workbook, which unpacks to {format_bytes(unpacked)} of XML,", budget, who=who
        )
        parts = _sheet_parts(z)
        if not parts:
            return
        name = sheet if sheet in parts else next(iter(parts))
        if parts[name] not in z.namelist():
            return
        n_rows, n_cols = _rectangle(z, parts[name])
    check_memory(
        n_rows * n_cols * CELL_BYTES,
        f"sheet {name!r}, whose cells span {n_rows:,} rows x {n_cols:,} columns (first to last used cell),",
        budget,
        who=who,
    )


def _workbook(path_or_buffer: Any, who: str, budget=None):
    from python_calamine import CalamineWorkbook

    check_workbook(path_or_buffer, None, budget, who)
    h = _handle(path_or_buffer)
    try:
        if isinstance(h, str):
            return CalamineWorkbook.from_path(h)
        return CalamineWorkbook.from_filelike(h)
    except Exception as e:  # calamine's own errors: not a workbook, damaged, encrypted
        msg = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise ValueError(
            f"{who}: could not open the workbook: {msg}. Fix: open it in a spreadsheet program "
            "and save it again as .xlsx (or export the sheet as CSV)."
        ) from e


def list_sheets(path_or_buffer: Any) -> list[str]:
    """Sheet names of a workbook (.xlsx, .xlsm, .xls, .ods), in workbook order.

    Parameters
    ----------
    path_or_buffer : str, Path, bytes or binary file-like

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        When the bytes are not a workbook this reader understands.
    """
    return [str(s) for s in _workbook(path_or_buffer, "list_sheets").sheet_names]


def _tables(wb) -> list[str]:
    """The sheets that can hold a table (worksheets; not chart, dialog or macro sheets)."""
    try:
        meta = wb.sheets_metadata
    except AttributeError:  # an older python-calamine: every sheet counts
        return [str(s) for s in wb.sheet_names]
    return [str(m.name) for m in meta if str(m.typ).rsplit(".", 1)[-1] == "WorkSheet"]


def resolve_sheet(
    sheets: list[str], sheet: str | int | None, who: str, tables: list[str] | None = None
) -> str:
    """The sheet name for ``sheet`` (a name, a 0-based position, or None for the first table).

    ``tables``: the sheets that are worksheets (chart sheets hold no cells); None: all are.
    """
    tables = list(sheets) if tables is None else tables
    if not sheets:
        raise ValueError(f"{who}: the workbook has no sheets. Fix: choose a workbook that holds a table.")
    if not tables:
        raise ValueError(
            f"{who}: the workbook's sheets {sheets} are charts or other sheets without cells; none holds a "
            "table. Fix: choose the workbook that holds the data, or export the table as CSV."
        )
    if sheet is None:
        return tables[0]
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if not -len(sheets) <= sheet < len(sheets):
            raise ValueError(
                f"{who}: sheet position {sheet} is out of range; the workbook has {len(sheets)} sheet(s) "
                f"{sheets}. Fix: choose one of them."
            )
        sheet = sheets[sheet]
    if str(sheet) not in sheets:
        raise ValueError(
            f"{who}: no sheet named {sheet!r}; the sheets are {sheets}. Fix: choose one of them."
        )
    if str(sheet) not in tables:
        raise ValueError(
            f"{who}: sheet {sheet!r} is a chart (or another sheet without cells), not a table. "
            f"Fix: choose one of the sheets that hold tables: {tables}."
        )
    return str(sheet)


def read_sheet(
    path_or_buffer: Any,
    sheet: str | int | None = None,
    *,
    nrows: int | None = None,
    who: str,
    budget=None,
    sandbox: bool = False,
):
    """``(frame, sheet_name, sheet_names)``: one sheet as a DataFrame (first row = header).

    Column names become str; blank header cells are named ``Unnamed: <position>``
    (pandas' convention). Empty cells are NaN; text cells stay text. The workbook's declared
    sizes are checked against ``budget`` first (:func:`check_workbook`); ``sandbox=True``
    reads in a child process with a memory limit (:mod:`fsviz.data.sandbox`).
    """
    if sandbox:
        from fsviz.data.budget import resolve_budget
        from fsviz.data.sandbox import ChildCrashed, child_memory_limit, run_isolated

        data = (
            os.fspath(path_or_buffer)
            if isinstance(path_or_buffer, (str, os.PathLike))
            else _bytes(path_or_buffer)
        )
        limit = child_memory_limit(resolve_budget(budget))
        try:
            return run_isolated(
                _read_sheet_here, data, sheet, nrows, who, budget, who=who, memory_limit=limit
            )
        except ChildCrashed as e:
            raise ValueError(
                f"{e} The workbook is damaged or declares more cells than this server reads. Fix: save the "
                "sheet as CSV, or delete the stray cells far from the table and save again."
            ) from None
    return _read_sheet_here(path_or_buffer, sheet, nrows, who, budget)


def _bytes(path_or_buffer: Any) -> bytes:
    h = _handle(path_or_buffer)
    return h.getvalue() if hasattr(h, "getvalue") else h.read()


def _read_sheet_here(path_or_buffer: Any, sheet, nrows, who: str, budget):
    import pandas as pd

    wb = _workbook(path_or_buffer, who, budget)
    sheets = [str(s) for s in wb.sheet_names]
    name = resolve_sheet(sheets, sheet, who, _tables(wb))
    check_workbook(path_or_buffer, name, budget, who)
    try:
        frame = pd.read_excel(_handle(path_or_buffer), sheet_name=name, engine="calamine", nrows=nrows)
    except ValueError:
        raise
    except Exception as e:
        msg = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise ValueError(
            f"{who}: could not read sheet {name!r}: {msg}. Fix: save the workbook again as .xlsx, or "
            "export the sheet as CSV."
        ) from e
    frame.columns = [str(c) for c in frame.columns]
    return frame, name, sheets
