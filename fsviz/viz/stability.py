"""Selection stability across resamples: how often each feature is chosen."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np
import plotly.graph_objects as go

from fsviz.viz._adapt import feature_names_of
from fsviz.viz._common import names_of


def stability_bars(
    freq,
    feature_names: Sequence[str] | None = None,
    *,
    k: int = 30,
    kuncheva: float | None = None,
    jaccard: float | None = None,
    n_resamples: int | None = None,
) -> go.Figure:
    """Bars of the ``k`` most frequently selected features across resamples.

    Parameters
    ----------
    freq : array of shape (n_features,)
        Selection frequency of each feature in [0, 1], e.g.
        :func:`fsviz.evaluate.selection_frequency` (or a per-group frequency with group
        names as ``feature_names``).
    feature_names : sequence of str or DataFrame, default=None
    k : int, default=30
    kuncheva, jaccard : float, default=None
        Stability indices of the same selections (:func:`fsviz.evaluate.selection_stability`),
        shown in the title when given.
    n_resamples : int, default=None
        Number of resamples, for the title and hover (counts = frequency x resamples).

    Returns
    -------
    plotly.graph_objects.Figure
        Most frequent at the top; bar colour from grey (rarely chosen) to green (chosen
        in every resample); dotted lines at 50% and 100%. Ties in frequency are ordered
        by feature index.

    Examples
    --------
    >>> list(stability_bars(np.array([0.2, 1.0, 0.6]), k=2).data[0].y)
    ['f2', 'f1']
    """
    feature_names = feature_names_of(None, feature_names)  # a DataFrame: its columns
    freq = np.asarray(freq, dtype=np.float64)
    if freq.ndim != 1 or (freq.size and (freq.min() < 0 or freq.max() > 1)):
        raise ValueError(
            f"stability_bars: 'freq' must be a 1-D array of frequencies in [0, 1]; got shape {freq.shape}"
            + (f", range [{freq.min():.3g}, {freq.max():.3g}]." if freq.size and freq.ndim == 1 else ".")
        )
    if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
        raise ValueError(f"stability_bars: 'k' must be a positive int; got {k!r}.")
    top = np.lexsort((np.arange(freq.size), -freq))[:k][::-1]  # most frequent drawn last = on top
    names = names_of(feature_names, top)
    f = freq[top]
    counts = [f"<br>{round(x * n_resamples)} of {n_resamples} resamples" if n_resamples else "" for x in f]
    fig = go.Figure(
        go.Bar(
            x=f,
            y=names,
            orientation="h",
            marker=dict(color=f, colorscale=[[0, "#bdbdbd"], [1, "#009E73"]], cmin=0, cmax=1),
            hovertext=[
                f"<b>{nm}</b> (#{i})<br>selected in {100 * x:.0f}%{c}"
                for nm, i, x, c in zip(names, top, f, counts, strict=True)
            ],
            hoverinfo="text",
        )
    )
    for x in (0.5, 1.0):
        fig.add_vline(x=x, line_dash="dot", line_color="#999999")
    parts = [f"{n_resamples} resamples"] if n_resamples else []
    if kuncheva is not None:
        parts.append(f"Kuncheva {kuncheva:.3f}")
    if jaccard is not None:
        parts.append(f"Jaccard {jaccard:.3f}")
    fig.update_xaxes(title_text="selection frequency", range=[0, 1.02], tickformat=".0%")
    fig.update_layout(
        height=max(300, 22 * top.size + 90),
        margin=dict(t=50, l=5, r=5, b=5),
        title=f"Top {top.size} features by selection frequency" + (f" ({', '.join(parts)})" if parts else ""),
    )
    return fig
