"""Why not this feature: a left-out feature against the selected feature that stands in for it."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from fsviz._targets import target_kind
from fsviz.viz._common import class_colors, class_symbols

_SYMBOL = {"pearson": "ρ", "spearman": "ρ_s", "su": "SU"}


def stand_in_scatter(
    feature,
    stand_in,
    y=None,
    *,
    feature_name: str = "feature",
    stand_in_name: str = "stand-in",
    corr: float | None = None,
    measure: str = "pearson",
) -> go.Figure:
    """Scatter plot of a feature (vertical) against its stand-in (horizontal), one point per sample.

    Parameters
    ----------
    feature, stand_in : array-like of shape (n_samples,)
        The two columns (:func:`fsviz.compute.feature_pair`).
    y : array-like of shape (n_samples,), optional
        Class labels: one colour (and, beyond 8 classes, marker symbol) per class, as every
        fsviz scatter; a continuous target colours the points on one scale (Viridis).
    feature_name, stand_in_name : str
        Axis titles.
    corr : float, optional
        The correlation shown in the title (rho for Pearson/Spearman, SU for ``measure="su"``).
    measure : {"pearson", "spearman", "su"}, default="pearson"

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> fig = stand_in_scatter([1.0, 2, 3], [1.0, 2, 4], [0, 1, 1], corr=0.98)
    >>> [t.name for t in fig.data]
    ['class 0', 'class 1']
    """
    x = np.asarray(stand_in, dtype=np.float64)
    v = np.asarray(feature, dtype=np.float64)
    if x.shape != v.shape or x.ndim != 1:
        raise ValueError(
            "stand_in_scatter: 'feature' and 'stand_in' must be 1-D of one length; "
            f"got {v.shape} and {x.shape}."
        )
    fig = go.Figure()
    labels = None if y is None else np.asarray(y)
    if labels is not None and labels.shape[0] != x.shape[0]:
        raise ValueError(f"stand_in_scatter: 'y' has {labels.shape[0]} labels for {x.shape[0]} samples.")
    if labels is not None and labels.dtype.kind in "fiu" and target_kind(labels) == "continuous":
        fig.add_trace(
            go.Scattergl(
                x=x,
                y=v,
                mode="markers",
                name="samples",
                marker=dict(size=7, opacity=0.8, color=labels.astype(np.float64), colorscale="Viridis",
                            colorbar=dict(title="target")),
            )
        )  # fmt: skip
    else:
        classes = [None] if labels is None else list(np.unique(labels.astype(str)))
        colors, symbols = class_colors(len(classes)), class_symbols(len(classes))
        for ci, c in enumerate(classes):
            mask = slice(None) if c is None else labels.astype(str) == c
            fig.add_trace(
                go.Scattergl(
                    x=x[mask],
                    y=v[mask],
                    mode="markers",
                    name="samples" if c is None else f"class {c}",
                    marker=dict(size=7, opacity=0.8, color=colors[ci], symbol=symbols[ci]),
                )
            )
    what = ""
    if corr is not None and np.isfinite(corr):
        what = f" ({_SYMBOL.get(measure, measure)} = {corr:+.3f})"
    fig.update_layout(
        title=f"{feature_name} against its stand-in {stand_in_name}{what}",
        xaxis_title=f"{stand_in_name} (selected)",
        yaxis_title=f"{feature_name} (left out)",
        height=420,
        margin=dict(t=50, l=5, r=5, b=5),
        legend=dict(orientation="h", y=-0.2),
    )
    return fig
