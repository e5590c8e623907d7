"""Synthetic data with known structure: grouped features, correlated blocks, sparse text.

Three generators, each seeded through ``random_state`` and fully vectorised:

- :func:`make_grouped_classification` -- the support/affiliated feature benchmark of
  the GDM paper (section 5.2): a few informative *support features*, each with 0-5
  highly correlated *affiliated features*, the rest pure noise, labels a linear
  function of the support features. The ground truth comes back as a
  :class:`GroundTruth`.
- :func:`make_correlated_blocks` -- the GRM paper's synthetic set (section 6): features
  in blocks of highly correlated members (a block-diagonal covariance), two Gaussian
  classes whose means differ block by block. Ground truth as :class:`BlockTruth`.
- :func:`make_sparse_text` -- a document x term count matrix with Zipf-distributed term
  frequencies at news20.binary scale (10k documents, 1.35M terms, ~3.6M non-zeros)
  in seconds, with labels driven by a few terms.

References
----------
.. [1] Zhai, Ong & Tsang, "Making Trillion Correlations Feasible in Feature Grouping
   and Selection", IEEE TPAMI 38(12), 2016, section 5.2 and Table 2.
.. [2] Wang, Nie & Huang, "Feature Selection via Global Redundancy Minimization",
   IEEE TKDE 27(10), 2015, section 6 (synthetic data, Fig. 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from fsviz._params import check_number

__all__ = [
    "BlockTruth",
    "GroundTruth",
    "TextTruth",
    "make_correlated_blocks",
    "make_grouped_classification",
    "make_grouped_regression",
    "make_sparse_text",
]


# ----------------------------------------------------------------------------- helpers
def _generator(random_state) -> np.random.Generator:
    # sklearn convention (int / RandomState / None) converted once, then a fast Generator
    rs = check_random_state(random_state)
    return np.random.default_rng(rs.randint(0, 2**31 - 1, size=4))


# ----------------------------------------------------------------------------- grouped
@dataclass(frozen=True, eq=False)
class GroundTruth:
    """Ground truth of :func:`make_grouped_classification`.

    Attributes
    ----------
    support : ndarray of int, shape (n_groups,)
        Column indices of the true support features (SF).
    groups : dict of int -> ndarray of int
        ``groups[sf]`` holds the column indices of the affiliated features (AF) of
        support feature ``sf`` (possibly empty).
    weights : ndarray of float, shape (n_groups,)
        Weight of each support feature in the linear label function, aligned with
        ``support``.
    affiliate_corr : dict of int -> ndarray of float
        Population correlation of each affiliated feature with its support feature,
        aligned with ``groups[sf]``.
    """

    support: np.ndarray
    groups: dict
    weights: np.ndarray
    affiliate_corr: dict = field(default_factory=dict)

    @property
    def affiliated(self) -> np.ndarray:
        """All affiliated feature indices, concatenated in the order of ``support``."""
        parts = [self.groups[int(s)] for s in self.support]
        return np.concatenate(parts).astype(np.intp) if parts else np.empty(0, dtype=np.intp)

    @property
    def informative(self) -> np.ndarray:
        """Support and affiliated features together (sorted)."""
        return np.sort(np.concatenate([self.support, self.affiliated])).astype(np.intp)

    @property
    def n_affiliated(self) -> int:
        return int(sum(len(v) for v in self.groups.values()))


def make_grouped_classification(
    n_samples: int = 2048,
    n_features: int = 10000,
    n_groups: int = 12,
    max_affiliates: int = 5,
    noise: float = 0.1,
    affiliate_corr: tuple[float, float] = (0.75, 0.9),
    min_weight: float = 1.0,
    shuffle: bool = True,
    random_state=0,
) -> tuple[np.ndarray, np.ndarray, GroundTruth]:
    """Support features with affiliated copies among noise: the GDM synthetic benchmark.

    ``n_groups`` support features are drawn i.i.d. N(0, 1). Each gets between 0 and
    ``max_affiliates`` affiliated features (uniformly), each a noisy copy
    ``rho * x_sf + sqrt(1 - rho^2) * e`` whose population correlation ``rho`` with its
    support feature is drawn uniformly from ``affiliate_corr``. All other features are
    independent N(0, 1) noise. Labels are ``sign(X_S w + noise * std(X_S w) * e)``
    with weights ``w`` drawn from N(0, 1) (the paper's "predictive ability of each group
    follows N(0, 1)") and magnitudes raised to at least ``min_weight`` so every support
    feature carries signal. Labels depend on the support features only, so an affiliated
    feature is informative only through its support feature.

    Parameters
    ----------
    n_samples : int, default=2048
        Number of observations (the paper uses 2,048).
    n_features : int, default=10000
        Total number of features (the paper uses 10,000).
    n_groups : int, default=12
        Number of support features / feature groups (the paper uses 12).
    max_affiliates : int, default=5
        Each support feature has ``randint(0, max_affiliates + 1)`` affiliated features.
    noise : float, default=0.1
        Standard deviation of the Gaussian label noise relative to that of the linear
        score ``X_S w``; 0 gives noiseless, linearly separable labels.
    affiliate_corr : (float, float), default=(0.75, 0.9)
        Range of the population correlation between an affiliated feature and its
        support feature; ``0 < low <= high < 1``. The default keeps every affiliated
        feature clearly above GDM's ``1 - tau = 0.7`` at ``tau = 0.3`` and clearly below
        its support feature in relevance.
    min_weight : float, default=1.0
        Smallest absolute weight of a support feature in the label function (weights
        are N(0, 1) draws with their magnitude raised to at least this), so that no
        support feature is drowned by the noise of its own affiliated copies.
    shuffle : bool, default=True
        Randomly permute the columns (the truth gives the permuted indices). When
        False, support features come first, then the affiliated ones group by group,
        then the noise.
    random_state : int, RandomState instance or None, default=0
        Seed for reproducible output.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int64 with values in {0, 1}
    truth : GroundTruth
        ``support``, ``groups`` (SF -> AF indices), ``weights``, ``affiliate_corr``.

    References
    ----------
    .. [1] Zhai, Ong & Tsang (2016), TPAMI, section 5.2, Fig. 3(a) and Table 2.

    Examples
    --------
    >>> from fsviz.data import make_grouped_classification
    >>> X, y, truth = make_grouped_classification(n_samples=100, n_features=200, random_state=0)
    >>> X.shape, len(truth.support)
    ((100, 200), 12)
    """
    f = "make_grouped_classification"
    n_samples = check_number(f, "n_samples", n_samples, integer=True, low=2)
    n_groups = check_number(f, "n_groups", n_groups, integer=True, low=1)
    max_affiliates = check_number(f, "max_affiliates", max_affiliates, integer=True, low=0)
    n_features = check_number(f, "n_features", n_features, integer=True, low=1)
    noise = check_number(f, "noise", noise, integer=False, low=0.0)
    min_weight = check_number(f, "min_weight", min_weight, integer=False, low=0.0)
    try:
        lo, hi = (float(v) for v in affiliate_corr)
    except (TypeError, ValueError):
        raise ValueError(
            f"{f}: 'affiliate_corr' must be a pair (low, high); got {affiliate_corr!r}."
        ) from None
    if not (0.0 < lo <= hi < 1.0):
        raise ValueError(f"{f}: 'affiliate_corr' must satisfy 0 < low <= high < 1; got ({lo}, {hi}).")
    need = n_groups * (1 + max_affiliates)
    if n_features < need:
        raise ValueError(
            f"{f}: 'n_features' must be at least n_groups * (1 + max_affiliates) = {need} so every "
            f"group fits; got {n_features}. Raise n_features or lower n_groups / max_affiliates."
        )
    rng = _generator(random_state)

    n_aff = rng.integers(0, max_affiliates + 1, size=n_groups)
    total_aff = int(n_aff.sum())
    X = rng.standard_normal((n_samples, n_features))
    # layout before shuffling: [SF 0..g-1 | AF grouped by SF | noise]
    owner = np.repeat(np.arange(n_groups), n_aff)  # SF (group) of every AF
    rho = rng.uniform(lo, hi, size=total_aff)
    aff_cols = n_groups + np.arange(total_aff)
    X[:, aff_cols] = rho * X[:, owner] + np.sqrt(1.0 - rho**2) * X[:, aff_cols]

    w = rng.standard_normal(n_groups)
    w = np.sign(w + (w == 0)) * np.maximum(np.abs(w), min_weight)
    score = X[:, :n_groups] @ w
    score = score + noise * score.std() * rng.standard_normal(n_samples)
    y = (score > 0).astype(np.int64)
    if np.unique(y).size < 2:  # astronomically unlikely; keep the output a valid 2-class problem
        y[np.argmin(score)], y[np.argmax(score)] = 0, 1

    perm = rng.permutation(n_features) if shuffle else np.arange(n_features)
    # column `old` goes to position `where[old]`
    where = np.empty(n_features, dtype=np.intp)
    where[perm] = np.arange(n_features)
    X = X[:, perm] if shuffle else X
    support = where[:n_groups]
    starts = np.concatenate([[0], np.cumsum(n_aff)])
    groups = {
        int(support[g]): where[aff_cols[starts[g] : starts[g + 1]]].astype(np.intp) for g in range(n_groups)
    }
    corr = {int(support[g]): rho[starts[g] : starts[g + 1]].copy() for g in range(n_groups)}
    truth = GroundTruth(support=support.astype(np.intp), groups=groups, weights=w, affiliate_corr=corr)
    return np.ascontiguousarray(X), y, truth


def make_grouped_regression(
    n_samples: int = 2048,
    n_features: int = 10000,
    n_groups: int = 12,
    max_affiliates: int = 5,
    noise: float = 0.1,
    affiliate_corr: tuple[float, float] = (0.75, 0.9),
    min_weight: float = 1.0,
    shuffle: bool = True,
    random_state=0,
) -> tuple[np.ndarray, np.ndarray, GroundTruth]:
    """The GDM synthetic benchmark with a continuous target: ``y = X_S w + noise``.

    ``X`` and ``truth`` are exactly those of :func:`make_grouped_classification` with the same
    arguments (support features, their affiliated copies, noise features); the target is the
    linear score itself, ``y = X_S w + noise * std(X_S w) * e`` with ``e`` standard normal,
    instead of its sign.

    Parameters
    ----------
    n_samples, n_features, n_groups, max_affiliates, affiliate_corr, min_weight, shuffle :
        As in :func:`make_grouped_classification`.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise relative to that of ``X_S w``.
    random_state : int, RandomState instance or None, default=0
        Seed for reproducible output.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), float64
    truth : GroundTruth

    Examples
    --------
    >>> from fsviz.data import make_grouped_regression
    >>> X, y, truth = make_grouped_regression(n_samples=100, n_features=200, random_state=0)
    >>> X.shape, y.dtype.kind, len(truth.support)
    ((100, 200), 'f', 12)
    """
    noise = check_number("make_grouped_regression", "noise", noise, integer=False, low=0.0)
    rs = check_random_state(random_state)
    X, _, truth = make_grouped_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_groups=n_groups,
        max_affiliates=max_affiliates,
        noise=0.0,
        affiliate_corr=affiliate_corr,
        min_weight=min_weight,
        shuffle=shuffle,
        random_state=rs,
    )
    score = X[:, truth.support] @ truth.weights
    y = score + noise * score.std() * _generator(rs).standard_normal(X.shape[0])
    return X, y, truth


# ----------------------------------------------------------------------------- blocks
@dataclass(frozen=True, eq=False)
class BlockTruth:
    """Ground truth of :func:`make_correlated_blocks`.

    Attributes
    ----------
    block : ndarray of int, shape (n_features,)
        Block index of every feature.
    informative_blocks : ndarray of int
        Blocks whose class means differ.
    mean_shift : ndarray of float, shape (n_features,)
        Difference of the class means (class 1 minus class 0) of every feature.
    block_corr : float
        Within-block (within-class) correlation of any two features of a block.
    """

    block: np.ndarray
    informative_blocks: np.ndarray
    mean_shift: np.ndarray
    block_corr: float

    @property
    def blocks(self) -> list[np.ndarray]:
        """Feature indices of each block, in block order."""
        order = np.argsort(self.block, kind="stable")
        counts = np.bincount(self.block)
        return np.split(order, np.cumsum(counts)[:-1])


def make_correlated_blocks(
    n_samples: int = 400,
    n_features: int = 100,
    n_blocks: int = 10,
    block_corr: float = 0.8,
    n_informative_blocks: int | None = None,
    class_sep: float = 1.0,
    shuffle: bool = False,
    random_state=0,
) -> tuple[np.ndarray, np.ndarray, BlockTruth]:
    """Two Gaussian classes with a block-diagonal feature covariance (the GRM synthetic set).

    The ``n_features`` features are split into ``n_blocks`` contiguous blocks of
    (nearly) equal size. Within a class, every feature has unit variance and any two
    features of the same block have correlation ``block_corr`` (an equicorrelated block:
    ``x = sqrt(r) u_block + sqrt(1 - r) e``); features of different blocks are
    independent. The two classes (equal sizes) differ in mean by
    ``class_sep * U(0.2, 1) * (+/-1)`` per informative block, the same shift for every
    feature of the block, so a block's members are equally relevant and mutually
    redundant -- the situation global redundancy minimisation is built for.

    Parameters
    ----------
    n_samples : int, default=400
        Number of samples (the paper uses 400).
    n_features : int, default=100
        Number of features (the paper uses 100).
    n_blocks : int, default=10
        Number of correlated blocks (the paper uses 10 blocks of 10).
    block_corr : float, default=0.8
        Within-block correlation, in [0, 1).
    n_informative_blocks : int or None, default=None
        How many blocks (chosen at random) separate the classes; None means all.
    class_sep : float, default=1.0
        Scale of the class mean differences, in units of the feature standard deviation.
    shuffle : bool, default=False
        Randomly permute the columns; False keeps blocks contiguous (a block-diagonal
        correlation picture as in the paper's Fig. 2).
    random_state : int, RandomState instance or None, default=0

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int64 in {0, 1}
    truth : BlockTruth

    References
    ----------
    .. [1] Wang, Nie & Huang (2015), TKDE, section 6, "synthetic data" and Fig. 2.

    Examples
    --------
    >>> from fsviz.data import make_correlated_blocks
    >>> X, y, truth = make_correlated_blocks(random_state=0)
    >>> X.shape, len(truth.blocks)
    ((400, 100), 10)
    """
    f = "make_correlated_blocks"
    n_samples = check_number(f, "n_samples", n_samples, integer=True, low=2)
    n_features = check_number(f, "n_features", n_features, integer=True, low=1)
    n_blocks = check_number(f, "n_blocks", n_blocks, integer=True, low=1)
    if n_blocks > n_features:
        raise ValueError(f"{f}: 'n_blocks' must be <= n_features ({n_features}); got {n_blocks}.")
    block_corr = check_number(f, "block_corr", block_corr, integer=False, low=0.0, high=1.0, high_open=True)
    class_sep = check_number(f, "class_sep", class_sep, integer=False, low=0.0)
    if n_informative_blocks is None:
        n_informative_blocks = n_blocks
    n_informative_blocks = check_number(
        f, "n_informative_blocks", n_informative_blocks, integer=True, low=0, high=n_blocks
    )
    rng = _generator(random_state)

    sizes = np.full(n_blocks, n_features // n_blocks)
    sizes[: n_features % n_blocks] += 1
    block = np.repeat(np.arange(n_blocks), sizes)
    y = np.zeros(n_samples, dtype=np.int64)
    y[: n_samples // 2] = 1
    rng.shuffle(y)

    shift_b = np.zeros(n_blocks)
    inf = np.sort(rng.choice(n_blocks, size=n_informative_blocks, replace=False))
    shift_b[inf] = class_sep * rng.uniform(0.2, 1.0, size=inf.size) * rng.choice([-1.0, 1.0], size=inf.size)
    U = rng.standard_normal((n_samples, n_blocks))
    X = np.sqrt(block_corr) * U[:, block] + np.sqrt(1.0 - block_corr) * rng.standard_normal(
        (n_samples, n_features)
    )
    mean_shift = shift_b[block]
    X += np.outer(y - 0.5, mean_shift)

    if shuffle:
        perm = rng.permutation(n_features)
        X = X[:, perm]
        block = block[perm]
        mean_shift = mean_shift[perm]
    truth = BlockTruth(
        block=block.astype(np.intp),
        informative_blocks=inf.astype(np.intp),
        mean_shift=mean_shift,
        block_corr=block_corr,
    )
    return np.ascontiguousarray(X), y, truth


# ----------------------------------------------------------------------------- text
@dataclass(frozen=True, eq=False)
class TextTruth:
    """Ground truth of :func:`make_sparse_text`.

    Attributes
    ----------
    informative : ndarray of int
        Term (column) indices that drive the labels.
    weights : ndarray of float
        Their weights in the label score ``log1p(counts) @ weights``.
    term_rank : ndarray of int, shape (n_features,)
        Zipf frequency rank of every term (0 = most frequent).
    """

    informative: np.ndarray
    weights: np.ndarray
    term_rank: np.ndarray


def make_sparse_text(
    n_samples: int = 10_000,
    n_features: int = 1_350_000,
    nnz: int = 3_600_000,
    zipf_exponent: float = 1.05,
    n_informative: int = 50,
    positive_fraction: float = 0.6,
    noise: float = 0.5,
    format: str = "csr",
    return_truth: bool = False,
    random_state=0,
):
    """A sparse document x term count matrix with Zipf term frequencies (news20.binary scale).

    Tokens are drawn independently: the term from a Zipf law over the ``n_features``
    terms (probability of the term of rank ``k`` proportional to ``(k + 1) ** -s``,
    ranks randomly assigned to columns) and the document with probability proportional
    to a log-normal document length. Token streams are drawn until exactly ``nnz``
    distinct (document, term) pairs have appeared; the counts of those pairs in that
    prefix of the stream are the matrix entries. Everything is vectorised (sorting and
    ``searchsorted``), so news20.binary's scale -- 10k documents, 1.35M terms, ~3.6M
    non-zeros -- takes a few seconds and a few hundred MB.

    Labels: ``n_informative`` terms among the moderately frequent ones (Zipf ranks 10 to
    2,000) get weights ``+/-U(0.5, 1.5)``; a document's score is
    ``log1p(counts) @ weights`` plus Gaussian noise (``noise`` times the score's standard
    deviation); the top ``positive_fraction`` of the scores are labelled 1 (news20.binary
    has 60 % positives).

    Parameters
    ----------
    n_samples : int, default=10000
        Number of documents.
    n_features : int, default=1350000
        Vocabulary size (columns). Terms that are never drawn stay all-zero columns,
        as in real bag-of-words data.
    nnz : int, default=3600000
        Exact number of stored non-zeros; at most ``n_samples * n_features``.
    zipf_exponent : float, default=1.05
        Zipf exponent ``s`` > 0 of the term frequency law.
    n_informative : int, default=50
        Number of label-driving terms, in [1, min(1990, n_features)].
    positive_fraction : float, default=0.6
        Fraction of documents labelled 1, in (0, 1).
    noise : float, default=0.5
        Relative standard deviation of the label noise.
    format : {"csr", "csc"}, default="csr"
        Sparse format of ``X``.
    return_truth : bool, default=False
        Also return a :class:`TextTruth`.
    random_state : int, RandomState instance or None, default=0

    Returns
    -------
    X : scipy.sparse.csr_matrix or csc_matrix of shape (n_samples, n_features), float64
        Positive integer counts, exactly ``nnz`` stored entries.
    y : ndarray of shape (n_samples,), int64 in {0, 1}
    truth : TextTruth
        Only when ``return_truth=True``.

    References
    ----------
    .. [1] Zhai, Ong & Tsang (2016), TPAMI, Table 3 (news20.binary: 1,355,191 features,
       9,996 training documents, 3,584,383 non-zeros).

    Examples
    --------
    >>> from fsviz.data import make_sparse_text
    >>> X, y = make_sparse_text(n_samples=100, n_features=5000, nnz=3000, random_state=0)
    >>> X.shape, X.nnz
    ((100, 5000), 3000)
    """
    f = "make_sparse_text"
    n_samples = check_number(f, "n_samples", n_samples, integer=True, low=2)
    n_features = check_number(f, "n_features", n_features, integer=True, low=1)
    nnz = check_number(f, "nnz", nnz, integer=True, low=1)
    if nnz > n_samples * n_features:
        raise ValueError(
            f"{f}: 'nnz' must be <= n_samples * n_features = {n_samples * n_features}; got {nnz}."
        )
    if nnz > 0.5 * n_samples * n_features:
        raise ValueError(
            f"{f}: 'nnz' must be at most half of n_samples * n_features ({n_samples * n_features // 2}) "
            f"for a sparse text-like matrix; got {nnz}. Lower nnz or enlarge the matrix."
        )
    zipf_exponent = check_number(f, "zipf_exponent", zipf_exponent, integer=False, low=0.0, low_open=True)
    n_informative = check_number(
        f, "n_informative", n_informative, integer=True, low=1, high=min(1990, n_features)
    )
    positive_fraction = check_number(
        f,
        "positive_fraction",
        positive_fraction,
        integer=False,
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
    )
    noise = check_number(f, "noise", noise, integer=False, low=0.0)
    if format not in ("csr", "csc"):
        raise ValueError(f"{f}: 'format' must be 'csr' or 'csc'; got {format!r}.")
    rng = _generator(random_state)

    # Zipf law over ranks; rank -> column through a random permutation
    p = np.arange(1, n_features + 1, dtype=np.float64) ** -zipf_exponent
    term_cdf = np.cumsum(p)
    term_cdf /= term_cdf[-1]
    rank_to_col = rng.permutation(n_features)
    doc_w = rng.lognormal(0.0, 0.7, size=n_samples)
    doc_cdf = np.cumsum(doc_w)
    doc_cdf /= doc_cdf[-1]

    m = np.int64(n_features)
    keys = np.empty(0, dtype=np.int64)
    chunk = int(1.7 * nnz) + 16
    while True:
        d = np.searchsorted(doc_cdf, rng.random(chunk), side="right").clip(0, n_samples - 1)
        t = np.searchsorted(term_cdf, rng.random(chunk), side="right").clip(0, n_features - 1)
        keys = np.concatenate([keys, d.astype(np.int64) * m + rank_to_col[t]])
        order = np.argsort(keys, kind="stable")
        sk = keys[order]
        new_key = np.empty(sk.size, dtype=bool)
        new_key[0] = True
        np.not_equal(sk[1:], sk[:-1], out=new_key[1:])
        n_uniq = int(new_key.sum())
        if n_uniq >= nnz:
            break
        chunk = max(chunk, int((nnz - n_uniq) * 2.0 * keys.size / max(n_uniq, 1)) + 16)
    # cut the stream where the nnz-th distinct pair first appears (stable sort: the
    # first element of every run of equal keys is its first occurrence)
    starts = np.flatnonzero(new_key)
    first = order[starts]
    cut = np.partition(first, nnz - 1)[nnz - 1] + 1
    keep = first < cut
    uniq = sk[starts[keep]]
    counts = np.add.reduceat((order < cut).astype(np.int64), starts)[keep]
    del keys, order, sk, new_key
    rows = (uniq // m).astype(np.int32 if n_samples < 2**31 else np.int64)
    cols = (uniq % m).astype(np.int32 if n_features < 2**31 else np.int64)
    X = sp.csr_matrix((counts.astype(np.float64), (rows, cols)), shape=(n_samples, n_features))
    X.sum_duplicates()

    # labels from moderately frequent terms
    lo_rank, hi_rank = min(10, n_features - n_informative), min(2000, n_features)
    ranks = np.sort(rng.choice(np.arange(lo_rank, hi_rank), size=n_informative, replace=False))
    informative = rank_to_col[ranks]
    weights = rng.uniform(0.5, 1.5, size=n_informative) * rng.choice([-1.0, 1.0], size=n_informative)
    Xi = X[:, informative]
    score = np.asarray(Xi.log1p() @ weights).ravel()
    sd = score.std()
    score = score + noise * (sd if sd > 0 else 1.0) * rng.standard_normal(n_samples)
    n_pos = int(round(positive_fraction * n_samples))
    n_pos = min(max(n_pos, 1), n_samples - 1)
    order = np.argsort(-score, kind="stable")
    y = np.zeros(n_samples, dtype=np.int64)
    y[order[:n_pos]] = 1

    if format == "csc":
        X = X.tocsc()
    if return_truth:
        term_rank = np.empty(n_features, dtype=np.intp)
        term_rank[rank_to_col] = np.arange(n_features)
        return X, y, TextTruth(informative=informative.astype(np.intp), weights=weights, term_rank=term_rank)
    return X, y
