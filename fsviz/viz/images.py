"""Pixel masks of GDM's groups on images (the GDM papers' ICML Fig. 1 / Fig. 6 style)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsviz.viz._adapt import as_groups
from fsviz.viz._common import class_colors, hex_to_rgb

SF_RGB = np.array([230, 25, 25], dtype=np.float64)


def _grey(img: np.ndarray) -> np.ndarray:
    """An image scaled to [0, 255] grey, as (h, w, 3)."""
    img = np.asarray(img, dtype=np.float64)
    lo, hi = np.nanmin(img), np.nanmax(img)
    g = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
    return np.repeat((255.0 * g)[:, :, None], 3, axis=2)


FADE = 0.15  # opacity factor of the groups not highlighted
BRIGHT = 0.9  # least opacity of the highlighted group's tint on the images


def _weights(n: int, keep: np.ndarray | None) -> np.ndarray:
    """Per-pixel opacity factor: 1 for the highlighted group's pixels, FADE for the others."""
    if keep is None:
        return np.ones(n)
    return np.where(np.asarray(keep, dtype=bool), 1.0, FADE)


def overlay_rgb(
    img: np.ndarray,
    support: np.ndarray,
    af: np.ndarray,
    af_group: np.ndarray,
    alpha: float = 0.6,
    support_keep: np.ndarray | None = None,
    af_keep: np.ndarray | None = None,
) -> np.ndarray:
    """Tint support pixels red and affiliated pixels in their group's colour on a grey image.

    The tint is multiplicative (a tinted pixel keeps its brightness, so the picture stays
    readable however many pixels are selected) plus a small additive part that makes
    selected dark pixels visible. ``support_keep`` / ``af_keep`` (boolean, aligned with
    ``support`` / ``af``) mark a highlighted group: its pixels get at least ``BRIGHT``
    opacity, the others ``FADE * alpha``. Returns a uint8 array of shape (h, w, 3); pixel indices
    are flat C-order indices.
    """
    h, w = img.shape
    rgb = _grey(img).reshape(-1, 3)
    highlighted = support_keep is not None or af_keep is not None

    def tint(idx, colours, weight):
        lum = rgb[idx] / 255.0
        target = (0.35 + 0.65 * lum) * colours
        a = np.where(weight < 1, alpha * weight, max(alpha, BRIGHT) if highlighted else alpha)[:, None]
        rgb[idx] = (1 - a) * rgb[idx] + a * target

    if af.size:
        cols = hex_to_rgb(class_colors(int(af_group.max()) + 1))
        tint(af, cols[af_group], _weights(af.size, af_keep))
    if support.size:
        tint(support, np.broadcast_to(SF_RGB, (support.size, 3)), _weights(support.size, support_keep))
    return np.clip(rgb, 0, 255).astype(np.uint8).reshape(h, w, 3)


def _is_shape(v) -> bool:
    return isinstance(v, tuple | list) and len(v) == 2 and all(isinstance(s, int | np.integer) for s in v)


def _panels_from(shape: tuple, images, labels, n_examples: int = 3, max_classes: int = 10):
    """ImagePanels-like from an image shape and optionally the images (rows of X) and labels."""
    h, w = map(int, shape)
    empty = np.zeros((0, h, w))
    if images is None:
        return SimpleNamespace(examples=empty, example_labels=(), means=empty, mean_labels=(), shape=(h, w))
    imgs = np.asarray(images.toarray() if hasattr(images, "toarray") else images, dtype=np.float64)
    if imgs.ndim != 2 or imgs.shape[1] != h * w:
        raise ValueError(
            f"pixel_masks: 'images' must have shape (n_samples, {h} * {w} = {h * w}); got {imgs.shape}."
        )
    imgs = imgs.reshape(-1, h, w)
    if labels is None:
        return SimpleNamespace(
            examples=imgs[:n_examples],
            example_labels=("",) * min(n_examples, len(imgs)),
            means=imgs.mean(axis=0, keepdims=True),
            mean_labels=("mean image",),
            shape=(h, w),
        )
    labels = np.asarray(labels)
    classes = np.unique(labels)[:max_classes]
    first = [int(np.flatnonzero(labels == c)[0]) for c in classes[:n_examples]]
    return SimpleNamespace(
        examples=imgs[first],
        example_labels=tuple(str(labels[i]) for i in first),
        means=np.stack([imgs[labels == c].mean(axis=0) for c in classes]),
        mean_labels=tuple(f"class {c} mean" for c in classes),
        shape=(h, w),
    )


