"""An online selection run (SAOLA): selected-set size and decisions as features arrive."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsviz.viz._adapt import as_stream
from fsviz.viz._common import DECISION_COLORS


def stream_progress(set_size, decision=None, *, n_windows: int = 60, max_points: int = 4000) -> go.Figure:
    """Selected-set size after each arriving feature, and decisions per arrival window.

    Parameters
    ----------
    set_size : array of shape (n_arrived,), or a fitted SAOLA
        Size of the selected set after each arrival; or, with ``decision`` left out, a fitted
        :class:`fsviz.select.SAOLA` / :class:`fsviz.select.GroupSAOLA` (its ``history_`` in
        arrival order) or the run layer's ``StreamResult``.
    decision : sequence of str of length n_arrived, default=None
        ``"selected"``, ``"irrelevant"``, ``"redundant"``, ``"removed"`` ... per arrival.
    n_windows : int, default=60
        The stream is cut into this many windows; the lower panel stacks the decisions of
        each window (readable on 10^5 features).
    max_points : int, default=4000
        The set-size curve is thinned to at most this many points (every step kept when fewer).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if decision is None:
        set_size, decision = as_stream(set_size, "stream_progress")
    size = np.asarray(set_size, dtype=np.int64)
    dec = np.asarray(decision, dtype=object)
    n = len(size)
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.55, 0.45],
        vertical_spacing=0.06,
        subplot_titles=("selected-set size as features arrive", "decisions per arrival window"),
    )
    step = max(1, int(np.ceil(n / max_points)))
    xs = np.arange(0, n, step)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=size[xs],
            mode="lines",
            line_shape="hv",
            name="selected set",
            line=dict(color="#009E73"),
            hovertemplate="after %{x} arrivals: %{y} selected<extra></extra>",
        ),
        1,
        1,
    )
    w = max(1, int(np.ceil(n / n_windows)))
    win = np.arange(n) // w
    centers = (np.arange(win.max() + 1 if n else 0) + 0.5) * w
    for d in [k for k in DECISION_COLORS if np.any(dec == k)] + sorted(set(dec) - set(DECISION_COLORS)):
        counts = np.bincount(win[dec == d], minlength=len(centers))
        fig.add_trace(
            go.Bar(
                x=centers,
                y=counts,
                width=w * 0.95,
                name=d,
                marker_color=DECISION_COLORS.get(d, "#56B4E9"),
                hovertemplate=f"{d}: %{{y}} features<extra></extra>",
            ),
            2,
            1,
        )
    fig.update_layout(
        barmode="stack", height=520, margin=dict(t=60, l=5, r=5, b=5), legend=dict(orientation="h", y=-0.12)
    )
    fig.update_xaxes(title_text="features arrived", row=2, col=1)
    return fig
