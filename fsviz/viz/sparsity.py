"""Correlation sparsity: the distribution of |rho| over all feature pairs (TPAMI GDM paper, Fig. 1)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsviz.viz._adapt import as_histogram


def correlation_sparsity(
    edges,
    counts=None,
    *,
    tau: float | None = None,
    exact: bool = True,
    n_pairs_total: int | None = None,
    n_sampled: int | None = None,
) -> go.Figure:
    """Percentage of pairs per |rho| interval (log axis) and 1 - CDF, with 1 - tau marked.

    Parameters
    ----------
    edges : array of shape (n_bins + 1,), or a histogram
        Interval edges on [0, 1]; or, with ``counts`` left out, the histogram itself:
        ``correlation_sparsity(correlation_histogram(X))`` (a
        :class:`fsviz.stats.CorrelationHistogram` or the run layer's ``HistogramResult``),
        whose ``exact`` flag and pair totals then fill ``exact``, ``n_pairs_total`` and
        ``n_sampled`` where those are not given.
    counts : array of shape (n_bins,), default=None
        Number of feature pairs whose |rho| falls in each interval.
    tau : float, default=None
        GDM's tau; the line |rho| = 1 - tau (the affiliation threshold) is drawn.
    exact : bool, default=True
        Whether the counts cover all pairs (else: estimated from a feature subsample);
        stated in the title.
    n_pairs_total : int, default=None
        m(m-1)/2 of the whole dataset, stated in the title.
    n_sampled : int, default=None
        For an estimate: the number of uniformly sampled pairs it was counted from. The bars
        then get error bars of one binomial standard error, ``sqrt(p (1 - p) / n_sampled)``.

    Returns
    -------
    plotly.graph_objects.Figure
        Left: bars of the percentage of pairs per interval on a log y axis. Right: the
        fraction of pairs with |rho| >= x (1 - CDF) on a log y axis.

    Examples
    --------
    >>> from fsviz.stats import correlation_histogram
    >>> X = np.random.default_rng(0).normal(size=(30, 12))
    >>> fig = correlation_sparsity(correlation_histogram(X, bins=10), tau=0.3)
    >>> "66 feature pairs" in fig.layout.title.text
    True
    """
    if counts is None:
        if not hasattr(edges, "counts"):
            raise ValueError(
                "correlation_sparsity: pass 'edges' and 'counts', or one histogram "
                f"(fsviz.stats.correlation_histogram's result); got {type(edges).__name__} alone."
            )
        found = as_histogram(edges)
        exact = found["exact"] if exact else exact
        n_pairs_total = found["n_pairs_total"] if n_pairs_total is None else n_pairs_total
        n_sampled = found["n_sampled"] if n_sampled is None else n_sampled
        edges, counts = edges.edges, edges.counts
    edges = np.asarray(edges, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    if edges.shape != (counts.size + 1,):
        raise ValueError(
            f"correlation_sparsity: 'edges' must have len(counts) + 1 = {counts.size + 1} "
            f"entries; got {edges.size}."
        )
    total = counts.sum()
    pct = 100.0 * counts / total if total else np.zeros_like(counts)
    tail = np.cumsum(counts[::-1])[::-1] / total if total else np.zeros_like(counts)
    mids = 0.5 * (edges[1:] + edges[:-1])
    labels = [f"[{a:.2f}, {b:.2f})" for a, b in zip(edges[:-1], edges[1:], strict=False)]
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("percentage of pairs per |ρ| interval", "1 − CDF: fraction of pairs with |ρ| ≥ x"),
    )
    fig.add_trace(
        go.Bar(
            x=mids,
            y=np.where(pct > 0, pct, np.nan),
            width=np.diff(edges) * 0.95,
            customdata=np.column_stack([labels, counts.astype(np.int64)]),
            name="% of pairs",
            marker_color="#0072B2",
            error_y=_binomial_error(pct, n_sampled),
            hovertemplate="|ρ| in %{customdata[0]}<br>%{y:.3g}% of pairs"
            "<br>%{customdata[1]} pairs<extra></extra>",
        ),
        1,
        1,
    )
    fig.add_trace(
        go.Scatter(
            x=edges[:-1],
            y=np.where(tail > 0, tail, np.nan),
            mode="lines+markers",
            line_shape="hv",
            name="1 − CDF",
            marker_color="#E69F00",
            hovertemplate="P(|ρ| ≥ %{x:.2f}) = %{y:.3g}<extra></extra>",
        ),
        1,
        2,
    )
    if tau is not None:
        x = 1.0 - float(tau)
        for col in (1, 2):
            fig.add_vline(x=x, line=dict(color="#D55E00", dash="dash", width=2), row=1, col=col)
        fig.add_annotation(
            x=x,
            y=0.97,
            yref="paper",
            xref="x",
            text=f"1 − τ = {x:.2f}",
            xanchor="left",
            showarrow=False,
            font=dict(color="#D55E00"),
            yanchor="top",
            bgcolor="white",
        )
        frac = float(tail[np.searchsorted(edges[:-1], x, side="right") - 1]) if total else 0.0
        fig.add_annotation(
            x=x,
            y=0.97,
            yref="paper",
            xref="x2",
            showarrow=False,
            yanchor="top",
            xanchor="right",
            text=f"{frac:.2g} of pairs ≥ 1 − τ ",
            font=dict(color="#D55E00"),
            bgcolor="white",
        )
    if exact:
        kind = "exact, all pairs"
    elif n_sampled:
        kind = f"estimated from {int(n_sampled):,} sampled pairs, ± 1 s.e."
    else:
        kind = "estimated from sampled pairs"
    extra = f" of {n_pairs_total:,}" if n_pairs_total else ""
    fig.update_yaxes(type="log", title_text="% of pairs", exponentformat="power", row=1, col=1)
    fig.update_yaxes(type="log", title_text="fraction of pairs", exponentformat="power", row=1, col=2)
    fig.update_xaxes(range=[0, 1], title_text="|ρ|")
    fig.update_layout(
        height=430,
        showlegend=False,
        margin=dict(t=80, l=5, r=5, b=5),
        title=f"|ρ| over {int(total):,}{extra} feature pairs ({kind})",
    )
    return fig


def _binomial_error(pct: np.ndarray, n_sampled: int | None) -> dict | None:
    """Error bars of one binomial standard error on percentages estimated from ``n_sampled`` pairs."""
    if not n_sampled:
        return None
    p = np.clip(pct / 100.0, 0.0, 1.0)
    se = 100.0 * np.sqrt(p * (1.0 - p) / float(n_sampled))
    return dict(type="data", array=se, visible=True, color="#444", thickness=1)
