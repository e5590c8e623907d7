"""Runners of the views: the histogram, top pairs, correlations, leakage, PCA and image panels.

A view is a computation the app shows that is not a feature selection. Each declares its
parameters here, as the selectors do on their estimators: a :class:`~fsviz._params.Param`
per parameter, whose default is read from the library function that owns it where there is
one (``bins`` from :func:`fsviz.stats.correlation_histogram`'s signature), so a
:class:`~fsviz.compute.Run` fills it, the app draws its widget and the CLI its option from
the same record.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz import data, stats
from fsviz._params import Param, signature_default
from fsviz.compute import results as R
from fsviz.compute.runs import Context, Run
from fsviz.stats.correlation import correlation_histogram

__all__ = [
    "CORRELATIONS_PARAMS",
    "HISTOGRAM_PARAMS",
    "IMAGES_PARAMS",
    "PAIRS_PARAMS",
    "PROJECTION_PARAMS",
    "correlations",
    "histogram",
    "images",
    "leakage",
    "pairs",
    "projection",
]

_POSITIVE = (Interval(Integral, 1, None, closed="left"),)
#: Pearson or Spearman, as :func:`fsviz.stats.top_pairs` and ``correlations_with`` take it
_CORRELATION = Param(
    name="method",
    default=signature_default(stats.top_pairs, "method"),
    constraints=(StrOptions({"pearson", "spearman"}),),
    label="correlation",
    help="Pearson's r, or Spearman's rho (Pearson on ranks).",
)

HISTOGRAM_PARAMS = (
    Param(
        name="bins",
        default=signature_default(correlation_histogram, "bins"),
        constraints=(Interval(Integral, 1, 100_000, closed="both"),),
        label="intervals on [0, 1]",
        help="Equal-width intervals of |rho| on [0, 1].",
        options=(10, 20, 50, 100),
    ),
    Param(
        name="edges",
        default=None,
        constraints=("array-like", None),
        label="bin edges",
        help="Explicit bin edges in [0, 1], increasing (instead of 'bins').",
    ),
    Param(
        name="max_features",
        # 4.5e8 pairs, a few seconds (120 samples x 25,000 features: 3.3 s on two cores)
        default=30_000,
        constraints=(Interval(Integral, 0, None, closed="left"), None),
        label="exact up to this many features (else a sampled estimate)",
        help="Count every pair up to this many features, else estimate from sampled pairs; "
        "0: always estimate; none: always exact.",
        step=1000,
        practical=(100, 10_000_000),
    ),
    Param(
        name="n_sample_pairs",
        default=signature_default(correlation_histogram, "n_sample_pairs"),
        constraints=_POSITIVE,
        label="pairs sampled for an estimate",
        help="Pairs drawn uniformly when the histogram is estimated.",
    ),
    Param(
        name="block_size",
        default=signature_default(correlation_histogram, "block_size"),
        constraints=_POSITIVE,
        label="features per block",
        help="Dense data: features per BLAS block (memory, not the counts).",
    ),
    Param(
        name="precision",
        default=signature_default(correlation_histogram, "precision"),
        constraints=(StrOptions({"float64", "float32"}),),
        label="BLAS precision",
        help="float32 re-checks values near an edge in float64; the counts stay exact.",
    ),
)
PAIRS_PARAMS = (
    Param(
        name="k",
        default=50,
        constraints=_POSITIVE,
        label="top pairs",
        help="How many of the most correlated pairs to list.",
        step=5,
        practical=(5, 2000),
    ),
    _CORRELATION,
)
CORRELATIONS_PARAMS = (
    Param(
        name="against",
        default="target",
        label="correlation with",
        help="'target', or the index of one feature.",
    ),
    _CORRELATION,
)
PROJECTION_PARAMS = (
    Param(name="features", default=(), label="features", help="Indices of the features projected."),
)
IMAGES_PARAMS = (
    Param(name="shape", default=None, label="image shape", help="(height, width) of one sample's image."),
    Param(
        name="n_examples",
        default=4,
        constraints=_POSITIVE,
        label="example images",
        help="Example images, one per class in turn.",
        practical=(1, 8),
    ),
    Param(
        name="max_means",
        default=4,
        constraints=_POSITIVE,
        label="class means",
        help="Mean images shown (the first classes).",
    ),
)


def histogram(run: Run, ctx: Context) -> R.HistogramResult:
    """Exact over all pairs up to ``max_features`` features (none: always), else a sampled
    estimate (flagged); ``edges``, when given, replace the ``bins`` equal intervals."""
    ds = ctx.dataset
    limit, edges = run.get("max_features"), run.get("edges")
    res = stats.correlation_histogram(
        ds.X,
        bins=int(run.get("bins")) if edges is None else np.asarray(edges, dtype=np.float64),
        block_size=run.get("block_size"),
        exact=limit is None or ds.X.shape[1] <= limit,
        n_sample_pairs=run.get("n_sample_pairs"),
        random_state=run.seed,
        precision=run.get("precision"),
        client=ctx.client,
        progress=lambda done, total: ctx.progress(done / max(total, 1), f"{done} of {total} blocks"),
    )
    counts = np.asarray(res.counts, dtype=np.float64)
    return R.HistogramResult(
        run,
        getattr(ds, "fingerprint", ""),
        np.asarray(res.edges, dtype=np.float64),
        counts,
        bool(res.exact),
        int(round(counts.sum())) if res.exact else int(res.n_evaluated),  # an estimate: its sample
        int(res.n_pairs),
        len(res.constant_features),
        float(res.seconds),
        n_above=res.n_above,
        n_evaluated=int(res.n_evaluated),
        algorithm=str(res.method),
    )


def pairs(run: Run, ctx: Context) -> R.PairsResult:
    """``fsviz.stats.top_pairs``: the ``k`` most correlated pairs, Pearson or Spearman."""
    ds = ctx.dataset
    t0 = time.perf_counter()
    frame = stats.top_pairs(ds.X, int(run.get("k")), method=str(run.get("method")))
    i, j = frame["i"].to_numpy(np.int64), frame["j"].to_numpy(np.int64)
    return R.PairsResult(
        run, ds.fingerprint, i, j, frame["rho"].to_numpy(np.float64), time.perf_counter() - t0
    )


def correlations(run: Run, ctx: Context) -> R.CorrelationsResult:
    """``fsviz.stats.correlations_with`` one feature (``against`` = its index) or the target."""
    ds = ctx.dataset
    against, method = run.get("against"), str(run.get("method"))
    t0 = time.perf_counter()
    if against == "target":
        if ds.y is None:
            raise ValueError(f"correlation with the target: dataset {ds.name!r} has none; pick a feature.")
        rho, label = stats.correlations_with(ds.X, ds.y, method=method), "the target"
    else:
        j = int(against)
        rho = stats.correlations_with(ds.X, j, method=method)
        label = str(ds.feature_labels[j])
    return R.CorrelationsResult(run, ds.fingerprint, np.asarray(rho), label, time.perf_counter() - t0)


def leakage(run: Run, ctx: Context) -> R.LeakageResult:
    """``fsviz.data.leaky_features`` of the dataset's target (empty without classes)."""
    ds = ctx.dataset
    t0 = time.perf_counter()
    found = ()
    if ds.y is not None and ds.is_classification and len(np.unique(ds.y)) > 1:
        found = tuple(data.leaky_features(ds.X, ds.labels, ds.feature_names))
    return R.LeakageResult(run, ds.fingerprint, found, time.perf_counter() - t0)


