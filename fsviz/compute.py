"""The computation layer the app calls: pure, Streamlit-free functions and result dataclasses.

Every expensive function here takes the dataset as an *unhashed* ``_dataset`` argument and
is identified by :func:`cache_key` ``(fingerprint, method, sorted params, seed, fsviz
version)``; the app wraps them in its own cache (``appkit.py``) keyed by that tuple, so
the large arrays of a dataset are never hashed (Streamlit hashes big arrays from a sample,
which could return a stale result for another dataset).

Results are frozen dataclasses of plain arrays and simple fields, never fitted estimators,
so they pickle, compare and export without surprises.

Parts that do not depend on a display parameter are separate functions so that changing,
e.g., GDM's tau reuses them: :func:`feature_moments` (the implicit standardisation, used for
the |rho| of every affiliated feature to its support feature), :func:`run_score` (a base
score GRM refines: a new gamma or prior group reuses it) and :func:`run_histogram` (the
correlation histogram does not depend on tau; tau only moves the 1 - tau marker).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fsviz import __version__

#: ``progress(fraction_done, text, **info)``; a stream also passes ``arrived=`` and ``selected=``
Progress = Callable[..., None]

#: base scores the GRM page offers: key -> (fsviz.select class name, label, supervised?)
SCORE_METHODS: dict[str, tuple[str, str, bool]] = {
    "lgd": ("LGD", "LGD (local gradient)", False),
    "laplacian": ("LaplacianScore", "Laplacian score", False),
    "fisher": ("FisherScore", "Fisher score", True),
    "relieff": ("ReliefF", "ReliefF", True),
    "mi": ("MutualInfo", "Mutual information", True),
    "variance": ("VarianceScore", "Variance", False),
    "mcfs": ("MCFS", "MCFS", False),
}

ROLES = ("SF", "AF", "selected")


def _noop(frac: float, text: str, **info) -> None:  # default progress callback
    return None


# ---------------------------------------------------------------------------- keys
def _plain(value: Any) -> Any:
    """A hashable, order-stable version of a parameter value (lists -> tuples, numpy -> python)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return tuple(_plain(v) for v in value.tolist())
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    return value


def cache_key(fingerprint: str, method: str, params: Mapping[str, Any] | None = None, seed: int = 0) -> tuple:
    """The cache key of one computation: ``(fingerprint, method, sorted params, seed, version)``.

    Parameters
    ----------
    fingerprint : str
        Content hash of the dataset (``Dataset.fingerprint``).
    method : str
        Name of the computation, e.g. ``"gdm"`` or ``"score:fisher"``.
    params : mapping, default=None
        Plain parameter values; their order does not matter.
    seed : int, default=0
        The integer seed the app always passes, so every result is reproducible.
    """
    return (str(fingerprint), str(method), _plain(dict(params or {})), int(seed), __version__)


def params_label(params: Mapping[str, Any] | tuple) -> str:
    """``"C=1, tau=0.3"``: a short human label of sorted parameters.

    Nested parameter tuples (a base score's parameters) are inlined; long lists (prior
    groups) are summarised by their length; ``base`` (the base method's key) is left out.
    """
    items = params if isinstance(params, tuple) else _plain(dict(params))
    out = []
    for k, v in items:
        if k == "base":
            continue
        if (
            isinstance(v, tuple)
            and v
            and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in v)
        ):
            out.append(params_label(v))
            continue
        if isinstance(v, float):
            v = f"{v:g}"
        elif isinstance(v, tuple):
            v = f"<{len(v)} items>" if len(v) > 4 else ",".join(map(str, v)) or "none"
        out.append(f"{k}={v}")
    return ", ".join(o for o in out if o)


def _estimator(cls_name: str, params: Mapping[str, Any], seed: int | None):
    """Instantiate ``fsviz.select.<cls_name>`` with those ``params`` it accepts (+ random_state)."""
    from fsviz import select

    cls = getattr(select, cls_name)
    est = cls()
    valid = est.get_params()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{cls_name}: unknown parameter(s) {unknown}; valid are {sorted(valid)}.")
    kw = dict(params)
    if "random_state" in valid and seed is not None:
        kw["random_state"] = int(seed)
    return est.set_params(**kw)


def _require_labels(dataset, what: str) -> np.ndarray:
    y = getattr(dataset, "y", None)
    if y is None:
        raise ValueError(
            f"{what} needs class labels; dataset {dataset.name!r} has none. "
            "Choose a label column in the sidebar or pick an unsupervised method."
        )
    return np.asarray(y)


# ---------------------------------------------------------------------------- dataset facts
@dataclass(frozen=True)
class Summary:
    """What the Data view shows about a dataset."""

    name: str
    n_samples: int
    n_features: int
    classes: tuple  # (label, count) pairs; empty without labels
    sparse: bool
    density: float  # fraction of non-zero entries
    n_missing: int
    constant: np.ndarray  # indices of constant features
    image_shape: tuple | None


def summarize(_dataset) -> Summary:
    """Samples, features, classes and counts, sparsity, missing values, constant features."""
    X = _dataset.X
    n, m = X.shape
    if sp.issparse(X):
        nnz = X.nnz
        n_missing = int(np.isnan(X.data).sum())
    else:
        nnz = int(np.count_nonzero(X))
        n_missing = int(np.isnan(X).sum())
    _, norm = feature_moments(_dataset)
    classes: tuple = ()
    if getattr(_dataset, "y", None) is not None:
        labels, counts = np.unique(np.asarray(_dataset.y), return_counts=True)
        classes = tuple((_plain(a), int(c)) for a, c in zip(labels, counts, strict=False))
    shape = getattr(_dataset, "image_shape", None)
    return Summary(
        name=str(_dataset.name),
        n_samples=int(n),
        n_features=int(m),
        classes=classes,
        sparse=bool(sp.issparse(X)),
        density=float(nnz / max(n * m, 1)),
        n_missing=n_missing,
        constant=np.flatnonzero(norm == 0),
        image_shape=tuple(shape) if shape is not None else None,
    )


