"""Column roles: which column looks like the target, and which features leak it.

:func:`suggest_targets` ranks the columns of a table that look like a class label;
:func:`leaky_features` finds features that predict the labels perfectly on their own
(a copy or recoding of the label, or an ID sorted by class), which would make every
selection and every accuracy trivially perfect.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fsviz.data.plan import DEFAULT_NA
from fsviz.data.validation import names_preview as _preview

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ROLES",
    "TARGET_WORDS",
    "ColumnRole",
    "column_stats",
    "parsed_stats",
    "role_decisions",
    "infer_column_roles",
    "suggest_targets",
]

#: name parts that suggest a target column (matched as whole words of the column name)
TARGET_WORDS = frozenset(
    {
        "label", "labels", "class", "classes", "target", "diagnosis", "outcome", "type", "y",
        "tumour", "tumor", "response", "status", "category", "subtype", "disease", "condition",
        "cancer", "phenotype", "grade", "stage", "group", "cohort", "relapse", "survival", "dx",
    }
)  # fmt: skip
#: names that are exactly one of these rank above a name merely containing a target word
_STRONG = frozenset({"label", "labels", "class", "target", "diagnosis", "outcome", "y"})
_MAX_CLASSES = 50


def _numeric_mask(frame) -> np.ndarray:
    """Numeric (not bool) columns, from the dtype kinds (no per-column pandas calls)."""
    kinds = [getattr(t, "kind", "O") for t in frame.dtypes]
    return np.array([k in "iuf" for k in kinds], dtype=bool)


def _column_names(frame) -> list[str]:
    """The column names as text (``tolist`` first: iterating an Arrow-backed index is slow)."""
    return [str(c) for c in frame.columns.tolist()]


def _containing(names: list[str], parts) -> np.ndarray:
    """Mask of ``names`` holding one of ``parts`` (lower case) anywhere, case-insensitively.

    One regex scan of the joined names: a superset of the names a per-name word test can
    accept, so that test runs on a few names instead of all of them (per-name regex work
    takes seconds at 200,000 columns)."""
    low = [nm.lower() for nm in names]  # per name: lower() may change a name's length
    starts = np.cumsum([0] + [len(t) + 1 for t in low])[:-1]
    pattern = re.compile("|".join(sorted(map(re.escape, parts), key=len, reverse=True)))
    hits = np.zeros(len(names), dtype=bool)
    found = [mt.start() for mt in pattern.finditer("\x00".join(low))]
    if found:
        hits[np.searchsorted(starts, found, side="right") - 1] = True
    return hits


def target_worded(names: list[str], words=TARGET_WORDS) -> np.ndarray:
    """Mask of names with a word (:func:`_words`) in ``words``."""
    out = np.zeros(len(names), dtype=bool)
    for j in np.flatnonzero(_containing(names, words)):
        out[j] = bool(_words(names[j]) & words)
    return out


@functools.lru_cache(maxsize=200_000)
def _words(name: str) -> frozenset[str]:
    """Lower-case words of a column name: split on non-letters and camelCase."""
    parts = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    return frozenset(w for w in re.split(r"[^A-Za-z]+", parts.lower()) if w)


def suggest_targets(frame: pd.DataFrame, max_suggestions: int = 5) -> list[str]:
    """Columns of a table that look like a class label, most likely first.

    Each column gets points: +4 when its whole name is a target word ("label", "class",
    "target", "diagnosis", "outcome", "y"), +3 when a word of its name is in
    :data:`TARGET_WORDS` (``tumour_type``, ``DiseaseStatus``), +2 when it is non-numeric
    (text, category, bool) with 2 to 50 distinct values, +1 when it is numeric with
    integer values and 2 to 20 distinct values. Columns with one value, or with a
    distinct value in every row (identifiers: text or whole numbers), are never
    suggested; a column of fractional numbers named like a target (a continuous
    target) is. Numeric columns are
    scored together (one sort of the numeric block), so wide tables stay fast.

    Parameters
    ----------
    frame : pandas.DataFrame
    max_suggestions : int, default=5

    Returns
    -------
    list of str
        Column names with a positive score, best first (ties keep the column order).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"g1": [0.1, 0.5, 0.2, 0.9], "batch": [1, 2, 1, 2],
    ...                   "tumour_type": ["a", "b", "a", "b"]})
    >>> suggest_targets(f)
    ['tumour_type', 'batch']
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"suggest_targets: 'frame' must be a pandas DataFrame; got {type(frame).__name__}.")
    n, m = frame.shape
    if m == 0 or n == 0:
        return []
    names = _column_names(frame)
    numeric = _numeric_mask(frame)
    n_unique = np.zeros(m, dtype=np.int64)
    integer = np.zeros(m, dtype=bool)
    if numeric.any():
        V = frame.iloc[:, np.flatnonzero(numeric)].to_numpy(dtype=np.float64, na_value=np.nan)
        S = np.sort(V, axis=0)  # NaN last
        finite = np.isfinite(S)
        new = np.vstack([finite[:1], (S[1:] != S[:-1]) & finite[1:]])
        n_unique[numeric] = new.sum(axis=0)
        integer[numeric] = np.all(~np.isfinite(V) | (V == np.round(V)), axis=0)
    other = np.flatnonzero(~numeric)
    if other.size:
        n_unique[other] = frame.iloc[:, other].nunique(dropna=True).to_numpy()
    return _ranked(names, numeric, n_unique, integer, n, max_suggestions)


