"""GCT 1.2 / 1.3 expression files (GenePattern, the Broad's CMap/LINCS), read natively, and CLS labels.

GCT is a tab-separated features x samples matrix with a version line and a dimensions line:

- ``#1.2``, then ``<rows> <columns>``, then ``Name  Description  S1  S2 ...`` and one line per
  feature (its name, a description, its values);
- ``#1.3``, then ``<rows> <columns> <row-metadata columns> <column-metadata rows>``, then
  ``id  <row metadata names...>  S1  S2 ...``, one line per column-metadata field (its name,
  ``na`` under the row metadata, a value per sample), then one line per feature.

The reader returns the samples as rows (the file's sample columns exactly: ``Name``,
``Description`` and the row metadata are never samples), the features' names (``Name`` /
``id``), and the column metadata of a 1.3 file as the sample annotations (one of them can be the
target). The dimensions line is checked against the memory budget before anything is parsed, and
against what the file holds.

A CLS file (:func:`read_cls`) holds a class label per sample, in the GCT's sample order::

    4 2 1
    # tumour normal
    0 0 1 1

(``<samples> <classes> 1``, the class names, then a label per sample, as numbers or names). It
attaches as the sample annotations (``sample_annotations="labels.cls"``): its column ``class`` is
then a target, joined by position.
"""

from __future__ import annotations

import io

import numpy as np

from fsviz.data.budget import dense_bytes
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source, readonly
from fsviz.data.validation import names_preview

__all__ = ["READER", "CLS_READER", "is_cls", "is_gct", "read_cls"]


def is_gct(head: bytes) -> bool:
    """True for the first bytes of a GCT 1.2 or 1.3 file."""
    text = head.lstrip(b"\xef\xbb\xbf")
    return text[:4] in (b"#1.2", b"#1.3") and text[4:5] in (b"\n", b"\r", b"\t", b" ")


def _header(src: Source, who: str) -> tuple[str, list[int], list[str]]:
    text = src.head(1 << 16).decode("utf-8-sig", errors="replace")
    lines = text.splitlines()
    version = lines[0].strip().split()[0]
    try:
        dims = [int(v) for v in lines[1].split()]
    except (IndexError, ValueError):
        raise ValueError(
            f"{who}: a GCT file's second line holds its dimensions (rows and columns); got "
            f"{(lines[1] if len(lines) > 1 else '')[:60]!r}. Fix: export the GCT file again."
        ) from None
    need = 2 if version == "#1.2" else 4
    if len(dims) < need or any(d < 0 for d in dims):
        raise ValueError(
            f"{who}: a GCT {version[1:]} file declares {need} dimensions on its second line; got {dims}. "
            "Fix: export the GCT file again."
        )
    return version, dims, lines


def _declared(src: Source) -> tuple:
    _, dims, _ = _header(src, f"load_dataset: {src.label}")
    return dims[1], dims[0], None  # samples x features


def _load_gct(src: Source, label) -> dict:
    import pandas as pd

    who = f"load_dataset: {src.label}"
    version, dims, _ = _header(src, who)
    n_rows, n_cols = dims[0], dims[1]
    n_row_meta, n_col_meta = (dims[2], dims[3]) if version == "#1.3" else (1, 0)  # 1.2: Description
    src.check(dense_bytes(n_cols, n_rows), f"a GCT matrix of {n_rows:,} features x {n_cols:,} samples")
    text = src.bytes().decode("utf-8-sig", errors="replace")
    body = text.split("\n", 2)[2] if text.count("\n") >= 2 else ""
    head_lines = body.split("\n", 1 + n_col_meta)
    names = [c.strip() for c in head_lines[0].rstrip("\r").split("\t")]
    first = 1 + n_row_meta
    samples = names[first:]
    if len(samples) != n_cols:
        raise ValueError(
            f"{who}: the GCT {version[1:]} file declares {n_cols:,} sample columns but its header has "
            f"{len(samples):,} after {names[:first]}. Fix: export the GCT file again."
        )
    meta_lines = [ln.rstrip("\r").split("\t") for ln in head_lines[1 : 1 + n_col_meta]]
    try:
        data = pd.read_csv(
            io.StringIO(body),
            sep="\t",
            skiprows=range(1, 1 + n_col_meta),
            dtype={j: str for j in range(first)},
            header=0,
            names=list(range(len(names))),
            keep_default_na=False,
            na_values=list(src.na_values),
            low_memory=False,
        )
    except Exception as e:  # noqa: BLE001 - pandas' several parser errors
        raise ValueError(
            f"{who}: the GCT table could not be parsed ({str(e)[:160]}). Fix: export it again."
        ) from None
    if len(data) != n_rows:
        raise ValueError(
            f"{who}: the GCT file declares {n_rows:,} features but holds {len(data):,} data lines. Fix: "
            "download or export it again (a cut-short file?)."
        )
    values = data.iloc[:, first:]
    bad = [j for j, t in enumerate(values.dtypes) if t.kind not in "biuf"]
    if bad:
        col = values.iloc[:, bad[0]]
        cell = col[pd.to_numeric(col, errors="coerce").isna() & col.notna()]
        raise ValueError(
            f"{who}: the GCT file holds text in sample column(s) {names_preview([samples[j] for j in bad])} "
            f"(e.g. {str(cell.iloc[0]) if len(cell) else '?'!r}). Fix: add the marker to the missing "
            "values (na_values) or check the file."
        )
    X = values.to_numpy(dtype=np.float64).T
    features = data.iloc[:, 0].astype(str).str.strip().to_numpy(dtype=object)
    notes = [
        f"read as a GCT {version[1:]} file: {n_cols:,} samples x {n_rows:,} features (features as rows in "
        f"the file; {', '.join(repr(n) for n in names[:first])} not samples)"
    ]
    annotations = None
    if n_col_meta:
        cols = {"id": samples}
        for row in meta_lines:  # one line per column-metadata field (a few)
            cols[row[0].strip()] = [v.strip() for v in row[first : first + n_cols]]
        annotations = pd.DataFrame(cols)
        notes.append(
            f"its {n_col_meta} column-metadata line(s) {names_preview(list(cols)[1:])} are the sample "
            "annotations"
        )
    from fsviz.data.frames import merge_duplicate_features

    X, features, note = merge_duplicate_features(
        readonly(np.ascontiguousarray(X)), features, src.duplicates, who
    )
    if note:
        notes.append(note)
    return {
        "X": X,
        "y": None,
        "feature_names": features,
        "label_column": None,
        "format": "gct",
        "sample_names": np.array([str(s).strip() for s in samples], dtype=object),
        "annotations": annotations,
        "table_meta": {"transposed": True, "gct_version": version[1:]},
        "notes": notes,
    }


