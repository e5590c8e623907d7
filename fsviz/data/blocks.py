"""A parsed table's float columns as one C-ordered block that a Dataset's ``X`` can be, uncopied.

:func:`share_floats` (at parse) copies a frame's float64 columns once into a C-ordered float64
block and rebuilds the frame over it: its float columns are views into the block (pandas'
copy-on-write keeps the block as it is whatever is done to a frame made from it). When the
features a plan keeps are exactly those columns, :func:`shared_features` hands the block itself
to the Dataset (read-only; nothing copied); when roles only remove some of them, one copy of the
rest, C-ordered, equal to what ``frame.to_numpy()`` gives.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "Carried",
    "block_frame",
    "c_order",
    "carried",
    "drop_columns",
    "remember_fills",
    "share_floats",
    "shared_features",
    "shared_fills",
    "take_rows",
]

_KEY = "float_block"

#: dropped columns up to which the kept ones are copied as contiguous runs (else one ``take``)
_RUNS = 64


class Carried:
    """A value a DataFrame carries in ``attrs`` without being copied: pandas deep-copies ``attrs``
    on every column access, which made a 4,000-name dict cost 20 ms per column (minutes a file)."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __deepcopy__(self, memo) -> Carried:
        return self


def carried(frame, key: str, default=None):
    """``frame.attrs[key]``'s value (see :class:`Carried`), or ``default``."""
    got = frame.attrs.get(key)
    return default if got is None else got.value if isinstance(got, Carried) else got


def c_order(X: np.ndarray, tile: int = 1024) -> np.ndarray:
    """``X`` as a C-ordered array, copied a band of ``tile`` columns at a time when it is not one.

    A frame's float block is the transpose of its matrix; ``np.ascontiguousarray`` walks it with
    a stride of a whole column per element, several times slower at 100,000 columns than copying
    bands that stay in cache.
    """
    if X.flags.c_contiguous or X.ndim != 2:
        return np.ascontiguousarray(X)
    out = np.empty(X.shape, dtype=X.dtype)
    for a in range(0, X.shape[1], tile):
        out[:, a : a + tile] = X[:, a : a + tile]
    return out


def share_floats(frame):
    """``frame`` with its float64 columns views into one C-ordered, read-only block (kept in
    ``frame.attrs``); the same frame when it has fewer than two of them."""
    floats = [j for j, t in enumerate(frame.dtypes) if t == np.float64]
    if len(floats) < 2:
        return frame
    block = c_order(frame.iloc[:, floats].to_numpy(dtype=np.float64))
    kept = set(floats)
    rest = (j for j in range(frame.shape[1]) if j not in kept)
    others = [(j, frame.columns[j], frame.iloc[:, j].to_numpy()) for j in rest]
    return block_frame(block, frame.columns[floats].tolist(), others, frame.attrs)


def block_frame(block: np.ndarray, names: list, others=(), attrs=None):
    """A frame whose columns ``names`` are views into ``block`` (C-ordered float64, made
    read-only here) with ``others`` (``(position, name, values)``, few, in position order)
    inserted, carrying the block as :func:`share_floats` does."""
    import pandas as pd

    block.setflags(write=False)
    # plain object names: iterating a str-dtype (Arrow-backed) index of 100,000 names costs ~0.1 s a pass
    out = pd.DataFrame(block, columns=pd.Index(names, dtype=object), copy=False)
    for j, name, values in others:  # the other columns: few
        out.insert(j, name, values, allow_duplicates=True)
    out.attrs = dict(attrs or {})
    out.attrs[_KEY] = Carried(
        {"block": block, "columns": [str(c) for c in names], "owned": False, "fills": None}
    )
    return out


def remember_fills(frame, strategy: str) -> None:
    """At parse: the missing-value fills of ``frame``'s float block under ``strategy``
    (:func:`~fsviz.data.impute.column_fills`), kept with the block, so that every assemble
    with that strategy fills without recomputing them; nothing for another strategy."""
    info = carried(frame, _KEY)
    if info is None or strategy not in ("mean", "median"):
        return
    from fsviz.data.impute import column_fills

    info["fills"] = (strategy, column_fills(info["block"], strategy))


def _intact(frame) -> tuple[dict, np.ndarray] | None:
    """``(info, is_float)`` when ``frame``'s float64 columns are exactly its block's (names,
    order, rows) on a 0..n-1 index; None otherwise (then pandas does the work)."""
    import pandas as pd

    info = carried(frame, _KEY)
    if info is None or len(frame) != info["block"].shape[0]:
        return None
    index = frame.index
    if not isinstance(index, pd.RangeIndex) or index.start != 0 or index.step != 1:
        return None
    is_float = np.array([t == np.float64 for t in frame.dtypes], dtype=bool)
    names = frame.columns.tolist()
    if [str(names[j]) for j in np.flatnonzero(is_float)] != info["columns"]:
        return None
    if not _backed(frame, info["block"], int(is_float.sum())):
        return None
    return info, is_float


