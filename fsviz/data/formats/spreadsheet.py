"""Spreadsheets (.xlsx, .xls, .ods) through ``pandas.read_excel`` with python-calamine: the sheet
reader and the loader (a sheet then goes the same table path as CSV; no writer).

calamine is a fast Rust reader of every Excel and OpenDocument format (no openpyxl, xlrd
or odfpy needed); a workbook is read sheet by sheet, the first row as the header.
"""

from __future__ import annotations

import io
import os
from typing import Any

from fsviz.data.budget import dense_bytes
from fsviz.data.formats._source import _Source

__all__ = ["list_sheets", "read_sheet"]


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


def _workbook(path_or_buffer: Any, who: str):
    from python_calamine import CalamineWorkbook

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


def resolve_sheet(sheets: list[str], sheet: str | int | None, who: str) -> str:
    """The sheet name for ``sheet`` (a name, a 0-based position, or None for the first)."""
    if not sheets:
        raise ValueError(f"{who}: the workbook has no sheets. Fix: choose a workbook that holds a table.")
    if sheet is None:
        return sheets[0]
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if not -len(sheets) <= sheet < len(sheets):
            raise ValueError(
                f"{who}: sheet position {sheet} is out of range; the workbook has {len(sheets)} sheet(s) "
                f"{sheets}. Fix: choose one of them."
            )
        return sheets[sheet]
    if str(sheet) not in sheets:
        raise ValueError(
            f"{who}: no sheet named {sheet!r}; the sheets are {sheets}. Fix: choose one of them."
        )
    return str(sheet)


def read_sheet(path_or_buffer: Any, sheet: str | int | None = None, *, nrows: int | None = None, who: str):
    """``(frame, sheet_name, sheet_names)``: one sheet as a DataFrame (first row = header).

    Column names become str; blank header cells are named ``Unnamed: <position>``
    (pandas' convention). Empty cells are NaN; text cells stay text.
    """
    import pandas as pd

    sheets = [str(s) for s in _workbook(path_or_buffer, who).sheet_names]
    name = resolve_sheet(sheets, sheet, who)
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


def _load_sheet(src: _Source, fmt: str, label) -> dict:
    from fsviz.data.formats.delimited import _table_parts
    from fsviz.data.frames import read_table

    who = f"load_dataset: {src.label}"
    raw = read_table(src, fmt, sheet=src.sheet, transpose=src.transpose, who=who)
    src.check(dense_bytes(*raw.frame.shape), f"{raw.frame.shape[0]:,} rows x {raw.frame.shape[1]:,} columns")
    if raw.sheets and len(raw.sheets) > 1:
        raw.notes.append(
            f"read sheet {raw.sheet!r} of {len(raw.sheets)} ({', '.join(map(repr, raw.sheets[:5]))})"
        )
    return _table_parts(src, fmt, raw, label)