def _ranked(names: list[str], numeric, n_unique, integer, n: int, max_suggestions: int) -> list[str]:
    """:func:`suggest_targets` of columns whose distinct counts and integer-ness are known."""
    m = len(names)
    strong = np.array([name.strip().lower() in _STRONG for name in names], dtype=bool)
    score = np.where(strong, 4.0, np.where(target_worded(names), 3.0, 0.0))
    score += np.where(~numeric & (n_unique >= 2) & (n_unique <= _MAX_CLASSES), 2.0, 0.0)
    score += np.where(numeric & integer & (n_unique >= 2) & (n_unique <= 20), 1.0, 0.0)
    # a distinct value in every row marks an identifier, except for real (fractional)
    # numbers: a continuous target such as a price has that too
    usable = (n_unique >= 2) & ((n_unique < n) | (n <= 2) | (numeric & ~integer))
    order = np.lexsort((np.arange(m), -score))
    return [names[c] for c in order if usable[c] and score[c] > 0][: int(max_suggestions)]


# ============================================================================ column roles
#: the roles a column of a table can have
ROLES = ("target", "feature", "identifier", "ignored")
#: whole column names (lower case, spaces/dots/dashes as "_") that name a row identifier
_ID_NAMES = frozenset(
    {
        "id", "ids", "index", "idx", "key", "sample", "samples", "sample_name", "samplename",
        "sampleid", "rownames", "row_names", "rowname", "row", "row_id", "rowid", "name", "names",
        "patient", "patientid", "subject", "subjectid", "barcode", "barcodes", "cell", "cell_id",
        "accession", "uuid", "obs_names", "unnamed_0", "x", "v1",
    }
)  # fmt: skip
#: names in _ID_NAMES that other tools give columns by default: ids only with id-like values
_WEAK_ID_NAMES = frozenset({"x", "v1"})
_ID_VALUE = re.compile(r"^[A-Za-z][A-Za-z_.\-]*[0-9]+$")  # V1, S01, sample_3, GSM12345
_NA_WORDS = frozenset(t.lower() for t in DEFAULT_NA)
#: a date or a date and time, as spreadsheets and databases write them: 2022-07-18, 2022/7/18,
#: 18/07/2022, 7/18/22, 18.07.2022, 2022-07-18T10:30:00, 2022-07-18 10:30
DATE_VALUE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{1,2}[-/.]\d{1,2}[-/.](\d{4}|\d{2})([ T]\d{1,2}:\d{2}(:\d{2})?)?"
)
#: text columns with more distinct values than this (or than HIGH_CARDINALITY_SHARE of the rows)
#: are never one-hot encoded by default: an identifier when unique per row, else left out
HIGH_CARDINALITY = 50
HIGH_CARDINALITY_SHARE = 0.2


