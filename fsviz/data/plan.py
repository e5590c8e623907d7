"""The import plan: every decision about reading a file, as one frozen, serialisable value.

Reading a table is a chain of decisions (format, encoding, separator, decimal mark, where the
header is, which lines to skip, which cells are missing, which way round the matrix is, what to
do with repeated names, what each column is, which one is the target, which sample annotations
to join, how to transform counts). :class:`ImportPlan` holds all of them. It is exactly the
keyword options of :func:`~fsviz.data.load_dataset` as one value:
``load_dataset(path, plan=plan)`` reads the file as ``load_dataset(path, **plan.options())``
does, and :func:`~fsviz.data.inspect_table` proposes one (``TableInfo.plan``), which the app's
Data page shows whole and edits. The session file, the link, the provenance JSON and the
report's reproduce lines carry the plan verbatim (:meth:`ImportPlan.to_dict`), so reading the
file again through any of them gives the same fingerprint by construction.

Examples
--------
>>> from fsviz.data.plan import ImportPlan
>>> plan = ImportPlan(sep=";", header=None, na_values=("", "?"), label="class")
>>> ImportPlan.from_dict(plan.to_dict()) == plan
True
>>> plan.to_dict()
{'sep': ';', 'header': None, 'na_values': ['', '?'], 'label': 'class'}
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["ASSEMBLE_FIELDS", "DEFAULT_NA", "ImportPlan", "PARSE_FIELDS", "PLAN_CHOICES"]

#: cells read as missing by default: empty, the NA spellings of R, pandas, Excel and SQL, and
#: the UCI repository's "?" (never a category, never a number)
DEFAULT_NA = ("", "NA", "N/A", "n/a", "NaN", "nan", "-nan", "null", "NULL", "None", "#N/A", "?")

#: the values each option with a fixed set of choices takes (others: see ImportPlan's fields)
PLAN_CHOICES: dict[str, tuple] = {
    "missing": ("error", "mean", "median"),
    "categorical": ("error", "onehot"),
    "missing_target": ("error", "drop"),
    "target_kind": ("auto", "classes", "continuous"),
    "transpose": (False, True, "auto"),
    "decimal": ("auto", ".", ","),
    "image_order": ("auto", "C", "F"),
    "duplicates": ("error", "suffix", "mean"),
    "dates": ("ignore", "number"),
    "transform": ("none", "log1p", "log1p_cpm", "zscore", "log2"),
    "encoding": ("auto", "utf-8", "cp1252", "latin-1"),
    "compression": (
        "auto",
        "none",
        "gzip",
        "bz2",
        "xz",
        "zst",
        "zip",
        "tar",
        "tar.gz",
        "tar.bz2",
        "tar.xz",
        "tar.zst",
    ),
}
#: the fields that change what is parsed (:func:`fsviz.data.parse_source`): how the bytes are
#: unwrapped, decoded, split into cells and turned around, which sheet, matrix or intensity family
#: is read, and how repeated names and the feature names of a ``var`` table are read
PARSE_FIELDS = (
    "fmt",
    "encoding",
    "sep",
    "decimal",
    "header",
    "skip_rows",
    "comment",
    "na_values",
    "sheet",
    "transpose",
    "duplicates",
    "matrix",
    "var_names",
    "compression",
    "member",
    "intensity",
)
#: the fields :func:`fsviz.data.assemble` applies to parsed parts (a change needs no re-parse):
#: the target and the columns' roles and types, missing values, the annotation joins, the transform
ASSEMBLE_FIELDS = (
    "label",
    "id_columns",
    "ignore",
    "covariates",
    "types",
    "dates",
    "missing",
    "missing_indicators",
    "categorical",
    "missing_target",
    "target_kind",
    "min_class_size",
    "sample_annotations",
    "annotation_key",
    "transform",
    "image_order",
    "feature_annotations",
    "feature_key",
    "feature_display",
)
#: the types a column can be given (``types``)
COLUMN_TYPES = ("number", "category", "date", "text")
#: the roles a column can be given (``roles``)
COLUMN_ROLES = ("target", "feature", "identifier", "ignored", "covariate")


@dataclass(frozen=True)
class ImportPlan:
    """How to read one file: the keyword options of :func:`~fsviz.data.load_dataset` as one value.

    Every field means what the option of the same name means for ``load_dataset`` (see its
    docstring); the defaults are its defaults. Mappings are stored as sorted tuples of pairs
    and lists as tuples, so a plan is hashable and two equal plans compare equal.

    Attributes
    ----------
    fmt : str or None
        The format (None: from the content and the name).
    encoding : {"auto", "utf-8", "cp1252", "latin-1"}
    sep, decimal : str
        Separator and decimal mark of text tables ("auto": sniffed).
    header : int or None
        The line (0-based, after ``skip_rows``) that holds the column names; None: there is
        none, and the columns are named ``V1``, ``V2``, ... (R's convention).
    skip_rows : int
        Lines skipped at the start, before the header (metadata lines).
    comment : str or None
        Lines that begin with this text are skipped wherever they are (``"#"``, ``"!"``).
    na_values : tuple of str
        Cells read as missing (:data:`DEFAULT_NA`); never a category, never a number.
    sheet : str, int or None
    transpose : bool or "auto"
        True: features are rows (an expression matrix).
    duplicates : {"error", "suffix", "mean"}
        Repeated feature names: refuse, make unique (``TP53``, ``TP53.1``), or average the
        repeated rows of an expression matrix into one feature (probes of one gene).
    label : str, int, None or "auto"
        The target: a column (or an annotation column), a position, none, or found.
    id_columns : "auto", None or tuple of str
    ignore : tuple of str or None
    covariates : tuple of str or None
        Columns to adjust for (a batch, an age): columns of the data table (taken out of the
        features, kept per sample in ``Dataset.meta["sample_annotations"]``) or of the sample
        annotations; their names are ``Dataset.meta["covariates"]``.
    types : tuple of (str, str) pairs or None
        A column's type, over the detected one: ``number``, ``category`` (one-hot encoded),
        ``date`` or ``text`` (left out of the features).
    dates : {"ignore", "number"}
        Date and time columns: left out with a note (default), or read as numbers (days
        since 1970-01-01).
    missing, missing_indicators, categorical, missing_target, target_kind
        As in ``load_dataset``.
    min_class_size : int
        Classes with fewer samples are left out (0: keep all).
    sample_annotations : str or None
        A second table (CSV, TSV, Excel) with one row per sample, joined on the sample names.
    annotation_key : str or None
        Its column holding the sample names (None: the column that matches them best).
    transform : {"none", "log1p", "log1p_cpm", "zscore", "log2"}
        Applied to the values after reading: ``log1p(x)``, ``log1p`` of counts per million
        (each sample scaled to 10^6 counts), each feature standardised, or ``log2(x)``
        (proteomics intensities, positive).
    matrix : str
        .h5ad: ``"X"``, ``"raw"`` or ``"layers/<name>"``.
    var_names : str or None
        .h5ad: the ``var`` column that names the features (None: the index).
    image_order : {"auto", "C", "F"}
    compression : str
        What wraps the data: ``"auto"`` (found from the content: a gzip, bzip2, xz or zstd stream,
        a zip or tar archive; recorded here once found), ``"none"`` (the bytes as they are), or
        what the file must be (``"gzip"``, ``"zip"``, ``"tar.gz"``, ...; see
        :mod:`fsviz.data.formats.archives`).
    member : str or None
        The archive member read (None: the archive's one data file, or its multi-file layout).
    intensity : str or None
        MaxQuant ``proteinGroups.txt``: the intensity family read as the values (``"LFQ intensity"``,
        ``"iBAQ"``, ``"Intensity"``, ``"Reporter intensity corrected"``); None: LFQ when present.
    feature_annotations : str or None
        A second table keyed by feature name (a GEO platform annotation, a ``var`` table) that
        gives each feature a display name (:mod:`fsviz.data.feature_info`).
    feature_key : str or None
        Its column holding the feature names (None: the identifier column that matches most).
    feature_display : str or None
        Its column of display names (None: found by name, ``Gene Symbol``, ``symbol``, ...).
    """

    fmt: str | None = None
    encoding: str = "auto"
    sep: str = "auto"
    decimal: str = "auto"
    header: int | None = 0
    skip_rows: int = 0
    comment: str | None = None
    na_values: tuple = DEFAULT_NA
    sheet: str | int | None = None
    transpose: bool | str = False
    duplicates: str = "error"
    label: str | int | None = "auto"
    id_columns: str | tuple | None = "auto"
    ignore: tuple | None = None
    covariates: tuple | None = None
    types: tuple | None = None
    dates: str = "ignore"
    missing: str = "error"
    missing_indicators: bool = False
    categorical: str = "error"
    missing_target: str = "error"
    target_kind: str = "auto"
    min_class_size: int = 0
    sample_annotations: str | None = None
    annotation_key: str | None = None
    transform: str = "none"
    matrix: str = "X"
    var_names: str | None = None
    image_order: str = "auto"
    compression: str = "auto"
    member: str | None = None
    intensity: str | None = None
    feature_annotations: str | None = None
    feature_key: str | None = None
    feature_display: str | None = None

    def __post_init__(self) -> None:
        for f in fields(self):  # before anything reads a value: its nesting and size
            _check_shape(f.name, getattr(self, f.name))
        for f in fields(self):
            value = getattr(self, f.name)
            object.__setattr__(self, f.name, _canonical(f.name, value))
        _check(self)

    # ------------------------------------------------------------------ forms
    def options(self) -> dict[str, Any]:
        """The keyword options of :func:`~fsviz.data.load_dataset` (every field)."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "types" and v is not None:
                v = dict(v)
            elif isinstance(v, tuple) and f.name != "na_values":
                v = list(v)
            out[f.name] = v
        return out

    def to_dict(self, *, every: bool = False) -> dict[str, Any]:
        """JSON-ready: the fields that differ from the defaults (``every=True``: all of them)."""
        default = ImportPlan()
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if not every and v == getattr(default, f.name):
                continue
            out[f.name] = _jsonable(v)
        return out

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON (what ``fsviz ... --plan`` and links carry)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Any, what: str = "import plan") -> ImportPlan:
        """The plan of :meth:`to_dict`'s form; ValueError naming an unknown option or a bad value."""
        if not isinstance(data, dict):
            raise ValueError(f"{what}: must be a JSON object of options; got {type(data).__name__}.")
        if len(data) > len(fields(cls)) + 64:
            raise ValueError(f"{what}: {len(data):,} options; a plan has {len(fields(cls))}.")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k)[:40] for k in data if k not in known)
        if unknown:
            raise ValueError(f"{what}: unknown option(s) {unknown[:5]}; the options are {sorted(known)}.")
        try:
            return cls(**data)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{what}: {e}") from None

    @classmethod
    def from_json(cls, text: str | bytes, what: str = "import plan") -> ImportPlan:
        """The plan of :meth:`to_json`'s text; ValueError for anything else (never RecursionError)."""
        if len(text) > MAX_PLAN_BYTES:
            raise ValueError(
                f"{what}: {len(text):,} bytes; a plan is a few hundred (at most {MAX_PLAN_BYTES:,}). Fix: "
                "write the plan again (ImportPlan.to_json, the app's 'The import plan as JSON')."
            )
        try:
            data = json.loads(text)
        except RecursionError:
            raise ValueError(
                f"{what}: nested deeper than {MAX_PLAN_DEPTH} levels; a plan's values are texts, lists "
                "and one mapping (types)."
            ) from None
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"{what}: not JSON ({str(e)[:200]}).") from None
        return cls.from_dict(data, what)

    def parse_key(self) -> str:
        """Canonical JSON of the fields that change what is parsed (:data:`PARSE_FIELDS`): two plans
        with the same key read a file to the same parsed parts, and differ only in what
        :func:`fsviz.data.assemble` does (:data:`ASSEMBLE_FIELDS`: target, roles, covariates,
        annotation joins, missing values, target kind, transform)."""
        parse = {name: _jsonable(getattr(self, name)) for name in PARSE_FIELDS}
        return json.dumps(parse, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def replace(self, **changes: Any) -> ImportPlan:
        """The same plan with some options changed."""
        return dataclasses.replace(self, **changes)

    def python(self, path: str) -> str:
        """The ``load_dataset`` call that reads ``path`` with this plan (for reproduce lines)."""
        args = [repr(path)] + [f"{k}={_py(v)}" for k, v in self.to_dict().items()]
        return f"load_dataset({', '.join(args)})"


#: a plan's values nest at most this deep (``types`` as a list of [column, type] pairs is 2)
MAX_PLAN_DEPTH = 2
#: a plan's JSON text is at most this long
MAX_PLAN_BYTES = 1 << 20
#: at most this many entries in a list or mapping (column names of a very wide table)
MAX_PLAN_ITEMS = 1_000_000
#: a text value (a column name, a path, a marker) is at most this long
MAX_PLAN_TEXT = 4096


def _check_shape(name: str, v: Any) -> None:
    """A value's nesting, entry count and text lengths within the limits, checked without recursion
    (a deeply nested value never reaches ``repr`` or ``str``)."""
    stack, items = [(v, 0)], 0
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, tuple, dict)):
            if depth >= MAX_PLAN_DEPTH:
                raise ValueError(
                    f"'{name}' is nested deeper than {MAX_PLAN_DEPTH} levels; a plan's values are texts, "
                    "numbers, lists of texts and one mapping (types)."
                )
            items += len(node)
            if items > MAX_PLAN_ITEMS:
                raise ValueError(f"'{name}' holds more than {MAX_PLAN_ITEMS:,} entries.")
            children = list(node.items()) if isinstance(node, dict) else node
            for child in children:
                if isinstance(node, dict):
                    stack.append((child[0], depth + 1))
                    stack.append((child[1], depth + 1))
                else:
                    stack.append((child, depth + 1))
        elif isinstance(node, str) and len(node) > MAX_PLAN_TEXT:
            raise ValueError(
                f"'{name}' holds a text of {len(node):,} characters (at most {MAX_PLAN_TEXT:,})."
            )
        elif not (node is None or isinstance(node, (str, int, float))):
            raise ValueError(
                f"'{name}' holds a {type(node).__name__}; a plan holds texts, numbers and lists."
            )