def summary_frame(summary: Summary) -> pd.DataFrame:
    """The summary as a two-column table (quantity, value)."""
    rows = [
        ("samples", summary.n_samples),
        ("features", summary.n_features),
        ("storage", "sparse" if summary.sparse else "dense"),
        ("non-zero fraction", f"{summary.density:.4f}"),
        ("missing values", summary.n_missing),
        ("constant features", len(summary.constant)),
        ("classes", len(summary.classes) if summary.classes else "none (unlabelled)"),
        ("image shape", "x".join(map(str, summary.image_shape)) if summary.image_shape else "none"),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"]).astype({"value": str})


def classes_frame(summary: Summary) -> pd.DataFrame:
    """Class labels with their sample counts and shares."""
    labels = [str(c) for c, _ in summary.classes]
    counts = np.array([n for _, n in summary.classes], dtype=np.int64)
    return pd.DataFrame(
        {"class": labels, "samples": counts, "share": np.round(counts / max(counts.sum(), 1), 4)}
    )


def names_preview(feature_names: Sequence[str], indices, limit: int = 12) -> str:
    """'a, b, c … (+n more)' for a list of feature indices."""
    idx = np.asarray(indices, dtype=np.int64)
    names = np.asarray(feature_names, dtype=object)[idx[:limit]]
    more = f" … (+{len(idx) - limit} more)" if len(idx) > limit else ""
    return ", ".join(map(str, names)) + more


def preview_frame(_dataset, n_rows: int = 8, n_cols: int = 20) -> pd.DataFrame:
    """The first rows and columns of X (plus the label) as a table."""
    X = _dataset.X[:n_rows, :n_cols]
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    frame = pd.DataFrame(
        X, columns=[str(c) for c in np.asarray(_dataset.feature_names, dtype=object)[:n_cols]]
    )
    if getattr(_dataset, "y", None) is not None:
        frame.insert(0, "label", np.asarray(_dataset.y)[:n_rows])
    return frame


def feature_moments(_dataset) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and centred norm (GDM's implicit standardisation); tau-independent."""
    from fsviz.stats import column_moments

    return column_moments(_dataset.X)


def pair_correlations(
    _dataset, a: np.ndarray, b: np.ndarray, moments: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """Pearson correlation of feature pairs ``(a[i], b[i])``, vectorised, never densifying X.

    A pair involving a constant feature gets 0.
    """
    a = np.asarray(a, dtype=np.intp)
    b = np.asarray(b, dtype=np.intp)
    if a.size == 0:
        return np.zeros(0)
    mean, norm = moments if moments is not None else feature_moments(_dataset)
    X = _dataset.X
    n = X.shape[0]
    if sp.issparse(X):
        Xc = X.tocsc()
        dots = np.asarray(Xc[:, a].multiply(Xc[:, b]).sum(axis=0), dtype=np.float64).ravel()
    else:
        Xd = np.asarray(X, dtype=np.float64)
        dots = np.einsum("ij,ij->j", Xd[:, a], Xd[:, b])
    cov = dots - n * mean[a] * mean[b]
    den = norm[a] * norm[b]
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, cov / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(r, -1.0, 1.0)


# ---------------------------------------------------------------------------- selections
@dataclass(frozen=True)
class Selection:
    """One selection for the compare table and the CSV export.

    ``indices`` are the chosen features in rank order; ``scores``, ``roles`` and ``groups``
    are aligned with them (group = index of the support feature a feature belongs to, -1
    for none).
    """

    key: tuple
    method: str
    params: tuple
    indices: np.ndarray
    scores: np.ndarray
    roles: tuple
    groups: np.ndarray
    seconds: float

    @property
    def n_features(self) -> int:
        return len(self.indices)

    def top(self, k: int) -> np.ndarray:
        """The first ``k`` selected features (rank order)."""
        return self.indices[: max(int(k), 0)]


def selection_frame(selection: Selection, feature_names: Sequence[str]) -> pd.DataFrame:
    """The export table: ``index, name, score, role, group`` (one row per selected feature)."""
    names = np.asarray(feature_names, dtype=object)
    idx = np.asarray(selection.indices, dtype=np.int64)
    groups = np.asarray(selection.groups, dtype=np.int64)
    return pd.DataFrame(
        {
            "index": idx,
            "name": names[idx].astype(str) if idx.size else np.array([], dtype=str),
            "score": np.asarray(selection.scores, dtype=np.float64),
            "role": np.asarray(selection.roles, dtype=object).astype(str),
            "group": groups,
        }
    )


def selection_csv(selection: Selection, feature_names: Sequence[str]) -> bytes:
    """CSV bytes of :func:`selection_frame`; floats written with full precision (round-trips)."""
    return selection_frame(selection, feature_names).to_csv(index=False, float_format="%.17g").encode()


def read_selection_csv(data: bytes) -> pd.DataFrame:
    """Inverse of :func:`selection_csv`."""
    return pd.read_csv(
        io.BytesIO(data),
        dtype={"index": np.int64, "name": str, "score": np.float64, "role": str, "group": np.int64},
        keep_default_na=False,
    )


def reduced_csv(_dataset, indices: Sequence[int]) -> bytes:
    """The dataset restricted to ``indices`` as CSV (columns = feature names, then ``label``).

    Floats are written with 17 significant digits so that reading it back gives the same
    numbers bit for bit.
    """
    idx = np.asarray(indices, dtype=np.intp)
    X = _dataset.X[:, idx]
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    names = [str(n) for n in np.asarray(_dataset.feature_names, dtype=object)[idx]]
    frame = pd.DataFrame(X, columns=names)
    if getattr(_dataset, "y", None) is not None:
        frame["label"] = np.asarray(_dataset.y)
    return frame.to_csv(index=False, float_format="%.17g").encode()


# ---------------------------------------------------------------------------- GDM
@dataclass(frozen=True)
class GroupResult:
    """GDM's support features and their affiliated features, as plain arrays.

    ``af`` lists every affiliated feature, ``af_sf`` the support feature of its group and
    ``af_rho`` its |rho| to that support feature (Pearson, computed from the cached
    tau-independent moments).
    """

    key: tuple
    support: np.ndarray
    sf_scores: np.ndarray
    af: np.ndarray
    af_sf: np.ndarray
    af_rho: np.ndarray
    scores: np.ndarray  # |s_j| of every feature at the last iteration
    n_correlations: int
    n_features: int
    objective_history: np.ndarray
    seconds: float

    @property
    def n_pairs(self) -> int:
        """m(m-1)/2, the number of pairs a brute-force correlation matrix computes."""
        return self.n_features * (self.n_features - 1) // 2

    def group_sizes(self) -> np.ndarray:
        """Number of affiliated features of each support feature, in ``support`` order."""
        return np.bincount(self._group_pos(), minlength=len(self.support))

    def _group_pos(self) -> np.ndarray:
        """Position in ``support`` of each affiliated feature's support feature."""
        if self.af.size == 0:
            return np.zeros(0, dtype=np.int64)
        order = np.argsort(self.support, kind="stable")
        return order[np.searchsorted(self.support, self.af_sf, sorter=order)]

    def to_selection(self) -> Selection:
        """Support features first (order found), then each group's affiliated features by |rho|."""
        order = np.lexsort((-self.af_rho, self._group_pos()))
        idx = np.concatenate([self.support, self.af[order]]).astype(np.int64)
        scores = np.concatenate([self.sf_scores, self.scores[self.af[order]]])
        roles = ("SF",) * len(self.support) + ("AF",) * len(self.af)
        groups = np.concatenate([self.support, self.af_sf[order]]).astype(np.int64)
        return Selection(self.key, "GDM", self.key[2], idx, scores, roles, groups, self.seconds)


def groups_frame(result: GroupResult, feature_names: Sequence[str]) -> pd.DataFrame:
    """One row per feature in a group: group, role, index, name, score, |rho| to its SF."""
    names = np.asarray(feature_names, dtype=object)
    sf = result.support.astype(np.int64)
    af = result.af.astype(np.int64)
    frame = pd.DataFrame(
        {
            "group": np.concatenate([sf, result.af_sf.astype(np.int64)]),
            "group name": names[np.concatenate([sf, result.af_sf.astype(np.int64)])].astype(str),
            "role": ["SF"] * len(sf) + ["AF"] * len(af),
            "index": np.concatenate([sf, af]),
            "name": names[np.concatenate([sf, af])].astype(str),
            "score": np.concatenate([result.sf_scores, result.scores[af]]),
            "|rho| to SF": np.concatenate([np.ones(len(sf)), result.af_rho]),
        }
    )
    return frame


def run_gdm(
    _dataset, params: Mapping[str, Any], seed: int = 0, moments: tuple[np.ndarray, np.ndarray] | None = None
) -> GroupResult:
    """Fit ``fsviz.select.GDM(**params, random_state=seed)`` and flatten its groups.

    GDM is a binary method: for more than two classes pass ``params["positive"]``, a
    class label, to separate that class from the rest (one vs rest).

    ``moments`` (from :func:`feature_moments`, cached apart because it does not depend on
    tau) gives the |rho| of every affiliated feature to its support feature.
    """
    key_params = dict(params)
    params = dict(params)
    positive = params.pop("positive", None)
    one_class = bool(params.get("one_class", False))
    y = None if one_class else _require_labels(_dataset, "GDM")
    if one_class:
        y = np.ones(_dataset.X.shape[0])
    elif positive is not None:
        labels = np.asarray(y)
        hit = labels.astype(str) == str(positive)
        if not hit.any() or hit.all():
            raise ValueError(
                f"GDM: 'positive' class {positive!r} must be one of the labels and leave a rest; "
                f"labels are {np.unique(labels).tolist()[:10]}."
            )
        y = np.where(hit, 1, -1)  # one vs rest
    est = _estimator("GDM", params, seed)
    t0 = time.perf_counter()
    est.fit(_dataset.X, y)
    seconds = time.perf_counter() - t0
    support = np.asarray(est.support_, dtype=np.int64)
    groups = getattr(est, "groups_", {}) or {}
    af_list = [np.asarray(groups.get(int(s), groups.get(s, [])), dtype=np.int64) for s in support]
    af = np.concatenate(af_list) if af_list else np.zeros(0, dtype=np.int64)
    af_sf = np.repeat(support, [len(a) for a in af_list]) if af_list else np.zeros(0, dtype=np.int64)
    moments = moments if moments is not None else feature_moments(_dataset)
    af_rho = np.abs(pair_correlations(_dataset, af, af_sf, moments))
    scores = np.nan_to_num(np.abs(np.asarray(est.scores_, dtype=np.float64)))
    m = _dataset.X.shape[1]
    return GroupResult(
        key=cache_key(_dataset.fingerprint, "gdm", key_params, seed),
        support=support,
        sf_scores=scores[support],
        af=af,
        af_sf=af_sf,
        af_rho=af_rho,
        scores=scores,
        n_correlations=int(getattr(est, "n_correlations_", -1)),
        n_features=int(m),
        objective_history=np.asarray(getattr(est, "objective_history_", []), dtype=float),
        seconds=seconds,
    )


# ---------------------------------------------------------------------------- scores
@dataclass(frozen=True)
class ScoreResult:
    """A scorer's ``scores_`` (higher = better) over all features."""

    key: tuple
    method: str
    scores: np.ndarray
    seconds: float

    @property
    def order(self) -> np.ndarray:
        """Feature indices best first (stable: ties by index)."""
        return np.argsort(-self.scores, kind="stable")

    def to_selection(self, k: int) -> Selection:
        idx = self.order[:k].astype(np.int64)
        return Selection(
            self.key,
            self.method,
            self.key[2],
            idx,
            self.scores[idx],
            ("selected",) * len(idx),
            np.full(len(idx), -1, dtype=np.int64),
            self.seconds,
        )


def run_score(_dataset, method: str, params: Mapping[str, Any], seed: int = 0) -> ScoreResult:
    """Score every feature with one of :data:`SCORE_METHODS` (e.g. ``"fisher"``)."""
    if method not in SCORE_METHODS:
        raise ValueError(f"run_score: 'method' must be one of {sorted(SCORE_METHODS)}; got {method!r}.")
    cls_name, _, supervised = SCORE_METHODS[method]
    y = _require_labels(_dataset, SCORE_METHODS[method][1]) if supervised else getattr(_dataset, "y", None)
    est = _estimator(cls_name, params, seed)
    t0 = time.perf_counter()
    est.fit(_dataset.X, y)
    seconds = time.perf_counter() - t0
    scores = np.nan_to_num(np.asarray(est.scores_, dtype=np.float64))
    return ScoreResult(
        cache_key(_dataset.fingerprint, f"score:{method}", params, seed),
        SCORE_METHODS[method][1],
        scores,
        seconds,
    )


# ---------------------------------------------------------------------------- GRM
@dataclass(frozen=True)
class GRMResult:
    """GRM's refinement of a base score restricted to its ``n_top`` best features.

    ``candidates`` are the n_top features (base order); ``base`` and ``refined`` their base
    and refined scores; ``base_order`` / ``refined_order`` feature indices best first.
    """

    key: tuple
    base_method: str
    candidates: np.ndarray
    base: np.ndarray
    refined: np.ndarray
    refined_rank: np.ndarray  # GRM's ranking_ of the candidates (1 = best; ties by base score)
    lambda_history: np.ndarray
    seconds: float

    @property
    def base_order(self) -> np.ndarray:
        return self.candidates[np.argsort(-self.base, kind="stable")]

    @property
    def refined_order(self) -> np.ndarray:
        return self.candidates[np.argsort(self.refined_rank, kind="stable")]

    def to_selection(self, k: int) -> Selection:
        order = np.argsort(self.refined_rank, kind="stable")[:k]
        idx = self.candidates[order].astype(np.int64)
        return Selection(
            self.key,
            f"GRM({self.base_method})",
            self.key[2],
            idx,
            self.refined[order],
            ("selected",) * len(idx),
            np.full(len(idx), -1, dtype=np.int64),
            self.seconds,
        )


def positive_scores(scores: np.ndarray) -> np.ndarray:
    """Map scores (higher = better) to non-negative values, order kept: GRM's input rule.

    Non-negative scores are returned unchanged (every fsviz scorer's ``scores_`` is);
    otherwise they are shifted so the worst is a small positive fraction of the range.
    """
    s = np.nan_to_num(np.asarray(scores, dtype=np.float64))
    if s.size and s.min() >= 0 and s.max() > 0:
        return s
    span = float(s.max() - s.min()) if s.size else 0.0
    return s - s.min() + (1e-3 * span if span > 0 else 1.0)


def validate_prior_groups(frame: pd.DataFrame, n_features: int) -> list[list[int]]:
    """Rows ``feature -> group`` (from the constraint editor) -> GRM's ``prior_groups``.

    Raises ValueError naming the row when a feature index is not an integer in
    ``[0, n_features)``, a group label is empty, or a feature is given twice. Groups with
    a single feature carry no constraint and are dropped.
    """
    if frame is None or len(frame) == 0:
        return []
    missing = {"feature", "group"} - set(frame.columns)
    if missing:
        raise ValueError(f"prior groups: columns {sorted(missing)} missing; expected 'feature' and 'group'.")
    rows = frame[["feature", "group"]].dropna(how="all")
    feats = pd.to_numeric(rows["feature"], errors="coerce")
    bad = rows.index[feats.isna() | (feats % 1 != 0) | (feats < 0) | (feats >= n_features)]
    if len(bad):
        r = bad[0]
        raise ValueError(
            f"prior groups: row {r}: 'feature' must be an integer index in [0, {n_features}); "
            f"got {_plain(rows.loc[r, 'feature'])!r}."
        )
    labels = rows["group"].astype(str).str.strip()
    empty = rows.index[rows["group"].isna() | (labels == "")]
    if len(empty):
        raise ValueError(f"prior groups: row {empty[0]}: 'group' is empty; give every feature a group label.")
    feats = feats.astype(np.int64)
    dup = feats[feats.duplicated()]
    if len(dup):
        raise ValueError(
            f"prior groups: feature {int(dup.iloc[0])} appears in more than one row; "
            "a feature belongs to one group."
        )
    out = [sorted(int(f) for f in g) for _, g in feats.groupby(labels.values)]
    return [g for g in out if len(g) > 1]


def gdm_prior_rows(result: GroupResult) -> pd.DataFrame:
    """The current GDM groups as editor rows (feature, group = 'G<support index>')."""
    feats = np.concatenate([result.support, result.af]).astype(np.int64)
    grp = np.concatenate([result.support, result.af_sf]).astype(np.int64)
    keep = np.isin(grp, result.af_sf)  # groups with at least one affiliated feature
    return pd.DataFrame({"feature": feats[keep], "group": [f"G{g}" for g in grp[keep]]})


def run_grm(
    _dataset,
    _base: ScoreResult,
    n_top: int,
    prior_groups: Sequence[Sequence[int]] = (),
    gamma: float = 1.0,
    seed: int = 0,
) -> GRMResult:
    """Refine a base score with ``fsviz.select.GRM(n_top, prior_groups, gamma)``.

    The base score is passed in (already computed and cached), so a new gamma or prior
    group reruns only GRM. The working set is the ``n_top`` best features with a positive
    base score.
    """
    prior = [list(map(int, g)) for g in prior_groups] or None
    params = {"n_top": int(n_top), "gamma": float(gamma)}
    pos = positive_scores(_base.scores)
    # features with a zero base score (e.g. constant ones) carry no evidence: keep them out of
    # GRM's working set, where having no redundancy with anything would lift them
    n_eff = int(max(2, min(int(n_top), np.count_nonzero(pos > 0))))
    est = _estimator("GRM", dict(params, n_top=n_eff, prior_groups=prior), None)
    t0 = time.perf_counter()
    est.fit(_dataset.X, pos)
    seconds = time.perf_counter() - t0
    refined_all = np.nan_to_num(np.asarray(est.scores_, dtype=np.float64))
    cand = np.asarray(
        getattr(est, "top_", np.argsort(-pos, kind="stable")[: min(int(n_top), len(pos))]), dtype=np.int64
    )
    refined = refined_all[cand]  # z on the simplex; ties (z = 0) rank by the base score
    ranking = np.asarray(getattr(est, "ranking_", np.argsort(np.argsort(-refined_all, kind="stable")) + 1))
    refined_rank = ranking[cand].astype(np.int64)
    key_params = dict(params, base=_base.key[1], base_params=_base.key[2], prior_groups=prior or ())
    return GRMResult(
        cache_key(_dataset.fingerprint, "grm", key_params, seed),
        _base.method,
        cand.astype(np.int64),
        pos[cand],
        refined,
        refined_rank,
        np.asarray(getattr(est, "lambda_history_", []), dtype=float),
        seconds,
    )


NEIGHBOUR_METHODS = ("lgd", "laplacian", "relieff", "mcfs")


def score_params(method: str, n_neighbors: int) -> dict:
    """The parameters a base score takes from the page: the neighbourhood size where it has one."""
    return {"n_neighbors": int(n_neighbors)} if method in NEIGHBOUR_METHODS else {}


def grm_frame(result: GRMResult, feature_names: Sequence[str]) -> pd.DataFrame:
    """The n_top candidates with base and GRM scores and ranks (1 = best), sortable."""
    names = np.asarray(feature_names, dtype=object)
    base_rank = np.empty(len(result.base), dtype=np.int64)
    base_rank[np.argsort(-result.base, kind="stable")] = np.arange(1, len(result.base) + 1)
    grm_rank = np.empty(len(result.refined), dtype=np.int64)
    grm_rank[np.argsort(result.refined_rank, kind="stable")] = np.arange(1, len(result.refined) + 1)
    frame = pd.DataFrame(
        {
            "index": result.candidates,
            "name": names[result.candidates].astype(str),
            "base score": result.base,
            "base rank": base_rank,
            "GRM score": result.refined,
            "GRM rank": grm_rank,
            "rank change": base_rank - grm_rank,
        }
    )
    return frame.sort_values("GRM rank", kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class Evaluation:
    """Quality of the first ``k`` features of a selection."""

    k: int
    cv_accuracy: float  # NaN without labels
    redundancy: float
    reselected: bool = False  # True: selection redone in every training fold (no selection bias)


@dataclass(frozen=True)
class _Fold:
    """A training fold as a dataset for the ``run_*`` functions (cache keys are not used)."""

    X: Any
    y: np.ndarray
    name: str = "training fold"
    fingerprint: str = "fold"


def reselector(selection: Selection, seed: int = 0) -> Callable[[Any, np.ndarray], np.ndarray]:
    """``f(X_train, y_train) -> indices``: the selection's method refitted with its parameters.

    Given to ``fsviz.evaluate.cv_accuracy`` it redoes the selection inside every training
    fold, so the test fold never influences which features are used (no selection bias,
    Ambroise & McLachlan, PNAS 2002). The method and parameters come from the selection's
    cache key: GDM (one vs rest where it was), a base score, GRM on its base score (the
    base score refitted too; prior groups kept), SAOLA (same chunks) and group-SAOLA (the
    same feature groups: they stay those found on all samples).
    """
    method = str(selection.key[1])
    params = dict(selection.key[2])

    def fit(X, y) -> np.ndarray:
        fold = _Fold(X, np.asarray(y))
        if method == "gdm":
            return run_gdm(fold, params, seed).to_selection().indices
        if method.startswith("score:"):
            return run_score(fold, method.split(":", 1)[1], params, seed).order
        if method == "grm":
            base = run_score(fold, str(params["base"]).split(":", 1)[1], dict(params["base_params"]), seed)
            prior = [list(g) for g in params.get("prior_groups", ()) or ()]
            return run_grm(fold, base, params["n_top"], prior, params["gamma"], seed).refined_order
        if method == "saola":
            p = {k: v for k, v in params.items() if k != "chunk"}
            return run_stream(fold, "saola", p, int(params.get("chunk", 200)), seed).selected
        if method == "group-saola":
            p = {k: v for k, v in params.items() if k != "groups"}
            groups = [list(g) for g in params["groups"]]
            return run_stream(fold, "group-saola", p, seed=seed, groups=groups).selected
        raise ValueError(
            f"reselector: selections of method {method!r} cannot be refitted; known are gdm, "
            "score:<name>, grm, saola, group-saola."
        )

    return fit


def evaluate_top(
    _dataset,
    indices: Sequence[int],
    k: int,
    seed: int = 0,
    model: str = "svm",
    selector: Callable[[Any, np.ndarray], np.ndarray] | None = None,
) -> Evaluation:
    """CV accuracy and redundancy rate (mean |rho| over pairs) of the first ``k`` features.

    Uses ``fsviz.evaluate.cv_accuracy`` (stratified folds, linear SVM by default). Without
    ``selector`` the fixed selection ``indices`` is evaluated: features chosen on all
    samples, optimistic as an estimate of accuracy on new data (selection bias). With
    ``selector`` (see :func:`reselector`) the selection is redone inside every training
    fold (``reselect=True``) and its top ``k`` are used there: the honest estimate.
    The redundancy is always that of ``indices[:k]``.
    """
    from fsviz.evaluate import cv_accuracy, redundancy_rate

    idx = np.asarray(indices, dtype=np.int64)[: int(k)]
    red = float(redundancy_rate(_dataset.X, idx)) if len(idx) > 1 else 0.0
    acc = float("nan")
    y = getattr(_dataset, "y", None)
    if y is not None and len(idx):
        smallest = int(np.unique(np.asarray(y), return_counts=True)[1].min())
        if smallest >= 2:
            what = idx if selector is None else selector
            acc = float(
                cv_accuracy(
                    _dataset.X,
                    y,
                    what,
                    k=None if selector is None else int(k),
                    model=model,
                    n_splits=min(5, smallest),
                    reselect=True,
                    random_state=int(seed),
                ).mean
            )
    return Evaluation(len(idx), acc, red, selector is not None)


CV_HONEST = "CV accuracy (selection redone in folds)"
CV_BIASED = "CV accuracy (selection on all samples, optimistic)"


def compare_frame(rows: Iterable[tuple]) -> pd.DataFrame:
    """The compare table: method, parameters, n features, CV accuracy, redundancy, run time.

    ``rows`` are ``(selection, evaluation)`` or ``(selection, evaluation, fixed evaluation)``.
    The column :data:`CV_HONEST` takes evaluations with ``reselected`` (selection redone in
    each training fold); an evaluation of the fixed selection (features chosen on all
    samples) goes to :data:`CV_BIASED`, labelled optimistic.
    """
    out = []
    for sel, *evs in rows:
        honest = next((e for e in evs if e is not None and e.reselected), None)
        biased = next((e for e in evs if e is not None and not e.reselected), None)
        any_ev = honest or biased
        out.append(
            {
                "method": sel.method,
                "parameters": params_label(sel.params),
                "n features": sel.n_features,
                CV_HONEST: np.nan if honest is None else honest.cv_accuracy,
                CV_BIASED: np.nan if biased is None else biased.cv_accuracy,
                "redundancy": np.nan if any_ev is None else any_ev.redundancy,
                "evaluated on top": np.nan if any_ev is None else any_ev.k,
                "run time (s)": sel.seconds,
            }
        )
    columns = ["method", "parameters", "n features", CV_HONEST, CV_BIASED, "redundancy", "evaluated on top"]
    return pd.DataFrame(out, columns=columns + ["run time (s)"])


# ---------------------------------------------------------------------------- correlation sparsity
@dataclass(frozen=True)
class HistogramResult:
    """Counts of |rho| per interval over all feature pairs (or a random feature subset)."""

    key: tuple
    edges: np.ndarray
    counts: np.ndarray
    exact: bool
    n_pairs: int  # pairs counted
    n_pairs_total: int  # m(m-1)/2 over non-constant features of the whole dataset
    n_constant: int
    seconds: float

    @property
    def percent(self) -> np.ndarray:
        total = self.counts.sum()
        return 100.0 * self.counts / total if total else np.zeros_like(self.counts, dtype=float)

    @property
    def survival(self) -> np.ndarray:
        """1 - CDF at each right edge... as P(|rho| >= left edge of each bin)."""
        total = self.counts.sum()
        tail = np.cumsum(self.counts[::-1])[::-1]
        return tail / total if total else np.zeros(len(self.counts))


def run_histogram(
    _dataset, n_bins: int = 20, max_features: int = 20000, seed: int = 0, progress: Progress = _noop
) -> HistogramResult:
    """|rho| histogram over all pairs with ``fsviz.stats.correlation_histogram``.

    Exact over all m(m-1)/2 pairs of non-constant features when the dataset has at most
    ``max_features`` features; otherwise estimated from a uniform sample of pairs
    (``exact=False`` in the library) and marked as such.
    """
    from fsviz.stats import correlation_histogram

    m = _dataset.X.shape[1]
    exact = m <= int(max_features)
    t0 = time.perf_counter()
    res = correlation_histogram(
        _dataset.X,
        bins=int(n_bins),
        exact=exact,
        random_state=int(seed),
        progress=lambda done, total: progress(done / max(total, 1), f"{done} of {total} blocks"),
    )
    seconds = time.perf_counter() - t0
    counts = np.asarray(res.counts, dtype=np.float64)
    key = cache_key(
        _dataset.fingerprint, "histogram", {"bins": int(n_bins), "max_features": int(max_features)}, seed
    )
    return HistogramResult(
        key,
        np.asarray(res.edges, dtype=np.float64),
        counts,
        bool(res.exact),
        int(round(counts.sum())),
        int(res.n_pairs),
        len(res.constant_features),
        seconds,
    )


# ---------------------------------------------------------------------------- SAOLA stream
DECISIONS = ("selected", "irrelevant", "redundant", "removed", "ungrouped")


@dataclass(frozen=True)
class StreamResult:
    """An online run: per arriving feature its decision, the reason and the set size after it.

    ``decision[i]`` is one of :data:`DECISIONS` for the feature that arrived i-th
    (``arrival[i]``); ``reason[i]`` says why (``"redundant with f12 (SU 0.91 >= 0.87)"``,
    ``"irrelevant: ..."``); ``set_size[i]`` is the selected-set size after it. A feature
    admitted and later removed has decision ``"removed"`` and its reason names the feature
    that displaced it.
    """

    key: tuple
    method: str
    arrival: np.ndarray
    decision: tuple
    reason: tuple
    set_size: np.ndarray
    selected: np.ndarray
    seconds: float

    def to_selection(self) -> Selection:
        idx = np.asarray(self.selected, dtype=np.int64)
        return Selection(
            self.key,
            self.method,
            self.key[2],
            idx,
            np.full(len(idx), np.nan),
            ("selected",) * len(idx),
            np.full(len(idx), -1, dtype=np.int64),
            self.seconds,
        )


def stream_frame(
    result: StreamResult, feature_names: Sequence[str], decisions: Iterable[str] | None = None
) -> pd.DataFrame:
    """One row per arriving feature: arrival, index, name, decision, reason, selected-set size.

    ``decisions`` keeps only the rows with those decisions (all when None).
    """
    names = np.asarray(feature_names, dtype=object)
    frame = pd.DataFrame(
        {
            "arrival": np.arange(len(result.arrival)),
            "index": result.arrival,
            "name": names[result.arrival].astype(str),
            "decision": list(result.decision),
            "reason": list(result.reason),
            "set size": result.set_size,
        }
    )
    if decisions is not None:
        frame = frame[frame["decision"].isin(list(decisions))].reset_index(drop=True)
    return frame


def run_stream(
    _dataset,
    method: str,
    params: Mapping[str, Any],
    chunk: int = 200,
    seed: int = 0,
    groups: Sequence[Sequence[int]] | None = None,
    progress: Progress = _noop,
) -> StreamResult:
    """Run SAOLA as a stream of feature chunks (``partial_fit``), reporting progress.

    ``method`` is ``"saola"`` (features arrive one chunk at a time) or ``"group-saola"``
    (``groups`` arrive one at a time).
    """
    y = _require_labels(_dataset, "SAOLA")
    X = _dataset.X
    m = X.shape[1]
    t0 = time.perf_counter()
    if method == "saola":
        est = _estimator("SAOLA", params, None)
        for start in range(0, m, int(chunk)):
            stop = min(start + int(chunk), m)
            est.partial_fit(X[:, start:stop], y)
            progress(
                stop / m,
                f"{stop:,} of {m:,} features arrived; {len(est.selected_):,} selected",
                arrived=stop,
                selected=len(est.selected_),
            )
        arrival = np.arange(m)
        selected = np.asarray(est.selected_, dtype=np.int64)
        label = "SAOLA"
    elif method == "group-saola":
        if not groups:
            raise ValueError("group-SAOLA needs feature groups; compute GDM groups first or use SAOLA.")
        est = _estimator("GroupSAOLA", params, None)
        progress(0.0, f"{len(groups)} groups arriving")
        est.fit(X, y, [list(map(int, g)) for g in groups])
        progress(1.0, "done")
        arrival = np.concatenate([np.asarray(g, dtype=np.int64) for g in groups])
        arrival = np.concatenate([arrival, np.setdiff1d(np.arange(m), arrival)])  # ungrouped last
        selected = np.asarray(est.selected_, dtype=np.int64)
        label = "group-SAOLA"
    else:
        raise ValueError(f"run_stream: 'method' must be 'saola' or 'group-saola'; got {method!r}.")
    seconds = time.perf_counter() - t0
    decision, reason, set_size = decode_history(est.history_, arrival)
    key_params = dict(params, chunk=int(chunk)) if method == "saola" else dict(params, groups=groups)
    return StreamResult(
        cache_key(_dataset.fingerprint, method, key_params, seed),
        label,
        arrival,
        decision,
        reason,
        set_size,
        selected,
        seconds,
    )


def decode_history(history, arrival: np.ndarray):
    """Per arriving feature: (decisions, reasons, selected-set size after it).

    ``history`` is SAOLA's / group-SAOLA's ``history_`` (a columnar ``SelectionHistory``:
    arrays ``feature``, ``decision``, ``relevance``, ``p_value``, ``redundant_with``,
    ``pair_value``, ``removed_by``, ``selected``, and ``measure``), indexed by feature.
    Admitted features later displaced get the decision ``"removed"`` and a reason naming
    the feature that displaced them.
    """
    arrival = np.asarray(arrival, dtype=np.int64)
    feat = np.asarray(history.feature, dtype=np.int64)
    row = np.full(int(max(feat.max(initial=-1), arrival.max(initial=-1))) + 1, -1, dtype=np.int64)
    row[feat] = np.arange(len(feat))
    r = row[arrival]
    dec = np.asarray(history.decision, dtype=object)[r].astype(str)
    rel = np.asarray(history.relevance, dtype=np.float64)[r]
    pval = np.asarray(history.p_value, dtype=np.float64)[r]
    red = np.asarray(history.redundant_with, dtype=np.int64)[r]
    pair = np.asarray(history.pair_value, dtype=np.float64)[r]
    rem_by = np.asarray(history.removed_by, dtype=np.int64)[r]
    meas = getattr(history, "measure", "dep")
    admitted = dec == "admitted"
    out = np.where(
        admitted,
        np.where(rem_by >= 0, "removed", "selected"),
        np.where(np.char.find(dec.astype(str), "redundant") >= 0, "redundant", dec),
    ).astype(object)
    fmt = np.vectorize(lambda v: f"{v:.3g}", otypes=[object])
    rel_s = fmt(rel) if len(rel) else rel.astype(object)
    pair_s = fmt(pair) if len(pair) else pair.astype(object)
    p_s = np.where(np.isfinite(pval), ", p = " + (fmt(pval) if len(pval) else pval.astype(object)), "")
    red_s = red.astype(str).astype(object)
    rem_s = rem_by.astype(str).astype(object)
    where = np.select(
        [dec == "intra_redundant", dec == "inter_redundant"],
        [" within its group", " to a selected group"],
        "",
    ).astype(object)
    reason = np.select(
        [dec == "irrelevant", out == "redundant", out == "removed", out == "selected", dec == "ungrouped"],
        [
            "irrelevant to the label: " + meas + "(F, C) = " + rel_s + p_s,
            "redundant"
            + where
            + " with feature "
            + red_s
            + ": "
            + meas
            + "(F, Y) = "
            + pair_s
            + " >= "
            + meas
            + "(F, C) = "
            + rel_s,
            "admitted (" + meas + "(F, C) = " + rel_s + "), later removed as redundant by feature " + rem_s,
            "admitted and kept (" + meas + "(F, C) = " + rel_s + ")",
            "in no group: never streamed",
        ],
        dec.astype(object),
    )
    # set size after each arrival: +1 per admission, -1 per removal at the arrival of the remover
    pos = np.full(len(row), -1, dtype=np.int64)
    pos[arrival] = np.arange(len(arrival))
    delta = admitted.astype(np.int64)
    removers = rem_by[rem_by >= 0]
    if removers.size:
        delta -= np.bincount(pos[removers], minlength=len(arrival))
    return tuple(out.tolist()), tuple(reason.tolist()), np.cumsum(delta)


def gdm_partition(result: GroupResult, n_features: int) -> list[list[int]]:
    """Feature groups for group-SAOLA from GDM: each SF with its AFs, every other feature alone."""
    grouped = np.concatenate([result.support, result.af]).astype(np.int64)
    pos = np.concatenate([np.arange(len(result.support)), result._group_pos()])
    rest = np.setdiff1d(np.arange(n_features), grouped)
    split = np.argsort(pos, kind="stable")
    bounds = np.searchsorted(pos[split], np.arange(1, len(result.support)))
    groups = [g.tolist() for g in np.split(grouped[split], bounds)] if len(result.support) else []
    return groups + [[int(f)] for f in rest]


def random_partition(n_features: int, n_groups: int, seed: int = 0) -> list[list[int]]:
    """A random partition of the features into ``n_groups`` groups (the SAOLA paper's set-up)."""
    perm = np.random.default_rng(seed).permutation(n_features)
    return [sorted(map(int, g)) for g in np.array_split(perm, max(1, min(int(n_groups), n_features)))]


def decision_counts(result: StreamResult) -> dict[str, int]:
    """How many arriving features ended in each decision."""
    values, counts = np.unique(np.asarray(result.decision, dtype=object).astype(str), return_counts=True)
    return {str(v): int(c) for v, c in zip(values, counts, strict=False)}


def group_choices(result: GroupResult, image_shape: tuple | None = None) -> dict:
    """Selectbox options for highlighting a group: -1 -> all groups, SF index -> label.

    Groups are listed largest first (ties in support order), so the big regions of an
    image (e.g. a face's cheek) are at the top of a long list.
    """
    out: dict = {-1: f"all {len(result.support)} groups"}
    sizes = result.group_sizes()
    order = np.argsort(-sizes, kind="stable")
    for s, n in zip(result.support[order].tolist(), sizes[order].tolist(), strict=False):
        where = f" (row {s // image_shape[1]}, col {s % image_shape[1]})" if image_shape else ""
        out[int(s)] = f"group of feature {s}{where}: {n} affiliated"
    return out


def mask_opacity(result: GroupResult) -> float:
    """Default overlay opacity of the pixel masks: 0.6, or 0.35 when more than 30 % of the
    pixels are tinted (e.g. GDM on 32 x 32 faces), so the images stay readable under the colours."""
    tinted = (len(result.support) + len(result.af)) / max(int(result.n_features), 1)
    return 0.35 if tinted > 0.3 else 0.6


# ---------------------------------------------------------------------------- projection and images
@dataclass(frozen=True)
class Projection:
    """PCA 2-D coordinates of the samples on a feature subset."""

    coords: np.ndarray
    explained: np.ndarray
    features: np.ndarray


def project(_dataset, indices: Sequence[int]) -> Projection:
    """PCA to two components of the standardised columns ``indices`` (one component if only one)."""
    from sklearn.decomposition import PCA

    idx = np.asarray(indices, dtype=np.intp)
    if idx.size == 0:
        raise ValueError("project: 'indices' is empty; choose a selection with at least one feature.")
    Xs = _dataset.X[:, idx]
    Xs = Xs.toarray() if sp.issparse(Xs) else np.asarray(Xs, dtype=np.float64)
    std = Xs.std(axis=0)
    Xs = (Xs - Xs.mean(axis=0)) / np.where(std > 0, std, 1.0)
    k = min(2, Xs.shape[1], Xs.shape[0])
    pca = PCA(n_components=k, random_state=0).fit(Xs)
    coords = pca.transform(Xs)
    if k < 2:
        coords = np.column_stack([coords, np.zeros(len(coords))])
    return Projection(coords, np.pad(pca.explained_variance_ratio_, (0, 2 - k)), idx.astype(np.int64))


@dataclass(frozen=True)
class ImagePanels:
    """Pictures for the pixel-mask view: a few example images and the class means."""

    examples: np.ndarray  # (k, h, w)
    example_labels: tuple
    means: np.ndarray  # (c, h, w)
    mean_labels: tuple
    shape: tuple


def image_panels(_dataset, n_examples: int = 4, seed: int = 0, max_means: int = 4) -> ImagePanels:
    """Example images (one per class, round robin) and per-class mean images.

    Images are rows of X reshaped to ``image_shape`` in C order (the loader already turned
    MATLAB's column-major layout upright). With more than ``max_means`` classes, the means
    of the first ``max_means`` classes are shown.
    """
    shape = getattr(_dataset, "image_shape", None)
    if shape is None:
        raise ValueError(
            f"image_panels: dataset {_dataset.name!r} has no image_shape; set it in the sidebar."
        )
    X = _dataset.X
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    h, w = shape
    y = getattr(_dataset, "y", None)
    rng = np.random.default_rng(seed)
    if y is None:
        pick = rng.choice(len(X), size=min(n_examples, len(X)), replace=False)
        return ImagePanels(
            X[pick].reshape(-1, h, w), ("",) * len(pick), X.mean(0).reshape(1, h, w), ("all samples",), (h, w)
        )
    y = np.asarray(y)
    classes = np.unique(y)
    per = [rng.permutation(np.flatnonzero(y == c)) for c in classes]
    pick = [
        per[i % len(classes)][i // len(classes)]
        for i in range(n_examples)
        if i // len(classes) < len(per[i % len(classes)])
    ]
    shown = classes[:max_means]
    means = np.stack([X[y == c].mean(0) for c in shown]).reshape(-1, h, w)
    return ImagePanels(
        X[pick].reshape(-1, h, w),
        tuple(str(_plain(y[p])) for p in pick),
        means,
        tuple(f"mean of class {_plain(c)}" for c in shown),
        (h, w),
    )


__all__ = [
    "DECISIONS",
    "SCORE_METHODS",
    "Evaluation",
    "reselector",
    "CV_HONEST",
    "CV_BIASED",
    "GRMResult",
    "GroupResult",
    "HistogramResult",
    "ImagePanels",
    "Projection",
    "ScoreResult",
    "Selection",
    "StreamResult",
    "Summary",
    "cache_key",
    "classes_frame",
    "compare_frame",
    "decode_history",
    "evaluate_top",
    "feature_moments",
    "gdm_prior_rows",
    "groups_frame",
    "image_panels",
    "names_preview",
    "pair_correlations",
    "params_label",
    "positive_scores",
    "preview_frame",
    "project",
    "read_selection_csv",
    "reduced_csv",
    "run_gdm",
    "run_grm",
    "run_histogram",
    "run_score",
    "run_stream",
    "selection_csv",
    "selection_frame",
    "stream_frame",
    "summarize",
    "summary_frame",
    "validate_prior_groups",
]
