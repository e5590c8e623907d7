"""The distribution of a continuous target (the Data page's view of a regression target)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go


def target_histogram(y, bins: int = 30, name: str = "target") -> go.Figure:
    """Histogram of a continuous target with its mean and median marked.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Real values (a continuous target).
    bins : int, default=30
        Equal-width bins over the range of ``y``.
    name : str, default="target"
        Axis title.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> fig = target_histogram([0.5, 1.5, 1.25, 3.0], bins=4)
    >>> [int(c) for c in fig.data[0].y]
    [1, 2, 0, 1]
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.size == 0 or not np.all(np.isfinite(y)):
        raise ValueError(f"target_histogram: 'y' must be non-empty and finite; got {y.size} value(s).")
    if not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"target_histogram: 'bins' must be a positive int; got {bins!r}.")
    counts, edges = np.histogram(y, bins=int(bins))
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure(
        go.Bar(
            x=centres,
            y=counts,
            width=np.diff(edges),
            marker_color="#0072B2",
            customdata=np.column_stack([edges[:-1], edges[1:]]),
            hovertemplate="[%{customdata[0]:.4g}, %{customdata[1]:.4g}): %{y} samples<extra></extra>",
            name="samples",
        )
    )
    mean = float(y.mean())
    mean = 0.0 if abs(mean) < 1e-12 * float(np.abs(y).max()) else mean  # rounding of a centred y
    marks = ((mean, "mean", "solid", "top right"), (float(np.median(y)), "median", "dot", "top left"))
    for value, label, dash, where in marks:
        fig.add_vline(
            x=value,
            line_dash=dash,
            line_color="#D55E00",
            annotation_text=f"{label} {value:.3g}",
            annotation_position=where,
        )
    fig.update_layout(
        height=300,
        margin=dict(t=40, l=5, r=5, b=5),
        title=f"Distribution of the continuous target ({y.size:,} samples)",
        xaxis_title=name,
        yaxis_title="samples",
        bargap=0.02,
        showlegend=False,
    )
    return fig
