"""Correlation explorer figures: a network of the strongest pairs and bars against one vector."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import plotly.graph_objects as go
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from fsviz.viz._adapt import feature_names_of
from fsviz.viz._common import names_of

#: |rho| classes of the network's edges: one trace (width, colour) per class
_EDGE_BINS = np.array([0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0 + 1e-9])
POS_COLOR, NEG_COLOR = "#D55E00", "#0072B2"  # Okabe-Ito vermillion / blue


def _pairs_arrays(pairs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, rho) from a DataFrame with columns i, j, rho or a (i, j, rho) tuple of arrays."""
    if hasattr(pairs, "columns"):
        i, j, r = pairs["i"], pairs["j"], pairs["rho"]
    else:
        i, j, r = pairs
    i, j, r = np.asarray(i, np.int64), np.asarray(j, np.int64), np.asarray(r, np.float64)
    if not (i.ndim == j.ndim == r.ndim == 1 and i.size == j.size == r.size):
        raise ValueError(
            "correlation_network: 'pairs' needs equal-length 1-D i, j, rho; "
            f"got sizes {i.size}, {j.size}, {r.size}."
        )
    return i, j, r


def circular_layout(n_nodes: int, edges_u: np.ndarray, edges_v: np.ndarray) -> np.ndarray:
    """Nodes on a circle, connected components kept together (largest first), hubs first.

    Parameters
    ----------
    n_nodes : int
    edges_u, edges_v : array of int
        Edge end points in ``range(n_nodes)``.

    Returns
    -------
    ndarray of shape (n_nodes, 2)
    """
    A = coo_matrix((np.ones(edges_u.size), (edges_u, edges_v)), shape=(n_nodes, n_nodes))
    _, comp = connected_components(A, directed=False)
    comp_size = np.bincount(comp)
    degree = np.bincount(np.concatenate([edges_u, edges_v]), minlength=n_nodes)
    order = np.lexsort((np.arange(n_nodes), -degree, comp, -comp_size[comp]))
    angle = np.empty(n_nodes)
    angle[order] = 2 * np.pi * np.arange(n_nodes) / max(n_nodes, 1)
    return np.column_stack([np.cos(angle), np.sin(angle)])


def spring_layout(
    n_nodes: int,
    edges_u: np.ndarray,
    edges_v: np.ndarray,
    weights: np.ndarray,
    *,
    n_iter: int = 200,
    random_state: int = 0,
) -> np.ndarray:
    """Fruchterman-Reingold force layout in numpy, seeded (same input -> same picture).

    Parameters
    ----------
    n_nodes : int
    edges_u, edges_v : array of int
    weights : array of float
        Edge weights (|rho|): stronger edges pull harder.
    n_iter : int, default=200
    random_state : int, default=0

    Returns
    -------
    ndarray of shape (n_nodes, 2)
        Coordinates scaled into [-1, 1].

    References
    ----------
    T. M. J. Fruchterman, E. M. Reingold, "Graph drawing by force-directed placement",
    Software: Practice and Experience 21(11), 1991.
    """
    rng = np.random.default_rng(random_state)
    pos = rng.uniform(-1, 1, size=(n_nodes, 2))
    if n_nodes < 2:
        return np.zeros((n_nodes, 2))
    kk = np.sqrt(4.0 / n_nodes)
    temp = 0.1
    for _ in range(n_iter):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.sqrt((delta**2).sum(-1)), 1e-3)
        disp = (delta * (kk * kk / dist**2)[:, :, None]).sum(axis=1)  # repulsion, all pairs
        d = pos[edges_u] - pos[edges_v]
        dl = np.maximum(np.sqrt((d**2).sum(-1)), 1e-3)
        f = (d * (weights * dl / kk)[:, None]) if d.size else d  # attraction along edges
        np.add.at(disp, edges_u, -f)
        np.add.at(disp, edges_v, f)
        disp -= 2.0 * kk * pos  # gravity: keeps separate components from drifting apart
        length = np.maximum(np.sqrt((disp**2).sum(-1)), 1e-9)
        pos += disp / length[:, None] * np.minimum(length, temp)[:, None]
        temp *= 0.98
    pos -= pos.mean(axis=0)
    return pos / max(float(np.abs(pos).max()), 1e-12)


