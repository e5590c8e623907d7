import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from fsviz.stats import _info_kernels as K
from fsviz.stats import information as I


def _su_textbook(a, b):
    ha, hb = mutual_info_score(a, a), mutual_info_score(b, b)
    return 0.0 if ha + hb == 0 else 2 * mutual_info_score(a, b) / (ha + hb)


@pytest.fixture
def discrete(rng):
    X = rng.integers(0, 4, (300, 7)).astype(float)
    X[:, 3] = X[:, 0]  # a copy
    X[:, 5] = 2.0  # constant
    y = (X[:, 0] + rng.integers(0, 2, 300)) % 3
    return X, y


def test_mi_and_su_with_target_match_sklearn(discrete):
    X, y = discrete
    c = I.discretize(X)
    assert np.allclose(I.mi_with_target(c, y), [mutual_info_score(X[:, j], y) for j in range(X.shape[1])])
    assert np.allclose(I.su_with_target(c, y), [_su_textbook(X[:, j], y) for j in range(X.shape[1])])


def test_cross_matrices_match_textbook(discrete):
    X, _ = discrete
    c = I.discretize(X)
    rows, cols = [0, 1, 5], [0, 2, 3, 4, 5, 6]
    su = I.su_cross(c, rows, cols)
    mi = I.mi_cross(c, rows, cols)
    for i, a in enumerate(rows):
        for j, b in enumerate(cols):
            assert su[i, j] == pytest.approx(_su_textbook(X[:, a], X[:, b]), abs=1e-12)
            assert mi[i, j] == pytest.approx(mutual_info_score(X[:, a], X[:, b]), abs=1e-12)
    assert su[0, 2] == pytest.approx(1.0)  # a copy has SU 1
    assert su[2, 4] == 0.0  # constant with constant


def test_uniform_bins_are_ten_percent_of_range(rng):
    X = rng.normal(size=(500, 3))
    c = I.discretize(X, n_bins=10, strategy="uniform")
    assert list(c.k) == [10, 10, 10]
    lo, hi = X.min(0), X.max(0)
    expected = np.clip(np.floor((X - lo) / (hi - lo) * 10), 0, 9)
    assert np.array_equal(c.codes, expected)


def test_sparse_input_matches_dense(rng):
    import scipy.sparse as sp

    X = rng.poisson(0.3, (80, 50)).astype(float)
    a, b = I.discretize(X), I.discretize(sp.csr_matrix(X))
    assert np.array_equal(a.codes, b.codes) and np.array_equal(a.k, b.k)


def test_joint_entropy_sort_path_equals_count_path(rng):
    a = rng.integers(0, 3000, 1000).astype(np.int32)
    b = rng.integers(0, 3000, 1000).astype(np.int32)
    sorted_path = K.joint_entropy_codes(a, 3000, b, 3000)  # 9e6 > 2**22 cells -> sort path
    ref = mutual_info_score(a, a) + mutual_info_score(b, b) - mutual_info_score(a, b)
    assert sorted_path == pytest.approx(ref)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_bins"):
        I.discretize(np.zeros((3, 2)), n_bins=1)
    with pytest.raises(ValueError, match="strategy"):
        I.discretize(np.zeros((3, 2)), strategy="quantile")
    with pytest.raises(ValueError, match="must match"):
        I.su_with_target(np.zeros((3, 2)), [0, 1])
