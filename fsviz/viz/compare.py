"""Every selection computed for a dataset side by side."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

#: column names of the compare table (``fsviz.compute.compare_frame``) this figure reads
CV_HONEST = "CV accuracy (selection redone in folds)"
CV_BIASED = "CV accuracy (selection on all samples, optimistic)"
CV_STD = "± (fold std)"
#: the same for a continuous target: R^2 and RMSE of a ridge regression, never "accuracy"
CV_R2_HONEST = "CV R² (selection redone in folds)"
CV_R2_BIASED = "CV R² (selection on all samples, optimistic)"
CV_RMSE = "CV RMSE"


def compare_scatter(frame) -> go.Figure:
    """CV accuracy (CV R² for a continuous target) against redundancy, one marker per selection.

    Marker size grows with the number of features.

    ``frame`` is :func:`fsviz.compute.compare_frame`'s table: the y axis is its honest
    accuracy (selection redone in each training fold, with the fold spread as error bars)
    where it has one, else the accuracy with the selection made on all samples (the axis
    title says which). Two runs of one method are labelled by their table row (``GDM #2``).
    """
    honest, biased = (CV_R2_HONEST, CV_R2_BIASED) if CV_R2_HONEST in frame else (CV_HONEST, CV_BIASED)
    what = "CV R²" if honest == CV_R2_HONEST else "CV accuracy"
    acc = np.asarray(frame[honest], dtype=float)
    ylabel = honest
    if not np.isfinite(acc).any() and biased in frame:
        acc, ylabel = np.asarray(frame[biased], dtype=float), biased
    red = np.asarray(frame["redundancy"], dtype=float)
    nf = np.asarray(frame["n features"], dtype=float)
    text = [f"{m}<br>{p}" for m, p in zip(frame["method"], frame["parameters"], strict=False)]
    methods = [str(m) for m in frame["method"]]
    labels = [  # runs of one method told apart by their number (the table's row)
        f"{m} #{i + 1}" if methods.count(m) > 1 else m for i, m in enumerate(methods)
    ]
    std = np.asarray(frame[CV_STD], dtype=float) if CV_STD in frame and ylabel == honest else None
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
            f"redundancy %{{x:.3f}}<br>{what} %{{y:.3f}}<extra></extra>",
        )
    )
    fig.update_xaxes(range=_padded(red))
    fig.update_yaxes(range=_padded(acc))
    fig.update_layout(
        height=380,
        margin=dict(t=40, l=5, r=5, b=5),
        title=f"{'R²' if what == 'CV R²' else 'Accuracy'} vs redundancy",
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
