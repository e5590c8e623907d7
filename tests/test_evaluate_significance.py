"""Permutation p-values, BH q-values and k_fdr (fsviz.evaluate.significance): batched statistics
against per-permutation refits, BH against a hand computation, FDR on planted data."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz import select as S
from fsviz.evaluate import bh_qvalues, k_fdr, label_permutations, permutation_pvalues


def _data(n=40, m=24, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = np.repeat([0, 1], n // 2)
    X[y == 1, :3] += 1.5
    return X, y, X[:, 0] + rng.normal(size=n)


def _cases():
    X, y, yc = _data()
    y3 = np.arange(X.shape[0]) % 3
    return [
        ("fisher", S.FisherScore(), X, y),
        ("fisher-3", S.FisherScore(), X, y3),
        ("f", S.FScore(), X, y3),
        ("f-regression", S.FScore(), X, yc),
        ("t", S.TScore(), X, y),
        ("chi2", S.ChiSquare(), np.abs(X), y3),
        ("chi2-sparse", S.ChiSquare(), sp.csr_matrix(np.maximum(X, 0)), y),
        ("pearson", S.PearsonScore(), X, y),
        ("pearson-continuous", S.PearsonScore(), X, yc),
        ("spearman", S.SpearmanScore(), X, yc),
        ("mi-uniform", S.MutualInfo(), X, y3),
        ("mi-continuous", S.MutualInfo(n_bins=5), X, yc),
        ("mi-discrete", S.MutualInfo(strategy="discrete"), np.round(X), y),
        ("fisher-sparse", S.FisherScore(), sp.csc_matrix(np.where(X > 0.5, X, 0.0)), y),
    ]


@pytest.mark.parametrize("name,est,X,y", _cases(), ids=[c[0] for c in _cases()])
def test_batched_equals_refit_per_permutation(name, est, X, y):
    batched = permutation_pvalues(est, X, y, n_permutations=29, random_state=3)
    refit = permutation_pvalues(est, X, y, n_permutations=29, random_state=3, batched=False)
    assert batched.batched and not refit.batched
    np.testing.assert_array_equal(batched.pvalues, refit.pvalues)
    np.testing.assert_allclose(batched.scores, est.fit(X, y).scores_)


def test_refit_counts_by_hand():
    """The refit path is the definition: (1 + #{perm score >= observed}) / (1 + B)."""
    X, y, _ = _data(n=30, m=6)
    est = S.ReliefF(n_neighbors=3, random_state=0)
    res = permutation_pvalues(est, X, y, n_permutations=19, random_state=7)
    assert not res.batched
    obs = est.fit(X, y).scores_
    perms = label_permutations(30, 19, random_state=7)
    count = sum(
        (S.ReliefF(n_neighbors=3, random_state=0).fit(X, y[p]).scores_ >= obs - 1e-9 * abs(obs))
        for p in perms
    )
    np.testing.assert_array_equal(res.pvalues, (1 + count) / 20)


def test_exact_ties_count_as_reaching():
    """Tiny n: many permutations keep the class partition, and their scores equal the observed one
    up to rounding; both paths count them."""
    X, y, _ = _data(n=6, m=4)
    a = permutation_pvalues(S.FisherScore(), X, y, n_permutations=200, random_state=0)
    b = permutation_pvalues(S.FisherScore(), X, y, n_permutations=200, random_state=0, batched=False)
    np.testing.assert_array_equal(a.pvalues, b.pvalues)
    # 1 in C(6,3)/2 = 10 partitions reaches the planted feature's separation at least: p >~ 0.1
    assert a.pvalues.min() >= 0.05


def test_bh_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.5, 0.02, 0.9])
    # sorted 0.01 0.02 0.03 0.04 0.5 0.9 -> m p / i: 0.06 0.06 0.06 0.06 0.6 0.9
    np.testing.assert_allclose(bh_qvalues(p), [0.06, 0.06, 0.06, 0.6, 0.06, 0.9])
    assert k_fdr(bh_qvalues(p), 0.06) == 4 and k_fdr(bh_qvalues(p), 0.05) == 0