def _backed(frame, block: np.ndarray, n_float: int) -> bool:
    """Whether ``frame``'s ``n_float`` float64 columns all still live in ``block`` (a column
    replaced by other values of the same name and dtype lives elsewhere). pandas' block
    manager is asked (its blocks are few); False when it cannot be (then pandas does the work)."""
    try:
        held = sum(
            b.shape[0]
            for b in frame._mgr.blocks
            if b.dtype == np.float64 and np.shares_memory(b.values, block)
        )
    except (AttributeError, TypeError):
        return False
    return held == n_float


def _rebuilt(
    frame, is_float: np.ndarray, keep_cols: np.ndarray, block: np.ndarray, rows=None, owned=True, fills=None
):
    """A frame of ``frame``'s columns ``keep_cols`` (bool mask) and rows ``rows`` (None: all),
    its float columns views into ``block`` (already those columns and rows), the others taken
    from ``frame``; ``frame``'s attrs, the block's record updated."""
    import pandas as pd

    names = frame.columns.tolist()
    floats = np.flatnonzero(is_float & keep_cols)
    out = pd.DataFrame(block, columns=pd.Index([names[j] for j in floats], dtype=object), copy=False)
    at = np.cumsum(keep_cols) - 1  # each kept column's position in the result
    for j in np.flatnonzero(~is_float & keep_cols):  # the other columns: few
        col = frame.iloc[:, j]
        if rows is not None:
            col = col.iloc[rows].reset_index(drop=True)
        out.insert(int(at[j]), names[j], col, allow_duplicates=True)
    out.attrs = dict(frame.attrs)
    out.attrs[_KEY] = Carried(
        {"block": block, "columns": [str(names[j]) for j in floats], "owned": owned, "fills": fills}
    )
    return out


def drop_columns(frame, names):
    """``frame.drop(columns=names)``, equal, but a :func:`share_floats` frame's kept float
    columns become one C-ordered copy of the block without the dropped ones (contiguous runs
    copied at memory speed) instead of pandas splitting the block into a block per column
    (~3 s at 100,000 columns); the result's block is its own (``owned``)."""
    names = list(names)
    got = _intact(frame) if names else None
    if got is None:
        return frame.drop(columns=names) if names else frame
    import pandas as pd

    info, is_float = got
    cols = pd.Index(frame.columns.tolist(), dtype=object)
    gone = cols.isin(names)
    if not all(cols.get_indexer_for([c]).size == 1 for c in names):  # absent or repeated: pandas decides
        return frame.drop(columns=names)
    block = info["block"]
    fills = info.get("fills")
    if not gone[is_float].any():
        return _rebuilt(frame, is_float, ~gone, block, owned=info.get("owned", False), fills=fills)
    out_cols = np.flatnonzero(~gone[is_float])
    dropped = np.flatnonzero(gone[is_float])
    if len(dropped) > _RUNS:
        new = np.ascontiguousarray(block.take(out_cols, axis=1))
    else:
        new = np.empty((block.shape[0], len(out_cols)))
        a = k = 0
        for d in (*dropped.tolist(), block.shape[1]):  # the runs between dropped columns
            new[:, k : k + d - a] = block[:, a:d]
            k, a = k + d - a, d + 1
    new.setflags(write=False)
    fills = None if fills is None else (fills[0], fills[1][out_cols])
    return _rebuilt(frame, is_float, ~gone, new, fills=fills)


def take_rows(frame, keep: np.ndarray):
    """``frame.loc[keep].reset_index(drop=True)`` (``keep`` a bool mask), equal, but a
    :func:`share_floats` frame's block is taken once (one C-ordered copy of the kept rows)."""
    got = _intact(frame)
    if got is None:
        return frame.loc[keep].reset_index(drop=True)
    info, is_float = got
    rows = np.flatnonzero(keep)
    new = info["block"][rows]
    new.setflags(write=False)
    return _rebuilt(frame, is_float, np.ones(frame.shape[1], dtype=bool), new, rows=rows)


def shared_fills(df):
    """``(strategy, fills)``: the parse-time fills (:func:`remember_fills`) of the columns
    :func:`shared_features` gives for ``df``, in its column order; None when there are none."""
    info = carried(df, _KEY)
    if info is None or info.get("fills") is None:
        return None
    strategy, fills = info["fills"]
    names = [str(c) for c in df.columns.tolist()]
    if names == info["columns"]:
        return strategy, fills
    where = {c: k for k, c in enumerate(info["columns"])}
    if not all(c in where for c in names):
        return None
    return strategy, fills[[where[c] for c in names]]


def shared_features(df) -> tuple[np.ndarray, bool] | None:
    """``(X, owned)``: the float block of ``df``'s columns (all float64 columns of one
    :func:`share_floats` block, rows unchanged) as the C-ordered ``X`` that ``df.to_numpy()``
    would give: the block itself (``owned`` False: shared) or one copy of some of its columns;
    None when ``df`` is not such a frame."""
    info = carried(df, _KEY)
    if info is None:
        return None
    block, columns = info["block"], info["columns"]
    names = [str(c) for c in df.columns]
    if len(df) != block.shape[0] or not all(t == np.float64 for t in df.dtypes):
        return None
    if not _backed(df, block, df.shape[1]):
        return None
    if names == columns:
        return block, bool(info.get("owned", False))
    where = {c: k for k, c in enumerate(columns)}
    if not all(c in where for c in names) or len(set(names)) != len(names):
        return None
    return block.take([where[c] for c in names], axis=1), True
