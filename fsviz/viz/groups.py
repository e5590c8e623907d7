"""The support/affiliated feature group tree (root -> support features -> affiliated features)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from fsviz.viz._common import names_of


def group_tree(
    result,
    feature_names: Sequence[str] | None = None,
    *,
    max_groups: int = 40,
    max_affiliated: int = 25,
    kind: str = "treemap",
    highlight: int | None = None,
    colorscale: str = "Viridis",
) -> go.Figure:
    """An interactive tree of GDM's groups: root -> support features (SF) -> affiliated (AF).

    Parameters
    ----------
    result : GroupResult-like
        Needs ``support``, ``sf_scores``, ``af``, ``af_sf``, ``af_rho`` and ``scores``
        (see :class:`fsviz.compute.GroupResult`).
    feature_names : sequence of str, default=None
        Names for hover labels (``f<i>`` when None).
    max_groups : int, default=40
        Only the ``max_groups`` support features with the highest score get their own node;
        the rest are aggregated into one "+N more groups" node (readable on 10^5 features).
    max_affiliated : int, default=25
        Per group, the affiliated features with the highest |rho| to their SF get a node; the
        rest become one "+N more" node whose size is their summed score.
    kind : {"treemap", "sunburst"}, default="treemap"
    highlight : int, default=None
        A support feature index: the tree opens zoomed into its group (click the root bar
        to zoom out).
    colorscale : str, default="Viridis"
        Node colour encodes the score.

    Returns
    -------
    plotly.graph_objects.Figure
        Node size and colour follow the score; hover shows name, index, role, score and
        |rho| to the group's support feature.
    """
    if kind not in ("treemap", "sunburst"):
        raise ValueError(f"group_tree: 'kind' must be 'treemap' or 'sunburst'; got {kind!r}.")
    support = np.asarray(result.support, dtype=np.int64)
    sf_scores = np.asarray(result.sf_scores, dtype=np.float64)
    af = np.asarray(result.af, dtype=np.int64)
    af_sf = np.asarray(result.af_sf, dtype=np.int64)
    af_rho = np.asarray(result.af_rho, dtype=np.float64)
    scores = np.asarray(result.scores, dtype=np.float64)
    af_scores = scores[af] if af.size else np.zeros(0)
    smax = float(max(scores.max() if scores.size else 0.0, sf_scores.max() if sf_scores.size else 0.0))
    eps = 1e-3 * smax if smax > 0 else 1.0

    ids, labels, parents, values, colors, hover = [], [], [], [], [], []

    def add(i, label, parent, value, color, text):
        ids.append(i), labels.append(label), parents.append(parent), values.append(float(value))
        colors.append(float(color)), hover.append(text)

    n_total_af = int(af.size)
    add(
        "root",
        f"{len(support)} groups",
        "",
        0.0,
        0.0,
        f"{len(support)} support features<br>{n_total_af} affiliated features",
    )
    order_sf = np.argsort(-sf_scores, kind="stable")
    shown_sf = order_sf[:max_groups]
    # group position of each AF, then AFs sorted by (group, -rho)
    sort_sf = np.argsort(support, kind="stable")
    gpos = sort_sf[np.searchsorted(support, af_sf, sorter=sort_sf)] if af.size else np.zeros(0, np.int64)
    af_order = np.lexsort((-af_rho, gpos)) if af.size else np.zeros(0, np.int64)
    starts = (
        np.searchsorted(gpos[af_order], np.arange(len(support))) if af.size else np.zeros(len(support), int)
    )
    stops = np.searchsorted(gpos[af_order], np.arange(len(support)), side="right") if af.size else starts
    sf_names = names_of(feature_names, support)
    for g in shown_sf:
        s = int(support[g])
        sid = f"sf:{s}"
        members = af_order[starts[g] : stops[g]]
        add(
            sid,
            sf_names[g],
            "root",
            sf_scores[g] + eps,
            sf_scores[g],
            f"<b>{sf_names[g]}</b> (#{s})<br>support feature<br>score {sf_scores[g]:.4g}"
            f"<br>{len(members)} affiliated",
        )
        top, rest = members[:max_affiliated], members[max_affiliated:]
        for t, nm in zip(top, names_of(feature_names, af[top]), strict=False):
            add(
                f"af:{int(af[t])}",
                nm,
                sid,
                af_scores[t] + eps,
                af_scores[t],
                f"<b>{nm}</b> (#{int(af[t])})<br>affiliated to {sf_names[g]}<br>score {af_scores[t]:.4g}"
                f"<br>|rho| to SF {af_rho[t]:.3f}",
            )
        if rest.size:
            add(
                f"more:{s}",
                f"+{rest.size} more",
                sid,
                af_scores[rest].sum() + eps,
                af_scores[rest].mean(),
                f"{rest.size} more affiliated features<br>|rho| to SF {af_rho[rest].min():.3f}"
                f"–{af_rho[rest].max():.3f}",
            )
    hidden = order_sf[max_groups:]
    if hidden.size:
        n_hidden_af = int(sum(stops[hidden] - starts[hidden]))
        add(
            "more-groups",
            f"+{hidden.size} more groups",
            "root",
            sf_scores[hidden].sum() + eps,
            sf_scores[hidden].mean(),
            f"{hidden.size} more groups (lower scores)<br>{n_hidden_af} affiliated features",
        )

    trace_cls = go.Treemap if kind == "treemap" else go.Sunburst
    trace = trace_cls(
        ids=ids,
        labels=labels,
        parents=parents,
        values=values,
        branchvalues="remainder",
        hovertext=hover,
        hoverinfo="text",
        textinfo="label",
        marker=dict(colors=colors, colorscale=colorscale, showscale=True, colorbar=dict(title="score")),
        maxdepth=3,
    )
    fig = go.Figure(trace)
    if highlight is not None and f"sf:{int(highlight)}" in ids:
        fig.data[0].level = f"sf:{int(highlight)}"  # zoom into that group
    fig.update_layout(
        margin=dict(t=40, l=5, r=5, b=5),
        height=560,
        title=f"Support features and their affiliated features ({len(support)} groups, "
        f"{n_total_af} affiliated)",
    )
    return fig