def test_bh_is_the_step_up_rule_and_monotone():
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.uniform(0, 0.01, 20), rng.uniform(size=200)])
    q = bh_qvalues(p)
    order = np.argsort(p)
    assert np.all(np.diff(q[order]) >= 0) and np.all(q >= p) and q.max() <= 1
    for alpha in (0.01, 0.05, 0.2):  # the step-up rule: largest i with p_(i) <= alpha i / m
        ok = np.flatnonzero(np.sort(p) <= alpha * np.arange(1, p.size + 1) / p.size)
        assert k_fdr(q, alpha) == (ok.max() + 1 if ok.size else 0)


def test_pvalues_uniform_under_the_null():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 400))
    y = np.repeat([0, 1], 15)
    res = permutation_pvalues(S.FScore(), X, y, n_permutations=99, random_state=0)
    assert abs(res.pvalues.mean() - 0.5) < 0.05
    assert np.mean(res.pvalues <= 0.1) < 0.16
    assert res.k_fdr(0.1) == 0  # global null: BH rejects nothing (P(any) <= 0.1)


def test_planted_features_are_found():
    X, y, _ = _data(n=60, m=50, seed=2)
    res = permutation_pvalues(S.FisherScore(), X, y, n_permutations=499, random_state=0)
    assert set(res.selected(0.1)) >= {0, 1, 2}
    assert res.k_fdr(0.1) == res.selected(0.1).size <= 6
    assert "independent" in res.null and res.n_permutations == 499


def test_strata_permute_within_batches():
    strata = np.repeat(["a", "b", "c"], [5, 7, 4])
    perms = label_permutations(16, 30, strata=strata, random_state=0)
    assert all(np.array_equal(strata[p], strata) for p in perms)
    assert all(np.array_equal(np.sort(p), np.arange(16)) for p in perms)
    X, y, _ = _data(n=16, m=5)
    res = permutation_pvalues(S.FScore(), X, y, n_permutations=30, strata=strata, random_state=0)
    assert "within each stratum" in res.null


def test_seeded():
    X, y, _ = _data()
    a = permutation_pvalues(S.FScore(), X, y, n_permutations=30, random_state=4)
    b = permutation_pvalues(S.FScore(), X, y, n_permutations=30, random_state=4)
    np.testing.assert_array_equal(a.pvalues, b.pvalues)


@pytest.mark.parametrize("est", [S.LaplacianScore(), S.LGD(), S.VarianceScore(), S.MCFS()])
def test_unsupervised_scores_are_refused(est):
    X, y, _ = _data()
    with pytest.raises(ValueError, match="unsupervised.*permutations of the labels cannot test it"):
        permutation_pvalues(est, X, y)


def test_bad_inputs():
    X, y, _ = _data()
    with pytest.raises(ValueError, match="n_permutations"):
        permutation_pvalues(S.FScore(), X, y, n_permutations=0)
    with pytest.raises(ValueError, match="one value"):
        permutation_pvalues(S.FScore(), X, np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match="no batched form"):
        permutation_pvalues(S.GiniIndex(), X, y, batched=True)
    with pytest.raises(ValueError, match="'q' must be"):
        k_fdr([0.1], 0)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        bh_qvalues([0.2, 1.5])


@pytest.mark.slow
def test_fdr_holds_across_20_seeds():
    """Planted groups: the q = 0.1 cut's mean false discovery proportion <= 0.1 + 2 SE."""
    from fsviz.data import make_grouped_classification

    fdp = []
    for seed in range(20):
        X, y, truth = make_grouped_classification(
            n_samples=120, n_features=300, n_groups=4, max_affiliates=3, random_state=seed
        )
        res = permutation_pvalues(S.FScore(), X, y, n_permutations=999, random_state=seed)
        true = set(truth.support.tolist()) | {int(a) for v in truth.groups.values() for a in v}
        sel = res.selected(0.1)
        fdp.append(np.mean([i not in true for i in sel]) if sel.size else 0.0)
    fdp = np.asarray(fdp)
    assert fdp.mean() <= 0.1 + 2 * fdp.std(ddof=1) / np.sqrt(20)


