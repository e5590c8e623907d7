"""A report a person can share: one self-contained HTML file of an analysis.

:func:`build_report` takes a dataset and the :class:`~fsviz.compute.Run` values to include
and returns one HTML document: a header with the dataset (name, shape, fingerprint, target,
column roles, fills and encodings) and the provenance (fsviz version, every parameter, seed,
date); for each Run what the app shows (its figure, the top-k table with feature names, the
quality metrics with their protocol); a compare table and a PCA view of the selections; and a
"how to reproduce" block with the command lines and the Python ``Run(...)`` calls that give the
same results. The app's "Download report" and ``fsviz report`` both write it, so the same Runs
give the same bytes apart from the creation date (the one place a date appears).

The document works offline: plotly.js is inlined once (``plotly.offline.get_plotlyjs``), the
figures are ``fig.to_html(full_html=False, include_plotlyjs=False)`` with stable div ids, no
CDN, no external font. Run times are left out (they change from one computation to the next).
Every user string (feature, dataset, class names) is escaped with :func:`html.escape`; plotly
escapes ``<`` in its own JSON. Figures are sized for A4 and tables do not split a row across
pages when printed to PDF from the browser.

Example
-------
>>> from fsviz.compute import Run
>>> from fsviz.data import load_sample
>>> from fsviz.report import write_report
>>> ds = load_sample("digits-0-vs-1")  # doctest: +SKIP
>>> write_report("report.html", ds, [Run("gdm", {"tau": 0.3}), Run("histogram")])  # doctest: +SKIP
"""

from __future__ import annotations

import datetime
import html
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import fsviz.compute as fc
from fsviz import __version__
from fsviz._params import signature_default
from fsviz._report_look import CSS, Figures
from fsviz.compute import TOP_K, Run
from fsviz.data.feature_info import export_display_names
from fsviz.report_reproduce import reproduce_block

__all__ = ["REPORT_VIEWS", "build_report", "session_doc", "session_runs", "write_report"]

#: view runs the report draws besides selections (their app page slot = their method name)
REPORT_VIEWS = ("histogram", "stability", "benchmark")
#: the cuts' views a report also draws (docs/significance.md): each at its default level
CUT_VIEWS = {"significance": 0.05, "stability-selection": 0.8, "cv-curve": None}
#: sections in this order, whatever order the Runs come in (so the app and the CLI agree)
_KIND_ORDER = (
    "groups",
    "histogram",
    "grm",
    "score",
    "subset",
    "stream",
    "stability",
    *CUT_VIEWS,
    "benchmark",
)

Results = Callable[[Run], Any]


# ---------------------------------------------------------------------------- inputs
def session_runs(doc: Mapping) -> list[Run]:
    """The Runs of an app session file (``Save session (JSON)``) or a report's session block.

    The runs the pages show (``doc["shown"]``), then the selections (``doc["selections"]``),
    each once. Raises ValueError naming what is missing or broken.
    """
    if not isinstance(doc, Mapping) or not ("shown" in doc or "selections" in doc):
        raise ValueError(
            "session file: expected the app's JSON ({'dataset', 'shown', 'selections'}); "
            f"got {str(doc)[:120]!r}. Fix: save it with the app's 'Save session (JSON)'."
        )
    from fsviz.compute.session import check_run

    try:
        runs = [check_run(d, f"'shown.{k}'") for k, d in dict(doc.get("shown") or {}).items()]
        runs += [
            check_run(item["run"], f"'selections[{i}]'") for i, item in enumerate(doc.get("selections") or ())
        ]
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(
            f"session file: a run entry is broken ({type(e).__name__}: {e}); each selection must be "
            "{'run': {'method', 'params', 'seed'}, 'k': ...}."
        ) from None
    return _unique(runs)


def session_doc(dataset, runs: Iterable[Run]) -> dict:
    """A session file of ``runs`` that both the app ("Load a session") and ``fsviz report
    --runs`` read: views under their page slot, selections as selections.

    The app's format holds one view of each kind (its page shows one): of two histogram (or
    stability, benchmark) runs, the last is kept.
    """
    runs = _unique(runs)
    return {
        "fsviz_version": __version__,
        "dataset": {"name": str(dataset.name), "fingerprint": dataset.fingerprint},
        "seed": runs[0].seed if runs else 0,
        "shown": {r.method: r.to_dict() for r in runs if r.method in REPORT_VIEWS},
        "selections": [{"run": r.to_dict(), "k": None} for r in runs if r.spec.selects],
    }