@dataclass(frozen=True)
class ColumnRole:
    """The role of one column of a table, and why (one row of the app's roles table).

    Attributes
    ----------
    name : str
        Column name.
    role : {"target", "feature", "identifier", "ignored", "covariate"}
        ``identifier`` columns leave X and become ``Dataset.sample_names``;
        ``ignored`` columns are dropped; ``covariate`` columns leave X and are kept per sample
        (``Dataset.meta["sample_annotations"]``) to adjust for.
    reason : str
        Short text for the table, e.g. ``"unique per row, named like an id"``.
    dtype : str
        ``"number"``, ``"integer"``, ``"text"``, ``"bool"``, ``"date"`` or ``"empty"``.
    n_missing : int
        Missing cells (empty, NaN, NA tokens) in the rows looked at.
    n_unique : int
        Distinct non-missing values in the rows looked at.
    flags : tuple of str
        E.g. ``("constant",)``, ``("all empty",)``, ``("text",)`` (needs one-hot),
        ``("missing values",)``.
    """

    name: str
    role: str
    reason: str
    dtype: str
    n_missing: int
    n_unique: int
    flags: tuple = ()


_SEPS = re.compile(r"[\s.\-:]+")
_UNNAMED = re.compile(r"unnamed_+\d+")
#: ``id`` as a whole word (``ID``, ``sample_id``, ``ID_REF``) or a camel-case word's end
#: (``patientId``, ``sampleID``); never inside an accession or a symbol (``O4IDC3``, ``IDH1``, ``ID2``)
_ID_WORD = re.compile(r"(^|[^A-Za-z0-9])(id|ID|Id)([^A-Za-z0-9]|$)|[a-z]I[Dd]([^A-Za-z0-9]|$)")


#: every name :func:`_id_named` accepts holds one of these, or is two characters at most ("x", "v1")
_ID_PARTS = (
    "id", "index", "key", "sample", "row", "name", "patient", "subject", "barcode", "cell",
    "accession", "unnamed",
)  # fmt: skip


def id_named_mask(names: list[str]) -> np.ndarray:
    """:func:`_id_named` of every name (the word test only where it can say yes)."""
    out = np.zeros(len(names), dtype=bool)
    maybe = _containing(names, _ID_PARTS) | np.array([len(nm.strip()) <= 2 for nm in names], dtype=bool)
    for j in np.flatnonzero(maybe):
        out[j] = _id_named(names[j])
    return out


@functools.lru_cache(maxsize=200_000)
def _id_named(name: str) -> bool:
    """Named like a row identifier: ``id``, ``ID``, ``sample_id``, ``patientId``, ``rownames``, ..."""
    name = str(name)
    key = _SEPS.sub("_", name.strip().lower())
    if key in _ID_NAMES or _UNNAMED.fullmatch(key):
        return True
    return bool(_ID_WORD.search(name))


#: bytes of the numeric column blocks :func:`_column_stats` reads at a time (a few temporaries each)
_STATS_BLOCK_BYTES = 16 << 20


