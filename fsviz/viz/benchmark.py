"""The survey's benchmark as curves: quality against the number of selected features."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsviz.viz._common import class_colors, hex_to_rgb

_TITLES = {
    "linear_svm": "linear SVM",
    "decision_tree": "decision tree",
    "naive_bayes": "naive Bayes",
    "knn": "1-NN",
    "nmi": "NMI (K-means)",
    "acc": "clustering ACC (K-means)",
}
_REQUIRED = ("method", "kind", "classifier", "k")


def _check(summary, who: str, columns) -> None:
    missing = [c for c in (*_REQUIRED, *columns) if c not in getattr(summary, "columns", ())]
    if missing:
        raise ValueError(
            f"{who}: 'summary' must be fsviz.compute.benchmark_summary's table; it lacks {missing}."
        )


def _panels(fig, summary, panels, metric_of, col_of, ytitle: str) -> go.Figure:
    methods = list(dict.fromkeys(summary["method"]))
    colors = class_colors(len(methods))
    rgb = hex_to_rgb(colors)
    for p, panel in enumerate(panels, start=1):
        part = summary[col_of(summary) == panel]
        metric = metric_of(panel)
        for i, m in enumerate(methods):
            rows = part[part["method"] == m].sort_values("k")
            if rows.empty:
                continue
            k = rows["k"].to_numpy()
            mean = rows[metric].to_numpy(dtype=float)
            std = np.nan_to_num(rows[f"{metric}_std"].to_numpy(dtype=float))
            r, g, b = (int(v) for v in rgb[i])
            fig.add_trace(  # the band: mean + spread, then mean - spread filled up to it
                go.Scatter(
                    x=np.concatenate([k, k[::-1]]),
                    y=np.clip(np.concatenate([mean + std, (mean - std)[::-1]]), 0.0, 1.0),
                    fill="toself",
                    fillcolor=f"rgba({r},{g},{b},0.18)",
                    line={"width": 0},
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=m,
                ),
                row=1,
                col=p,
            )
            fig.add_trace(
                go.Scatter(
                    x=k,
                    y=mean,
                    mode="lines+markers",
                    name=m,
                    legendgroup=m,
                    showlegend=p == 1,
                    line={"color": colors[i], "width": 2},
                    marker={"size": 5},
                    customdata=np.column_stack([std, rows["n_used"].to_numpy(dtype=float)]),
                    hovertemplate=f"{m}<br>k=%{{x}} (used %{{customdata[1]:.0f}})<br>"
                    f"{metric}=%{{y:.3f}} ± %{{customdata[0]:.3f}}<extra></extra>",
                ),
                row=1,
                col=p,
            )
        fig.update_xaxes(title_text="number of selected features k", row=1, col=p)
    fig.update_yaxes(title_text=ytitle, row=1, col=1)
    fig.update_layout(
        height=420, margin={"l": 60, "r": 20, "t": 60, "b": 50}, legend={"title": {"text": "method"}}
    )
    return fig


def accuracy_curves(summary) -> go.Figure:
    """Mean test accuracy against k, one line per method and one panel per classifier.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`fsviz.compute.benchmark_summary` of a :func:`fsviz.evaluate.benchmark`
        table; its classification rows are drawn.

    Returns
    -------
    plotly.graph_objects.Figure
        Lines: the mean over the folds; shaded bands: mean ± the fold standard deviation,
        clipped to [0, 1] (the survey's plots of accuracy against the number of features).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"method": ["fisher"] * 2, "kind": ["classification"] * 2,
    ...                   "classifier": ["naive_bayes"] * 2, "k": [5, 10], "accuracy": [0.8, 0.9],
    ...                   "accuracy_std": [0.05, 0.02], "n_used": [5, 10]})
    >>> fig = accuracy_curves(s)
    >>> [t.name for t in fig.data if t.showlegend is not False], fig.layout.annotations[0].text
    (['fisher'], 'naive Bayes')
    """
    _check(summary, "accuracy_curves", ("accuracy", "accuracy_std", "n_used"))
    part = summary[summary["kind"] == "classification"]
    panels = list(dict.fromkeys(part["classifier"])) or [""]
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        subplot_titles=[_TITLES.get(c, c) for c in panels],
        horizontal_spacing=0.04,
    )
    fig = _panels(fig, part, panels, lambda _: "accuracy", lambda s: s["classifier"], "test accuracy")
    fig.update_layout(title="Classification accuracy on the top k features (mean ± fold std)")
    return fig


def clustering_curves(summary) -> go.Figure:
    """Mean NMI and clustering accuracy (K-means) against k, one line per unsupervised method.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`fsviz.compute.benchmark_summary` of a benchmark table; its clustering rows
        are drawn.

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels (NMI, ACC); bands are mean ± the standard deviation over the K-means repeats.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"method": ["lgd"], "kind": ["clustering"], "classifier": ["kmeans"],
    ...                   "k": [5], "nmi": [0.4], "nmi_std": [0.1], "acc": [0.6], "acc_std": [0.1],
    ...                   "n_used": [5]})
    >>> [a.text for a in clustering_curves(s).layout.annotations]
    ['NMI (K-means)', 'clustering ACC (K-means)']
    """
    _check(summary, "clustering_curves", ("nmi", "nmi_std", "acc", "acc_std", "n_used"))
    part = summary[summary["kind"] == "clustering"]
    panels = ["nmi", "acc"]
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        subplot_titles=[_TITLES[p] for p in panels],
        horizontal_spacing=0.05,
    )
    both = pd.concat([part.assign(_panel="nmi"), part.assign(_panel="acc")], ignore_index=True)
    fig = _panels(fig, both, panels, lambda p: p, lambda s: s["_panel"], "score")
    fig.update_layout(title="Clustering quality of the top k features (mean ± std over K-means repeats)")
    return fig


__all__ = ["accuracy_curves", "clustering_curves"]