def _unique(runs: Iterable[Run]) -> list[Run]:
    out: list[Run] = []
    for r in runs:
        if not isinstance(r, Run):
            raise ValueError(f"report: every run must be an fsviz.compute.Run; got {r!r:.120}.")
        if r not in out:
            out.append(r)
    return out


def _check_runs(runs: list[Run]) -> list[Run]:
    for r in runs:
        if not (r.spec.selects or r.method in REPORT_VIEWS or r.method in CUT_VIEWS):
            raise ValueError(
                f"report: run {r.label!r} is a {r.spec.kind!r} view; a report draws selections and the "
                f"views {list(REPORT_VIEWS)} (the others are drawn for the selections they belong to)."
            )
    return sorted(runs, key=lambda r: _KIND_ORDER.index(r.spec.kind))


def _default_results(dataset, client=None) -> Results:
    """Execute runs on ``dataset``, each once (a GRM's base score is computed one time)."""
    memo: dict[str, Any] = {}

    def get(run: Run):
        if run.key not in memo:
            memo[run.key] = run.execute(dataset, results=get, client=client)
        return memo[run.key]

    return get


# ---------------------------------------------------------------------------- html helpers
def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return "—" if v != v else f"{v:.4g}"
    return str(v)


def _table(frame: pd.DataFrame, cls: str = "", caption: str = "") -> str:
    """A DataFrame as an HTML table: every cell escaped, numbers to 4 significant digits."""
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    rows = []
    for rec in frame.itertuples(index=False):
        cells = []
        for v in rec:
            num = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            cells.append(f'<td class="num">{_e(_num(v))}</td>' if num else f"<td>{_e(_num(v))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{_e(caption)}</caption>" if caption else ""
    return (
        f'<table class="{_e(cls)}">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _pairs(rows: Sequence[tuple[str, Any]], cls: str = "facts") -> str:
    """A two-column key/value table (values escaped)."""
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(_num(v))}</td></tr>" for k, v in rows)
    return f'<table class="{cls}"><tbody>{body}</tbody></table>'


# ---------------------------------------------------------------------------- header
def _dataset_header(ds, results: Results) -> str:
    s = ds.summary()
    meta = ds.meta or {}
    target = s.label_kind or "none"
    if s.label_kind == "classes":
        target = f"classes ({len(s.classes)}), column {ds.label_column()!r}"
    elif s.label_kind == "continuous":
        target = f"continuous (regression), column {ds.label_column()!r}"
    facts = [
        ("name", ds.name),
        ("shape", f"{s.n_samples:,} samples × {s.n_features:,} features"),
        ("storage", ("sparse" if s.is_sparse else "dense") + f", non-zero fraction {1.0 - s.sparsity:.4f}"),
        ("fingerprint (SHA-256 of the content)", ds.fingerprint),
        ("target", target),
        ("image shape", "x".join(map(str, s.image_shape)) if s.image_shape else "none"),
        ("source file", f"{Path(str(meta.get('source') or '')).name or '(built in memory)'}"),
        ("format", meta.get("format") or "—"),
    ]
    out = ['<h2 id="dataset">Dataset</h2>', _pairs(facts)]
    if s.classes:
        out.append(_table(fc.classes_frame(s), "small", "classes"))
    leaks = results(Run("leakage"))
    out.append(_table(fc.roles_frame(ds, leaks.features), "small", "column roles"))
    out.append(_fills(meta))
    return "\n".join(out)


def _fills(meta: Mapping) -> str:
    """What the loader filled and encoded (``meta["missing"]``, ``meta["categorical"]``)."""
    lines = []
    missing = meta.get("missing") or {}
    counts = missing.get("counts") or {}
    if counts:
        cols = ", ".join(f"{c}: {n}" for c, n in list(counts.items())[:20])
        more = f" … (+{len(counts) - 20} more columns)" if len(counts) > 20 else ""
        lines.append(
            f"Missing values filled with the column {missing.get('strategy')}: "
            f"{sum(counts.values()):,} in {len(counts)} column(s) ({cols}{more})."
        )
    if missing.get("indicator_names"):
        lines.append(f"Indicator columns added: {', '.join(map(str, missing['indicator_names'][:20]))}.")
    if missing.get("categorical_counts"):
        cat = missing["categorical_counts"]
        lines.append(f"Missing categories encoded: {', '.join(f'{c}: {n}' for c, n in cat.items())}.")
    blocks = meta.get("categorical") or {}
    for col, names in list(blocks.items())[:20]:
        lines.append(
            f"Text column {col!r} one-hot encoded into {len(names)} features ({', '.join(names[:6])}…)."
        )
    if not lines:
        lines.append(
            "No missing values filled, no column encoded: the features are the file's columns as read."
        )
    return '<ul class="fills">' + "".join(f"<li>{_e(t)}</li>" for t in lines) + "</ul>"


def _provenance(runs: list[Run], created: str) -> str:
    import platform

    import plotly
    import scipy
    import sklearn

    facts = [
        ("fsviz version", __version__),
        (
            "software",
            f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"scikit-learn {sklearn.__version__}, pandas {pd.__version__}, plotly {plotly.__version__}",
        ),
        ("seeds", ", ".join(sorted({str(r.seed) for r in runs})) or "—"),
    ]
    body = _pairs(facts)
    created_row = f'<p>Created <span id="report-created">{_e(created)}</span> (UTC).</p>'
    rows = pd.DataFrame(
        {
            "section": [f"{i}." for i in range(1, len(runs) + 1)],
            "method": [r.spec.label for r in runs],
            "parameters (every one, defaults filled by the estimator)": [
                json.dumps(r.to_dict()["params"], sort_keys=True) for r in runs
            ],
            "seed": [r.seed for r in runs],
        }
    )
    return (
        '<h2 id="provenance">Provenance</h2>'
        + created_row
        + body
        + _table(rows, "small wrap", "runs in this report (run keys in each section)")
    )


# ---------------------------------------------------------------------------- sections
def _evaluation(results: Results, run: Run, k: int):
    return results(Run("evaluation", {"of": run, "k": int(k), "reselect": True}, run.seed))


def _protocol(ev) -> str:
    if ev.is_regression:
        return (
            f"CV R² and RMSE: shuffled {ev.n_folds}-fold, ridge regression on standardised features; the "
            "selection is redone with the same parameters on every training fold (no selection bias)."
        )
    if ev.n_folds == 0:
        return "No cross-validation: the dataset has no class labels (or a class of one sample)."
    return (
        f"CV accuracy: stratified {ev.n_folds}-fold, linear SVM on the top {ev.k} features; the selection "
        "is redone with the same parameters on every training fold, so the test fold never picks the "
        "features (no selection bias). Redundancy: mean |ρ| over the pairs of the top features."
    )


def _quality_rows(evs: Sequence[tuple[str, Any]]) -> pd.DataFrame:
    """One row per (label, Evaluation): top k, redundancy, CV quality ± fold spread."""
    rows = []
    for label, ev in evs:
        row = {"selection": label, "top k": ev.k, "redundancy (mean |ρ|)": ev.redundancy}
        if ev.is_regression:
            row |= {"CV R²": ev.cv_r2, "± (fold std)": ev.cv_r2_std, "CV RMSE": ev.cv_rmse}
        else:
            row |= {"CV accuracy": ev.cv_accuracy, "± (fold std)": ev.cv_std}
        row["folds"] = ev.n_folds
        rows.append(row)
    return pd.DataFrame(rows)


def _quality(results: Results, evs: Sequence[tuple[str, Run]], k: int) -> str:
    pairs = [(label, _evaluation(results, run, k)) for label, run in evs]
    return (
        "<h3>Quality</h3>"
        + _table(_quality_rows(pairs), "small")
        + f'<p class="protocol">{_e(_protocol(pairs[-1][1]))}</p>'
    )


def _top_table(res, ds, k: int) -> str:
    sel = res if isinstance(res, fc.Selection) else res.selection()
    frame = fc.selection_frame(sel, ds.feature_names, display_names=export_display_names(ds)).head(k)
    more = f" of {sel.n_features:,}" if sel.n_features > k else ""
    return f"<h3>Top {len(frame)}{more} features</h3>" + _table(frame, "small")


def _dropped(results: Results, run: Run, ds, k: int) -> str:
    """The ``k`` best-ranked features the selection left out, their stand-ins and the reasons."""
    ex = results(fc.explain_run(run, k if run.spec.kind in ("score", "grm") else None))
    frame = ex.dropped_frame(ds.feature_labels, top=k).drop(columns=["index"])
    if frame.empty:
        return ""
    symbol = {"pearson": "ρ", "spearman": "ρ_s", "su": "SU"}[ex.measure]
    frame = frame.rename(columns={"stand_in": "stand-in", "stand_in_corr": f"stand-in {symbol}"})
    return "<h3>Top dropped features and what stands in for them</h3>" + _table(
        frame,
        "small wrap",
        f"the stand-in is the selected feature most correlated with it ({symbol}); the reason is the "
        "method's own",
    )


def _run_head(i: int, run: Run) -> str:
    params = json.dumps(run.to_dict()["params"], sort_keys=True)
    return (
        f'<h2 id="run-{i}">{i}. {_e(run.label)}</h2>'
        f'<p class="prov">Run key <code>{_e(run.key)}</code>; seed {run.seed}; parameters '
        f"<code>{_e(params)}</code></p>"
    )


def _groups_section(i, run, res, ds, results, figs, k) -> str:
    from fsviz.viz import group_tree, pixel_masks

    facts = [
        ("support features", len(res.support)),
        ("affiliated features", len(res.af)),
        (
            "correlations computed",
            f"{res.n_correlations:,} ({fc.share_of_pairs(res.n_correlations, res.n_pairs)}, "
            f"{res.n_pairs:,} pairs)",
        ),
        ("cutting-plane iterations", len(res.objective_history)),
    ]
    out = [_pairs(facts)]
    tree = group_tree(res, ds.feature_labels, max_groups=12, max_affiliated=5)
    out.append(
        figs(
            tree,
            f"fig-{i}-tree",
            "Groups: root → support features → affiliated features (size and colour by score; the 12 "
            "largest groups, 5 affiliated each, the rest in '+N more').",
        )
    )
    if ds.image_shape is not None:
        panels = results(Run("images", {"shape": ds.image_shape}, run.seed))
        masks = pixel_masks(panels, res, alpha=fc.mask_opacity(res))
        out.append(
            figs(
                masks,
                f"fig-{i}-masks",
                "Support pixels (red) and affiliated pixels (one colour per group) on examples and class "
                "means.",
            )
        )
    out.append(_quality(results, [(run.label, run)], k))
    out.append(_top_table(res, ds, k))
    return "\n".join(out)


def _grm_section(i, run, res, ds, results, figs, k) -> str:
    from fsviz.viz import ranking_bump

    prior = [list(g) for g in run.get("prior_groups") or ()]
    facts = [
        ("base score", res.base_run.label),
        ("features re-ranked (n_top)", len(res.candidates)),
        ("gamma (weight of the prior groups)", run.get("gamma")),
        ("prior groups", f"{len(prior)} over {sum(map(len, prior))} features" if prior else "none"),
    ]
    out = [_pairs(facts)]
    bump = ranking_bump(res.base_order, res.refined_order, ds.feature_labels, labels=(res.base_method, "GRM"))
    ranks = signature_default(ranking_bump, "k")  # the chart's own default
    out.append(figs(bump, f"fig-{i}-bump", f"Top {ranks} ranks: {res.base_method} before, GRM after."))
    out.append(_quality(results, [(f"base: {res.base_run.label}", res.base_run), ("GRM", run)], k))
    if prior:
        plain_run = run.replace(prior_groups=())
        plain = results(plain_run)
        rows = []
        for label, r in (
            ("GRM without priors", plain),
            (f"GRM with priors (gamma={run.get('gamma'):g})", res),
        ):
            ev = _evaluation(results, r.run, k)
            rows.append(
                {
                    "": label,
                    f"redundancy of top {ev.k}": ev.redundancy,
                    ev.quality_label: ev.quality,
                    "± (fold std)": ev.quality_std,
                    "mean rank spread in a prior group": fc.prior_group_spread(r.ranking, prior),
                }
            )
        out.append("<h3>What the prior groups change</h3>" + _table(pd.DataFrame(rows), "small"))
        panel = ranking_bump(
            plain.refined_order,
            res.refined_order,
            ds.feature_labels,
            labels=("GRM without priors", f"GRM with priors (gamma={run.get('gamma'):g})"),
        )
        out.append(figs(panel, f"fig-{i}-priors", "GRM without and with the prior groups (eq. 25–26)."))
        out.append(_table(fc.prior_groups_frame(prior, ds.feature_labels), "small wrap", "prior groups"))
    out.append(_top_table(res, ds, k))
    return "\n".join(out)


def _score_section(i, run, res, ds, results, figs, k) -> str:
    from fsviz.viz import score_bars

    bars = score_bars(res.scores, ds.feature_labels, top_n=min(30, len(res.scores)), title=run.spec.label)
    out = [figs(bars, f"fig-{i}-scores", "The highest scores (higher = better).")]
    out.append(_quality(results, [(run.label, run)], k))
    out.append(_top_table(res, ds, k))
    return "\n".join(out)


def _stream_section(i, run, res, ds, results, figs, k) -> str:
    from fsviz.viz import stream_progress

    counts = res.counts()
    facts = [("features arrived", len(res.arrival)), ("final selection", len(res.selected))]
    facts += [(d, counts.get(d, 0)) for d in ("irrelevant", "redundant", "removed")]
    out = [_pairs(facts)]
    out.append(
        figs(
            stream_progress(res.set_size, res.outcome),
            f"fig-{i}-stream",
            "Selected-set size as features arrive, and the decisions per arrival window.",
        )
    )
    out.append(_quality(results, [(run.label, run)], k))
    out.append(_top_table(res, ds, k))
    return "\n".join(out)


def _histogram_section(i, run, res, ds, runs, figs) -> str:
    from fsviz.viz import correlation_sparsity

    gdm = next((r for r in runs if r.method == "gdm"), None)
    tau = float((gdm or Run("gdm")).get("tau"))
    how = "exact over all" if res.exact else f"estimated from {res.n_pairs:,} sampled pairs of"
    fig = correlation_sparsity(
        res.edges, res.counts, tau=tau, exact=res.exact, n_pairs_total=res.n_pairs_total
    )
    note = (
        f"Counts are {how} {res.n_pairs_total:,} pairs of non-constant features ({res.n_constant} constant "
        f"features not counted); the line marks 1 − τ = {1 - tau:g} ("
        + ("τ of the GDM run in this report)." if gdm is not None else "GDM's default τ).")
    )
    return figs(fig, f"fig-{i}-sparsity", note)


def _cut_section(i, run, res, ds, results, figs, k) -> str:
    """A cut: its rule (bound or spread), the ranking with the line, the kept features' columns."""
    from fsviz.viz import ranking_cut

    level, of = CUT_VIEWS[run.method], run.get("of")
    if run.method == "cv-curve":
        sel = fc.cut_selection(
            of, fc.Cut("cv-1se"), ds, results=results, ks=run.get("ks"), cv=run.get("n_folds")
        )
        curve = pd.DataFrame({"k": res.ks, "CV accuracy": res.mean, "± (SE)": res.se})
        return f"<p>{_e(sel.rule)}</p>" + _table(curve, "small") + _top_table(sel, ds, k)
    sel = res.selection(level)
    values, value = (
        (res.evidence, "-log10 q") if run.method == "significance" else (res.probabilities, "probability")
    )
    fig = ranking_cut(
        values,
        sel.n_features,
        fc.Cut("fdr" if run.method == "significance" else "stability", level).text,
        ds.feature_labels,
        value=value,
    )
    return figs(fig, f"fig-{i}-cut", sel.rule) + _top_table(sel, ds, k)


def _stability_section(i, run, res, ds, figs) -> str:
    from fsviz.viz import stability_bars

    of = run.get("of")
    facts = [
        ("selection resampled", of.label if isinstance(of, Run) else of),
        ("top k of each resample", run.get("k") or "all"),
        ("bootstrap resamples", len(res.subsets)),
        ("Kuncheva index", res.kuncheva),
        ("Jaccard index", res.jaccard),
        ("Kuncheva index, by groups", res.group_kuncheva),
        ("Jaccard index, by groups", res.group_jaccard),
        ("groups", fc.group_stability_text(res)),
    ]
    kun = res.kuncheva if res.kuncheva == res.kuncheva else None
    out = [_pairs(facts)]
    bars = stability_bars(res.frequency, ds.feature_labels, k=30, kuncheva=kun, jaccard=res.jaccard)
    out.append(
        figs(bars, f"fig-{i}-stability", "How often each feature is selected on a bootstrap resample.")
    )
    if len(res.group_frequency):
        names = fc.group_names(res.group_support, ds.feature_labels)
        out.append(
            figs(
                stability_bars(res.group_frequency, names, k=30),
                f"fig-{i}-stability-groups",
                "GDM groups: how often a resample selects any member of the group.",
            )
        )
    return "\n".join(out)


def _benchmark_section(i, run, res, figs) -> str:
    from fsviz.viz import accuracy_curves, clustering_curves

    table = fc.benchmark_summary(res.table)
    out = [f'<p class="note">{_e(n)}</p>' for n in res.notes]
    if (table["kind"] == "classification").any():
        out.append(
            figs(accuracy_curves(table), f"fig-{i}-accuracy", "Accuracy against the number of features.")
        )
    if (table["kind"] == "clustering").any():
        out.append(figs(clustering_curves(table), f"fig-{i}-clustering", "K-means NMI / ACC against k."))
    return "\n".join(out)


def _default_pair(selections: list[Run]) -> tuple[Run, ...]:
    """The runs the PCA view shows: the last GRM and its base score when both are in the report,
    else the first two selections (as the app's Projection page starts)."""
    grms = [r for r in selections if r.method == "grm"]
    if grms and grms[-1].get("base") in selections:
        return grms[-1].get("base"), grms[-1]
    return tuple(selections[:2])


def _compare_section(ds, selections: list[Run], results: Results, figs, k: int) -> str:
    from fsviz.viz import compare_scatter, pca_pair

    rows = []
    for run in selections:
        sel = results(run).selection()
        rows.append((sel, _evaluation(results, run, k), None))
    frame = fc.compare_frame(rows)
    frame = frame.drop(columns=[c for c in (fc.CV_BIASED, fc.CV_R2_BIASED, "run time (s)") if c in frame])
    out = ['<h2 id="compare">Compare the selections</h2>', _table(frame, "small wrap")]
    out.append(f'<p class="protocol">{_e(_protocol(rows[-1][1]))}</p>')
    out.append(
        figs(
            compare_scatter(frame), "fig-compare", "CV quality against redundancy, one marker per selection."
        )
    )
    pair = _default_pair(selections)
    projections = []
    for run in pair:
        top = results(run).selection().top(k)
        projections.append(results(Run("projection", {"features": top}, run.seed)))
    titles = [r.spec.label for r in pair]
    pca = pca_pair(projections, ds.y, titles=titles)
    pca.update_annotations(font_size=11)  # two panel titles side by side in an A4 width
    out.append(f'<h2 id="pca">PCA of the samples on the top {k} features</h2>')
    out.append(figs(pca, "fig-pca", "Samples coloured by the target."))
    return "\n".join(out)


# ---------------------------------------------------------------------------- document


def build_report(
    dataset,
    runs: Iterable[Run],
    *,
    k: int = TOP_K.default,
    results: Results | None = None,
    created: str | None = None,
    client=None,
    progress: Callable[[float, str], Any] | None = None,
) -> str:
    """One self-contained HTML document of ``runs`` on ``dataset``.

    Parameters
    ----------
    dataset : fsviz.data.Dataset
    runs : iterable of Run
        Selections (any method that selects features) and the views ``"histogram"``,
        ``"stability"`` and ``"benchmark"``; duplicates are dropped. Sections come in a fixed
        order of kinds (GDM, correlation sparsity, GRM, scores, subsets, streams, stability,
        benchmark), runs of one kind in the order given.
    k : int, default=20
        Rows of each top-k table, and the top k evaluated (CV quality, redundancy, PCA).
    results : callable, optional
        ``results(run) -> result``: the app passes its cache; default: execute each run once.
    created : str, optional
        The creation date written in the header (default: now, UTC, ISO 8601 to the second);
        the only part of the document that changes between two builds of the same Runs.
    client : dask.distributed.Client, optional
        Handed to the runs executed by the default ``results``.
    progress : callable, optional
        ``progress(fraction_done, text)``, called before each part is built (a run's section,
        the compare section, the reproduce block) with the part's name; the app's report job
        shows it, and stops a cancelled build by raising from it.

    Returns
    -------
    str
        The HTML document (plotly.js inlined once; a few MB).

    Raises
    ------
    ValueError
        No run, a run the report cannot draw (e.g. a ``"projection"`` view), ``k`` below 1, or
        the ValueError of a run that fails on this dataset.
    """
    from plotly.offline import get_plotlyjs

    runs = _check_runs(_unique(runs))
    if not runs:
        raise ValueError("report: no runs to include; give at least one selection or view Run.")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"report: 'k' (rows of the top-k tables) must be an int >= 1; got {k!r}.")
    k = int(k)
    results = results or _default_results(dataset, client)
    created = created or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    figs = Figures()
    sections, toc = [], []
    selections = [r for r in runs if r.spec.selects]
    parts = len(runs) + bool(selections) + 1  # each run, the compare section, the rest
    step = progress or (lambda frac, text: None)
    for i, run in enumerate(runs, start=1):
        step((i - 1) / parts, f"Part {i} of {parts}: {run.label}")
        res = results(run)
        kind = run.spec.kind
        if kind == "groups":
            body = _groups_section(i, run, res, dataset, results, figs, k)
        elif kind == "grm":
            body = _grm_section(i, run, res, dataset, results, figs, k)
        elif kind in ("score", "subset"):
            body = _score_section(i, run, res, dataset, results, figs, k)
        elif kind == "stream":
            body = _stream_section(i, run, res, dataset, results, figs, k)
        elif kind == "histogram":
            body = _histogram_section(i, run, res, dataset, runs, figs)
        elif kind == "stability":
            body = _stability_section(i, run, res, dataset, figs)
        elif kind in CUT_VIEWS:
            body = _cut_section(i, run, res, dataset, results, figs, k)
        else:
            body = _benchmark_section(i, run, res, figs)
        if run.spec.selects:
            body += "\n" + _dropped(results, run, dataset, k)
        sections.append(f'<section class="run">{_run_head(i, run)}\n{body}</section>')
        toc.append(f'<li><a href="#run-{i}">{_e(run.label)}</a></li>')
    if selections:
        step(len(runs) / parts, f"Part {len(runs) + 1} of {parts}: compare the selections, PCA")
        sections.append(
            f'<section class="summary">{_compare_section(dataset, selections, results, figs, k)}</section>'
        )
        toc += ['<li><a href="#compare">Compare the selections</a></li>', '<li><a href="#pca">PCA</a></li>']
    toc.append('<li><a href="#reproduce">How to reproduce</a></li>')
    step((parts - 1) / parts, f"Part {parts} of {parts}: dataset, provenance, how to reproduce")
    title = f"fsviz report — {dataset.name}"
    head = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n"
        f'<meta name="generator" content="fsviz {_e(__version__)}">\n'
        f"<style>{CSS}</style>\n"
        f'<script type="text/javascript">{get_plotlyjs()}</script>\n</head>\n'
    )
    intro = (
        f"<header><h1>{_e(title)}</h1>"
        f'<p class="sub">{len(runs)} run(s) on {dataset.n_samples:,} × {dataset.n_features:,}; every figure '
        "is interactive (hover, zoom; double-click resets). Made by fsviz, offline and self-contained.</p>"
        '<nav><ol><li><a href="#dataset">Dataset</a></li><li><a href="#provenance">Provenance</a></li>'
        + "".join(toc)
        + "</ol></nav></header>"
    )
    body = (
        "<body>\n"
        + intro
        + "\n"
        + _dataset_header(dataset, results)
        + "\n"
        + _provenance(runs, created)
        + "\n"
        + "\n".join(sections)
        + "\n"
        + reproduce_block(dataset, runs, k, session_doc(dataset, runs))
        + "\n</body>\n</html>\n"
    )
    return head + body


def write_report(path, dataset, runs: Iterable[Run], **kwargs) -> int:
    """:func:`build_report` written to ``path`` as UTF-8; returns the number of bytes."""
    data = build_report(dataset, runs, **kwargs).encode("utf-8")
    Path(path).write_bytes(data)
    return len(data)
