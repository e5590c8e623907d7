"""The support/affiliated feature group tree (root -> support features -> affiliated features)."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from fsviz.viz._adapt import as_groups, feature_names_of
from fsviz.viz._common import NEUTRAL, names_of

#: share of the colour bar given to the neutral band of aggregated ("+N more") nodes
_BAND = 0.05
_KINDS = {"treemap": go.Treemap, "sunburst": go.Sunburst, "icicle": go.Icicle}


def _group_arrays(result) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """support, af, af_sf, af_rho and the position in ``support`` of every AF's group."""
    support = np.asarray(result.support, dtype=np.int64)
    af = np.asarray(result.af, dtype=np.int64)
    af_sf = np.asarray(result.af_sf, dtype=np.int64)
    af_rho = np.abs(np.asarray(result.af_rho, dtype=np.float64))
    if af.size:
        sort_sf = np.argsort(support, kind="stable")
        gpos = sort_sf[np.searchsorted(support, af_sf, sorter=sort_sf)]
    else:
        gpos = np.zeros(0, dtype=np.int64)
    return support, af, af_sf, af_rho, gpos


def _group_order(sizes: np.ndarray, sf_scores: np.ndarray, order: str) -> np.ndarray:
    """Group positions largest first (ties: higher score first), or highest score first."""
    if order == "size":
        return np.lexsort((-sf_scores, -sizes))
    return np.argsort(-sf_scores, kind="stable")


def find_feature_group(result, feature: int | str, feature_names: Sequence[str] | None = None) -> dict | None:
    """Which GDM group is a feature in? Its support feature, role, |rho| and group size.

    Parameters
    ----------
    result : fitted GDM or GroupResult-like
        A fitted :class:`fsviz.select.GDM`, or an object with ``support``, ``af``, ``af_sf`` and
        ``af_rho`` (``scores`` is used when present).
    feature : int or str
        A feature index, or a feature name (then names are needed: ``feature_names``, or the
        estimator was fitted on a DataFrame).
    feature_names : sequence of str or DataFrame, default=None
        Names of all features, or a pandas / polars DataFrame whose columns they are; None: the
        estimator's ``feature_names_in_`` when it has them, else ``f<i>``.

    Returns
    -------
    dict or None
        None when the feature is in no group (neither a support nor an affiliated
        feature). Otherwise the keys ``feature`` (index), ``name``, ``role`` (``"SF"`` or
        ``"AF"``), ``support_feature`` (index of its group's SF), ``support_name``,
        ``rho`` (|rho| to the SF; 1.0 for the SF itself), ``score`` (``result.scores`` of
        the feature, NaN when the result has no scores), ``group_size`` (the SF plus its
        affiliated features), ``group_rank`` (1 = the largest group, ties broken by the
        higher SF score: the order of :func:`group_tree`) and ``n_groups``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> r = SimpleNamespace(support=[3, 7], af=[4, 5, 8], af_sf=[3, 3, 7], af_rho=[0.9, 0.8, 0.95])
    >>> g = find_feature_group(r, 5)
    >>> g["role"], g["support_feature"], g["rho"], g["group_size"], g["group_rank"]
    ('AF', 3, 0.8, 3, 1)
    >>> find_feature_group(r, 0) is None
    True
    """
    who = "find_feature_group"
    feature_names = feature_names_of(result, feature_names)
    result = as_groups(result, who)
    if isinstance(feature, str):
        if feature_names is None:
            raise ValueError(f"{who}: a feature name ({feature!r}) needs 'feature_names'.")
        hits = np.flatnonzero(np.asarray(feature_names, dtype=object) == feature)
        if hits.size == 0:
            raise ValueError(f"{who}: no feature is named {feature!r}.")
        f = int(hits[0])
    elif isinstance(feature, Integral) and not isinstance(feature, bool):
        f = int(feature)
    else:
        raise ValueError(f"{who}: 'feature' must be an int index or a str name; got {feature!r}.")
    support, af, af_sf, af_rho, gpos = _group_arrays(result)
    is_sf = np.flatnonzero(support == f)
    is_af = np.flatnonzero(af == f)
    if is_sf.size:
        g, role, rho = int(is_sf[0]), "SF", 1.0
    elif is_af.size:
        g, role, rho = int(gpos[is_af[0]]), "AF", float(af_rho[is_af[0]])
    else:
        return None
    sizes = np.bincount(gpos, minlength=support.size) + 1
    sf_scores = getattr(result, "sf_scores", None)
    sf_scores = np.zeros(support.size) if sf_scores is None else np.asarray(sf_scores, dtype=np.float64)
    rank = int(np.flatnonzero(_group_order(sizes, sf_scores, "size") == g)[0]) + 1
    scores = getattr(result, "scores", None)
    sf = int(support[g])
    return {
        "feature": f,
        "name": names_of(feature_names, [f])[0],
        "role": role,
        "support_feature": sf,
        "support_name": names_of(feature_names, [sf])[0],
        "rho": rho,
        "score": float(np.asarray(scores)[f]) if scores is not None else float("nan"),
        "group_size": int(sizes[g]),
        "group_rank": rank,
        "n_groups": int(support.size),
    }


