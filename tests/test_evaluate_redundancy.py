"""redundancy_rate against np.corrcoef and hand-computed values."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz.evaluate import redundancy_rate


def test_hand_computed_three_features():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    X = np.column_stack([x, 2 * x + 1, -x, np.array([1.0, -1.0, -1.0, 1.0])])
    # pairs among {0, 1, 2}: |rho| = 1, 1, 1
    assert redundancy_rate(X, [0, 1, 2]) == pytest.approx(1.0)
    # {0, 3}: x centred = [-1.5,-.5,.5,1.5], v = [1,-1,-1,1] -> dot 0
    assert redundancy_rate(X, [0, 3]) == pytest.approx(0.0, abs=1e-15)
    assert redundancy_rate(X, [0, 3], kind="cosine2") == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("kind", ["pearson", "cosine2"])
def test_against_corrcoef(kind, rng):
    X = rng.normal(size=(60, 30)) + rng.normal(size=(60, 1))
    sel = np.array([3, 7, 8, 20, 29])
    R = np.corrcoef(X[:, sel], rowvar=False)
    iu = np.triu_indices(len(sel), 1)
    want = np.mean(np.abs(R[iu])) if kind == "pearson" else np.mean(R[iu] ** 2)
    assert redundancy_rate(X, sel, kind) == pytest.approx(want, rel=1e-12)
    # GRM eq. (31) literally: 1/(m(m-1)) * sum over ordered pairs i != j of A_ij
    if kind == "cosine2":
        m = len(sel)
        A = R**2
        assert redundancy_rate(X, sel, kind) == pytest.approx((A.sum() - np.trace(A)) / (m * (m - 1)))
    mask = np.zeros(30, dtype=bool)
    mask[sel] = True
    assert redundancy_rate(X, mask, kind) == pytest.approx(want, rel=1e-12)
    assert redundancy_rate(sp.csc_matrix(X), sel, kind) == pytest.approx(want, rel=1e-12)


def test_fewer_than_two_and_constant(rng):
    X = rng.normal(size=(20, 4))
    assert redundancy_rate(X, [1]) == 0.0
    assert redundancy_rate(X, []) == 0.0
    X[:, 2] = 5.0
    r = redundancy_rate(X, [0, 2])
    assert r == 0.0 and np.isfinite(r)


def test_errors(rng):
    X = rng.normal(size=(10, 5))
    with pytest.raises(ValueError, match="'kind' must be"):
        redundancy_rate(X, [0, 1], kind="spearman")
    with pytest.raises(ValueError, match=r"lie in \[0, 5\)"):
        redundancy_rate(X, [0, 5])
    with pytest.raises(ValueError, match="must not repeat"):
        redundancy_rate(X, [1, 1])
    with pytest.raises(ValueError, match="boolean mask has 3"):
        redundancy_rate(X, np.ones(3, dtype=bool))