def _jsonable(v: Any) -> Any:
    if isinstance(v, tuple):
        if v and all(isinstance(p, tuple) and len(p) == 2 for p in v):
            return {str(a): _jsonable(b) for a, b in v}
        return [_jsonable(x) for x in v]
    return v


def _py(v: Any) -> str:
    if isinstance(v, tuple) and v and all(isinstance(p, tuple) and len(p) == 2 for p in v):
        return repr({a: b for a, b in v})
    if isinstance(v, tuple):
        return repr(list(v))
    return repr(v)


def _canonical(name: str, v: Any) -> Any:
    """Lists as tuples, mappings as sorted pairs, so equal plans are equal and hashable."""
    if name == "types" and v is not None and not isinstance(v, (dict, list, tuple)):
        raise ValueError(f"'types' must map column names to types; got {v!r:.80}.")
    if name == "types" and isinstance(v, dict):
        return tuple(sorted((str(a), str(b)) for a, b in v.items())) or None
    if name == "types" and isinstance(v, (list, tuple)) and v and not isinstance(v[0], (list, tuple)):
        raise ValueError(f"'types' must map column names to types; got {v!r:.80}.")
    if name == "types" and isinstance(v, (list, tuple)):
        return tuple(sorted((str(a), str(b)) for a, b in v)) or None
    if name == "covariates" and isinstance(v, str):
        v = (v,)
    if name == "covariates" and isinstance(v, (list, tuple)) and not v:
        return None
    if name in ("na_values", "ignore", "id_columns", "covariates") and isinstance(v, (list, tuple)):
        odd = [x for x in v if isinstance(x, (list, tuple, dict, bool)) or x is None]
        if odd:
            raise ValueError(f"'{name}' must be a list of texts; it holds {type(odd[0]).__name__} values.")
        return tuple(str(x) for x in v)
    if name == "decimal" and v is None:
        return "auto"
    if name == "sep" and v is None:
        return "auto"
    return v


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check(plan: ImportPlan) -> None:
    """Every option of the right type and among its choices (ValueError naming it)."""
    for name, choices in PLAN_CHOICES.items():
        v = getattr(plan, name)
        ok = any(v == c and type(v) is type(c) for c in choices)
        if not ok:
            allowed = ", ".join(map(repr, choices[:-1])) + f" or {choices[-1]!r}"
            raise ValueError(f"{name} must be {allowed}; got {v!r:.60}.")
    if plan.fmt is not None and not isinstance(plan.fmt, str):
        raise ValueError(f"'fmt' must be a format name or None; got {plan.fmt!r:.40}.")
    if not isinstance(plan.sep, str) or (
        plan.sep not in ("auto", "whitespace", r"\s+") and len(plan.sep) != 1
    ):
        raise ValueError(f"'sep' must be 'auto', 'whitespace' or one character; got {plan.sep!r:.40}.")
    if plan.header is not None and not (_is_int(plan.header) and 0 <= plan.header <= 1000):
        raise ValueError(f"'header' must be a line number in [0, 1000] or None; got {plan.header!r:.40}.")
    if not (_is_int(plan.skip_rows) and 0 <= plan.skip_rows <= 100_000):
        raise ValueError(f"'skip_rows' must be an int in [0, 100000]; got {plan.skip_rows!r:.40}.")
    if plan.comment is not None and not (isinstance(plan.comment, str) and 1 <= len(plan.comment) <= 8):
        raise ValueError(f"'comment' must be a short text such as '#' or None; got {plan.comment!r:.40}.")
    if not isinstance(plan.na_values, tuple) or len(plan.na_values) > 200:
        raise ValueError("'na_values' must be a list of at most 200 texts.")
    if plan.sheet is not None and not (
        isinstance(plan.sheet, str) or (_is_int(plan.sheet) and plan.sheet >= 0)
    ):
        raise ValueError(f"'sheet' must be a name, a position (0, 1, ...) or None; got {plan.sheet!r:.40}.")
    if plan.label is not None and not (isinstance(plan.label, str) or _is_int(plan.label)):
        raise ValueError(
            f"'label' must be a column name, a position, 'auto' or None; got {plan.label!r:.40}."
        )
    if _is_int(plan.label) and not 0 <= plan.label <= 10_000_000:
        raise ValueError(
            f"'label' position must be a column number counted from 0 (the first column); got {plan.label}. "
            "Fix: give the column's name, or its position from the left."
        )
    if plan.fmt is not None and len(plan.fmt) > 20:
        raise ValueError(f"'fmt' must be a format name such as 'csv'; got {plan.fmt!r:.40}.")
    if plan.id_columns not in ("auto", None) and not isinstance(plan.id_columns, tuple):
        raise ValueError(
            f"'id_columns' must be 'auto', None or a list of names; got {plan.id_columns!r:.40}."
        )
    if plan.ignore is not None and not isinstance(plan.ignore, tuple):
        raise ValueError(f"'ignore' must be a list of column names or None; got {plan.ignore!r:.40}.")
    if plan.covariates is not None and not isinstance(plan.covariates, tuple):
        raise ValueError(f"'covariates' must be a list of column names or None; got {plan.covariates!r:.40}.")
    if plan.covariates and isinstance(plan.label, str) and plan.label in plan.covariates:
        raise ValueError(
            f"column {plan.label!r} is both the target and a covariate; the target is predicted, a covariate "
            "adjusted for. Fix: take it out of the covariates, or choose another target."
        )
    for col, kind in plan.types or ():
        if kind not in COLUMN_TYPES:
            raise ValueError(
                f"'types': column {col!r:.40} has type {kind!r:.20}; types are {list(COLUMN_TYPES)}."
            )
    if not isinstance(plan.missing_indicators, bool):
        raise ValueError(f"'missing_indicators' must be true or false; got {plan.missing_indicators!r:.40}.")
    if not (_is_int(plan.min_class_size) and 0 <= plan.min_class_size <= 1_000_000):
        raise ValueError(f"'min_class_size' must be an int >= 0; got {plan.min_class_size!r:.40}.")
    for name in (
        "sample_annotations",
        "annotation_key",
        "var_names",
        "member",
        "intensity",
        "feature_annotations",
        "feature_key",
        "feature_display",
    ):
        v = getattr(plan, name)
        if v is not None and not isinstance(v, str):
            raise ValueError(f"'{name}' must be a text or None; got {v!r:.40}.")
    if not isinstance(plan.matrix, str) or not (
        plan.matrix in ("X", "raw") or plan.matrix.startswith("layers/")
    ):
        raise ValueError(f"'matrix' must be 'X', 'raw' or 'layers/<name>'; got {plan.matrix!r:.40}.")
