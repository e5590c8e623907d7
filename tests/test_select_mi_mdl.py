"""``MutualInfo(strategy="mdl")``: information gain on Fayyad & Irani's MDL discretisation.

Checked against a plain transcription of the recursive MDLP (Fayyad & Irani 1993) and on
known answers.
"""

import numpy as np
import pytest

from fsviz.select import MutualInfo, mutual_info_score
from fsviz.select import _score_kernels as K


def _ent(counts):
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def _mdlp_ig_reference(x, y):
    """IG (nats) of one feature cut by recursive MDLP, transcribed from the paper."""
    classes = np.unique(y)
    order = np.argsort(x, kind="mergesort")
    xs, ys = x[order], y[order]

    def counts(s):
        return np.array([(s == c).sum() for c in classes], dtype=float)

    leaves = []

    def rec(lo, hi):
        seg = ys[lo:hi]
        n, h = hi - lo, _ent(counts(seg))
        best, cut = np.inf, None
        for i in range(lo, hi - 1):
            if xs[i + 1] > xs[i]:
                nl = i - lo + 1
                e = (nl * _ent(counts(ys[lo : i + 1])) + (n - nl) * _ent(counts(ys[i + 1 : hi]))) / n
                if e < best:
                    best, cut = e, i
        if cut is not None:
            s1, s2 = counts(ys[lo : cut + 1]), counts(ys[cut + 1 : hi])
            k, k1, k2 = (counts(seg) > 0).sum(), (s1 > 0).sum(), (s2 > 0).sum()
            delta = np.log2(3.0**k - 2) - (k * h - k1 * _ent(s1) - k2 * _ent(s2))
            if h - best > (np.log2(n - 1) + delta) / n:
                rec(lo, cut + 1)
                rec(cut + 1, hi)
                return
        leaves.append((n, h))

    rec(0, len(x))
    cond = sum(n * h for n, h in leaves) / len(x)
    return max(_ent(counts(ys)) - cond, 0.0) * np.log(2.0)


@pytest.mark.parametrize("seed", range(4))
def test_mdl_ig_equals_the_transcription(seed):
    rng = np.random.default_rng(seed)
    n, m, c = 60, 25, 2 + seed % 3
    y = rng.integers(0, c, n)
    X = rng.normal(size=(n, m))
    X[:, :5] += 1.5 * y[:, None]  # informative
    X[:, 5:8] = np.round(X[:, 5:8])  # ties between values
    got = mutual_info_score(X, y, strategy="mdl")
    want = np.array([_mdlp_ig_reference(X[:, j], y) for j in range(m)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert np.all(got[:5] > 0)


def test_mdl_known_answers():
    y = np.repeat([0, 1], 30)
    perfect = np.r_[np.linspace(0, 1, 30), np.linspace(2, 3, 30)]
    s = mutual_info_score(np.c_[perfect, np.zeros(60)], y, strategy="mdl")
    assert s[0] == pytest.approx(np.log(2.0), rel=1e-12)  # H(Y) for two equal classes
    assert s[1] == 0.0  # constant: no cut
    # noise: MDL accepts no cut, so the score is exactly 0 (not a small plug-in bias)
    noise = np.random.default_rng(0).normal(size=(60, 200))
    assert np.mean(mutual_info_score(noise, y, strategy="mdl") == 0.0) > 0.9


def test_mdl_selector_sparse_and_kernel():
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 80)
    X = rng.normal(size=(80, 12)) + y[:, None] * (np.arange(12) < 3)
    X[X < 0.3] = 0.0
    dense = MutualInfo(strategy="mdl", n_features=3).fit(X, y)
    sparse = MutualInfo(strategy="mdl", n_features=3).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.scores_, sparse.scores_)
    assert set(dense.get_support(indices=True)) == {0, 1, 2}
    codes = np.unique(y, return_inverse=True)[1].astype(np.int64)
    col = np.ascontiguousarray(X[:, 0])
    assert K._mdl_ig_column(col, codes, 3) == K._mdl_ig_column.py_func(col, codes, 3)


def test_mdl_bad_strategy_message():
    with pytest.raises(ValueError, match="'mdl'"):
        mutual_info_score(np.eye(4), [0, 1, 0, 1], strategy="mdll")
