import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import spearmanr

from fsviz.data import make_correlated_blocks, make_grouped_classification, make_sparse_text
from fsviz.data.generators import BlockTruth, GroundTruth, TextTruth


# ----------------------------------------------------------------------------- grouped
@pytest.fixture(scope="module")
def grouped():
    return make_grouped_classification(n_samples=1000, n_features=1500, random_state=7)


def test_grouped_shapes_and_truth(grouped):
    X, y, truth = grouped
    assert X.shape == (1000, 1500) and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.shape == (1000,) and set(np.unique(y)) == {0, 1}
    assert isinstance(truth, GroundTruth)
    assert truth.support.shape == (12,) and len(set(truth.support.tolist())) == 12
    assert set(truth.groups) == set(truth.support.tolist())
    sizes = [len(truth.groups[int(s)]) for s in truth.support]
    assert all(0 <= k <= 5 for k in sizes)
    informative = truth.informative
    assert len(np.unique(informative)) == 12 + truth.n_affiliated == len(informative)
    assert truth.weights.shape == (12,) and np.all(np.abs(truth.weights) >= 1.0)


def test_grouped_correlation_structure(grouped):
    X, y, truth = grouped
    C = np.corrcoef(X, rowvar=False)
    np.fill_diagonal(C, 0.0)
    aff = truth.affiliated
    for s in truth.support:
        g = truth.groups[int(s)]
        # every AF is highly correlated (>= 0.7) with its own SF ...
        assert np.all(np.abs(C[s, g]) > 0.7)
        assert np.allclose(C[s, g], truth.affiliate_corr[int(s)], atol=0.05)
    # ... and nothing else is: pairs outside the groups look like independent noise
    mask = np.ones_like(C, dtype=bool)
    for s in truth.support:
        members = np.concatenate([[s], truth.groups[int(s)]])
        mask[np.ix_(members, members)] = False
    assert np.abs(C[mask]).max() < 0.2
    # support features drive the labels; the pure noise features do not
    noise = np.setdiff1d(np.arange(X.shape[1]), truth.informative)
    r = np.abs([np.corrcoef(X[:, j], y)[0, 1] for j in truth.support])
    rn = np.abs(np.corrcoef(np.column_stack([X[:, noise[:300]], y]), rowvar=False)[-1, :-1])
    assert np.median(r) > 3 * np.median(rn)
    assert aff.dtype.kind == "i"


def test_grouped_labels_are_linear_in_support(grouped):
    from sklearn.linear_model import LogisticRegression

    X, y, truth = grouped
    acc = LogisticRegression(C=10.0, max_iter=2000).fit(X[:, truth.support], y).score(X[:, truth.support], y)
    assert acc > 0.9


def test_grouped_deterministic_and_seed_dependent():
    a = make_grouped_classification(n_samples=50, n_features=300, random_state=3)
    b = make_grouped_classification(n_samples=50, n_features=300, random_state=3)
    c = make_grouped_classification(n_samples=50, n_features=300, random_state=4)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert np.array_equal(a[2].support, b[2].support)
    assert not np.array_equal(a[0], c[0])
    rs = np.random.RandomState(5)
    make_grouped_classification(n_samples=50, n_features=300, random_state=rs)  # RandomState accepted


def test_grouped_unshuffled_layout():
    X, y, truth = make_grouped_classification(n_samples=200, n_features=300, shuffle=False, random_state=1)
    assert np.array_equal(truth.support, np.arange(12))
    assert np.array_equal(np.sort(truth.affiliated), 12 + np.arange(truth.n_affiliated))


@pytest.mark.scale
def test_grouped_default_is_the_paper_size():
    X, y, truth = make_grouped_classification()
    assert X.shape == (2048, 10000) and truth.support.size == 12


def test_grouped_min_weight_zero_is_the_papers_unfloored_setting():
    # the TPAMI paper draws group weights from N(0, 1) without a floor, so some groups are weak;
    # min_weight=0 gives exactly that, the default floors |w| at 1 (and the rest of the draw,
    # X and the truth, does not depend on min_weight)
    kw = dict(n_samples=300, n_features=400, n_groups=40, random_state=2)
    X0, y0, t0 = make_grouped_classification(min_weight=0.0, **kw)
    X1, y1, t1 = make_grouped_classification(**kw)
    assert np.array_equal(X0, X1) and np.array_equal(t0.support, t1.support)
    assert np.all(np.abs(t1.weights) >= 1.0)
    assert np.mean(np.abs(t0.weights) < 0.5) > 0.2  # N(0, 1): ~38 % below 0.5
    assert np.array_equal(np.sign(t0.weights), np.sign(t1.weights))
    small = np.abs(t0.weights) >= 1.0
    assert np.allclose(t0.weights[small], t1.weights[small])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_samples=1), r"'n_samples' must be an int in the range \[2, inf\); got 1"),
        (dict(n_features=50), r"'n_features' must be at least n_groups \* \(1 \+ max_affiliates\) = 72"),
        (dict(n_groups=0), r"'n_groups' must be an int in the range \[1, inf\)"),
        (dict(max_affiliates=2.5), r"'max_affiliates' must be an int in the range \[0, inf\); got 2.5"),
        (dict(noise=-1.0), r"'noise' must be a float in the range \[0.0, inf\); got -1.0"),
        (dict(affiliate_corr=(0.9, 0.8)), r"0 < low <= high < 1; got \(0.9, 0.8\)"),
        (dict(affiliate_corr=0.9), r"'affiliate_corr' must be a pair"),
    ],
)
def test_grouped_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_grouped_classification(**{"n_features": 500, **kwargs})