def projection(run: Run, ctx: Context) -> R.Projection:
    """PCA to two components of the standardised columns ``features``."""
    from sklearn.decomposition import PCA

    ds = ctx.dataset
    idx = np.asarray(run.get("features"), dtype=np.intp)
    if idx.size == 0:
        raise ValueError("projection: 'features' is empty; choose a selection with at least one feature.")
    Xs = ds.X[:, idx]
    Xs = Xs.toarray() if sp.issparse(Xs) else np.asarray(Xs, dtype=np.float64)
    std = Xs.std(axis=0)
    Xs = (Xs - Xs.mean(axis=0)) / np.where(std > 0, std, 1.0)
    n_comp = min(2, Xs.shape[1], Xs.shape[0])
    pca = PCA(n_components=n_comp, random_state=run.seed).fit(Xs)
    coords = pca.transform(Xs)
    if n_comp < 2:
        coords = np.column_stack([coords, np.zeros(len(coords))])
    explained = np.pad(pca.explained_variance_ratio_, (0, 2 - n_comp))
    return R.Projection(run, ds.fingerprint, coords, explained, idx.astype(np.int64))


def images(run: Run, ctx: Context) -> R.ImagePanels:
    """Example images (one per class, round robin) and per-class means, in ``shape``.

    A continuous target has no classes: random examples labelled with their ``y`` and the
    means of the samples at most / above the median of ``y``.

    Rows of X are reshaped in C order (the loader already turned MATLAB's column-major
    images upright). With more than ``max_means`` classes the first ``max_means`` are shown.
    """
    ds = ctx.dataset
    shape = run.get("shape")
    if not shape:
        raise ValueError(f"image panels: dataset {ds.name!r} has no image shape; set it in the sidebar.")
    h, w = map(int, shape)
    if h * w != ds.X.shape[1]:
        raise ValueError(f"image panels: {h} x {w} pixels do not match the {ds.X.shape[1]} features.")
    n_examples, max_means = int(run.get("n_examples")), int(run.get("max_means"))
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X, dtype=np.float64)
    rng = np.random.default_rng(run.seed)
    y = getattr(ds, "y", None)
    if y is None:
        pick = rng.choice(len(X), size=min(n_examples, len(X)), replace=False)
        mean = X.mean(0).reshape(1, h, w)
        examples = X[pick].reshape(-1, h, w)
        return R.ImagePanels(run, ds.fingerprint, examples, ("",) * len(pick), mean, ("all samples",), (h, w))
    if getattr(ds, "target_kind", None) == "continuous":  # no classes: halves of the target
        pick = rng.choice(len(X), size=min(n_examples, len(X)), replace=False)
        low = y <= np.median(y)
        means = np.stack([X[low].mean(0), X[~low].mean(0) if (~low).any() else X[low].mean(0)])
        return R.ImagePanels(
            run,
            ds.fingerprint,
            X[pick].reshape(-1, h, w),
            tuple(f"y = {v:.3g}" for v in y[pick]),
            means.reshape(-1, h, w),
            ("mean, y at most its median", "mean, y above its median"),
            (h, w),
        )
    names = np.asarray(ds.labels).astype(str)
    classes = np.unique(y)
    per = [rng.permutation(np.flatnonzero(y == c)) for c in classes]
    n_cls = len(classes)
    pick = [per[i % n_cls][i // n_cls] for i in range(n_examples) if i // n_cls < len(per[i % n_cls])]
    shown = classes[:max_means]
    means = np.stack([X[y == c].mean(0) for c in shown]).reshape(-1, h, w)
    mean_labels = tuple(f"mean of class {names[np.flatnonzero(y == c)[0]]}" for c in shown)
    return R.ImagePanels(
        run,
        ds.fingerprint,
        X[pick].reshape(-1, h, w),
        tuple(str(names[p]) for p in pick),
        means,
        mean_labels,
        (h, w),
    )
