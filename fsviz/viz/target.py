"""The distribution of the target: a continuous one's histogram, a class target's balance (Data page)."""

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


def class_balance(classes, counts) -> go.Figure:
    """The samples of each class as horizontal bars, with their shares: an imbalance at a glance.

    Parameters
    ----------
    classes : sequence
        Class names, in the order to draw them (top to bottom).
    counts : array-like of int
        Samples per class, one per name.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> fig = class_balance(["tumour", "normal"], [30, 10])
    >>> list(fig.data[0].x), fig.data[0].text
    ([30, 10], ('75.0 %', '25.0 %'))
    """
    from fsviz.viz._common import class_colors

    names = [str(c) for c in classes]
    counts = np.asarray(counts, dtype=np.int64).ravel()
    if len(names) == 0 or len(names) != counts.size or (counts < 0).any():
        raise ValueError(
            f"class_balance: one non-negative count per class; got {len(names)} class(es) and "
            f"{counts.size} count(s)."
        )
    share = counts / max(int(counts.sum()), 1)
    fig = go.Figure(
        go.Bar(
            x=counts.tolist(),
            y=names,
            orientation="h",
            marker_color=class_colors(len(names)),
            text=[f"{100 * s:.1f} %" for s in share],
            textposition="auto",
            hovertemplate="%{y}: %{x} samples (%{text})<extra></extra>",
        )
    )
    fig.update_layout(
        height=min(90 + 28 * len(names), 420),
        margin=dict(t=40, l=5, r=5, b=5),
        title=f"Class balance ({int(counts.sum()):,} samples, {len(names)} classes)",
        xaxis_title="samples",
        yaxis=dict(type="category", autorange="reversed"),  # class names such as 0 and 1 are names
        showlegend=False,
    )
    return fig