# ----------------------------------------------------------------------------- blocks
def test_blocks_structure():
    X, y, truth = make_correlated_blocks(n_samples=4000, random_state=0)
    assert X.shape == (4000, 100) and isinstance(truth, BlockTruth)
    assert [len(b) for b in truth.blocks] == [10] * 10
    # within-class correlation: block_corr inside blocks, ~0 across
    Xc = X[y == 1]
    C = np.corrcoef(Xc, rowvar=False)
    same = truth.block[:, None] == truth.block[None, :]
    off = ~np.eye(100, dtype=bool)
    assert abs(C[same & off].mean() - 0.8) < 0.03
    assert np.abs(C[~same]).max() < 0.1
    # class mean differences follow the truth
    diff = X[y == 1].mean(0) - X[y == 0].mean(0)
    assert np.allclose(diff, truth.mean_shift, atol=0.1)
    assert np.all(np.abs(truth.mean_shift) >= 0.2 - 1e-12)


def test_blocks_uninformative_and_shuffle():
    X, y, truth = make_correlated_blocks(
        n_samples=200, n_features=53, n_blocks=5, n_informative_blocks=2, shuffle=True, random_state=2
    )
    assert sorted(len(b) for b in truth.blocks) == [10, 10, 11, 11, 11]
    assert truth.informative_blocks.size == 2
    nz = np.unique(truth.block[truth.mean_shift != 0])
    assert np.array_equal(nz, truth.informative_blocks)
    X2, y2, t2 = make_correlated_blocks(
        n_samples=200, n_features=53, n_blocks=5, n_informative_blocks=2, shuffle=True, random_state=2
    )
    assert np.array_equal(X, X2) and np.array_equal(truth.block, t2.block)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_blocks=200), r"'n_blocks' must be <= n_features \(100\); got 200"),
        (dict(block_corr=1.0), r"'block_corr' must be a float in the range \[0.0, 1.0\); got 1.0"),
        (
            dict(n_informative_blocks=11),
            r"'n_informative_blocks' must be an int in the range \[0, 10\]; got 11",
        ),
        (dict(class_sep=float("nan")), r"'class_sep' must be a float in the range \[0.0, inf\); got nan"),
    ],
)
def test_blocks_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_correlated_blocks(**kwargs)


# ----------------------------------------------------------------------------- text
def test_sparse_text_small_exact_nnz_and_counts():
    X, y, truth = make_sparse_text(
        n_samples=300, n_features=20000, nnz=15000, return_truth=True, random_state=1
    )
    assert sp.isspmatrix_csr(X) and X.shape == (300, 20000)
    assert X.nnz == 15000
    assert np.all(X.data >= 1) and np.all(X.data == np.round(X.data))
    X.sum_duplicates()
    assert X.nnz == 15000 and X.has_canonical_format
    assert isinstance(truth, TextTruth)
    assert np.mean(y) == pytest.approx(0.6, abs=0.01)
    # Zipf: term totals fall with rank (strong negative rank correlation)
    totals = np.asarray(X.sum(axis=0)).ravel()
    seen = totals > 0
    rho = spearmanr(truth.term_rank[seen], totals[seen]).statistic
    assert rho < -0.5
    # labels depend on the informative terms
    from sklearn.linear_model import LogisticRegression

    Xi = X[:, truth.informative].log1p()
    assert LogisticRegression(max_iter=1000).fit(Xi, y).score(Xi, y) > 0.7


def test_sparse_text_deterministic_and_csc():
    a = make_sparse_text(n_samples=100, n_features=5000, nnz=3000, random_state=0)
    b = make_sparse_text(n_samples=100, n_features=5000, nnz=3000, random_state=0, format="csc")
    assert sp.isspmatrix_csc(b[0])
    assert (a[0] != b[0].tocsr()).nnz == 0 and np.array_equal(a[1], b[1])
    c = make_sparse_text(n_samples=100, n_features=5000, nnz=3000, random_state=1)
    assert (a[0] != c[0]).nnz > 0


@pytest.mark.scale
def test_sparse_text_at_news20_scale_in_bounded_memory():
    # its speed is measured in benchmarks/bench_data.py, not here (a shared machine's load
    # would make a time limit flaky)
    X, y = make_sparse_text()
    assert X.shape == (10_000, 1_350_000) and X.nnz == 3_600_000
    assert X.data.nbytes + X.indices.nbytes < 100e6


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(nnz=10**9), r"'nnz' must be <= n_samples \* n_features"),
        (dict(n_samples=10, n_features=10, nnz=60), r"'nnz' must be at most half"),
        (dict(zipf_exponent=0), r"'zipf_exponent' must be a float in the range \(0.0, inf\); got 0"),
        (dict(format="coo"), r"'format' must be 'csr' or 'csc'; got 'coo'"),
        (
            dict(positive_fraction=1.0),
            r"'positive_fraction' must be a float in the range \(0.0, 1.0\); got 1.0",
        ),
    ],
)
def test_sparse_text_errors(kwargs, match):
    base = dict(n_samples=100, n_features=5000, nnz=3000)
    with pytest.raises(ValueError, match=match):
        make_sparse_text(**{**base, **kwargs})


def test_make_grouped_regression_shares_x_with_classification():
    from fsviz.data import make_grouped_regression

    Xr, yr, tr = make_grouped_regression(n_samples=200, n_features=300, random_state=5, noise=0.0)
    Xc, yc, tc = make_grouped_classification(n_samples=200, n_features=300, random_state=5, noise=0.0)
    assert np.array_equal(Xr, Xc) and np.array_equal(tr.support, tc.support)
    assert np.allclose(yr, Xr[:, tr.support] @ tr.weights)  # noise=0: the linear score itself
    assert np.array_equal(yc, (yr > 0).astype(int))