def test_pooled_null_by_hand():
    X, y, _ = _data(n=20, m=5)
    res = permutation_pvalues(S.FScore(), X, y, n_permutations=9, random_state=0, null="pooled")
    refit = permutation_pvalues(
        S.FScore(), X, y, n_permutations=9, random_state=0, null="pooled", batched=False
    )
    obs = S.FScore().fit(X, y).scores_
    T = np.array([S.FScore().fit(X, y[p]).scores_ for p in label_permutations(20, 9, random_state=0)])
    expected = (1 + (T.ravel()[None, :] >= obs[:, None] - 1e-9 * obs[:, None]).sum(axis=1)) / (1 + 45)
    np.testing.assert_allclose(res.pvalues, expected)
    np.testing.assert_array_equal(res.pvalues, refit.pvalues)
    assert "pooled" in res.null
    with pytest.raises(ValueError, match="'null' must be"):
        permutation_pvalues(S.FScore(), X, y, null="global")


def _sparse_data(seed=0):
    """Sparse-looking data (70 % zeros), with tied non-zero values in some columns."""
    rng = np.random.default_rng(seed)
    n, m = 60, 30
    X = rng.normal(size=(n, m)) * (rng.uniform(size=(n, m)) < 0.3)
    X[:, 10:14] = np.round(2 * X[:, 10:14]) / 2  # ties among the non-zero values too
    y = np.repeat([0, 1], n // 2)
    X[y == 1, :3] += 1.5 * (X[y == 1, :3] != 0)
    yc = X[:, 0] + rng.normal(size=n)
    return X, y, yc, np.arange(n) % 3


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize(
    "name", ["fisher", "fisher-3", "f-3", "f-regression", "t", "chi2", "pearson", "pearson-c", "spearman-c"]
)
def test_sparse_batched_agrees_with_dense_and_never_densifies(name, fmt, monkeypatch):
    X, y, yc, y3 = _sparse_data()
    est, target = {
        "fisher": (S.FisherScore(), y),
        "fisher-3": (S.FisherScore(), y3),
        "f-3": (S.FScore(), y3),
        "f-regression": (S.FScore(), yc),
        "t": (S.TScore(), y),
        "chi2": (S.ChiSquare(), y3),
        "pearson": (S.PearsonScore(), y),
        "pearson-c": (S.PearsonScore(), yc),
        "spearman-c": (S.SpearmanScore(), yc),
    }[name]
    X = np.abs(X) if name == "chi2" else X
    dense = permutation_pvalues(est, X, target, n_permutations=199, random_state=3)
    from fsviz.evaluate import significance

    stat = significance._batched(est, getattr(sp, f"{fmt}_matrix")(X), target)
    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):  # the batched statistic never densifies X
        monkeypatch.setattr(cls, "toarray", lambda self, *a, **k: pytest.fail("sparse X densified"))
    perms = label_permutations(X.shape[0], 199, random_state=3)
    T = stat(perms)
    monkeypatch.undo()
    ref = significance._batched(est, X, target)(perms)
    np.testing.assert_allclose(T, ref, rtol=1e-9, atol=1e-12)
    Xs = getattr(sp, f"{fmt}_matrix")(X)
    res = permutation_pvalues(est, Xs, target, n_permutations=199, random_state=3)
    assert res.batched
    live = np.abs(dense.scores) > 1e-12  # an exact-zero score ties its permutations only up to rounding
    np.testing.assert_array_equal(res.pvalues[live], dense.pvalues[live])
    np.testing.assert_allclose(res.scores, dense.scores, rtol=1e-9, atol=1e-12)


def test_sparse_ranks_are_rankdata_up_to_a_column_shift():
    from scipy.stats import rankdata

    from fsviz.evaluate.significance import _sparse_ranks

    X = _sparse_data()[0]
    X[:, 20] = 0.0  # an all-zero column
    R, norm = _sparse_ranks(sp.csr_matrix(X))
    ref = rankdata(X, axis=0)
    shift = R.toarray() - ref
    np.testing.assert_allclose(shift, np.broadcast_to(shift[0], shift.shape), atol=1e-12)
    np.testing.assert_allclose(norm, np.linalg.norm(ref - ref.mean(axis=0), axis=0), atol=1e-9)
    assert R.nnz == np.count_nonzero(X)