def _column_stats(frame: pd.DataFrame) -> dict:
    """Per-column dtype text, missing count, distinct count, integer-ness (numeric block at once)."""
    import pandas as pd

    n, m = frame.shape
    kinds = np.array([t.kind for t in frame.dtypes])
    boolean = kinds == "b"
    dates = np.isin(kinds, list("mM"))
    numeric = np.isin(kinds, list("iuf"))
    n_missing = np.zeros(m, dtype=np.int64)
    n_unique = np.zeros(m, dtype=np.int64)
    integer = np.zeros(m, dtype=bool)
    monotone_rows = np.zeros(m, dtype=bool)  # 0..n-1 or 1..n in order (a saved row index)
    increasing = np.zeros(m, dtype=bool)  # whole numbers rising row by row (sorted record ids)
    text_numeric = np.zeros(m, dtype=bool)  # text cells that are all numbers or NA tokens
    mostly_numeric = np.zeros(m, dtype=bool)  # numbers but for a few stray text cells
    text_dates = np.zeros(m, dtype=bool)  # text cells that are all dates (2022-07-18, 18/07/2022)
    id_values = np.zeros(m, dtype=bool)
    steps = np.arange(n, dtype=np.float64)[:, None]
    numeric_cols = np.flatnonzero(numeric) if n else np.zeros(0, dtype=np.int64)
    width = max(1, _STATS_BLOCK_BYTES // (8 * max(n, 1)))
    for a in range(0, len(numeric_cols), width):  # column blocks: the temporaries stay small
        cols = numeric_cols[a : a + width]
        span = slice(cols[0], cols[-1] + 1) if cols[-1] - cols[0] + 1 == len(cols) else cols
        V = frame.iloc[:, span].to_numpy(dtype=np.float64, na_value=np.nan)
        finite = np.isfinite(V)
        n_missing[cols] = np.isnan(V).sum(axis=0)
        S = np.sort(V, axis=0)
        fs = np.isfinite(S)
        new = np.vstack([fs[:1], (S[1:] != S[:-1]) & fs[1:]])
        n_unique[cols] = new.sum(axis=0)
        integer[cols] = np.all(~finite | (V == np.round(V)), axis=0)
        monotone_rows[cols] = np.all(V == steps, axis=0) | np.all(V == steps + 1, axis=0)
        increasing[cols] = integer[cols] & np.all(np.diff(V, axis=0) > 0, axis=0) if n > 1 else False
    for c in np.flatnonzero(~numeric) if n else ():  # text, bool, date columns: usually few
        s = frame.iloc[:, c]
        miss = np.array(s.isna().to_numpy(), dtype=bool)  # a writable copy
        if kinds[c] == "O" or isinstance(s.dtype, pd.CategoricalDtype) or kinds[c] in "US":
            text = s.astype(str).str.strip()
            miss |= text.eq("").to_numpy()
            na_word = text.str.lower().isin(_NA_WORDS).to_numpy() & ~miss
            if na_word.any():  # "NA", "null": missing in a column of numbers, a value among text
                rest = pd.to_numeric(text[~miss & ~na_word], errors="coerce")
                if len(rest) and not rest.isna().any():
                    miss |= na_word
            vals = text[~miss]
            n_unique[c] = vals.nunique()
            if len(vals):
                num = pd.to_numeric(vals, errors="coerce")
                stray = int(num.isna().sum())
                if not stray:
                    text_numeric[c] = True
                    integer[c] = bool((num == np.round(num)).all())
                    increasing[c] = bool(integer[c] and len(num) == n and (np.diff(num.to_numpy()) > 0).all())
                elif stray <= max(2, 0.05 * len(vals)) and len(vals) >= 10:
                    mostly_numeric[c] = True
                id_values[c] = bool(vals.str.fullmatch(_ID_VALUE).all())
                if not text_numeric[c]:
                    text_dates[c] = bool(vals.head(200).str.fullmatch(DATE_VALUE).all())
        else:
            n_unique[c] = s[~miss].nunique()
        n_missing[c] = int(miss.sum())
    dates = dates | text_dates
    dtype = np.where(
        boolean,
        "bool",
        np.where(
            dates,
            "date",
            np.where(numeric | text_numeric | mostly_numeric, np.where(integer, "integer", "number"), "text"),
        ),
    ).astype(object)
    dtype[n_missing == n] = "empty"
    return {
        "dtype": dtype,
        "n_missing": n_missing,
        "n_unique": n_unique,
        "integer": integer,
        "text": dtype == "text",
        "monotone_rows": monotone_rows,
        "id_values": id_values,
        "mostly_numeric": mostly_numeric,
        "increasing": increasing,
    }


def column_stats(frame: pd.DataFrame) -> dict:
    """The per-column facts role inference reads (dtype class, missing and distinct counts,
    integer-ness, id-likeness), computed once per parsed table and handed to
    :func:`infer_roles_ranked` as ``stats`` for every plan; the arrays are read-only.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as parsed (the same columns and rows the roles are inferred on later).

    Returns
    -------
    dict
        Column name order; one array of length ``frame.shape[1]`` per fact.
    """
    stats = _column_stats(frame)
    for v in stats.values():
        v.setflags(write=False)
    return stats


def parsed_stats(frame: pd.DataFrame) -> dict:
    """``{"shape", "stats"}``: the :func:`column_stats` of a table as parsed, kept in a parsed
    payload; a reader passes ``stats`` on only while the frame still has that shape."""
    return {"shape": frame.shape, "stats": column_stats(frame)}


def _typed_roles(names, stats, role, reason, kinds: dict, dates: str, n: int) -> None:
    """Roles from column types: text and (by default) date columns leave the features; text with
    many values is never one-hot encoded by default (an identifier when unique per row)."""
    has_id = bool((role == "identifier").any())
    for j, nm in enumerate(names):
        if role[j] != "feature":
            continue
        kind = kinds.get(nm)
        dtype = stats["dtype"][j]
        if kind == "text":
            role[j], reason[j] = "ignored", "type text: left out"
        elif kind == "date" or (kind is None and dtype == "date"):
            if dates == "ignore":
                role[j], reason[j] = "ignored", "date or time (dates: ignore; 'number' reads days)"
        elif kind is None and dtype == "text" and stats["n_missing"][j] < n:
            k = int(stats["n_unique"][j])
            if k > HIGH_CARDINALITY or (n >= 20 and k > HIGH_CARDINALITY_SHARE * n):
                if k == n and not stats["n_missing"][j] and not has_id:
                    role[j], reason[j] = "identifier", "text, unique per row"
                    has_id = True
                else:
                    role[j], reason[j] = (
                        "ignored",
                        f"text with {k} values: not one-hot encoded (type: category)",
                    )


def _pick_target(names: list[str], stats: dict, candidates: np.ndarray, frame: pd.DataFrame) -> int | None:
    """The auto target among ``candidates`` (bool mask): see :func:`infer_column_roles`."""
    from fsviz.data.formats.source import named_target

    cand = np.flatnonzero(candidates)
    if not cand.size:
        return None
    hit = named_target(names, cand.tolist())  # label, class, y, target: exact case first
    if hit is not None:
        return hit
    # the numeric columns' distinct counts and integer-ness are the parse's facts (the same
    # definitions): re-sorting 100,000 columns here took 3-4 s on every join
    sub = frame.iloc[:, cand]
    numeric = _numeric_mask(sub)
    n_unique = np.where(numeric, stats["n_unique"][cand], 0)
    integer = numeric & stats["integer"][cand]
    other = np.flatnonzero(~numeric)
    if other.size:
        n_unique[other] = sub.iloc[:, other].nunique(dropna=True).to_numpy()
    ranked = _ranked([names[c] for c in cand], numeric, n_unique, integer, len(frame), len(cand))
    stats["ranked"] = ranked
    pos = {names[c]: int(c) for c in cand}
    ranked_idx = [pos[r] for r in ranked if r in pos]
    complete = stats["n_missing"] == 0
    # "y" names a target only as the whole name: inside one ("0Y", "day_y") it is a letter
    ranked_names = [names[c] for c in ranked_idx]
    worded = target_worded(ranked_names, TARGET_WORDS - {"y"})
    named = [c for c, w in zip(ranked_idx, worded, strict=True) if w or names[c].strip().lower() in _STRONG]
    text = [c for c in ranked_idx if stats["text"][c]]
    last = int(cand[-1])
    last_text = [last] if stats["text"][last] and stats["n_unique"][last] >= 2 else []
    for pool in (named, last_text, text):  # named like a target > last text column > first text column
        for c in pool:
            if complete[c]:
                return c
    for pool in (named, last_text, text):  # a target with missing values (checked later) beats none
        if pool:
            return pool[0]
    # a headerless table's class codes: the last column, whole numbers, 2..10 values, complete
    if stats["integer"][last] and 2 <= stats["n_unique"][last] <= 10 and complete[last] and len(frame) >= 20:
        return last
    return None


def infer_column_roles(
    frame: pd.DataFrame,
    label: str | int | None = "auto",
    *,
    id_columns: str | Sequence[str] | None = "auto",
    ignore: Sequence[str] | None = None,
    types: dict | None = None,
    dates: str = "ignore",
    covariates: Sequence[str] | None = None,
) -> list[ColumnRole]:
    """The role of every column of a table, as a data scientist would set them by default.

    Rules, in order:

    1. ``label`` names the target (a name or a position); ``None``: no target.
    2. Columns in ``ignore`` are ignored; so are all-empty columns (e.g. ``Unnamed: 32``
       that a trailing comma on every line makes).
    3. ``id_columns="auto"``: a column with a distinct, non-missing value in every row
       that is text or whole numbers and is named like an id (``id``, ``ID``, ``*_id``,
       ``sample``, ``rownames``, ``Unnamed: 0``, ...), or (with at least 3 rows) is
       text in the first column, or holds id-like text (``V1``, ``S01``, ``GSM1234``),
       is an identifier.
       A list names the identifiers; ``None``: no identifiers.
    4. ``label="auto"``: a column named ``label``, ``class``, ``y`` or ``target``; else,
       among the columns :func:`suggest_targets` ranks, the first named like a target
       (``diagnosis``, ``tumour_type``), else the last column when it is text, else
       the first text column with 2 to 50 values; complete columns first (a column with
       missing values, such as a ``sex`` with gaps, is only taken when nothing else fits).
    5. Types (``types`` over the detected ones): a ``text`` column and, with
       ``dates="ignore"``, a date or time column (``2022-07-18``, ``18/07/2022 10:30``) leave
       the features; text with more than 50 distinct values (or more than 20 % of the rows)
       is never one-hot encoded by default: an identifier when unique per row and no other
       column is one, else ignored (give it the type ``category`` to encode it).
    6. Everything else is a feature; constant columns are flagged ``"constant"``, text
       columns ``"text"`` (they need one-hot encoding), columns with gaps
       ``"missing values"``.

    Vectorised over the numeric columns (one sort of the numeric block), so 20,000+
    columns take well under a second; text columns are looked at one by one.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (or its first rows) as read, columns as named in the file.
    label : str, int, None or "auto", default="auto"
    id_columns : "auto", None or sequence of str, default="auto"
    ignore : sequence of str, optional
    types : dict of str to str, optional
        A column's type over the detected one: ``number``, ``category``, ``date``, ``text``.
    dates : {"ignore", "number"}, default="ignore"
    covariates : sequence of str, optional
        Columns to adjust for (role ``"covariate"``: out of the features, never the target or
        an identifier); ValueError when one of them is also the target or an identifier.

    Returns
    -------
    list of ColumnRole
        One per column, in column order.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"id": [11, 12, 13], "g": [0.1, 0.5, 0.2], "kind": ["a", "b", "a"]})
    >>> [(r.name, r.role) for r in infer_column_roles(f)]
    [('id', 'identifier'), ('g', 'feature'), ('kind', 'target')]
    """
    return infer_roles_ranked(frame, label, id_columns, ignore, types, dates, covariates)[0]


def infer_roles_ranked(
    frame, label, id_columns, ignore, types=None, dates: str = "ignore", covariates=None, stats=None
) -> tuple[list[ColumnRole], list[str] | None]:
    """:func:`infer_column_roles` and the target ranking it computed (None when it did not).

    ``stats``: :func:`column_stats` of this very frame, computed once when the file was parsed
    (a change of target or roles then re-decides from them, never looking at the values again)."""
    d = role_decisions(frame, label, id_columns, ignore, types, dates, covariates, stats=stats)
    names, n, stats = d["names"], len(frame), d["stats"]
    role, reason, empty = d["role"], d["reason"], d["empty"]
    n_unique, n_missing = stats["n_unique"].tolist(), stats["n_missing"].tolist()
    dtypes = [str(t) for t in stats["dtype"].tolist()]
    empties = np.asarray(empty, dtype=bool)
    texts = np.asarray(stats["text"], dtype=bool)
    # the flags as a code per column (4 bits, in the order they are listed), one tuple per code:
    # records of 100,000 columns built in a loop that only zips (0.3 s of Python before)
    constant = ~empties & (np.asarray(stats["n_unique"]) <= 1) & bool(n)
    code = (
        empties * 1
        + constant * 2
        + (texts & ~empties) * 4
        + ((np.asarray(stats["n_missing"]) > 0) & ~empties) * 8
    )
    names_of = ("all empty", "constant", "text", "missing values")
    tuples = [tuple(nm for b, nm in enumerate(names_of) if c >> b & 1) for c in range(16)]
    flags = [tuples[c] for c in code.tolist()]
    # the reason a column without one gets, from its first flag: constant, text, else its type
    given = np.asarray([str(r) for r in reason.tolist()], dtype=object)
    blank = given == ""
    kind = np.asarray(dtypes, dtype=object)
    plain = np.where(np.isin(kind, ["number", "integer"]), "numbers", kind)
    first_constant = blank & (code & 1 == 0) & (code & 2 != 0)
    why = np.where(first_constant, "one value in every row", np.where(blank, plain, given))
    for j in np.flatnonzero(blank & (code & 3 == 0) & (code & 4 != 0)).tolist():  # text: few
        why[j] = f"text, {n_unique[j]} values (one-hot)"
    why = [str(w) for w in why.tolist()]
    roles_l = [str(r) for r in role.tolist()]
    out = list(map(ColumnRole, names, roles_l, why, dtypes, n_missing, n_unique, flags))
    return out, stats.get("ranked")


def role_decisions(
    frame, label, id_columns, ignore, types=None, dates: str = "ignore", covariates=None, stats=None
) -> dict:
    """The decisions of :func:`infer_roles_ranked` as arrays, without a record per column (what
    assembling needs at 100,000 columns): ``names``, ``role``, ``reason`` (object arrays),
    ``empty`` (bool) and ``stats`` (:func:`column_stats`, with ``ranked`` when computed)."""
    import pandas as pd

    who = "infer_column_roles"
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{who}: 'frame' must be a pandas DataFrame; got {type(frame).__name__}.")
    names = _column_names(frame)
    n, m = frame.shape
    lookup = {nm: j for j, nm in enumerate(names)}

    def _positions(values, what: str) -> list[int]:
        out = []
        for v in values:
            if str(v) not in lookup:
                raise ValueError(
                    f"{who}: {what} column {str(v)!r} not found; columns are {_preview(names)}. "
                    f"Fix: name one of them."
                )
            out.append(lookup[str(v)])
        return out

    if isinstance(ignore, str):
        ignore = [ignore]
    ignored = set(_positions(ignore or [], "ignored"))
    if id_columns is not None and id_columns != "auto":
        ids_given = _positions(
            [id_columns] if isinstance(id_columns, str) else list(id_columns), "identifier"
        )
    else:
        ids_given = None
    if stats is None or len(stats["dtype"]) != m:
        stats = _column_stats(frame)
    stats = dict(stats)  # the target ranking is added to this call's copy, never to a cached one
    target = None
    if label is not None and not (isinstance(label, str) and label == "auto"):
        if isinstance(label, (int, np.integer)) and not isinstance(label, bool):
            if not -m <= int(label) < m:
                raise ValueError(
                    f"{who}: label column position {label} is out of range for {m} columns {_preview(names)}."
                )
            target = int(label) % m
        else:
            target = _positions([label], "label")[0]
    empty = stats["n_missing"] == n if n else np.zeros(m, dtype=bool)
    role = np.array(["feature"] * m, dtype=object)
    reason = np.array([""] * m, dtype=object)
    for j in ignored:
        role[j], reason[j] = "ignored", "ignored by choice"
    for j in _positions([covariates] if isinstance(covariates, str) else list(covariates or []), "covariate"):
        if j == target:
            raise ValueError(
                f"{who}: column {names[j]!r} is both the target and a covariate; the target is predicted, a "
                "covariate adjusted for. Fix: take it out of the covariates, or choose another target."
            )
        if ids_given is not None and j in ids_given:
            raise ValueError(
                f"{who}: column {names[j]!r} is both an identifier and a covariate. Fix: give it one role."
            )
        role[j], reason[j] = "covariate", "chosen as covariate"
    for j in np.flatnonzero(empty):
        if role[j] == "feature" and j != target:
            role[j], reason[j] = "ignored", "all empty"
    if ids_given is not None:
        for j in ids_given:
            role[j], reason[j] = "identifier", "chosen as identifier"
    elif id_columns == "auto" and n >= 2:
        unique = (stats["n_unique"] == n) & (stats["n_missing"] == 0)
        wholes = stats["text"] | stats["integer"]
        first = np.zeros(m, dtype=bool)
        free = np.flatnonzero(role == "feature")
        if free.size:
            first[free[0]] = True
        id_named = id_named_mask(names)
        # R's default names ("X" for written row names, "V1" for a first column) name ids only
        # when the values are text, the row numbers themselves or rising record numbers: a
        # feature may be called X. Two distinct values always rise or fall, so rising says
        # something from three rows on
        weak = np.array([nm.strip().lower() in _WEAK_ID_NAMES for nm in names], dtype=bool)
        rising = stats["increasing"] & (n >= 3)
        id_named &= ~weak | stats["monotone_rows"] | stats["text"] | rising
        auto_label = isinstance(label, str) and label == "auto"
        label_named = np.array(
            [auto_label and nm.strip().lower() in ("label", "class", "y", "target") for nm in names]
        )
        why = np.where(
            id_named,
            "unique per row, named like an id",
            np.where(
                stats["text"] & first,
                "text, unique per row, first column",
                np.where(
                    stats["id_values"],
                    "unique per row, values look like ids",
                    "",
                ),
            ),
        )
        is_id = unique & wholes & (why != "") & (role == "feature") & ~label_named & (id_named | (n >= 3))
        if target is not None:
            is_id[target] = False
        for j in np.flatnonzero(is_id):
            role[j], reason[j] = "identifier", str(why[j])
    kinds = dict(types or {})
    unknown = sorted(set(kinds) - set(lookup))
    if unknown:
        raise ValueError(f"{who}: 'types' names column(s) {unknown[:5]} that the table does not have.")
    if isinstance(label, str) and label == "auto":
        pickable = (role == "feature") & ~empty & (stats["dtype"] != "date")
        pickable &= np.array([kinds.get(nm) not in ("date", "text") for nm in names], dtype=bool)
        target = _pick_target(names, stats, pickable, frame)
    if target is not None:
        role[target] = "target"
        reason[target] = (
            "chosen as target" if not (isinstance(label, str) and label == "auto") else "suggested target"
        )
    _typed_roles(names, stats, role, reason, kinds, dates, n)
    return {"names": names, "role": role, "reason": reason, "empty": empty, "stats": stats}