def pixel_masks(
    panels,
    result,
    *,
    images=None,
    labels=None,
    highlight: int | None = None,
    show_af: bool = True,
    overlay: bool = True,
    alpha: float = 0.6,
    panel_px: int = 240,
) -> go.Figure:
    """Example images and class means with support-feature and affiliated-feature pixels.

    Top row: example images; bottom row: the class mean images, then the support-feature
    mask (red, intensity = score) and the affiliated-feature mask (one colour per group,
    support pixels in dark red). With ``overlay`` every image has its support pixels
    blended in red and its affiliated pixels in their group's colour, like the GDM papers'
    figures of selected pixels.

    Parameters
    ----------
    panels : ImagePanels-like or (h, w)
        ``examples`` (k, h, w), ``example_labels``, ``means`` (c, h, w), ``mean_labels``, ``shape``
        (the run layer's ``ImagePanels``); or the image shape, with the pictures taken from
        ``images`` and ``labels`` (only the masks without them).
    result : fitted selector or GroupResult-like
        A fitted :class:`fsviz.select.GDM` (or any fitted selector: its selected pixels as
        support features), or an object with ``support``, ``sf_scores``, ``af``, ``af_sf`` (flat
        pixel indices, C order). ``pixel_masks(gdm, (8, 8))`` (estimator first) works too.
    images : array-like of shape (n_samples, h * w), default=None
        With an image shape as ``panels``: the samples (rows of X, flat C order); the first
        sample of each class (at most 3) is shown and the mean image of each class (at most 10).
    labels : array-like of shape (n_samples,), default=None
        Class of each row of ``images`` (one mean image when None).
    highlight : int, default=None
        Highlight this support feature's group: its pixels stay bright and the other
        groups' pixels fade (GDM ICML'14 Fig. 6 style); None or a negative value: all
        groups alike.
    show_af : bool, default=True
        Draw the affiliated pixels.
    overlay : bool, default=True
        Blend the pixels into the example and mean images (False: plain images).
    alpha : float, default=0.6
        Opacity of the blended colours.
    panel_px : int, default=240
        Height of one image row in pixels.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> r = SimpleNamespace(support=[5], sf_scores=[1.0], af=[6], af_sf=[5])
    >>> fig = pixel_masks((4, 4), r, images=np.arange(32.0).reshape(2, 16), labels=[0, 1])
    >>> [a.text for a in fig.layout.annotations][-2:]
    ['support pixels (1)', 'affiliated pixels (1)']
    """
    if _is_shape(result) and not _is_shape(panels):
        panels, result = result, panels
    if _is_shape(panels):
        panels = _panels_from(panels, images, labels)
    if not hasattr(result, "af_sf"):
        result = as_groups(result, "pixel_masks")
    h, w = map(int, panels.shape)
    support = np.asarray(result.support, dtype=np.int64)
    sf_scores = np.asarray(result.sf_scores, dtype=np.float64)
    af = np.asarray(result.af, dtype=np.int64)
    af_sf = np.asarray(result.af_sf, dtype=np.int64)
    # colour of a group = position of its SF in the full support list (stable under highlight)
    order = np.argsort(support, kind="stable")
    af_group = order[np.searchsorted(support, af_sf, sorter=order)] if af.size else np.zeros(0, np.int64)
    keep = keep_af = None
    if highlight is not None and int(highlight) >= 0:
        keep = support == int(highlight)
        keep_af = af_sf == int(highlight)
    if not show_af:
        af, af_sf, af_group = af[:0], af_sf[:0], af_group[:0]
        keep_af = None if keep_af is None else keep_af[:0]

    examples, means = np.asarray(panels.examples), np.asarray(panels.means)
    ncols = max(len(examples), len(means) + 2)
    # no example images (only a shape was given): one row, the means and masks
    first_row = 1 if len(examples) else 0
    titles = [f"example (class {lab})" if lab else "example" for lab in panels.example_labels]
    titles += [""] * (ncols - len(examples)) if first_row else []
    if keep is None:
        mask_titles = [f"support pixels ({len(support)})", f"affiliated pixels ({len(af)})"]
    else:
        mask_titles = [
            f"support pixels ({len(support)})",
            f"affiliated pixels<br>{int(keep_af.sum())} of {len(af)} in group",
        ]
    titles += list(panels.mean_labels) + mask_titles
    titles += [""] * (ncols - len(means) - 2)
    fig = make_subplots(
        rows=1 + first_row, cols=ncols, subplot_titles=titles, horizontal_spacing=0.015, vertical_spacing=0.09
    )
    none = np.zeros(0, np.int64)

    def image(rgb, row, col, name):
        fig.add_trace(
            go.Image(z=rgb, name=name, hovertemplate="row %{y}, col %{x}<extra>" + name + "</extra>"),
            row,
            col,
        )

    def tinted(img):
        if not overlay:
            return overlay_rgb(img, none, none, none)
        return overlay_rgb(img, support, af, af_group, alpha, keep, keep_af)

    for i, img in enumerate(examples):
        image(tinted(img), 1, i + 1, titles[i])
    for i, img in enumerate(means):
        image(tinted(img), 1 + first_row, i + 1, panels.mean_labels[i])
    sf_mask = np.full((h * w, 3), 255.0)
    if support.size:
        top = sf_scores.max() if sf_scores.size and sf_scores.max() > 0 else 1.0
        strength = (0.25 + 0.75 * np.clip(sf_scores / top, 0, 1)) * _weights(support.size, keep)
        sf_mask[support] = (1 - strength[:, None]) * 255.0 + strength[:, None] * SF_RGB
    image(sf_mask.reshape(h, w, 3).astype(np.uint8), 1 + first_row, len(means) + 1, "support pixels")
    af_mask = np.full((h * w, 3), 255.0)
    if af.size:
        cols = hex_to_rgb(class_colors(int(af_group.max()) + 1))
        wa = _weights(af.size, keep_af)[:, None]
        af_mask[af] = (1 - wa) * 255.0 + wa * cols[af_group]
    ws = _weights(support.size, keep)[:, None]
    af_mask[support] = (1 - ws) * 255.0 + ws * np.array([120.0, 0.0, 0.0])
    image(af_mask.reshape(h, w, 3).astype(np.uint8), 1 + first_row, len(means) + 2, "affiliated pixels")
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False)
    fig.update_layout(
        height=int((1 + first_row) * panel_px + 120),
        margin=dict(t=70, l=5, r=5, b=5),
        plot_bgcolor="white",
        title="Support-feature pixels (red) and affiliated-feature pixels (one colour per group)"
        + ("" if keep is None else f"; group of pixel {int(highlight)} highlighted, the others faded"),
    )
    return fig