def _banded_colorscale(name: str) -> list:
    """``name`` squeezed into [_BAND, 1] with a neutral grey band below it."""
    base = pc.get_colorscale(name)
    return [[0.0, NEUTRAL], [_BAND, NEUTRAL]] + [[_BAND + (1 - _BAND) * float(p), c] for p, c in base]


def group_tree(
    result,
    feature_names: Sequence[str] | None = None,
    *,
    max_groups: int = 40,
    max_affiliated: int = 25,
    kind: str = "treemap",
    highlight: int | None = None,
    colorscale: str = "Viridis",
    order: str = "size",
    score_label: str = "GDM score |s_j|",
) -> go.Figure:
    """An interactive tree of GDM's groups: root -> support features (SF) -> affiliated (AF).

    Readable at any size: a tile's area counts features (1 per feature), its colour is the
    score; the largest groups come first and get their own tile, and the rest is one
    neutral-grey "+N more groups" tile placed last whose area is capped (at most that of
    the smallest shown group; its label says so). Within a group the affiliated features
    most correlated with the SF get tiles, the rest one grey "+N more" tile capped at a
    quarter of the area of the shown ones. Labels appear on every tile large enough to hold them at a
    legible size; the others show on hover.

    Parameters
    ----------
    result : fitted GDM, fitted selector or GroupResult-like
        A fitted :class:`fsviz.select.GDM` (``group_tree(GDM().fit(X, y))``), any other fitted
        selector (its selected features, each a group of one), or an object with ``support``,
        ``sf_scores``, ``af``, ``af_sf``, ``af_rho`` and ``scores`` (see
        :class:`fsviz.compute.GroupResult`).
    feature_names : sequence of str or DataFrame, default=None
        Names for labels and hover, or a pandas / polars DataFrame whose columns they are;
        None: the estimator's ``feature_names_in_`` when it has them, else ``f<i>``.
    max_groups : int, default=40
        Groups with their own node; at most ``1 + max_groups * (max_affiliated + 2) + 1``
        nodes are drawn whatever the number of groups and features.
    max_affiliated : int, default=25
        Per group, the affiliated features with the highest |rho| to their SF get a node.
    kind : {"treemap", "sunburst", "icicle"}, default="treemap"
        The icicle is the drill-down view: click a group to expand it to full width.
    highlight : int, default=None
        A support feature index: its group is always shown and the tree opens zoomed
        into it (click the root bar to zoom out).
    colorscale : str, default="Viridis"
        A plotly colour scale name for the score.
    order : {"size", "score"}, default="size"
        Which groups get a node and in which order: the largest first (ties: higher
        score), or the highest SF score first.
    score_label : str, default="GDM score |s_j|"
        Title of the colour bar.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace; hover shows name, index, role, score, group size and |rho| to the
        group's support feature.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> r = SimpleNamespace(support=np.array([0, 5]), sf_scores=np.array([0.9, 0.5]),
    ...     af=np.array([1, 2, 6]), af_sf=np.array([0, 0, 5]),
    ...     af_rho=np.array([0.9, 0.8, 0.7]), scores=np.linspace(1, 0, 8))
    >>> list(group_tree(r).data[0].ids)
    ['root', 'sf:0', 'af:1', 'af:2', 'sf:5', 'af:6']

    A fitted estimator, with the names of the DataFrame it was fitted on:

    >>> import pandas as pd
    >>> from fsviz.select import GDM
    >>> X = pd.DataFrame(np.random.default_rng(0).normal(size=(40, 6)), columns=list("abcdef"))
    >>> X["a2"] = X["a"] + 0.01
    >>> fig = group_tree(GDM(random_state=0).fit(X, X["a"] > 0))
    >>> fig.data[0].labels[:3]  # the root, the group of a (2 features), its member a2
    ('6 groups', 'a (2)', 'a2')
    """
    who = "group_tree"
    feature_names = feature_names_of(result, feature_names)
    result = as_groups(result, who)
    if kind not in _KINDS:
        raise ValueError(f"{who}: 'kind' must be 'treemap', 'sunburst' or 'icicle'; got {kind!r}.")
    if order not in ("size", "score"):
        raise ValueError(f"{who}: 'order' must be 'size' or 'score'; got {order!r}.")
    for nm, v in (("max_groups", max_groups), ("max_affiliated", max_affiliated)):
        if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
            raise ValueError(f"{who}: '{nm}' must be a positive int; got {v!r}.")
    support, af, af_sf, af_rho, gpos = _group_arrays(result)
    sf_scores = np.asarray(result.sf_scores, dtype=np.float64)
    scores = np.asarray(result.scores, dtype=np.float64)
    af_scores = scores[af] if af.size else np.zeros(0)
    n_groups, n_total_af = int(support.size), int(af.size)
    n_af = np.bincount(gpos, minlength=n_groups)

    g_order = _group_order(n_af + 1, sf_scores, order)
    shown = g_order[:max_groups]
    if highlight is not None and max_groups < n_groups:
        hg = np.flatnonzero(support == int(highlight))
        if hg.size and hg[0] not in shown:
            shown = np.append(shown[:-1], hg[0])
    hidden = np.setdiff1d(g_order, shown, assume_unique=True)

    # AFs sorted by (group, -|rho|): members of group g are af_order[starts[g]:stops[g]]
    af_order = np.lexsort((-af_rho, gpos))
    sorted_g = gpos[af_order]
    starts = np.searchsorted(sorted_g, np.arange(n_groups))
    stops = np.searchsorted(sorted_g, np.arange(n_groups), side="right")

    # colour range over the drawn scores; aggregated nodes sit in a grey band below it
    drawn = [sf_scores[shown]] + [af_scores[af_order[starts[g] : starts[g] + max_affiliated]] for g in shown]
    vals = np.concatenate(drawn) if drawn else np.zeros(0)
    lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    grey = lo - _BAND / (1 - _BAND) * (hi - lo)

    ids, labels, parents, values, colors, hover = [], [], [], [], [], []

    def add(i, label, parent, value, color, text):
        ids.append(i), labels.append(label), parents.append(parent), values.append(float(value))
        colors.append(float(color)), hover.append(text)

    add(
        "root",
        f"{n_groups} groups",
        "",
        0.0,
        grey,
        f"{n_groups} support features<br>{n_total_af} affiliated features",
    )
    sf_names = names_of(feature_names, support)
    areas = []
    for g in shown:
        s = int(support[g])
        sid = f"sf:{s}"
        members = af_order[starts[g] : stops[g]]
        top, rest = members[:max_affiliated], members[max_affiliated:]
        rest_area = min(rest.size, max(-(-top.size // 4), 1))
        areas.append(1 + top.size + rest_area)
        rho_txt = (
            f"<br>|rho| to SF {af_rho[members].min():.3f}–{af_rho[members].max():.3f}" if members.size else ""
        )
        add(
            sid,
            f"{sf_names[g]} ({members.size + 1})",
            "root",
            1.0,
            sf_scores[g],
            f"<b>{sf_names[g]}</b> (#{s})<br>support feature<br>score {sf_scores[g]:.4g}"
            f"<br>group of {members.size + 1}: the SF and {members.size} affiliated{rho_txt}",
        )
        for t, nm in zip(top, names_of(feature_names, af[top]), strict=True):
            add(
                f"af:{int(af[t])}",
                nm,
                sid,
                1.0,
                af_scores[t],
                f"<b>{nm}</b> (#{int(af[t])})<br>affiliated to {sf_names[g]}<br>score {af_scores[t]:.4g}"
                f"<br>|rho| to SF {af_rho[t]:.3f}",
            )
        if rest.size:
            capped = " (tile capped)" if rest_area < rest.size else ""
            add(
                f"more:{s}",
                f"+{rest.size} more{capped}",
                sid,
                rest_area,
                grey,
                f"{rest.size} more affiliated features of {sf_names[g]}<br>|rho| to SF "
                f"{af_rho[rest].min():.3f}–{af_rho[rest].max():.3f}"
                f"<br>mean score {af_scores[rest].mean():.4g}",
            )
    if hidden.size:
        n_hidden = int(hidden.size + n_af[hidden].sum())
        area = min(n_hidden, min(areas) if areas else n_hidden)
        capped = ", tile capped" if area < n_hidden else ""
        add(
            "more-groups",
            f"+{hidden.size} more groups<br>({n_hidden} features{capped})",
            "root",
            area,
            grey,
            f"{hidden.size} smaller groups{' (lower scores)' if order == 'score' else ''}<br>"
            f"{n_hidden} features, {int(n_af[hidden].sum())} of them affiliated<br>"
            f"SF scores {sf_scores[hidden].min():.4g}–{sf_scores[hidden].max():.4g}",
        )

    mid = (lo + hi) / 2
    trace = _KINDS[kind](
        ids=ids,
        labels=labels,
        parents=parents,
        values=values,
        branchvalues="remainder",
        sort=False,
        hovertext=hover,
        hoverinfo="text",
        textinfo="label",
        marker=dict(
            colors=colors,
            colorscale=_banded_colorscale(colorscale),
            cmin=grey,
            cmax=hi,
            showscale=True,
            colorbar=dict(
                title=dict(text=score_label),
                tickvals=[(grey + lo) / 2, lo, mid, hi],
                ticktext=["grouped (grey)", f"{lo:.3g}", f"{mid:.3g}", f"{hi:.3g}"],
            ),
        ),
        maxdepth=3,
    )
    fig = go.Figure(trace)
    if highlight is not None and f"sf:{int(highlight)}" in ids:
        fig.data[0].level = f"sf:{int(highlight)}"  # zoom into that group
    fig.update_layout(
        margin=dict(t=40, l=5, r=5, b=5),
        height=560 if kind != "icicle" else max(560, 26 * (len(shown) + 1) + 80),  # a row per group
        uniformtext=dict(minsize=9, mode="hide"),
        title=f"Support features and their affiliated features ({n_groups} groups, {n_total_af} affiliated)",
    )
    return fig