def _detect_gct(src: Source) -> bool:
    return is_gct(src.head(16))


#: its registration (:mod:`fsviz.data.formats.registry`): recognised by its version line
READER = Reader(
    "gct", _load_gct, "GCT 1.2/1.3 expression file", (".gct",), detect=_detect_gct, declared_size=_declared
)


# ---------------------------------------------------------------------------- CLS labels
def is_cls(head: bytes) -> bool:
    """True for the first bytes of a categorical CLS file (``<n> <k> 1`` then ``# names``)."""
    lines = head.lstrip(b"\xef\xbb\xbf").splitlines()
    if len(lines) < 2:
        return False
    first = lines[0].split()
    return len(first) == 3 and all(v.isdigit() for v in first) and lines[1].lstrip().startswith(b"#")


def read_cls(data: bytes, who: str = "load_dataset"):
    """A categorical CLS file as a table: ``position`` (1, 2, ...) and ``class`` (the class names).

    Its rows are the samples in the data's order (CLS names no samples): the loader joins them
    by position (``DataFrame.attrs["join"] == "position"``). A continuous CLS (``#numeric``) and a
    file whose counts disagree with its lines are refused with the reason.
    """
    import pandas as pd

    lines = [ln.strip() for ln in data.decode("utf-8-sig", errors="replace").splitlines() if ln.strip()]
    if lines and lines[0].lower().startswith("#numeric"):
        raise ValueError(
            f"{who}: a continuous (#numeric) CLS file; only categorical CLS labels attach. Fix: give the "
            "values as a sample-annotation table (sample id, value)."
        )
    try:
        n, k, _ = (int(v) for v in lines[0].split())
    except (IndexError, ValueError):
        raise ValueError(
            f"{who}: a CLS file begins with '<samples> <classes> 1'; got "
            f"{(lines[0] if lines else '')[:60]!r}."
        ) from None
    names = lines[1].lstrip("#").split()
    labels = lines[2].split() if len(lines) > 2 else []
    if len(labels) != n:
        raise ValueError(
            f"{who}: the CLS file declares {n} samples but lists {len(labels)} labels. Fix: check it."
        )
    distinct = list(dict.fromkeys(labels))
    if len(distinct) > k:
        raise ValueError(f"{who}: the CLS file declares {k} classes but its labels hold {len(distinct)}.")
    if all(v.isdigit() for v in labels) and len(names) == k and max(int(v) for v in labels) < k:
        labels = [names[int(v)] for v in labels]  # numeric codes into the names line
    frame = pd.DataFrame({"position": np.arange(1, n + 1), "class": labels})
    frame.attrs["join"] = "position"
    return frame


def _load_cls(src: Source, label) -> dict:
    raise ValueError(
        f"load_dataset: {src.label} is a CLS label file (a class per sample, no values). Fix: load its "
        "GCT data file and attach the CLS file as the sample annotations (sample_annotations=, "
        "--sample-annotations, or the app's 'Sample annotations' upload)."
    )


def _detect_cls(src: Source) -> bool:
    return is_cls(src.head(512))


#: CLS files are recognised (and said to be labels, not data) rather than read as a table
CLS_READER = Reader("cls", _load_cls, "CLS class-label file", (".cls",), detect=_detect_cls)
