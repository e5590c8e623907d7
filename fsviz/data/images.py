"""Images stored as feature vectors: known shapes, the pixel-likeness test, MATLAB's column order."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

__all__ = [
    "KNOWN_IMAGE_SHAPES",
    "KNOWN_NOT_IMAGES",
    "column_major_permutation",
    "image_feature_names",
    "infer_image_shape",
]

#: image shapes (height, width) of the scikit-feature image sets whose pixel count is not
#: a square, and of the square ones for good measure; keyed by lower-cased dataset name.
#: All are stored column-major (MATLAB order) in their .mat files.
KNOWN_IMAGE_SHAPES: dict[str, tuple[int, int]] = {
    "coil20": (32, 32),
    "orl": (32, 32),
    "yale": (32, 32),
    "orlraws10p": (112, 92),
    "pixraw10p": (100, 100),
    "warpar10p": (60, 40),
    "warppie10p": (55, 44),
}
#: square feature counts that are not images (e.g. arcene's 10,000 mass-spectrometry peaks)
KNOWN_NOT_IMAGES = frozenset({"arcene"})


def infer_image_shape(n_features: int, X=None) -> tuple[int, int] | None:
    """``(s, s)`` when ``n_features == s*s`` (s >= 8) and the values look like pixels, else None.

    Pixel-like means: dense, non-negative, and either all <= 1 or integer-valued <= 255.
    (So 1024 -> 32x32 and 64 -> 8x8 for images, while a 10,000-peak spectrum with
    values up to 999 stays a plain feature vector.)
    """
    s = math.isqrt(int(n_features))
    if s < 8 or s * s != n_features:
        return None
    if X is not None:
        if sp.issparse(X):
            return None
        X = np.asarray(X)
        if X.size == 0:
            return None
        lo, hi = float(np.nanmin(X)), float(np.nanmax(X))
        if lo < 0:
            return None
        if hi > 1 and (hi > 255 or not np.all(X == np.round(X))):
            return None
    return (s, s)


def column_major_permutation(image_shape: tuple[int, int]) -> np.ndarray:
    """Column order that turns column-major (MATLAB) pixels into row-major ones.

    ``X[:, perm]`` makes ``X[i].reshape(image_shape)`` (C order) equal to the
    original ``X[i].reshape(image_shape, order="F")``; ``perm[j]`` is the original
    column of new column ``j``.
    """
    h, w = image_shape
    return np.arange(h * w).reshape((h, w), order="F").ravel()


def image_feature_names(image_shape: tuple[int, int]) -> np.ndarray:
    """``pixel_<row>_<col>`` for every pixel in C order (as scikit-learn's digits)."""
    h, w = image_shape
    return np.array([f"pixel_{r}_{c}" for r in range(h) for c in range(w)], dtype=object)
