"""Model-X knockoffs (fsviz.select.knockoffs): the knockoff+ threshold by its definition, the
knockoffs' second moments, the errors, and FDR on Gaussian data."""

from __future__ import annotations

import numpy as np
import pytest

from fsviz.select import Knockoffs, gaussian_knockoffs, knockoff_threshold


def _brute_threshold(W, q, offset):
    cands = sorted({abs(w) for w in W if w != 0})
    for t in cands:
        if (offset + sum(w <= -t for w in W)) / max(1, sum(w >= t for w in W)) <= q:
            return t
    return np.inf


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("offset", [0, 1])
def test_threshold_is_the_definition(seed, offset):
    rng = np.random.default_rng(seed)
    W = np.concatenate([rng.normal(2, 1, 15), rng.normal(0, 1, 40)]).round(2)
    for q in (0.1, 0.2, 0.5):
        assert knockoff_threshold(W, q, offset=offset) == _brute_threshold(W, q, offset)


def test_knockoffs_match_the_second_moments():
    rng = np.random.default_rng(0)
    m, n = 4, 40000
    A = rng.normal(size=(m, m))
    Sigma = A @ A.T + m * np.eye(m)
    d = np.sqrt(np.diag(Sigma))
    Sigma = Sigma / np.outer(d, d)
    X = rng.multivariate_normal(np.zeros(m), Sigma, size=n)
    Xk = gaussian_knockoffs(X, random_state=1)
    Z = (X - X.mean(0)) / X.std(0)
    C = np.cov(np.hstack([Z, Xk]).T)
    s = min(1.0, 2 * np.linalg.eigvalsh(np.corrcoef(Z.T))[0])
    np.testing.assert_allclose(C[m:, m:], C[:m, :m], atol=0.03)  # Cov(X~) = Sigma
    off = C[:m, m:]
    np.testing.assert_allclose(
        off - np.diag(np.diag(off)), C[:m, :m] - np.diag(np.diag(C[:m, :m])), atol=0.03
    )
    np.testing.assert_allclose(np.diag(off), 1 - s, atol=0.03)  # Cov(X_j, X~_j) = 1 - s


def test_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n >= 2 m samples; got n = 30, m = 20"):
        Knockoffs().fit(rng.normal(size=(30, 20)), rng.normal(size=30))
    X = rng.normal(size=(60, 5))
    X[:, 2] = 1.0
    with pytest.warns(UserWarning, match=r"1 constant feature\(s\) left out .* columns \[2\]"):
        fitted = Knockoffs(statistic="score", fdr=1.0, random_state=0).fit(X, X[:, 0] + rng.normal(size=60))
    assert fitted.W_[2] == 0.0 and 2 not in fitted.selected_ and fitted.W_.shape == (5,)
    with pytest.raises(ValueError, match="every feature is constant"):
        Knockoffs().fit(np.ones((60, 3)), rng.normal(size=60))
    with pytest.raises(ValueError, match="got 3 classes"):
        Knockoffs().fit(rng.normal(size=(60, 5)), np.arange(60) % 3)


def test_finds_planted_and_little_under_the_null():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 25))
    y = (X[:, :8] @ np.full(8, 0.8) + rng.normal(size=300) > 0).astype(int)
    sel = Knockoffs(fdr=0.2, statistic="score", random_state=0).fit(X, y)
    assert len(set(sel.selected_.tolist()) & set(range(8))) >= 6
    assert sel.get_support().sum() == sel.selected_.size and np.all(sel.W_[sel.selected_] >= sel.threshold_)
    null = Knockoffs(fdr=0.2, statistic="score", random_state=0).fit(X, rng.normal(size=300))
    assert null.selected_.size <= 2


@pytest.mark.slow
def test_fdr_across_20_seeds():
    fdp = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(400, 60))
        y = X[:, :10] @ np.full(10, 0.5) + rng.normal(size=400)
        sel = Knockoffs(fdr=0.1, random_state=seed).fit(X, y).selected_
        fdp.append(np.mean(sel >= 10) if sel.size else 0.0)
    fdp = np.asarray(fdp)
    assert fdp.mean() <= 0.1 + 2 * fdp.std(ddof=1) / np.sqrt(20)
