"""stand_ins against brute force (numpy's and scipy's correlations, SU pair by pair), on dense,
sparse and out-of-core data; planted groups; the sparse path never densifies X."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import spearmanr

from fsviz.data import make_grouped_classification
from fsviz.data.chunked import NpySource
from fsviz.evaluate import STAND_IN_COLUMNS, stand_ins
from fsviz.evaluate import _standin_kernels as K
from fsviz.stats import discretize, symmetrical_uncertainty

SEL = [3, 10, 20, 1]


@pytest.fixture(scope="module")
def data():
    """60 x 40 with a near-copy of a selected feature, a constant column and zeros (for sparse)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 40))
    X[:, 5] = 2 * X[:, 3] + 0.1 * rng.normal(size=60)
    X[:, 7] = 1.5
    X[rng.random(X.shape) < 0.5] = 0.0
    X[:, 7] = 1.5
    X[:, 33] = -X[:, 20] + 0.05 * rng.normal(size=60)  # a negative correlation
    return X


def brute(X: np.ndarray, selected, measure: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every unselected feature's best selected feature, pair by pair (the first of equal |value|)."""
    m = X.shape[1]
    feats, best, vals = [], [], []
    if measure == "su":
        codes = discretize(X, n_bins=10)
    for j in range(m):
        if j in selected:
            continue
        if np.ptp(X[:, j]) == 0:
            feats.append(j), best.append(-1), vals.append(np.nan)
            continue
        if measure == "pearson":
            c = [np.corrcoef(X[:, j], X[:, s])[0, 1] if np.ptp(X[:, s]) else 0.0 for s in selected]
        elif measure == "spearman":
            c = [spearmanr(X[:, j], X[:, s]).statistic if np.ptp(X[:, s]) else 0.0 for s in selected]
        else:
            c = [symmetrical_uncertainty(codes.codes[:, j], codes.codes[:, s]) for s in selected]
        t = int(np.argmax(np.abs(c)))
        feats.append(j), best.append(selected[t]), vals.append(c[t])
    return np.array(feats), np.array(best), np.array(vals)


def check(frame, X, selected, measure):
    f, b, v = brute(X, selected, measure)
    assert list(frame.columns) == list(STAND_IN_COLUMNS)
    np.testing.assert_array_equal(frame["feature"], f)
    np.testing.assert_array_equal(frame["stand_in"], b)
    np.testing.assert_allclose(frame["stand_in_corr"], v, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("measure", ["pearson", "spearman", "su"])
@pytest.mark.parametrize("kind", ["dense", "csc", "csr", "npy"])
def test_equals_brute_force(data, measure, kind, tmp_path):
    X = data
    if kind == "npy":
        np.save(tmp_path / "X.npy", X)
        given = NpySource(tmp_path / "X.npy")
    else:
        given = {"dense": X, "csc": sp.csc_matrix(X), "csr": sp.csr_matrix(X)}[kind]
    frame = stand_ins(given, SEL, measure=measure, block_size=7)  # several column blocks
    check(frame, X, SEL, measure)
    assert frame.attrs["measure"] == measure
    assert frame.loc[frame["feature"] == 5, "stand_in"].item() == 3
    if measure != "su":
        assert frame.loc[frame["feature"] == 33, "stand_in_corr"].item() < -0.9  # the sign is kept


def test_planted_groups_stand_in_is_the_groups_support_feature():
    X, _, truth = make_grouped_classification(n_samples=300, n_features=800, n_groups=6, random_state=1)
    frame = stand_ins(X, truth.support)
    got = dict(zip(frame["feature"].tolist(), frame["stand_in"].tolist(), strict=True))
    for sf, afs in truth.groups.items():
        for af in afs.tolist():
            assert got[af] == sf
    got = stand_ins(sp.csc_matrix(X), truth.support).set_index("feature")["stand_in"]  # sparse
    for sf, afs in truth.groups.items():
        assert (got.loc[afs] == sf).all()


def test_ties_go_to_the_first_selected_and_an_empty_selection_has_no_stand_in():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    X[:, 1] = X[:, 0]  # two selected copies: the first listed stands in
    assert stand_ins(X, [1, 0])["stand_in"].tolist() == [1, 1]
    assert stand_ins(sp.csc_matrix(X), [0, 1])["stand_in"].tolist() == [0, 0]
    empty = stand_ins(X, [])
    assert empty["feature"].tolist() == [0, 1, 2, 3] and (empty["stand_in"] == -1).all()
    assert empty["stand_in_corr"].isna().all()
    mask = np.array([True, False, False, True])
    assert stand_ins(X, mask)["feature"].tolist() == [1, 2]


def test_sparse_x_is_never_densified(data, monkeypatch):
    Xs = sp.csc_matrix(data)
    k = len(SEL)
    original = sp.csc_matrix.toarray

    def guarded(self, *a, **kw):
        assert self.shape[1] <= k, f"densified {self.shape}"
        return original(self, *a, **kw)

    monkeypatch.setattr(sp.csc_matrix, "toarray", guarded)
    for measure in ("pearson", "spearman"):
        check(stand_ins(Xs, SEL, measure=measure), data, SEL, measure)


def test_kernels_equal_their_python_bodies(data):
    Xs = sp.csc_matrix(data)
    Z = np.ascontiguousarray(np.random.default_rng(1).normal(size=(60, 3)))
    inv = np.where(np.ptp(data, axis=0) > 0, 0.5, 0.0)
    outs = []
    for fn in (K.sparse_best, K.sparse_best.py_func, K.sparse_best_par):
        best, value = np.empty(40, dtype=np.int64), np.empty(40)
        fn(Xs.indptr, Xs.indices, Xs.data, Z, inv, best, value)
        outs.append((best, value))
    for best, value in outs[1:]:
        np.testing.assert_array_equal(best, outs[0][0])
        np.testing.assert_allclose(value, outs[0][1], equal_nan=True)
    assert outs[0][0][7] == -1 and np.isnan(outs[0][1][7])  # the constant column


def test_errors(data):
    with pytest.raises(ValueError, match="'measure' must be one of"):
        stand_ins(data, SEL, measure="kendall")
    with pytest.raises(ValueError, match=r"must lie in \[0, 40\)"):
        stand_ins(data, [0, 40])
    with pytest.raises(ValueError, match="must not repeat"):
        stand_ins(data, [1, 1])
    with pytest.raises(ValueError, match="'n_bins' must be an int >= 2"):
        stand_ins(data, SEL, measure="su", n_bins=1)
    bad = data.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        stand_ins(bad, SEL)
    with pytest.raises(ValueError, match="at least 2 samples"):
        stand_ins(data[:1], [0])


# ------------------------------------------------- undefined correlations are never named
def _toy() -> np.ndarray:
    """8 samples: a constant column (0), an all-zero one (1), x (2), -x (3), a column
    uncorrelated with x (4: exactly 0) and a near-copy of x (5)."""
    x = np.array([1.0, -1, 1, -1, 2, -2, 2, -2])
    orth = np.array([1.0, 1, -1, -1, 1, 1, -1, -1])  # mean 0, x . orth = 0
    return np.column_stack([np.full(8, 3.0), np.zeros(8), x, -x, orth, x + 0.1 * orth])


@pytest.mark.parametrize("measure", ["pearson", "spearman", "su"])
@pytest.mark.parametrize("fmt", ["dense", "csc"])
def test_constant_selected_features_are_never_stand_ins(measure, fmt):
    X = _toy()
    Xf = sp.csc_matrix(X) if fmt == "csc" else X
    alone = stand_ins(Xf, [0, 1], measure=measure)  # every selected feature constant
    assert alone["stand_in"].tolist() == [-1, -1, -1, -1]
    assert alone["stand_in_corr"].isna().all()
    assert sorted(alone.attrs["constant"].tolist()) == [0, 1]
    mixed = stand_ins(Xf, [0, 1, 2], measure=measure)  # the constant ones listed first
    assert mixed["feature"].tolist() == [3, 4, 5]
    assert mixed["stand_in"].tolist() == [2, 2, 2]  # x, also for 4 (rho = 0 with x: defined)
    if measure != "su":
        np.testing.assert_allclose(mixed["stand_in_corr"].to_numpy()[:2], [-1.0, 0.0], atol=1e-12)


@pytest.mark.parametrize("fmt", ["dense", "csc"])
def test_data_near_the_largest_float_give_the_correlations_of_the_same_data_scaled(fmt, rng):
    base = rng.normal(size=(40, 8))
    base[:, 5] = 2 * base[:, 0] + 0.1 * rng.normal(size=40)
    base[:, 6] = -base[:, 1] + 0.2 * rng.normal(size=40)
    base[rng.random(base.shape) < 0.3] = 0.0
    big = base * 2.0**1020  # up to about 4e307: every square, and max - min, overflows
    tiny = base * 2.0**-1000  # about 1e-301: every square underflows to 0
    for measure in ("pearson", "spearman", "su"):
        want = stand_ins(base, [0, 1, 2], measure=measure)
        for X in (big, tiny):
            Xf = sp.csc_matrix(X) if fmt == "csc" else X
            got = stand_ins(Xf, [0, 1, 2], measure=measure)
            assert np.isfinite(got["stand_in_corr"]).all(), (measure, got)
            assert got["stand_in"].tolist() == want["stand_in"].tolist(), measure
            np.testing.assert_allclose(got["stand_in_corr"], want["stand_in_corr"], rtol=1e-9, atol=1e-12)
    assert want["stand_in"].tolist()[2:4] == [0, 1]  # features 5 and 6: their planted partners
