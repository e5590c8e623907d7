"""The figure builders take what a notebook user holds: fitted estimators, arrays and pandas /
polars frames, and draw the same figure as from the run layer's results."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from fsviz.compute import Run
from fsviz.data import Dataset, make_grouped_classification
from fsviz.select import GDM, GRM, SAOLA, FisherScore, GroupSAOLA, ReliefF
from fsviz.stats import correlation_histogram
from fsviz.viz import (
    correlation_bars,
    correlation_network,
    correlation_sparsity,
    find_feature_group,
    group_tree,
    pca_pair,
    pixel_masks,
    ranking_bump,
    score_bars,
    stability_bars,
    stream_progress,
)


@pytest.fixture(scope="module")
def grouped():
    X, y, _ = make_grouped_classification(n_samples=120, n_features=60, n_groups=4, random_state=0)
    names = [f"gene_{i}" for i in range(X.shape[1])]
    return X, y, names


def test_group_tree_of_a_fitted_gdm_is_the_run_layers_tree(grouped):
    X, y, names = grouped
    gdm = GDM(random_state=0).fit(pd.DataFrame(X, columns=names), y)
    res = Run("gdm", {}, 0).execute(Dataset(X, y, feature_names=names))
    from_est, from_run = group_tree(gdm), group_tree(res, names)
    assert from_est.data[0].ids == from_run.data[0].ids
    assert from_est.data[0].labels == from_run.data[0].labels  # names from the DataFrame
    np.testing.assert_allclose(from_est.data[0].marker.colors, from_run.data[0].marker.colors)
    sf = int(gdm.support_[0])
    assert find_feature_group(gdm, names[sf])["role"] == "SF"


def test_names_come_from_a_polars_or_pandas_frame(grouped):
    X, y, names = grouped
    gdm = GDM(random_state=0).fit(X, y)  # an array: no names on the estimator
    assert group_tree(gdm).data[0].labels[1].startswith("f")
    for frame in (pd.DataFrame(X, columns=names), pl.DataFrame(X, schema=names)):
        labels = group_tree(gdm, frame).data[0].labels
        assert all(lab.startswith(("gene_", "+")) for lab in labels[1:])
    fisher = FisherScore().fit(pl.DataFrame(X, schema=names), y)
    top = int(np.argmax(fisher.scores_))
    assert score_bars(fisher).data[0].y[-1] == f"{names[top]} (#{top})"


def test_ranking_bump_of_two_grms_is_the_bump_of_their_orders(grouped):
    X, y, names = grouped
    base = ReliefF().fit(X, y)
    without = GRM(n_top=20).fit(X, base.scores_)
    groups = [np.arange(i, i + 5) for i in range(0, 20, 5)]
    with_priors = GRM(n_top=20, prior_groups=groups, gamma=5.0).fit(X, base.scores_)
    order = lambda g: g.top_[np.argsort(g.ranking_[g.top_], kind="stable")]  # noqa: E731
    fig = ranking_bump(without, with_priors, names, k=10)
    ref = ranking_bump(order(without), order(with_priors), names, k=10)
    assert [t.y for t in fig.data] == [t.y for t in ref.data]
    assert [t.text for t in fig.data] == [t.text for t in ref.data]
    # a scorer against a GRM: the scorer's ranking on the left
    fig = ranking_bump(base, without, k=5)
    left = {t.text[0]: t.y[0] for t in fig.data if t.text[0]}
    assert left[f"f{int(np.argmax(base.scores_))}"] == 1


def test_sparsity_histogram_from_correlation_histogram(grouped):
    X, _, _ = grouped
    h = correlation_histogram(X, bins=10)
    fig = correlation_sparsity(h, tau=0.3)
    ref = correlation_sparsity(h.edges, h.counts, tau=0.3, n_pairs_total=h.n_pairs)
    assert fig.layout.title.text == ref.layout.title.text
    assert "all pairs" in fig.layout.title.text
    est = correlation_histogram(X, bins=10, exact=False, n_sample_pairs=500, random_state=0)
    assert "sampled pairs" in correlation_sparsity(est).layout.title.text
    with pytest.raises(ValueError, match="one histogram"):
        correlation_sparsity(np.linspace(0, 1, 11))


def test_pixel_masks_from_a_selector_and_an_image_shape():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 36))
    X[:, 7] += np.repeat([0.0, 3.0], 40)
    X[:, 8] = X[:, 7] + rng.normal(scale=0.01, size=80)
    y = np.repeat([0, 1], 40)
    gdm = GDM(random_state=0).fit(X, y)
    fig = pixel_masks(gdm, (6, 6))  # masks only, one row
    assert len(fig.data) == 2 and fig.data[0].z.shape == (6, 6, 3)
    fig = pixel_masks((6, 6), gdm, images=X, labels=y)  # examples, class means and masks
    assert len(fig.data) == 2 + 2 + 2
    assert "class 1 mean" in [a.text for a in fig.layout.annotations]
    fisher = FisherScore(n_features=3).fit(X, y)
    titles = [a.text for a in pixel_masks(fisher, (6, 6)).layout.annotations]
    assert "support pixels (3)" in titles
    with pytest.raises(ValueError, match=r"shape \(n_samples, 6 \* 6 = 36\)"):
        pixel_masks((6, 6), gdm, images=X[:, :30])


def test_stream_progress_of_a_fitted_saola_and_group_saola(grouped):
    X, y, _ = grouped
    saola = SAOLA().fit(X, y)
    fig = stream_progress(saola)
    assert fig.data[0].y[-1] == len(saola.selected_)
    groups = [np.arange(i, i + 10) for i in range(0, 60, 10)]
    gs = GroupSAOLA().fit(X, y, groups)
    sizes = stream_progress(gs).data[0].y
    assert sizes[-1] == len(gs.selected_) and len(sizes) == 60
    with pytest.raises(ValueError, match="fitted SAOLA"):
        stream_progress(FisherScore().fit(X, y))


def test_pca_pair_from_arrays_of_selected_features(grouped):
    X, y, _ = grouped
    fig = pca_pair([X[:, :5], X[:, 5:12]], y)
    assert "5 features" in fig.layout.annotations[0].text
    with pytest.raises(ValueError, match="k >= 2"):
        pca_pair([X[:, :1]])


def test_an_unfitted_estimator_is_refused_with_a_message():
    with pytest.raises(ValueError, match="not fitted"):
        group_tree(GDM())
    with pytest.raises(ValueError, match="fitted GRM or scorer"):
        ranking_bump(GRM(), GRM())


@pytest.mark.parametrize("frame", ["pandas", "polars"])
@pytest.mark.parametrize("make", [GDM, SAOLA, FisherScore, ReliefF], ids=lambda c: c.__name__)
def test_selectors_take_polars_and_pandas_frames_and_keep_the_names(grouped, frame, make):
    X, y, names = grouped
    df = pd.DataFrame(X, columns=names) if frame == "pandas" else pl.DataFrame(X, schema=names)
    est = make().fit(df, y)
    assert list(est.feature_names_in_) == names
    kept = [names[i] for i in est.get_support(indices=True)]
    for out in ("pandas", "polars"):
        Xt = est.set_output(transform=out).transform(df)
        assert type(Xt).__module__.split(".")[0] == out
        assert list(Xt.columns) == kept == list(est.get_feature_names_out())


def test_grm_takes_a_polars_frame():
    rng = np.random.default_rng(0)
    names = [f"p{i}" for i in range(12)]
    df = pl.DataFrame(rng.normal(size=(40, 12)), schema=names)
    grm = GRM(n_top=8, n_features=3).fit(df, rng.random(12) + 0.1)
    assert list(grm.set_output(transform="polars").transform(df).columns) == list(grm.get_feature_names_out())


def test_bars_and_networks_take_names_from_a_frame():
    names = ["alpha", "beta", "gamma"]
    frame = pl.DataFrame({n: [0.0, 1.0] for n in names})
    bars = correlation_bars(np.array([0.1, -0.9, 0.5]), frame, k=1)
    assert "beta" in bars.data[0].y[0]
    net = correlation_network((np.array([0]), np.array([2]), np.array([0.8])), pd.DataFrame(columns=names))
    assert net.data[-1].text == ("alpha", "gamma")
    assert "gamma" in stability_bars(np.array([0.1, 0.2, 0.9]), frame, k=1).data[0].y[0]
