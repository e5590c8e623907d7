"""Missing-value fills of a loaded matrix: :func:`load_dataset`'s ``missing="mean"``/``"median"``.

Dense matrices are filled over blocks of columns (:func:`_dense_fills`), never one column at a
time in Python; sparse ones fill their stored NaNs column by column (few such columns).
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import scipy.sparse as sp

from fsviz.data.pages import empty_plain
from fsviz.data.validation import DataWarning, names_preview


def impute_missing(X, names, strategy: str, indicator: bool, who: str, owned: bool = False, known=None):
    """Fill the NaNs of every column with the mean/median of its non-missing values.

    ``owned``: dense ``X`` is the reader's fresh array that nothing else holds, filled in place
    (at 100,000 columns a copy costs as much as the fills). ``known``: dense ``X``'s fills as
    :func:`column_fills` computed them when the file was parsed (NaN: compute), one per column.
    Sparse X: only stored NaNs are missing; implicit zeros are values. Returns
    ``(X, report)``: the report holds per-column counts and fill values (plain types,
    JSON-ready) and the 0/1 indicator columns to append (popped by _assemble).
    """
    n = X.shape[0]
    counts, fills, all_missing, indicators = {}, {}, [], []
    if sp.issparse(X):
        fmt = X.format
        X = X.tocsc(copy=True)
        X.sum_duplicates()
        col_of = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
        nan_cols = np.unique(col_of[np.isnan(X.data)])
        for j in nan_cols:
            a, b = X.indptr[j], X.indptr[j + 1]
            vals = X.data[a:b]
            miss = np.isnan(vals)
            ok = vals[np.isfinite(vals)]  # inf stays an error below, not a fill value
            n_ok = n - (b - a) + len(ok)
            if n_ok == 0:
                all_missing.append(str(names[j]))
                continue
            if strategy == "mean":
                fill = float(ok.sum() / n_ok)
            else:
                fill = float(np.median(np.concatenate([ok, np.zeros(n - (b - a))])))
            rows = X.indices[a:b][miss]
            vals[miss] = fill
            counts[str(names[j])] = int(miss.sum())
            fills[str(names[j])] = fill
            if indicator:
                indicators.append((f"{names[j]}=missing", rows.copy()))
        X = X.asformat(fmt)
    else:
        nan_cols = np.flatnonzero(np.isnan(X).any(axis=0))
        if len(nan_cols):
            if owned and type(X) is np.ndarray and X.dtype == np.float64 and X.flags.owndata:
                X.setflags(write=True)
            else:
                X = _copy(X)  # a writable copy
            counts, fills, all_missing, indicators = _dense_fills(
                X, nan_cols, names, strategy, indicator, known
            )
            X.setflags(write=False)  # read-only, as every loaded X
    if all_missing:
        raise ValueError(
            f"{who}: missing={strategy!r} cannot fill feature column(s) {names_preview(all_missing)}: "
            f"they hold no value at all (every one of the {n} rows is missing). Fix: drop them "
            "before loading."
        )
    if not counts:
        return X, None
    report = {
        "strategy": strategy,
        "indicators": indicator,
        "counts": counts,
        "fill": fills,
        "indicator_columns": indicators,
    }
    return X, report


#: id(parsed block) -> (weak reference to it, {(strategy, indicator): (names, X filled, report)})
_FILLED: dict[int, tuple] = {}


def impute_shared(X: np.ndarray, names, strategy: str, indicator: bool, who: str, known):
    """:func:`impute_missing` of a parsed float block that every assembly of one parse shares
    (read-only, its fills ``known`` from parse): the filled copy and its report are kept while the
    block lives, so another target with the same features fills nothing again (at 100,000
    columns the copy alone took 0.2-1.7 s on this VM's fresh pages). Datasets share that X."""
    entry = _FILLED.get(id(X))
    if entry is None or entry[0]() is not X:
        entry = (weakref.ref(X), {})
        _FILLED[id(X)] = entry
        weakref.finalize(X, _FILLED.pop, id(X), None)
    memo = entry[1]
    names_arr = np.asarray(names, dtype=object)
    got = memo.get((strategy, indicator))
    if got is None or not np.array_equal(got[0], names_arr):
        got = (names_arr, *impute_missing(X, names, strategy, indicator, who, owned=False, known=known))
        memo[(strategy, indicator)] = got
    _, filled, report = got
    if report is None:
        return filled, None
    # the caller edits the report's top level only: the per-column dicts (95,000 entries each
    # at 100,000 columns, ~10 MB) are shared by the datasets of one parse, never copied
    return filled, {**report, "indicator_columns": list(report["indicator_columns"])}


#: bytes of the column blocks :func:`_dense_fills` works on (a few copies of one block at a time)
_FILL_BLOCK_BYTES = 16 << 20


def column_fills(X: np.ndarray, strategy: str) -> np.ndarray:
    """The fill of every column of dense ``X`` that :func:`impute_missing` would use, bit for bit
    (NaN for a column without NaNs or without a finite value): computed once at parse, so a new
    target or roles need not recompute 100,000 medians. Read-only.

    Parameters
    ----------
    X : numpy.ndarray
        The parsed float block (rows as assembling keeps them).
    strategy : {"mean", "median"}

    Returns
    -------
    numpy.ndarray
        One float64 per column.
    """
    out = np.full(X.shape[1], np.nan)
    nan_cols = np.flatnonzero(np.isnan(X).any(axis=0))
    width = max(1, _FILL_BLOCK_BYTES // (8 * max(X.shape[0], 1)))
    for a in range(0, len(nan_cols), width):
        cols = nan_cols[a : a + width]
        B = np.ascontiguousarray(X[:, cols].T)
        finite = np.isfinite(B)
        k = finite.sum(axis=1)
        out[cols] = _fills(B, finite, k, strategy, np.full(len(cols), np.nan))
    out.setflags(write=False)
    return out


def _fills(B: np.ndarray, finite: np.ndarray, k: np.ndarray, strategy: str, fill: np.ndarray) -> np.ndarray:
    """``fill`` with its NaNs (rows of ``B`` with finite values) set to their row's mean/median:
    the rows with the same number ``k`` of finite values reduced together (one C-ordered
    ``(rows, k)`` array: numpy's pairwise sum and selection, as on a single column)."""
    todo = np.isnan(fill) & (k > 0)
    for kk in np.unique(k[todo]):
        rows = np.flatnonzero((k == kk) & todo)
        ok = B[rows][finite[rows]].reshape(len(rows), int(kk))
        fill[rows] = ok.mean(axis=1) if strategy == "mean" else np.median(ok, axis=1)
    return fill


def _dense_fills(X: np.ndarray, nan_cols: np.ndarray, names, strategy: str, indicator: bool, known=None):
    """Fill the NaNs of ``X``'s columns ``nan_cols`` in place, a block of columns at a time.

    The fill of a column is the mean/median of its finite values, bit for bit what
    ``col[np.isfinite(col)].mean()`` (or ``np.median``) gives: the columns of a block with the
    same number ``k`` of finite values are gathered into one C-ordered ``(columns, k)`` array and
    reduced along its rows, which numpy does row by row with the same pairwise sum and the same
    selection as on a single column (a Python loop runs over the distinct ``k``, never over
    columns). ``known``: fills already computed (:func:`column_fills`; NaN: compute). Returns
    ``(counts, fills, all_missing, indicators)`` as :func:`impute_missing` reports them.
    """
    n = X.shape[0]
    width = max(1, _FILL_BLOCK_BYTES // (8 * max(n, 1)))
    counts, fills, all_missing, indicators = {}, {}, [], []
    for a in range(0, len(nan_cols), width):
        cols = nan_cols[a : a + width]
        B = np.ascontiguousarray(X[:, cols].T)  # one row per column
        miss = np.isnan(B)
        finite = np.isfinite(B)  # inf stays an error later, not a fill value
        k = finite.sum(axis=1)
        fill = np.full(len(cols), np.nan) if known is None else np.array(known[cols], dtype=np.float64)
        fill = _fills(B, finite, k, strategy, fill)
        empty = k == 0
        all_missing.extend(str(names[j]) for j in cols[empty])
        np.copyto(B, fill[:, None], where=miss)
        X[:, cols] = B.T
        kept = ~empty
        col_names = [str(names[j]) for j in cols[kept]]
        counts.update(zip(col_names, miss[kept].sum(axis=1).tolist(), strict=True))
        fills.update(zip(col_names, fill[kept].tolist(), strict=True))
        if indicator:
            which, rows = np.nonzero(miss[kept])
            per_col = np.split(rows, np.flatnonzero(np.diff(which)) + 1) if len(rows) else []
            indicators.extend((f"{names[j]}=missing", r) for j, r in zip(cols[kept], per_col, strict=True))
    return counts, fills, all_missing, indicators


def append_indicators(X, names, cols: list):
    """Append one 0/1 column per ``(name, missing rows)`` in ``cols``, after all features."""
    n = X.shape[0]
    new_names = [nm for nm, _ in cols]
    names = np.concatenate([np.asarray(names, dtype=object), np.array(new_names, dtype=object)])
    if sp.issparse(X):
        rows = np.concatenate([r for _, r in cols])
        cidx = np.repeat(np.arange(len(cols)), [len(r) for _, r in cols])
        ind = sp.csc_matrix((np.ones(len(rows)), (rows, cidx)), shape=(n, len(cols)))
        return sp.hstack([X, ind], format=X.format), names
    ind = np.zeros((n, len(cols)))
    if cols:
        rows = np.concatenate([r for _, r in cols])
        ind[rows, np.repeat(np.arange(len(cols)), [len(r) for _, r in cols])] = 1.0
    return np.hstack([X, ind]), names


def warn_missing(report: dict, who: str, dropped_shape, stacklevel: int = 4) -> None:
    """One DataWarning that says what was imputed and encoded (details in meta["missing"])."""
    said = []
    counts = report.get("counts") or {}
    if counts:
        cols = list(counts)
        how = "column mean" if report["strategy"] == "mean" else "column median"
        said.append(
            f"filled {sum(counts.values())} missing value(s) in {len(cols)} feature column(s) "
            f"{names_preview(cols)} with the {how}"
        )
    if report.get("indicator_names"):
        said.append(f"added indicator column(s) {names_preview(report['indicator_names'])}")
    cat = report.get("categorical_counts") or {}
    if cat:
        how = "its own '<column>=missing' column"
        said.append(
            f"encoded {sum(cat.values())} missing categor(y/ies) in {names_preview(list(cat))} as {how}"
        )
    if dropped_shape is not None:
        said.append(f"dropped the inferred image shape {dropped_shape[0]}x{dropped_shape[1]}")
    warnings.warn(
        f"{who}: {'; '.join(said)}. Per-column counts and fill values are in Dataset.meta['missing'].",
        DataWarning,
        stacklevel=stacklevel,
    )


def _copy(X) -> np.ndarray:
    """A writable float64 copy of dense ``X`` in its own layout (``np.array``'s), C-ordered ones in
    plain pages (:mod:`fsviz.data.pages`)."""
    if not (isinstance(X, np.ndarray) and X.flags.c_contiguous and X.ndim == 2):
        return np.array(X, dtype=np.float64)
    out = empty_plain(X.shape)
    out[...] = X
    return out
