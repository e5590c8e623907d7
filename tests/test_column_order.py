"""One answer whatever the column order: permuting the columns of X (with their names) permutes
GDM's groups, GRM's ranking and the catalogue scorers' scores and rankings with them, dense and
sparse, and selects the same features; ties (duplicated and constant columns) are broken by
feature name, not by position. SAOLA and the other streaming methods are order-dependent by
definition (the order is the stream) and are not checked here."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fsviz.select as S

SCORERS = [
    "FisherScore",
    "ReliefF",
    "LaplacianScore",
    "MutualInfo",
    "LGD",
    "TScore",
    "GiniIndex",
    "ChiSquare",
    "FScore",
    "PearsonScore",
    "SpearmanScore",
    "VarianceScore",
    "TraceRatio",
    "SPEC",
    "MCFS",
]
CHEAP = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _data(seed: int, m: int):
    """Non-negative data with zeros (sparse-friendly, chi² needs it), a duplicated column, a
    near-duplicate and a constant column: the ties a position-based rule would break by place."""
    rng = np.random.default_rng(seed)
    n = 36
    X = np.abs(rng.normal(size=(n, m)))
    X[rng.random((n, m)) < 0.4] = 0.0
    X[:, 3] = X[:, 1]
    X[:, 4] = X[:, 1] + 0.05 * rng.random(n)
    X[:, 5] = 0.0
    y = (X[:, 1] + X[:, 2] + 0.3 * rng.normal(size=n) > np.median(X[:, 1] + X[:, 2])).astype(int)
    names = np.array([f"feat_{i:02d}" for i in rng.permutation(m)], dtype=object)  # not in order
    return X, y, names


def _frame(X, names, kind):
    if kind == "dense":
        return pd.DataFrame(X, columns=names)
    return pd.DataFrame.sparse.from_spmatrix(sp.csc_matrix(X), columns=names)


def _fit(est, X, names, kind, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant-feature warnings: the constant column is planted
        return est.fit(_frame(X, names, kind), *args)


def _ranked(est, names):
    return list(names[np.argsort(est.ranking_, kind="stable")])


perms = st.integers(0, 2**16).flatmap(
    lambda seed: st.tuples(st.just(seed), st.integers(8, 11).flatmap(lambda m: st.permutations(range(m))))
)


@pytest.mark.parametrize("kind", ["dense", "sparse"])
@pytest.mark.parametrize("name", SCORERS)
@CHEAP
@given(case=perms)
def test_scorers_are_equivariant_under_column_permutation(name, kind, case):
    seed, perm = case
    perm = np.asarray(perm)
    X, y, names = _data(seed, perm.size)
    make = getattr(S, name)
    a = _fit(make(n_features=3), X, names, kind, y)
    b = _fit(make(n_features=3), X[:, perm], names[perm], kind, y)
    np.testing.assert_allclose(b.scores_, a.scores_[perm], rtol=1e-9, atol=1e-12)
    assert _ranked(b, names[perm]) == _ranked(a, names)
    assert set(b.get_feature_names_out()) == set(a.get_feature_names_out())


@pytest.mark.parametrize("kind", ["dense", "sparse"])
@CHEAP
@given(case=perms)
def test_gdm_groups_are_equivariant_under_column_permutation(kind, case):
    seed, perm = case
    perm = np.asarray(perm)
    X, y, names = _data(seed, perm.size)
    a = _fit(S.GDM(random_state=0), X, names, kind, y)
    b = _fit(S.GDM(random_state=0), X[:, perm], names[perm], kind, y)
    pn = names[perm]
    groups_a = {names[s]: sorted(names[a.groups_[s]]) for s in a.support_}
    groups_b = {pn[s]: sorted(pn[b.groups_[s]]) for s in b.support_}
    assert groups_b == groups_a
    assert list(pn[b.support_]) == list(names[a.support_])  # found in the same order
    np.testing.assert_allclose(b.scores_, a.scores_[perm], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.coef_, a.coef_[perm], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["dense", "sparse"])
@CHEAP
@given(case=perms)
def test_grm_ranking_is_equivariant_under_column_permutation(kind, case):
    seed, perm = case
    perm = np.asarray(perm)
    X, y, names = _data(seed, perm.size)
    scores = S.FisherScore().fit(X, y).scores_ + 0.01  # the duplicated columns tie
    a = _fit(S.GRM(n_top=6, n_features=3), X, names, kind, scores)
    b = _fit(S.GRM(n_top=6, n_features=3), X[:, perm], names[perm], kind, scores[perm])
    assert _ranked(b, names[perm]) == _ranked(a, names)
    np.testing.assert_allclose(b.scores_, a.scores_[perm], rtol=1e-9, atol=1e-12)
    assert set(b.get_feature_names_out()) == set(a.get_feature_names_out())


def test_ties_go_to_the_first_name_not_the_first_column():
    X, y, names = _data(0, 8)
    est = _fit(S.VarianceScore(n_features=1), X, names, "dense")
    # columns 1 and 3 are equal: the one whose name sorts first ranks first
    first = min(names[1], names[3])
    assert est.ranking_[list(names).index(first)] < est.ranking_[list(names).index(max(names[1], names[3]))]
