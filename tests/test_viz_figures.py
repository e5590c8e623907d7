"""Figure builders on small hand-made results: structure, aggregation and hover content."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from fsviz.viz import (
    class_colors,
    class_symbols,
    compare_scatter,
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


def make_groups(n_sf=3, per=2, m=64):
    support = np.arange(n_sf) * 10
    af = np.concatenate([s + 1 + np.arange(per) for s in support])
    af_sf = np.repeat(support, per)
    scores = np.linspace(1.0, 0.1, m)
    return SimpleNamespace(
        support=support,
        sf_scores=scores[support],
        af=af,
        af_sf=af_sf,
        af_rho=np.linspace(0.99, 0.8, af.size),
        scores=scores,
    )


def test_group_tree_is_root_sf_af_tree():
    r = make_groups()
    fig = group_tree(r, [f"px{i}" for i in range(64)])
    t = fig.data[0]
    assert isinstance(t, go.Treemap)
    ids, parents = list(t.ids), list(t.parents)
    assert ids[0] == "root" and parents[0] == ""
    assert sum(p == "root" for p in parents) == 3
    for a, s in zip(r.af, r.af_sf, strict=False):
        assert parents[ids.index(f"af:{a}")] == f"sf:{s}"
    hover = t.hovertext[ids.index(f"af:{r.af[0]}")]
    assert "px1" in hover and "|rho| to SF 0.990" in hover and "score" in hover
    assert all(v > 0 for v in t.values[1:])


def test_group_tree_aggregates_large_results():
    rng = np.random.default_rng(0)
    m = 100_000
    support = rng.choice(m, 300, replace=False)
    rest = np.setdiff1d(np.arange(m), support)
    af = rng.choice(rest, 20_000, replace=False)
    af_sf = rng.choice(support, af.size)
    r = SimpleNamespace(
        support=support,
        sf_scores=rng.random(300),
        af=af,
        af_sf=af_sf,
        af_rho=rng.uniform(0.7, 1, af.size),
        scores=rng.random(m),
    )
    fig = group_tree(r, max_groups=20, max_affiliated=10, kind="sunburst")
    t = fig.data[0]
    assert isinstance(t, go.Sunburst)
    assert len(t.ids) <= 1 + 20 * 12 + 1
    assert t.ids[-1] == "more-groups" and t.labels[-1].startswith("+280 more groups<br>(")


def test_group_tree_highlight_zooms_and_bad_kind():
    r = make_groups()
    assert group_tree(r, highlight=10).data[0].level == "sf:10"
    with pytest.raises(ValueError, match="'kind' must be"):
        group_tree(r, kind="pie")
    with pytest.raises(ValueError, match="'max_groups' must be a positive int"):
        group_tree(r, max_groups=0)


def make_many_groups(n_groups=150, n_af=3500, m=10_000, seed=0):
    """150 groups with Zipf-like sizes summing to 3,500 affiliated features."""
    rng = np.random.default_rng(seed)
    feats = rng.permutation(m)
    support = feats[:n_groups]
    w = 1.0 / np.arange(1, n_groups + 1)
    sizes = np.floor(w / w.sum() * n_af).astype(int)
    sizes[0] += n_af - sizes.sum()
    af = feats[n_groups : n_groups + n_af]
    af_sf = np.repeat(support, sizes)
    scores = rng.random(m)
    return SimpleNamespace(
        support=support,
        sf_scores=scores[support],
        af=af,
        af_sf=af_sf,
        af_rho=rng.uniform(0.6, 1, n_af),
        scores=scores,
    ), sizes


@pytest.mark.parametrize("kind", ["treemap", "sunburst", "icicle"])
def test_group_tree_readable_with_150_groups(kind):
    r, sizes = make_many_groups()
    fig = group_tree(r, max_groups=30, max_affiliated=20, kind=kind)
    t = fig.data[0]
    assert type(t).__name__.lower() == kind
    assert len(t.ids) <= 1 + 30 * (20 + 2) + 1
    ids, parents, values = list(t.ids), list(t.parents), np.asarray(t.values)
    # groups largest first, the aggregate last and not the largest top-level tile
    top = [k for k, p in enumerate(parents) if p == "root"]
    assert ids[top[-1]] == "more-groups"
    assert (
        t.labels[top[-1]] == "+120 more groups<br>(" + str(120 + sizes[30:].sum()) + " features, tile capped)"
    )
    group_area = {ids[k]: values[k] for k in top}
    for k, p in enumerate(parents):
        if p.startswith("sf:"):
            group_area[p] += values[k]
    shown_sf = [ids[k] for k in top[:-1]]
    size_of = {f"sf:{s}": n + 1 for s, n in zip(r.support, sizes, strict=True)}
    shown_sizes = [size_of[s] for s in shown_sf]
    assert shown_sizes == sorted(shown_sizes, reverse=True)
    assert min(shown_sizes) >= max(size_of[s] for s in size_of if s not in shown_sf)
    assert group_area["more-groups"] <= min(group_area[s] for s in shown_sf)
    assert group_area["more-groups"] < max(group_area.values())
    # aggregated tiles are neutral: their colour value sits below the score range
    cmin = t.marker.cmin
    assert t.marker.colors[top[-1]] == cmin and cmin < min(r.scores)
    assert t.marker.colorbar.title.text == "GDM score |s_j|"
    assert fig.layout.uniformtext.mode == "hide"


def test_group_tree_highlight_shows_a_hidden_group():
    r, _ = make_many_groups()
    small = int(r.support[-1])
    fig = group_tree(r, max_groups=10, highlight=small)
    assert f"sf:{small}" in fig.data[0].ids and fig.data[0].level == f"sf:{small}"


def test_find_feature_group():
    r, sizes = make_many_groups()
    names = [f"g{i}" for i in range(10_000)]
    a = find_feature_group(r, int(r.af[sizes[0] + 1]), names)  # an AF of the second group
    assert a["role"] == "AF" and a["support_feature"] == r.support[1]
    assert a["group_size"] == sizes[1] + 1 and a["group_rank"] == 2 and a["n_groups"] == 150
    assert a["rho"] == pytest.approx(r.af_rho[sizes[0] + 1])
    s = find_feature_group(r, names[r.support[0]], names)
    assert s["role"] == "SF" and s["rho"] == 1.0 and s["group_rank"] == 1 and s["name"] == names[r.support[0]]
    assert s["score"] == r.scores[r.support[0]]
    lone = np.setdiff1d(np.arange(10_000), np.concatenate([r.support, r.af]))[0]
    assert find_feature_group(r, int(lone)) is None
    with pytest.raises(ValueError, match="no feature is named"):
        find_feature_group(r, "nope", names)
    with pytest.raises(ValueError, match="needs 'feature_names'"):
        find_feature_group(r, "g1")


def test_pixel_masks_marks_sf_and_af_pixels():
    r = make_groups(n_sf=2, per=3, m=64)
    rng = np.random.default_rng(0)
    panels = SimpleNamespace(
        examples=rng.random((3, 8, 8)),
        example_labels=("0", "1", "0"),
        means=rng.random((2, 8, 8)),
        mean_labels=("mean of class 0", "mean of class 1"),
        shape=(8, 8),
    )
    fig = pixel_masks(panels, r)
    imgs = [t for t in fig.data if isinstance(t, go.Image)]
    assert len(imgs) == 3 + 2 + 2
    sf_mask = np.asarray(imgs[-2].z).reshape(64, 3)
    assert set(np.flatnonzero((sf_mask != 255).any(1))) == set(r.support)
    af_mask = np.asarray(imgs[-1].z).reshape(64, 3)
    assert set(np.flatnonzero((af_mask != 255).any(1))) == set(r.af) | set(r.support)
    # overlays: only the SF/AF pixels of an example differ from the plain grey image
    plain = pixel_masks(panels, r, overlay=False)
    a = np.asarray(imgs[0].z).reshape(64, 3).astype(int)
    b = np.asarray([t for t in plain.data if isinstance(t, go.Image)][0].z).reshape(64, 3).astype(int)
    assert (b[:, 0] == b[:, 1]).all()  # grey
    assert set(np.flatnonzero((a != b).any(1))) <= set(r.af) | set(r.support)
    assert a[r.support[0], 0] > a[r.support[0], 2]  # reddish
    one = pixel_masks(panels, r, highlight=10)
    m1 = np.asarray([t for t in one.data if isinstance(t, go.Image)][-1].z).reshape(64, 3).astype(int)
    m0 = np.asarray([t for t in fig.data if isinstance(t, go.Image)][-1].z).reshape(64, 3).astype(int)
    marked = set(r.support) | set(r.af)
    assert set(np.flatnonzero((m1 != 255).any(1))) == marked  # the other groups stay, faded
    chosen = [10, 11, 12, 13]
    others = sorted(marked - set(chosen))
    np.testing.assert_array_equal(m1[chosen], m0[chosen])  # the chosen group stays bright
    assert (m1[others].min(1) > m0[others].min(1)).all()  # the others paler (nearer white)

    def first_image(f):
        return np.asarray(next(t for t in f.data if isinstance(t, go.Image)).z).reshape(64, 3).astype(int)

    e0, e1, g = first_image(fig), first_image(one), first_image(pixel_masks(panels, r, overlay=False))
    assert (np.abs(e1[chosen] - g[chosen]).sum(1) >= np.abs(e0[chosen] - g[chosen]).sum(1)).all()
    assert (np.abs(e1[others] - g[others]).sum(1) < np.abs(e0[others] - g[others]).sum(1)).all()
    assert "highlighted" in one.layout.title.text


def test_correlation_sparsity_log_axes_and_tau_marker():
    edges = np.linspace(0, 1, 11)
    counts = np.array([500, 300, 100, 50, 20, 10, 5, 0, 2, 1])
    fig = correlation_sparsity(edges, counts, tau=0.3, exact=False)
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    bars = fig.data[0]
    np.testing.assert_allclose(np.nansum(np.asarray(bars.y, dtype=float)), 100.0)
    tail = np.asarray(fig.data[1].y, dtype=float)
    assert tail[0] == pytest.approx(1.0) and tail[-1] == pytest.approx(1 / counts.sum())
    assert any(s.x0 == pytest.approx(0.7) for s in fig.layout.shapes)
    assert "estimated" in fig.layout.title.text
    assert "exact" in correlation_sparsity(edges, counts).layout.title.text
    with pytest.raises(ValueError, match="'edges' must have"):
        correlation_sparsity(edges[:-1], counts)


def test_ranking_bump_positions():
    before = np.array([5, 4, 3, 2, 1, 0])
    after = np.array([4, 5, 0, 3, 2, 1])
    fig = ranking_bump(before, after, k=3)
    ys = {t.hovertemplate.split("(#")[1].split(")")[0]: list(t.y) for t in fig.data}
    assert ys["5"] == [1, 2] and ys["4"] == [2, 1]
    assert ys["0"] == [4.5, 3] and ys["3"] == [3, 4.5]


def test_score_bars_top_n():
    fig = score_bars(np.arange(1000.0), top_n=5)
    assert list(fig.data[0].x) == [995, 996, 997, 998, 999]


def test_pca_pair_colours_by_class():
    p = SimpleNamespace(
        coords=np.random.default_rng(0).normal(size=(10, 2)),
        explained=np.array([0.5, 0.2]),
        features=np.arange(3),
    )
    y = np.array([0, 1] * 5)
    fig = pca_pair([p, p], y, titles=("Fisher", "GRM(Fisher)"))
    assert len(fig.data) == 4 and sum(t.showlegend for t in fig.data) == 2
    assert len(fig.data[0].x) == 5


def test_stream_progress_windows_sum_to_arrivals():
    dec = ["selected", "irrelevant", "redundant", "irrelevant"] * 250
    size = np.cumsum([d == "selected" for d in dec])
    fig = stream_progress(size, dec, n_windows=10)
    bars = [t for t in fig.data if isinstance(t, go.Bar)]
    assert sum(np.sum(t.y) for t in bars) == 1000
    assert {t.name for t in bars} == {"selected", "irrelevant", "redundant"}


def test_compare_scatter():
    frame = pd.DataFrame(
        {
            "method": ["gdm", "fisher"],
            "parameters": ["tau=0.3", ""],
            "n features": [12, 20],
            "CV accuracy (selection redone in folds)": [0.9, 0.8],
            "redundancy": [0.1, 0.5],
        }
    )
    fig = compare_scatter(frame)
    assert list(fig.data[0].y) == [0.9, 0.8]


@pytest.mark.parametrize("n", [0, 1, 8, 9, 12, 40, 200])
def test_class_colors_are_distinct_hex(n):
    c = class_colors(n)
    assert len(c) == n and len(set(c)) == n
    assert all(len(x) == 7 and x[0] == "#" for x in c)


def test_class_colors_okabe_ito_then_spread():
    assert class_colors(2) == ["#E69F00", "#56B4E9"]
    rgb = np.array([[int(x[k : k + 2], 16) for k in (1, 3, 5)] for x in class_colors(40)], float)
    d = np.sqrt(((rgb[:, None] - rgb[None]) ** 2).sum(-1))[np.triu_indices(40, 1)]
    assert d.min() > 15  # no two of the 40 colours nearly equal
    assert set(class_symbols(8)) == {"circle"} and len(set(class_symbols(40))) == 8
    pairs = set(zip(class_colors(40), class_symbols(40), strict=True))
    assert len(pairs) == 40
    with pytest.raises(ValueError, match="'n' must be >= 0"):
        class_colors(-1)


def test_pca_pair_forty_classes_get_forty_colours():
    p = SimpleNamespace(
        coords=np.random.default_rng(0).normal(size=(400, 2)),
        explained=np.array([0.5, 0.2]),
        features=np.arange(3),
    )
    y = np.repeat(np.arange(40), 10)
    fig = pca_pair([p], y, titles=("Fisher",))
    assert len({t.marker.color for t in fig.data}) == 40
    assert len({(t.marker.color, t.marker.symbol) for t in fig.data}) == 40


def test_correlation_network_nodes_edges_and_layouts():
    pairs = pd.DataFrame({"i": [0, 0, 3, 5], "j": [1, 2, 4, 6], "rho": [0.97, -0.85, 0.6, 0.3]})
    names = [f"g{i}" for i in range(8)]
    for layout in ("circular", "spring"):
        fig = correlation_network(pairs, names, layout=layout, max_pairs=3)
        nodes = fig.data[-1]
        assert list(nodes.text) == ["g0", "g1", "g2", "g3", "g4"]  # pair (5, 6) beyond max_pairs
        xy = np.column_stack([nodes.x, nodes.y])
        assert np.isfinite(xy).all() and len({tuple(p) for p in np.round(xy, 6)}) == 5
        again = correlation_network(pairs, names, layout=layout, max_pairs=3).data[-1]
        np.testing.assert_array_equal(xy, np.column_stack([again.x, again.y]))  # deterministic
        edges = [t for t in fig.data if t.mode == "lines"]
        assert sum(np.isnan(np.asarray(t.x, float)).sum() for t in edges) == 3  # one segment per pair
        widths = {t.name: t.line.width for t in edges}
        assert widths["+ |rho| 0.95–1.00"] > widths["− |rho| 0.80–0.90"] > widths["+ |rho| 0.50–0.70"]
        hover = fig.data[-2].hovertext
        assert hover[0] == "g0 – g1<br>rho = +0.970" and hover[1] == "g0 – g2<br>rho = -0.850"
    # circular: the component {0, 1, 2} sits together, the hub first
    nodes = correlation_network(pairs, names).data[-1]
    angle = np.arctan2(nodes.y, nodes.x) % (2 * np.pi)
    assert np.allclose(angle[:3], 2 * np.pi * np.arange(3) / 7)
    with pytest.raises(ValueError, match="'layout' must be 'circular' or 'spring'"):
        correlation_network(pairs, layout="tsne")


def test_correlation_bars_top_k_signed():
    rhos = np.array([0.1, -0.9, 0.5, 0.5, 0.0])
    fig = correlation_bars(rhos, [f"g{i}" for i in range(5)], k=3, against="tumour_type")
    b = fig.data[0]
    assert list(b.y) == ["g3", "g2", "g1"] and list(b.x) == [0.5, 0.5, -0.9]
    assert list(b.marker.color) == ["#D55E00", "#D55E00", "#0072B2"]
    assert "tumour_type" in fig.layout.title.text
    with pytest.raises(ValueError, match="'k' must be a positive int"):
        correlation_bars(rhos, k=0)


def test_stability_bars_top_k_and_title():
    freq = np.array([0.25, 1.0, 0.5, 0.0, 0.5])
    fig = stability_bars(freq, [f"g{i}" for i in range(5)], k=3, kuncheva=0.4123, jaccard=0.5, n_resamples=20)
    b = fig.data[0]
    assert list(b.y) == ["g4", "g2", "g1"] and list(b.x) == [0.5, 0.5, 1.0]
    assert "Kuncheva 0.412" in fig.layout.title.text and "Jaccard 0.500" in fig.layout.title.text
    assert "10 of 20 resamples" in b.hovertext[0]
    with pytest.raises(ValueError, match="frequencies in \\[0, 1\\]"):
        stability_bars(np.array([1.5]))


def test_compare_scatter_tells_runs_of_one_method_apart_and_shows_the_fold_spread():
    import pandas as pd

    from fsviz.viz.compare import CV_BIASED, CV_HONEST, CV_STD, compare_scatter

    frame = pd.DataFrame(
        {
            "method": ["GDM", "GDM", "SAOLA"],
            "parameters": ["tau=0.3", "tau=0.5", "alpha=0.01"],
            CV_HONEST: [0.9, 0.8, 0.85],
            CV_STD: [0.02, 0.05, 0.01],
            "redundancy": [0.2, 0.3, 0.4],
            "n features": [10, 20, 5],
            CV_BIASED: [np.nan] * 3,
        }
    )
    trace = compare_scatter(frame).data[0]
    assert list(trace.text) == ["GDM #1", "GDM #2", "SAOLA"]
    np.testing.assert_allclose(trace.error_y.array, [0.02, 0.05, 0.01])


def test_fixed_colours_are_colour_blind_safe():
    """Every colour literal in the figure builders is an Okabe-Ito hue or a grey.

    Roles, decisions, gains/losses and reference lines are told apart by colour; red vs
    green (plotly's defaults) is the pair colour-blind readers cannot separate.
    """
    import re
    from pathlib import Path

    from fsviz.viz._common import DECISION_COLORS, OKABE_ITO, ROLE_COLORS

    safe = {c.upper() for c in OKABE_ITO}

    def ok(c: str) -> bool:
        r, g, b = (c[1:3], c[3:5], c[5:7])
        return c.upper() in safe or r == g == b

    viz = Path(__file__).resolve().parents[1] / "fsviz" / "viz"
    found = {(p.name, c) for p in viz.glob("*.py") for c in re.findall(r"#[0-9a-fA-F]{6}\b", p.read_text())}
    assert found, "no colour literal found: the scan is broken"
    assert [f for f in sorted(found) if not ok(f[1])] == []
    assert all(ok(c) for c in [*ROLE_COLORS.values(), *DECISION_COLORS.values()])
    assert len(set(DECISION_COLORS.values())) == len(DECISION_COLORS)


def test_stand_in_scatter_one_trace_per_class_and_a_scale_for_a_continuous_target():
    from fsviz.viz import stand_in_scatter

    x, z = np.array([1.0, 2, 3, 4]), np.array([1.1, 2.2, 2.9, 4.2])
    fig = stand_in_scatter(
        x, z, np.array(["a", "b", "a", "b"]), feature_name="f", stand_in_name="s", corr=0.98
    )
    assert [t.name for t in fig.data] == ["class a", "class b"]
    np.testing.assert_array_equal(fig.data[0].x, [1.1, 2.9])  # the stand-in across, the feature up
    np.testing.assert_array_equal(fig.data[0].y, [1.0, 3.0])
    assert fig.layout.title.text == "f against its stand-in s (ρ = +0.980)"
    cont = stand_in_scatter(x, z, np.array([0.1, 0.7, 0.35, 0.9]), measure="su", corr=0.5)
    assert len(cont.data) == 1 and cont.data[0].marker.colorscale and "SU = +0.500" in cont.layout.title.text
    with pytest.raises(ValueError, match="1-D of one length"):
        stand_in_scatter(x, z[:3])


def test_class_balance_draws_each_class_with_its_count_and_share():
    from fsviz.viz import class_balance

    fig = class_balance(["a", "b", "c"], [5, 15, 0])
    bar = fig.data[0]
    assert list(bar.y) == ["a", "b", "c"] and list(bar.x) == [5, 15, 0]
    assert bar.text == ("25.0 %", "75.0 %", "0.0 %")
    assert "20 samples, 3 classes" in fig.layout.title.text
    for bad in (([], []), (["a"], [1, 2]), (["a", "b"], [1, -1])):
        with pytest.raises(ValueError, match="one non-negative count per class"):
            class_balance(*bad)


def test_class_balance_keeps_numeric_class_names_as_categories():
    from fsviz.viz import class_balance

    fig = class_balance([0, 1], [178, 182])
    assert fig.layout.yaxis.type == "category" and list(fig.data[0].y) == ["0", "1"]
