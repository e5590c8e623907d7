"""Every selection computed for a dataset side by side."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

#: column names of the compare table (``fsviz.compute.compare_frame``) this figure reads
CV_HONEST = "CV accuracy (selection redone in folds)"
CV_BIASED = "CV accuracy (selection on all samples, optimistic)"
CV_STD = "± (fold std)"


def compare_scatter(frame) -> go.Figure:
    """CV accuracy against redundancy, one marker per selection (size ~ number of features).

    ``frame`` is :func:`fsviz.compute.compare_frame`'s table: the y axis is its honest
    accuracy (selection redone in each training fold, with the fold spread as error bars)
    where it has one, else the accuracy with the selection made on all samples (the axis
    title says which). Two runs of one method are labelled by their table row (``GDM #2``).
    """
    acc = np.asarray(frame[CV_HONEST], dtype=float)
    ylabel = CV_HONEST
    if not np.isfinite(acc).any() and CV_BIASED in frame:
        acc, ylabel = np.asarray(frame[CV_BIASED], dtype=float), CV_BIASED
    red = np.asarray(frame["redundancy"], dtype=float)
    nf = np.asarray(frame["n features"], dtype=float)
    text = [f"{m}<br>{p}" for m, p in zip(frame["method"], frame["parameters"], strict=False)]
    methods = [str(m) for m in frame["method"]]
    labels = [  # runs of one method told apart by their number (the table's row)
        f"{m} #{i + 1}" if methods.count(m) > 1 else m for i, m in enumerate(methods)
    ]
    std = np.asarray(frame[CV_STD], dtype=float) if CV_STD in frame and ylabel == CV_HONEST else None
    fig = go.Figure(
        go.Scatter(
            x=red,
            y=acc,
            error_y=None if std is None else dict(type="data", array=std, visible=True, thickness=1),
            mode="markers+text",
            text=labels,
            cliponaxis=False,
            textposition="top center",
            customdata=np.column_stack([text, nf]),
            marker=dict(
                size=10 + 20 * np.sqrt(nf / max(nf.max(), 1)) if nf.size else 10, color="#0072B2", opacity=0.7
            ),
            hovertemplate="%{customdata[0]}<br>%{customdata[1]} features<br>"
            "redundancy %{x:.3f}<br>CV accuracy %{y:.3f}<extra></extra>",
        )
    )
    fig.update_xaxes(range=_padded(red))
    fig.update_yaxes(range=_padded(acc))
    fig.update_layout(
        height=380,
        margin=dict(t=40, l=5, r=5, b=5),
        title="Accuracy vs redundancy",
        xaxis_title="redundancy rate (lower is better)",
        yaxis_title=ylabel,
    )
    return fig


def _padded(v: np.ndarray) -> list[float] | None:
    v = v[np.isfinite(v)]
    if not v.size:
        return None
    lo, hi = float(v.min()), float(v.max())
    pad = 0.15 * (hi - lo) if hi > lo else 0.05 * max(abs(hi), 1e-3)
    return [lo - pad, hi + pad]