def correlation_network(
    pairs: Any,
    feature_names: Sequence[str] | None = None,
    *,
    layout: str = "circular",
    random_state: int = 0,
    max_pairs: int = 300,
) -> go.Figure:
    """Network of the most correlated feature pairs: nodes are features, edges are pairs.

    Parameters
    ----------
    pairs : DataFrame with columns ``i``, ``j``, ``rho`` or tuple ``(i, j, rho)``
        E.g. :func:`fsviz.stats.top_pairs`. Only the ``max_pairs`` largest |rho| are drawn.
    feature_names : sequence of str or DataFrame, default=None
        Names of all features (``f<i>`` when None).
    layout : {"circular", "spring"}, default="circular"
        ``"circular"``: connected components kept together around a circle;
        ``"spring"``: a seeded Fruchterman-Reingold layout (:func:`spring_layout`).
        Both are deterministic.
    random_state : int, default=0
        Seed of the spring layout.
    max_pairs : int, default=300

    Returns
    -------
    plotly.graph_objects.Figure
        Edges: width and opacity grow with |rho| (one trace per |rho| class, legend
        entries name the class), vermillion for positive and blue for negative rho;
        hovering an edge's midpoint shows the pair and its rho. Nodes: size grows with the
        number of strong partners; hover shows the name, index and degree.

    Examples
    --------
    >>> fig = correlation_network((np.array([0, 0]), np.array([1, 2]), np.array([0.9, -0.6])))
    >>> fig.data[-1].text
    ('f0', 'f1', 'f2')
    """
    if layout not in ("circular", "spring"):
        raise ValueError(f"correlation_network: 'layout' must be 'circular' or 'spring'; got {layout!r}.")
    if isinstance(max_pairs, bool) or not isinstance(max_pairs, Integral) or max_pairs < 1:
        raise ValueError(f"correlation_network: 'max_pairs' must be a positive int; got {max_pairs!r}.")
    feature_names = feature_names_of(None, feature_names)  # a DataFrame: its columns
    i, j, r = _pairs_arrays(pairs)
    keep = np.lexsort((j, i, -np.abs(r)))[:max_pairs]
    i, j, r = i[keep], j[keep], r[keep]
    nodes, inv = np.unique(np.concatenate([i, j]), return_inverse=True)
    u, v = inv[: i.size], inv[i.size :]
    a = np.abs(r)
    xy = (
        circular_layout(nodes.size, u, v)
        if layout == "circular"
        else spring_layout(nodes.size, u, v, a, random_state=random_state)
    )
    names = names_of(feature_names, nodes)
    fig = go.Figure()
    cls = np.clip(np.searchsorted(_EDGE_BINS, a, side="right") - 1, 0, _EDGE_BINS.size - 2)
    for c in np.unique(cls):
        for sign, base in ((1, POS_COLOR), (-1, NEG_COLOR)):
            sel = np.flatnonzero((cls == c) & ((r >= 0) if sign > 0 else (r < 0)))
            if sel.size == 0:
                continue
            seg = np.full((sel.size, 3, 2), np.nan)
            seg[:, 0], seg[:, 1] = xy[u[sel]], xy[v[sel]]
            lo, hi = _EDGE_BINS[c], min(_EDGE_BINS[c + 1], 1.0)
            fig.add_trace(
                go.Scatter(
                    x=seg[:, :, 0].ravel(),
                    y=seg[:, :, 1].ravel(),
                    mode="lines",
                    line=dict(width=1 + 6 * (c / (_EDGE_BINS.size - 2)), color=base),
                    opacity=0.35 + 0.65 * c / (_EDGE_BINS.size - 2),
                    name=f"{'+' if sign > 0 else '−'} |rho| {lo:.2f}–{hi:.2f}",
                    legendgroup="pos" if sign > 0 else "neg",
                    hoverinfo="skip",
                )
            )
    mid = (xy[u] + xy[v]) / 2
    pair_names = [f"{names[p]} – {names[q]}<br>rho = {x:+.3f}" for p, q, x in zip(u, v, r, strict=True)]
    fig.add_trace(
        go.Scatter(
            x=mid[:, 0],
            y=mid[:, 1],
            mode="markers",
            marker=dict(size=8, opacity=0),
            hovertext=pair_names,
            hoverinfo="text",
            showlegend=False,
        )
    )
    degree = np.bincount(np.concatenate([u, v]), minlength=nodes.size)
    fig.add_trace(
        go.Scatter(
            x=xy[:, 0],
            y=xy[:, 1],
            mode="markers+text" if nodes.size <= 80 else "markers",
            text=names,
            textposition="top center",
            marker=dict(size=8 + 3 * np.sqrt(degree), color="#444444", line=dict(width=1, color="white")),
            hovertext=[
                f"<b>{nm}</b> (#{f})<br>{d} strong partner(s)"
                for nm, f, d in zip(names, nodes, degree, strict=True)
            ],
            hoverinfo="text",
            name="features",
            showlegend=False,
        )
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x")
    fig.update_layout(
        height=600,
        margin=dict(t=50, l=5, r=5, b=5),
        plot_bgcolor="white",
        legend=dict(title="edge sign, |rho|"),
        title=f"The {i.size} most correlated feature pairs ({nodes.size} features)",
    )
    return fig


def correlation_bars(
    rhos: Any,
    feature_names: Sequence[str] | None = None,
    *,
    k: int = 30,
    against: str = "the target",
) -> go.Figure:
    """Horizontal bars of the ``k`` features most correlated (in |rho|) with one vector.

    Parameters
    ----------
    rhos : array of shape (n_features,)
        Signed correlations, e.g. :func:`fsviz.stats.correlations_with`.
    feature_names : sequence of str or DataFrame, default=None
    k : int, default=30
    against : str, default="the target"
        What the correlations are with, for the title (a feature name, "the target").

    Returns
    -------
    plotly.graph_objects.Figure
        Strongest at the top; bars show signed rho (vermillion positive, blue negative),
        ties in |rho| ordered by feature index.

    Examples
    --------
    >>> list(correlation_bars(np.array([0.1, -0.9, 0.5]), k=2).data[0].y)
    ['f2', 'f1']
    """
    feature_names = feature_names_of(None, feature_names)  # a DataFrame: its columns
    rhos = np.asarray(rhos, dtype=np.float64)
    if rhos.ndim != 1:
        raise ValueError(f"correlation_bars: 'rhos' must be 1-D; got shape {rhos.shape}.")
    if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
        raise ValueError(f"correlation_bars: 'k' must be a positive int; got {k!r}.")
    top = np.lexsort((np.arange(rhos.size), -np.abs(rhos)))[:k][::-1]  # strongest drawn last = on top
    names = names_of(feature_names, top)
    fig = go.Figure(
        go.Bar(
            x=rhos[top],
            y=names,
            orientation="h",
            marker_color=np.where(rhos[top] >= 0, POS_COLOR, NEG_COLOR),
            hovertext=[
                f"<b>{nm}</b> (#{f})<br>rho = {x:+.3f}"
                for nm, f, x in zip(names, top, rhos[top], strict=True)
            ],
            hoverinfo="text",
        )
    )
    fig.update_xaxes(title_text="rho", range=[-1.05, 1.05], zeroline=True)
    fig.update_layout(
        height=max(300, 22 * top.size + 90),
        margin=dict(t=50, l=5, r=5, b=5),
        title=f"Top {top.size} features by |correlation| with {against}",
    )
    return fig
