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

from fsviz.data.frames import Carried, c_order, carried

__all__ = ["share_floats", "shared_features"]

_KEY = "float_block"


def share_floats(frame):
    """``frame`` with its float64 columns views into one C-ordered, read-only block (kept in
    ``frame.attrs``); the same frame when it has fewer than two of them."""
    import pandas as pd

    floats = [j for j, t in enumerate(frame.dtypes) if t == np.float64]
    if len(floats) < 2:
        return frame
    names = frame.columns[floats].tolist()
    block = c_order(frame.iloc[:, floats].to_numpy(dtype=np.float64))
    block.setflags(write=False)
    out = pd.DataFrame(block, columns=names, copy=False)
    kept = set(floats)
    for j in (j for j in range(frame.shape[1]) if j not in kept):  # the other columns: few
        out.insert(j, frame.columns[j], frame.iloc[:, j].to_numpy(), allow_duplicates=True)
    out.attrs = dict(frame.attrs)
    out.attrs[_KEY] = Carried({"block": block, "columns": [str(c) for c in names]})
    return out


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
    if names == columns:
        return block, False
    where = {c: k for k, c in enumerate(columns)}
    if not all(c in where for c in names) or len(set(names)) != len(names):
        return None
    return block.take([where[c] for c in names], axis=1), True
