"""Rankings before and after a refinement (GRM): bump/slope chart and score bars."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from fsviz.viz._adapt import as_order, as_scores, feature_names_of
from fsviz.viz._common import names_of


def ranking_bump(
    before,
    after,
    feature_names: Sequence[str] | None = None,
    *,
    k: int = 20,
    labels: tuple[str, str] = ("base score", "GRM"),
) -> go.Figure:
    """Slope chart of the top-``k`` features before and after a re-ranking.

    Parameters
    ----------
    before, after : array of int, fitted estimator or result
        Feature indices best first (e.g. ``GRMResult.base_order`` and ``refined_order``), or
        what holds a ranking: a fitted :class:`fsviz.select.GRM` (its working set in GRM's
        order), a fitted scorer (its ``ranking_``), a ``GRMResult`` or ``ScoreResult``. E.g.
        ``ranking_bump(grm_without_priors, grm_with_priors)``.
    feature_names : sequence of str or DataFrame, default=None
        Names, or a pandas / polars DataFrame whose columns they are; None: the estimators'
        ``feature_names_in_`` when they have them, else ``f<i>``.
    k : int, default=20
        Features in the top ``k`` of either ranking are drawn; a feature outside the top
        ``k`` of one side sits on the "below top k" row of that side.
    labels : (str, str)
        Column titles.

    Returns
    -------
    plotly.graph_objects.Figure
        Green lines move up, red move down, grey keep their rank.

    Examples
    --------
    >>> fig = ranking_bump([3, 1, 2], [1, 3, 0], ["a", "b", "c", "d"], k=2)
    >>> sorted(t.text[0] or t.text[1] for t in fig.data)
    ['b', 'd']
    """
    feature_names = feature_names_of(before, feature_names)
    if feature_names is None:
        feature_names = feature_names_of(after)
    before = as_order(before, "ranking_bump")
    after = as_order(after, "ranking_bump")
    k = int(min(k, max(len(before), len(after))))
    rank_b = {int(f): r + 1 for r, f in enumerate(before[:k])}
    rank_a = {int(f): r + 1 for r, f in enumerate(after[:k])}
    feats = list(dict.fromkeys([*before[:k].tolist(), *after[:k].tolist()]))
    out = k + 1.5
    fig = go.Figure()
    for f, nm in zip(feats, names_of(feature_names, feats), strict=False):
        rb, ra = rank_b.get(f, out), rank_a.get(f, out)
        color = "#009E73" if ra < rb else "#D55E00" if ra > rb else "#999999"
        tb = f"#{rb}" if rb != out else f"> {k}"
        ta = f"#{ra}" if ra != out else f"> {k}"
        fig.add_trace(
            go.Scatter(
                x=[0, 1],
                y=[rb, ra],
                mode="lines+markers+text",
                line=dict(color=color, width=2),
                text=[nm if rb != out else "", nm if ra != out else ""],
                textposition=["middle left", "middle right"],
                showlegend=False,
                hovertemplate=f"<b>{nm}</b> (#{f})<br>{labels[0]}: {tb}<br>{labels[1]}: {ta}<extra></extra>",
            )
        )
    fig.update_yaxes(
        autorange="reversed",
        title_text="rank",
        tickvals=[1, *range(5, k + 1, 5), out],
        ticktext=["1", *map(str, range(5, k + 1, 5)), f"> {k}"],
    )
    fig.update_xaxes(tickvals=[0, 1], ticktext=list(labels), range=[-0.6, 1.6])
    fig.update_layout(
        height=max(380, 22 * (k + 2)),
        margin=dict(t=50, l=5, r=5, b=5),
        title=f"Top-{k} ranking: {labels[0]} → {labels[1]}",
    )
    return fig


def score_bars(
    scores, feature_names: Sequence[str] | None = None, *, top_n: int = 30, title: str = "scores"
) -> go.Figure:
    """Horizontal bars of the ``top_n`` highest scores (readable on any number of features).

    ``scores`` is an array of shape (n_features,), a fitted scorer (its ``scores_``) or a result
    with ``scores``; ``feature_names`` a sequence, a pandas / polars DataFrame (its columns) or
    None (the scorer's ``feature_names_in_`` when it has them, else ``f<i>``).
    """
    feature_names = feature_names_of(scores, feature_names)
    scores = as_scores(scores, "score_bars")
    top = np.argsort(-scores, kind="stable")[:top_n]
    names = names_of(feature_names, top)
    fig = go.Figure(
        go.Bar(
            x=scores[top][::-1],
            y=[f"{n} (#{i})" for n, i in zip(names, top, strict=False)][::-1],
            orientation="h",
            marker_color="#0072B2",
            hovertemplate="%{y}<br>score %{x:.4g}<extra></extra>",
        )
    )
    fig.update_layout(
        height=max(300, 18 * len(top) + 80),
        margin=dict(t=40, l=5, r=5, b=5),
        title=f"{title}: top {len(top)} of {len(scores):,}",
    )
    return fig


def ranking_cut(
    scores,
    k_cut: int,
    rule: str,
    feature_names: Sequence[str] | None = None,
    *,
    qvalues=None,
    top_n: int | None = None,
    value: str = "score",
    order=None,
) -> go.Figure:
    """Every feature's score, best first, with the cut drawn: a vertical line after the ``k_cut``-th
    feature, named by ``rule`` (e.g. ``"fdr:0.05"``, ``"cv-1se: k = 12"``).

    Parameters
    ----------
    scores : array of float
        One score per feature (higher = better).
    k_cut : int
        How many features the rule keeps (0: none).
    rule : str
        The rule's name, shown on the line.
    feature_names : sequence of str, default=None
    qvalues : array of float, default=None
        Each feature's q-value, shown on hover (the FDR cut).
    top_n : int, default=None
        Draw the first ``top_n`` features only (default: all up to 200, else ``max(50, 3 k_cut)``).
    value : str, default="score"
        What ``scores`` are (the y axis): ``"-log10 q"`` for the FDR cut, ``"selection
        probability"`` for stability selection.
    order : array of int, default=None
        The features in the method's own rank order (GDM: support features, then their affiliated
        features), with ``scores`` aligned with it; default: every feature by decreasing score.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    scores = np.asarray(scores, dtype=np.float64)
    if order is None:
        order = np.argsort(-scores, kind="stable")
        ranked = scores[order]
    else:
        order = np.asarray(order, dtype=np.int64)
        if scores.shape != order.shape:
            raise ValueError(
                f"ranking_cut: with 'order', 'scores' are aligned with it; got {scores.size} scores for "
                f"{order.size} features."
            )
        ranked = scores
    n = len(order) if top_n is None and len(order) <= 200 else int(top_n or max(50, 3 * int(k_cut)))
    top = order[: min(n, len(order))]
    names = names_of(feature_names, top)
    ranks = np.arange(1, len(top) + 1)
    kept = ranks <= int(k_cut)
    hover = [f"#{r} {nm}" for r, nm in zip(ranks, names, strict=True)]
    if qvalues is not None:
        q = np.asarray(qvalues, dtype=np.float64)[top]
        hover = [f"{h}<br>q = {v:.3g}" for h, v in zip(hover, q, strict=True)]
    fig = go.Figure()
    for mask, name, color in ((kept, "kept", "#0072B2"), (~kept, "left out", "#999999")):
        fig.add_trace(
            go.Scatter(
                x=ranks[mask],
                y=ranked[: len(top)][mask],
                mode="markers",
                name=name,
                marker=dict(color=color, size=6),
                text=[h for h, m in zip(hover, mask, strict=True) if m],
                hovertemplate="%{text}<br>" + value + " %{y:.4g}<extra></extra>",
            )
        )
    fig.add_vline(
        x=int(k_cut) + 0.5,
        line=dict(color="#D55E00", dash="dash"),
        annotation_text=f"{rule}: {int(k_cut)} kept",
        annotation_position="top right",
    )
    fig.update_layout(
        height=320,
        margin=dict(t=40, l=5, r=5, b=5),
        xaxis_title="rank",
        yaxis_title=value,
        title=f"the cut: {rule}",
    )
    return fig
