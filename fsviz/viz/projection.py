"""PCA projections of the samples on selected features (GRM paper, Fig. 4)."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsviz._targets import target_kind
from fsviz.viz._common import class_colors, class_symbols


def pca_pair(projections: Sequence, y=None, *, titles: Sequence[str] = ("base", "GRM")) -> go.Figure:
    """Side-by-side PCA scatter plots of the same samples, coloured by class.

    Parameters
    ----------
    projections : sequence of Projection-like or arrays
        Each has ``coords`` (n_samples, 2) and ``explained`` (2,) variance ratios (the run
        layer's ``Projection``); or is a dense array of the samples on the selected features,
        of shape (n_samples, k >= 2), e.g. ``X[:, selector.get_support()]``: its first two
        principal components are drawn (centred SVD; no scaling).
    y : array of shape (n_samples,), default=None
        Class labels for colours (one legend entry per class, shared by all panels). A
        continuous target (``type_of_target``) colours the samples on one colour scale
        (Viridis, with a colour bar) instead.
        Colours come from :func:`fsviz.viz._common.class_colors`: Okabe-Ito up to 8
        classes; beyond that distinct hues x lightness levels plus a cycling marker
        symbol, so 40 classes get 40 distinct (colour, symbol) pairs.
    titles : sequence of str
        One per projection.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 5))
    >>> fig = pca_pair([X[:, :3], X[:, 2:]], y=np.arange(30) % 2)
    >>> len(fig.data)
    4
    """
    projections = [_as_projection(p) for p in projections]
    n = len(projections)
    fig = make_subplots(
        rows=1,
        cols=n,
        subplot_titles=[
            f"{t} ({len(p.features)} features; PC1+PC2 {100 * float(np.sum(p.explained)):.0f}% var.)"
            for t, p in zip(titles, projections, strict=False)
        ],
    )
    labels = np.asarray(y) if y is not None else None
    if labels is not None and target_kind(labels) == "continuous":
        return _continuous(fig, projections, labels.astype(np.float64))
    classes = np.unique(labels) if labels is not None else [None]
    colors, symbols = class_colors(len(classes)), class_symbols(len(classes))
    for col, p in enumerate(projections, start=1):
        xy = np.asarray(p.coords)
        for ci, c in enumerate(classes):
            mask = slice(None) if c is None else labels == c
            fig.add_trace(
                go.Scattergl(
                    x=xy[mask, 0],
                    y=xy[mask, 1],
                    mode="markers",
                    name="samples" if c is None else f"class {c}",
                    legendgroup=str(c),
                    showlegend=col == 1,
                    marker=dict(size=6, opacity=0.75, color=colors[ci], symbol=symbols[ci]),
                ),
                1,
                col,
            )
        fig.update_xaxes(title_text=f"PC1 ({100 * p.explained[0]:.0f}%)", row=1, col=col)
        fig.update_yaxes(title_text=f"PC2 ({100 * p.explained[1]:.0f}%)", row=1, col=col)
    fig.update_layout(
        height=460, margin=dict(t=60, l=5, r=5, b=5), title="PCA of the samples on the top features"
    )
    return fig


def _as_projection(p) -> object:
    """A Projection-like as is; a samples x features array as its first two principal components."""
    if hasattr(p, "coords"):
        return p
    Z = np.asarray(p, dtype=np.float64)
    if Z.ndim != 2 or Z.shape[1] < 2:
        raise ValueError(
            "pca_pair: each projection must have 'coords' and 'explained', or be an array of shape "
            f"(n_samples, k >= 2) to project; got shape {Z.shape}."
        )
    Z = Z - Z.mean(axis=0)
    u, s, _ = np.linalg.svd(Z, full_matrices=False)
    var = s**2
    explained = var[:2] / var.sum() if var.sum() > 0 else np.zeros(2)
    return SimpleNamespace(coords=u[:, :2] * s[:2], explained=explained, features=np.arange(Z.shape[1]))


def _continuous(fig: go.Figure, projections: Sequence, y: np.ndarray) -> go.Figure:
    """:func:`pca_pair` coloured by a continuous target: one colour scale shared by the panels."""
    lo, hi = float(y.min()), float(y.max())
    for col, p in enumerate(projections, start=1):
        xy = np.asarray(p.coords)
        fig.add_trace(
            go.Scattergl(
                x=xy[:, 0],
                y=xy[:, 1],
                mode="markers",
                name="samples",
                showlegend=False,
                customdata=y,
                hovertemplate="PC1 %{x:.3g}<br>PC2 %{y:.3g}<br>target %{customdata:.4g}<extra></extra>",
                marker=dict(
                    size=6,
                    opacity=0.8,
                    color=y,
                    colorscale="Viridis",
                    cmin=lo,
                    cmax=hi,
                    showscale=col == 1,
                    colorbar=dict(title="target"),
                ),
            ),
            1,
            col,
        )
        fig.update_xaxes(title_text=f"PC1 ({100 * p.explained[0]:.0f}%)", row=1, col=col)
        fig.update_yaxes(title_text=f"PC2 ({100 * p.explained[1]:.0f}%)", row=1, col=col)
    fig.update_layout(
        height=460,
        margin=dict(t=60, l=5, r=5, b=5),
        title="PCA of the samples on the top features (colour: the continuous target)",
    )
    return fig
