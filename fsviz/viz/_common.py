"""Shared bits of the figure builders: colours, marker symbols, feature names."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: colours for roles and decisions, used consistently across figures (Okabe-Ito hues, grey)
ROLE_COLORS = {"SF": "#D55E00", "AF": "#0072B2", "selected": "#009E73"}
DECISION_COLORS = {
    "selected": "#009E73",
    "irrelevant": "#999999",
    "redundant": "#E69F00",
    "removed": "#D55E00",
    "dropped": "#CC79A7",
}
#: neutral colour for aggregated ("+N more") nodes and other non-data marks
NEUTRAL = "#cfcfcf"

#: Okabe & Ito's colour-blind-safe qualitative palette (black last: it is used only at n = 8)
OKABE_ITO = [
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow
    "#000000",  # black
]
#: kept for callers of the old name: the colour-blind-safe palette
QUALITATIVE = OKABE_ITO

#: marker symbols cycled together with the colours when there are more than 8 classes
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down", "star"]

# lightness levels (OKLab L) cycled over the hue ring; chroma kept modest so the colours
# stay inside the sRGB gamut at every hue
_LEVELS = (0.62, 0.80, 0.45)
_CHROMA = 0.13


def _oklch_to_hex(L: np.ndarray, C: float, h: np.ndarray) -> list[str]:
    """OKLCh -> sRGB hex (Björn Ottosson's OKLab matrices; out-of-gamut values clipped)."""
    a = C * np.cos(h)
    b = C * np.sin(h)
    lms_ = np.stack(
        [
            L + 0.3963377774 * a + 0.2158037573 * b,
            L - 0.1055613458 * a - 0.0638541728 * b,
            L - 0.0894841775 * a - 1.2914855480 * b,
        ]
    )
    lms = lms_**3
    M = np.array(
        [
            [4.0767416621, -3.3077115913, 0.2309699292],
            [-1.2684380046, 2.6097574011, -0.3413193965],
            [-0.0041960863, -0.7034186147, 1.7076147010],
        ]
    )
    lin = np.clip(M @ lms, 0.0, 1.0)
    srgb = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)
    rgb = np.rint(255 * np.clip(srgb, 0, 1)).astype(int).T
    return [f"#{r:02X}{g:02X}{b_:02X}" for r, g, b_ in rgb]


def class_colors(n: int) -> list[str]:
    """``n`` distinguishable colours for classes or groups, in a fixed order.

    Up to 8 classes get Okabe & Ito's colour-blind-safe palette (:data:`OKABE_ITO`).
    Beyond that no palette stays colour-blind safe, so the colours are spread over a
    perceptually uniform hue ring (OKLCh, constant chroma) at three lightness levels:
    ``ceil(n / 3)`` evenly spaced hues, the levels cycling with the class index and the
    hues visited in steps of about a third of the ring, so neighbouring classes differ
    in both hue and lightness. Pair them with :func:`class_symbols` (a second,
    colour-free channel) when ``n > 8``.

    Parameters
    ----------
    n : int
        Number of classes (>= 0).

    Returns
    -------
    list of str
        ``n`` distinct ``#RRGGBB`` colours (distinct for every n up to several hundred).

    Examples
    --------
    >>> class_colors(3)
    ['#E69F00', '#56B4E9', '#009E73']
    >>> len(set(class_colors(40)))
    40
    """
    n = int(n)
    if n < 0:
        raise ValueError(f"class_colors: 'n' must be >= 0; got {n}.")
    if n <= len(OKABE_ITO):
        return OKABE_ITO[:n]
    n_lev = len(_LEVELS)
    n_hue = -(-n // n_lev)
    i = np.arange(n)
    level = i % n_lev
    # a stride coprime with n_hue walks all hues, jumping ~1/3 of the ring between classes
    stride = max(1, round(n_hue / 3))
    while np.gcd(stride, n_hue) != 1:
        stride += 1
    slot = ((i // n_lev) * stride + level * max(1, n_hue // (2 * n_lev))) % n_hue
    hue = 2 * np.pi * (slot + level / n_lev) / n_hue + 0.5
    return _oklch_to_hex(np.asarray(_LEVELS)[level], _CHROMA, hue)


def class_symbols(n: int) -> list[str]:
    """Marker symbols to pair with :func:`class_colors`: all circles up to 8 classes, then cycling.

    Parameters
    ----------
    n : int
        Number of classes.

    Returns
    -------
    list of str
        Plotly marker symbol names; with more than 8 classes consecutive classes get
        different symbols, so even two similar colours are told apart by their shape.

    Examples
    --------
    >>> class_symbols(10)[:3]
    ['circle', 'square', 'diamond']
    """
    n = int(n)
    if n <= len(OKABE_ITO):
        return ["circle"] * max(n, 0)
    return [SYMBOLS[i % len(SYMBOLS)] for i in range(n)]


def hex_to_rgb(colors: Sequence[str]) -> np.ndarray:
    """``#RRGGBB`` strings -> float array of shape (len(colors), 3) in [0, 255]."""
    h = [c.lstrip("#") for c in colors]
    return np.array([[int(c[k : k + 2], 16) for k in (0, 2, 4)] for c in h], dtype=np.float64).reshape(-1, 3)


def names_of(feature_names: Sequence[str] | None, idx) -> list[str]:
    """Feature names for indices (``f<i>`` when no names are given)."""
    idx = np.asarray(idx, dtype=np.int64)
    if feature_names is None:
        return [f"f{i}" for i in idx]
    if isinstance(feature_names, np.ndarray):  # pick first: converting all names costs O(m) per call
        return [str(s) for s in feature_names[idx]]
    return [str(feature_names[int(i)]) for i in idx]
