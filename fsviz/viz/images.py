"""Pixel masks of GDM's groups on images (the GDM papers' ICML Fig. 1 / Fig. 6 style)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsviz.viz._common import QUALITATIVE, ROLE_COLORS


def _pixels(idx: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(column, row) of flat C-order pixel indices."""
    idx = np.asarray(idx, dtype=np.int64)
    return idx % w, idx // w


def pixel_masks(panels, result, *, highlight: int | None = None, show_af: bool = True,
                width: int = 1300) -> go.Figure:
    """Example images and class means with support-feature and affiliated-feature pixels.

    Top row: example images; bottom row: class mean images, then the support-feature pixel
    mask (score as intensity) and the affiliated-feature mask (one colour per group). Every
    image carries the overlay: support pixels as red squares, affiliated pixels as open
    squares in their group's colour.

    Parameters
    ----------
    panels : ImagePanels-like
        ``examples`` (k, h, w), ``example_labels``, ``means`` (c, h, w), ``mean_labels``, ``shape``.
    result : GroupResult-like
        ``support``, ``sf_scores``, ``af``, ``af_sf`` (flat pixel indices, C order).
    highlight : int, default=None
        Show only this support feature's group (its SF and AF pixels).
    show_af : bool, default=True
        Draw the affiliated pixels.
    width : int, default=1300
        Figure width in pixels (marker sizes follow it).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    h, w = map(int, panels.shape)
    support = np.asarray(result.support, dtype=np.int64)
    sf_scores = np.asarray(result.sf_scores, dtype=np.float64)
    af = np.asarray(result.af, dtype=np.int64)
    af_sf = np.asarray(result.af_sf, dtype=np.int64)
    if highlight is not None:
        keep = support == int(highlight)
        support, sf_scores = support[keep], sf_scores[keep]
        keep_af = af_sf == int(highlight)
        af, af_sf = af[keep_af], af_sf[keep_af]
    if not show_af:
        af, af_sf = af[:0], af_sf[:0]
    # group colour per AF: position of its SF in support order
    order = np.argsort(support, kind="stable")
    af_group = order[np.searchsorted(support, af_sf, sorter=order)] if af.size else np.zeros(0, np.int64)
    af_colors = [QUALITATIVE[g % len(QUALITATIVE)] for g in af_group]

    examples, means = np.asarray(panels.examples), np.asarray(panels.means)
    ncols = max(len(examples), len(means) + 2)
    titles = [f"example (class {lab})" if lab else "example" for lab in panels.example_labels]
    titles += [""] * (ncols - len(examples))
    titles += list(panels.mean_labels) + [f"SF pixels ({len(support)})", f"AF pixels ({len(af)})"]
    titles += [""] * (ncols - len(means) - 2)
    fig = make_subplots(rows=2, cols=ncols, subplot_titles=titles, horizontal_spacing=0.02,
                        vertical_spacing=0.08)
    panel_px = width / ncols
    msize = max(3.0, 0.55 * panel_px / max(h, w))
    sx, sy = _pixels(support, w)
    ax, ay = _pixels(af, w)

    def image(z, row, col, colorscale="gray", zmin=None, zmax=None):
        fig.add_trace(go.Heatmap(z=z, colorscale=colorscale, showscale=False, zmin=zmin, zmax=zmax,
                                 hovertemplate="row %{y}, col %{x}: %{z:.3g}<extra></extra>"), row, col)

    def overlay(row, col, legend):
        if af.size:
            fig.add_trace(go.Scatter(x=ax, y=ay, mode="markers", name="affiliated pixels",
                                     legendgroup="af", showlegend=legend,
                                     marker=dict(symbol="square-open", size=msize, color=af_colors,
                                                 line=dict(width=2)),
                                     hovertemplate="AF pixel (row %{y}, col %{x})<extra></extra>"), row, col)
        fig.add_trace(go.Scatter(x=sx, y=sy, mode="markers", name="support pixels", legendgroup="sf",
                                 showlegend=legend,
                                 marker=dict(symbol="square", size=msize * 0.7, color=ROLE_COLORS["SF"],
                                             line=dict(width=1, color="white")),
                                 hovertemplate="SF pixel (row %{y}, col %{x})<extra></extra>"), row, col)

    first = True
    for i, img in enumerate(examples):
        image(img, 1, i + 1)
        overlay(1, i + 1, first)
        first = False
    for i, img in enumerate(means):
        image(img, 2, i + 1)
        overlay(2, i + 1, False)
    sf_mask = np.full(h * w, np.nan)
    sf_mask[support] = sf_scores
    image(sf_mask.reshape(h, w), 2, len(means) + 1, colorscale="Reds", zmin=0)
    af_mask = np.full(h * w, np.nan)
    if af.size:
        af_mask[af] = af_group % len(QUALITATIVE)
    scale = [[i / (len(QUALITATIVE) - 1), c] for i, c in enumerate(QUALITATIVE)]
    image(af_mask.reshape(h, w), 2, len(means) + 2, colorscale=scale, zmin=0, zmax=len(QUALITATIVE) - 1)
    fig.add_trace(go.Scatter(x=sx, y=sy, mode="markers", showlegend=False,
                             marker=dict(symbol="square-open", size=msize, color=ROLE_COLORS["SF"]),
                             hoverinfo="skip"), 2, len(means) + 2)
    for k in range(1, 2 * ncols + 1):
        sfx = "" if k == 1 else str(k)
        fig.layout[f"xaxis{sfx}"].update(showticklabels=False, showgrid=False, zeroline=False,
                                         range=[-0.5, w - 0.5], constrain="domain")
        fig.layout[f"yaxis{sfx}"].update(showticklabels=False, showgrid=False, zeroline=False,
                                         range=[h - 0.5, -0.5], scaleanchor=f"x{sfx}", constrain="domain")
    fig.update_layout(height=int(2 * panel_px * h / w + 140), width=width, margin=dict(t=50, l=5, r=5, b=5),
                      plot_bgcolor="white", legend=dict(orientation="h", y=1.06, x=0),
                      title="Support-feature (red) and affiliated-feature pixels on examples and class means")
    return fig
