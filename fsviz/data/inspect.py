"""A quick look at a file before loading it: format, dialect, sheets, orientation, column roles.

:func:`inspect_table` is the one call behind the app's Data page: it reads only the
first rows (and, for very wide files, fewer of them), works out how the file is
written and what each column is, exactly as :func:`~fsviz.data.load_dataset` would
with the same options, and never builds the Dataset.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from fsviz.data.plan import ImportPlan

__all__ = ["TableInfo", "inspect_table"]

#: cells read at most by a preview: very wide files get fewer rows (20,000 columns: 25 rows)
PREVIEW_CELLS = 500_000


@dataclass(frozen=True)
class TableInfo:
    """What :func:`inspect_table` found (frozen; ``frame`` is a pandas DataFrame or None).

    Attributes
    ----------
    fmt : str
        The format the file will be read as (``"csv"``, ``"tsv"``, ``"txt"``, ``"xlsx"``,
        ``"xls"``, ``"ods"``, ``"parquet"``, ``"h5ad"``, ``"mat"``, ``"npz"``, ``"svmlight"``).
    sep, decimal : str or None
        Separator and decimal mark of text tables, as detected or given (None otherwise).
        ``sep`` is ``","``, ``";"``, ``"\\t"``, ``"|"`` or ``"\\\\s+"`` (whitespace).
    sheets : list of str
        Sheet names of a workbook (empty otherwise); ``sheet`` the one read.
    frame : pandas.DataFrame or None
        The first rows of the table as it will be read (after transposing); for .h5ad the
        first rows of ``obs``; None for formats without columns (.mat, .npz, svmlight).
    n_columns : int
        Columns of ``frame`` (for .h5ad/.mat/.npz/svmlight: the number of features when known).
    n_rows : int or None
        Data rows in the file (text: counted lines, an upper bound), before transposing.
    suggest_transpose : bool
        The file looks like features as rows (see ``transpose_reason``).
    transposed : bool
        ``frame`` was transposed (``transpose=True``, or ``"auto"`` and suggested).
    roles : list of ColumnRole
        One per column of ``frame`` (see :func:`~fsviz.data.infer_column_roles`).
    target : str or None
        The target column (the given ``label``, or the suggested one).
    target_candidates : list of str
        Columns (obs columns, .mat/.npz variables) that could be the target, likely first.
    notes : list of str
        What a person should know (content sniffing, encoding, ignored columns, ...).
    complete : bool
        ``frame`` holds every row of the file.
    plan : ImportPlan
        The plan that reads the file as shown (see :func:`inspect_table`).
    annotations : pandas.DataFrame or None
        A GEO series matrix's sample annotations (``!Sample_*`` lines).
    matrices, var_columns : list of str
        .h5ad: the matrices to choose from (``X``, ``raw``, ``layers/<name>``) and the ``var``
        columns that can name the features.
    """

    fmt: str
    sep: str | None = None
    decimal: str | None = None
    sheets: list = field(default_factory=list)
    sheet: str | None = None
    frame: Any = None
    n_columns: int = 0
    n_rows: int | None = None
    suggest_transpose: bool = False
    transpose_reason: str = ""
    transposed: bool = False
    roles: list = field(default_factory=list)
    target: str | None = None
    target_candidates: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    complete: bool = False
    plan: ImportPlan | None = None
    annotations: Any = None
    matrices: list = field(default_factory=list)
    var_columns: list = field(default_factory=list)
    counts: bool = False

    # Computed once per look (cached_property writes the instance's __dict__, frozen or not): each
    # walks one role per column, 100,000 at genomics width, and the Data page asks on every rerun.
    @functools.cached_property
    def onehot_columns(self) -> int:
        """Columns one-hot encoding would add: the values of the text features, less one each."""
        return int(sum(r.n_unique for r in self.roles if r.role == "feature" and r.dtype == "text"))

    @functools.cached_property
    def missing_counts(self) -> dict:
        """Missing cells per column in the rows looked at (columns that have any)."""
        return {r.name: int(r.n_missing) for r in self.roles if r.n_missing and r.dtype != "empty"}

    @functools.cached_property
    def set_aside(self) -> dict[str, str]:
        """The inferred role of every column that is not a feature (target, identifier, ...), by name."""
        return {str(r.name): r.role for r in self.roles if r.role != "feature"}


def _candidates(frame, roles, ranked=None) -> list[str]:
    from fsviz.data.roles import suggest_targets

    target = next((r.name for r in roles if r.role == "target"), None)
    if ranked is None:
        usable = [
            j for j, r in enumerate(roles) if r.role in ("feature", "target") and "all empty" not in r.flags
        ]
        ranked = suggest_targets(frame.iloc[:, usable], max_suggestions=10) if usable and len(frame) else []
    ranked = ranked[:10]
    out = ([target] if target else []) + [c for c in ranked if c != target]
    return out


def inspect_table(
    path_or_buffer,
    *,
    fmt: str | None = None,
    sep: str = "auto",
    decimal: str = "auto",
    sheet: str | int | None = None,
    transpose: bool | str = False,
    label: str | int | None = "auto",
    id_columns: str | list[str] | None = "auto",
    ignore: list[str] | None = None,
    nrows: int = 200,
    sandbox: bool = False,
    memory_budget: int | str | None = None,
    plan: ImportPlan | None = None,
    propose: bool = True,
    parsed=None,
) -> TableInfo:
    """Look at the first rows of a file: its format, dialect, sheets, orientation and column roles,
    and the import plan that reads it (``TableInfo.plan``).

    Fast enough to call on every change of a control: at most ``nrows`` rows are read
    (fewer for very wide files: about 500,000 cells, so 25 rows of a 20,000-column
    table), and nothing is validated beyond what the roles need. The options mean what
    they mean for :func:`~fsviz.data.load_dataset`, which gives the same roles.

    The proposed plan is the given one (``plan``, or the options one by one) with what the
    file shows filled in (``propose=True``): no header line (the first line is typed like the
    rest: ``header=None``), comment or metadata lines at the top (``comment``), repeated names
    (``duplicates``: averaged for an expression matrix read transposed, else suffixed), and
    counts (non-negative whole numbers over 50+ features: ``transform="log1p_cpm"``).
    ``load_dataset(path, plan=info.plan)`` reads the file as the preview shows it.

    Parameters
    ----------
    path_or_buffer : str, Path, bytes or binary file-like
    fmt : str, optional
    sep : str, default="auto"
    decimal : {"auto", ".", ","}, default="auto"
    sheet : str or int, optional
    transpose : bool or "auto", default=False
    label : str, int, None or "auto", default="auto"
    id_columns : "auto", None or list of str, default="auto"
    ignore : list of str, optional
    nrows : int, default=200
    sandbox : bool, default=False
        Read workbooks and .h5ad files in a child process with a memory limit, as
        ``load_dataset(..., sandbox=True)`` does (for untrusted files: the app's uploads).
    memory_budget : int, str or None, default=None
        As for :func:`~fsviz.data.load_dataset`: the sizes a file declares are checked
        against it before anything is read.
    plan : ImportPlan, optional
        Every reading option as one value (instead of the options above).
    propose : bool, default=True
        Fill in what the file shows (see above); False: the plan exactly as given.
    parsed : ParsedSource, optional
        This very file already parsed (:func:`~fsviz.data.parse_source`): a Parquet file's first
        rows are taken from it instead of read again (at 100,000 columns pyarrow reads the whole
        row group for a few rows, as long as the file itself).

    Returns
    -------
    TableInfo

    Raises
    ------
    ValueError
        Empty file, bytes no reader understands (says what they are), a header the
        table cannot have (duplicated names), an unknown sheet or label column.

    Examples
    --------
    >>> info = inspect_table(b"id;g1;g2;kind\\n7;1,5;2;a\\n8;2,5;1;b\\n9;0,5;3;a\\n", fmt="csv")
    >>> info.sep, info.decimal, info.target, [r.role for r in info.roles]
    (';', ',', 'kind', ['identifier', 'feature', 'feature', 'target'])
    >>> inspect_table(b"1,2,3,x\\n2,1,3,y\\n3,3,1,x\\n1,2,2,y\\n", fmt="csv").plan.header is None
    True
    """
    from fsviz.data.budget import resolve_budget
    from fsviz.data.formats.source import Source, resolve_format, sniff_text_format

    if plan is None:
        ids = tuple(id_columns) if isinstance(id_columns, list) else id_columns
        plan = ImportPlan(
            fmt=fmt,
            sep=sep,
            decimal=decimal,
            sheet=sheet,
            transpose=transpose,
            label=label,
            id_columns=ids,
            ignore=tuple(ignore) if ignore is not None else None,
        )
    src = Source(path_or_buffer)
    src.sandbox, src.budget = bool(sandbox), resolve_budget(memory_budget)
    who = f"inspect_table: {src.label}"
    if src.size() == 0:
        raise ValueError(f"{who} is empty (0 bytes). Fix: choose a file that holds data.")
    if not isinstance(nrows, int) or isinstance(nrows, bool) or nrows < 1:
        raise ValueError(f"{who}: nrows must be a positive int; got {nrows!r}.")
    src.use_plan(plan)
    src.unwrap()  # a compressed or archived file: the file inside (recorded in the plan)
    if src.compression != "none" and (plan.compression, plan.member) != (src.compression, src.member):
        plan = plan.replace(compression=src.compression, member=src.member)
    f = resolve_format(src, plan.fmt)
    if f == "txt" and sniff_text_format(src.head(1 << 16)) == "svmlight":
        f = "svmlight"
    base_notes = list(src.notes)
    if propose and f in ("csv", "tsv", "txt"):
        plan = _propose_text(src, f, plan, who)
    try:
        info = _look(src, f, plan, nrows, list(base_notes), who, parsed)
    except ValueError as e:
        if not (propose and "duplicated" in str(e) or "repeat" in str(e)) or plan.duplicates != "error":
            raise
        policy = "mean" if "features in rows" in str(e) else "suffix"
        plan = plan.replace(duplicates=policy)
        info = _look(src, f, plan, nrows, list(base_notes), who, parsed)
    if propose:
        plan = _propose_values(info, plan)
    return dataclasses.replace(info, plan=plan)


def _propose_text(src, f: str, plan: ImportPlan, who: str) -> ImportPlan:
    """What a text file's first lines show: comment or metadata lines, a missing header."""
    from fsviz.data.dialect import sniff_dialect
    from fsviz.data.frames import decode_head, detect_header

    text, _ = decode_head(src.head(1 << 16))
    lines = [ln for ln in text.splitlines()[:200] if ln.strip()]
    if plan.comment is None and lines:
        lead = lines[0][:1]
        if lead in ("#", "!", "%") and not lines[-1].startswith(lead):
            plan = plan.replace(comment=lead)
    if plan.header == 0 and plan.skip_rows == 0:
        body = "\n".join(ln for ln in lines if not (plan.comment and ln.startswith(plan.comment)))
        sep = plan.sep if plan.sep not in ("auto",) else ("\t" if f == "tsv" else sniff_dialect(body)[0])
        sep = r"\s+" if sep in ("whitespace", " ") else sep
        has_header, _ = detect_header(body, sep, frozenset(t.lower() for t in plan.na_values))
        if not has_header:
            plan = plan.replace(header=None)
    return plan


def _propose_values(info: TableInfo, plan: ImportPlan) -> ImportPlan:
    """What the values show: counts (non-negative whole numbers over 50 or more features)."""
    import numpy as np

    frame = info.frame
    if plan.transform != "none":
        return plan
    if info.fmt == "h5ad":
        return plan.replace(transform="log1p_cpm") if info.counts and info.n_columns >= 50 else plan
    if frame is None:
        return plan
    kinds = {
        str(c): getattr(t, "kind", "O") for c, t in zip(frame.columns.tolist(), frame.dtypes, strict=True)
    }  # not frame[c]: wide
    numeric = [r.name for r in info.roles if r.role == "feature" and kinds.get(r.name, "O") in "iuf"]
    if len(numeric) < 50:
        return plan
    from fsviz.data.transforms import looks_like_counts

    block = frame[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
    return plan.replace(transform="log1p_cpm") if looks_like_counts(block) else plan


def _look(src, f: str, plan: ImportPlan, nrows: int, notes: list, who: str, parsed=None) -> TableInfo:
    """The preview of ``src`` read with ``plan`` (no proposals)."""
    src.use_plan(plan)
    label, id_columns, ignore = plan.label, src.id_columns, src.ignore
    if f not in _PREVIEWED:
        return _from_reader(src, f, label, nrows, notes)
    if f in ("mat", "npz", "svmlight"):
        return _no_columns(src, f, notes)
    if f == "h5ad":
        return _h5ad(src, label, nrows, notes, who)
    if f == "geo":
        return _geo(src, label, nrows, notes, who)
    if f == "parquet":
        if parsed is not None and parsed.fmt == "parquet" and parsed.kind == "split":
            from fsviz.data.formats.parquet import parsed_head

            frame = parsed_head(parsed.payload, nrows, PREVIEW_CELLS)
        else:
            frame = _parquet_head(src, nrows)
        raw = None
        info = {"n_rows": None, "complete": False}
    else:
        from fsviz.data.formats.delimited import text_columns_of
        from fsviz.data.frames import head_text, header_fields, read_table

        rows = nrows
        header, s = [], plan.sep
        if f in ("csv", "tsv", "txt"):
            from fsviz.data.dialect import sniff_dialect
            from fsviz.data.frames import text_view

            src = text_view(src, who)
            text, _ = head_text(src)
            s = (
                plan.sep
                if plan.sep not in ("auto", None)
                else ("\t" if f == "tsv" else sniff_dialect(text, allow_whitespace=f == "txt")[0])
            )
            s = r"\s+" if s in ("whitespace", " ") else s
            header = header_fields(text, s)
            if header and plan.transpose is False:
                rows = max(10, min(nrows, PREVIEW_CELLS // max(len(header), 1)))
        raw = read_table(
            src,
            f,
            sep=s if f in ("csv", "tsv", "txt") else plan.sep,
            decimal=plan.decimal,
            sheet=plan.sheet,
            transpose=plan.transpose,
            nrows=rows,
            text_columns=text_columns_of(header, label),
            exact=False,
            who=who,
        )
        frame = raw.frame
        notes += [n for n in src.notes if n not in notes] + raw.notes
        info = {"n_rows": raw.n_rows, "complete": raw.complete and len(frame) < rows + 1}
    from fsviz.data.roles import infer_roles_ranked

    if isinstance(label, str) and label != "auto" and label not in [str(c) for c in frame.columns]:
        raise ValueError(
            f"{who}: label column {label!r} not found; columns are "
            f"{list(map(str, frame.columns[:20]))}. Fix: choose one of them, or no target."
        )
    roles, ranked = infer_roles_ranked(frame, label, id_columns, ignore, src.types, plan.dates)
    empty = [r.name for r in roles if r.role == "ignored" and r.reason == "all empty"]
    if empty:
        notes.append(f"{len(empty)} all-empty column(s) will be ignored: {', '.join(empty[:5])}")
    target = next((r.name for r in roles if r.role == "target"), None)
    return TableInfo(
        fmt=f,
        sep=None if raw is None else raw.sep,
        decimal=None if raw is None else raw.decimal,
        sheets=[] if raw is None else list(raw.sheets),
        sheet=None if raw is None else raw.sheet,
        frame=frame,
        n_columns=int(frame.shape[1]),
        n_rows=info["n_rows"],
        suggest_transpose=False if raw is None else raw.suggest_transpose,
        transpose_reason="" if raw is None else raw.transpose_reason,
        transposed=False if raw is None else raw.transposed,
        roles=roles,
        target=target,
        target_candidates=_candidates(frame, roles, ranked),
        notes=notes,
        complete=bool(info["complete"]),
    )


def _parquet_head(src, nrows: int):
    import pyarrow.parquet as pq

    from fsviz.data.formats.parquet import check_flat
    from fsviz.data.formats.source import parse_error

    try:
        pf = pq.ParquetFile(src.handle())
        schema = pf.schema_arrow
    except Exception as e:
        raise parse_error(src, "Parquet", e, "re-export it (e.g. DataFrame.to_parquet).") from e
    check_flat(
        schema, f"inspect_table: {src.label}"
    )  # lists and structs: the loader's message, not a TypeError
    width = max(len(schema.names), 1)
    if nrows * width > PREVIEW_CELLS:  # a wide file: about PREVIEW_CELLS cells (parsed_head's rule)
        nrows = max(10, min(nrows, PREVIEW_CELLS // width))
    try:
        batch = next(pf.iter_batches(batch_size=nrows), None)
        frame = batch.to_pandas() if batch is not None else schema.empty_table().to_pandas()
    except Exception as e:
        raise parse_error(src, "Parquet", e, "re-export it (e.g. DataFrame.to_parquet).") from e
    from fsviz.data.formats.parquet import index_as_columns

    frame = index_as_columns(frame)[0]  # a pandas index: the sample ids, a column as the loader reads it
    frame.columns = [str(c) for c in frame.columns]
    return frame


def _h5ad(src, label, nrows: int, notes: list, who: str) -> TableInfo:
    from fsviz.data.formats.anndata import read_h5ad_safely

    head = read_h5ad_safely(src, who, with_matrix=False, matrix=getattr(src, "matrix", "X") or "X")
    n, m = head["shape"]
    notes.append(
        f"AnnData: {head['matrix']} is {n:,} samples x {m:,} features ({head['storage']}); "
        "obs columns are the target candidates"
    )
    matrices = ["X"] + (["raw"] if head["has_raw"] else []) + [f"layers/{k}" for k in head["layers"]]
    var = head.get("var")
    var_columns = [] if var is None else [str(c) for c in var.columns if var[c].dtype.kind in "OSU"]
    info = _annotation_info("h5ad", head["obs"], int(m), int(n), label, nrows, notes, matrices, var_columns)
    return dataclasses.replace(info, counts=bool(head.get("counts")))


#: formats previewed here column by column (or by their annotations); any other registered reader
#: is previewed from what it reads (:func:`_from_reader`)
_PREVIEWED = ("csv", "tsv", "txt", "xlsx", "xls", "ods", "parquet", "mat", "npz", "svmlight", "h5ad", "geo")


def _from_reader(src, f: str, label, nrows: int, notes: list) -> TableInfo:
    """A format read whole by its registered reader: its shape and notes, and its per-sample
    annotations (when it brings some) as the target candidates."""
    from fsviz.data.formats.registry import read_parts

    parts = read_parts(src, f, label if label != "auto" else None)
    n, m = parts["X"].shape
    notes.extend(parts.get("notes") or [])
    annotations = parts.get("annotations")
    families = (parts.get("table_meta") or {}).get("intensity_families") or []  # MaxQuant's choice
    info = _annotation_info(f, annotations, int(m), int(n), label, nrows, notes, list(families), [])
    return dataclasses.replace(info, annotations=annotations)


def _geo(src, label, nrows: int, notes: list, who: str) -> TableInfo:
    """A GEO series matrix: its sample annotations are the table to pick the target from."""
    from fsviz.data.formats.geo import read_series_matrix

    read = read_series_matrix(src, who)
    n, m = read["X"].shape
    notes.append(
        f"GEO series matrix: {m:,} probes x {n:,} samples, read with samples as rows; skipped "
        f"{read['n_metadata_lines']} metadata line(s); the !Sample_ lines (characteristics split at "
        "'key: value') are the target candidates"
    )
    info = _annotation_info("geo", read["annotations"], int(m), int(n), label, nrows, notes, [], [])
    return dataclasses.replace(info, annotations=read["annotations"])


def _annotation_info(fmt, obs, m, n, label, nrows, notes, matrices, var_columns) -> TableInfo:
    from fsviz.data.roles import infer_column_roles

    target, cands, frame = None, [], None
    if obs is not None and obs.shape[1]:
        frame = obs.iloc[:nrows].reset_index(drop=True)
        roles = infer_column_roles(obs.reset_index(drop=True), label=label)
        target = next((r.name for r in roles if r.role == "target"), None)
        cands = _candidates(obs.reset_index(drop=True), roles)
    return TableInfo(
        fmt=fmt, frame=frame, n_columns=m, n_rows=n, target=target, target_candidates=cands,
        notes=notes, complete=True, matrices=matrices, var_columns=var_columns,
    )  # fmt: skip


def _no_columns(src, f: str, notes: list) -> TableInfo:
    """.mat / .npz / svmlight: the label variables as candidates where cheap."""
    import numpy as np

    cands: list[str] = []
    n_rows, n_cols = None, 0
    try:
        if f == "npz":
            with np.load(src.handle(), allow_pickle=False) as z:
                shapes = {}
                for k in z.files:
                    if k.startswith("X_") or k == "fsviz_meta":
                        continue
                    shapes[k] = z[k].shape if k in ("X",) or z[k].size < 10_000_000 else ()
            x = shapes.get("X")
            if x is not None and len(x) == 2:
                n_rows, n_cols = int(x[0]), int(x[1])
            cands = [
                k
                for k, s in shapes.items()
                if k != "X" and len(s) in (1, 2) and (n_rows is None or s[0] == n_rows)
            ]
        elif f == "mat":
            import scipy.io as sio

            info = sio.whosmat(src.handle())
            shapes = {name: shape for name, shape, _ in info}
            xk = next((k for k in ("X", "fea", "data") if k in shapes), None)
            if xk is not None:
                n_rows, n_cols = int(shapes[xk][0]), int(shapes[xk][1])
            cands = [
                k
                for k, s in shapes.items()
                if k != xk and len(s) == 2 and 1 in s and max(s) == (n_rows or max(s))
            ]
    except Exception:  # a look-ahead only: load_dataset gives the real message
        cands = []
    from fsviz.data.formats.matlab import MAT_Y_KEYS

    cands.sort(key=lambda k: (k not in MAT_Y_KEYS, MAT_Y_KEYS.index(k) if k in MAT_Y_KEYS else 0))
    return TableInfo(
        fmt=f, frame=None, n_columns=n_cols, n_rows=n_rows, target=cands[0] if cands else None,
        target_candidates=cands, notes=notes, complete=False,
    )  # fmt: skip
