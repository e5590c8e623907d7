"""Benchmark: the survey's evaluation protocol — quality against the number of selected features."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.compute import Run
from fsviz.viz import accuracy_curves, clustering_curves

st.title("Benchmark (survey protocol)")
ds = appkit.require_dataset()
summary = ds.summary()
if summary.label_kind != "classes":
    what = "a continuous target" if summary.label_kind == "continuous" else "no class labels"
    st.info(
        f"Dataset **{ds.name}** has {what}, so there is nothing to score a selection against: the "
        "survey's protocol measures supervised methods by classification accuracy and unsupervised methods "
        "by K-means NMI/ACC against the classes. Name a class label column in the sidebar (Upload)."
    )
    st.stop()

smallest = min(summary.class_counts)
if len(summary.class_counts) < 2 or smallest < 2:
    st.info(
        f"Dataset **{ds.name}** has {fc.plural(len(summary.class_counts), 'class')} and its smallest class "
        f"{fc.plural(smallest, 'sample')}: the protocol's cross-validation needs at least two classes of two "
        "samples or more. Choose another target, or leave out the tiny classes on the Data page."
    )
    st.stop()
methods = [m for m in fc.selection_methods() if m not in ("grm", "group-saola")]  # no base/groups Run
m_feat = summary.n_features
declared = fc.method("benchmark").params  # the survey's defaults: ks 5, 10, ..., 300; 10 folds; ...
ks0 = declared["ks"].default
#: the page stops at k = 50 by default (the survey's 300 takes minutes on the larger data sets)
APP_TOP = 50

with st.form("bench"):
    c1, c2 = st.columns(2)
    chosen = c1.multiselect(
        "methods",
        methods,
        default=["fisher", "mrmr", "laplacian", "variance"],
        format_func=lambda n: (
            f"{fc.method(n).label} ({'supervised' if fc.method(n).supervised else 'unsup.'})"
        ),
        key="bench_methods",
    )
    clfs = c2.multiselect(
        declared["classifiers"].label,
        list(declared["classifiers"].options),
        default=list(declared["classifiers"].default),
        key="bench_clfs",
    )
    c3, c4, c5, c6 = st.columns([2, 1, 1, 1])
    top = min(ks0[-1], m_feat)
    if top > 1:  # a slider needs two ends; one feature leaves k = 1
        lo, hi = c3.slider("k from … to", 1, top, (min(ks0[0], top), min(APP_TOP, top)), key="bench_range")
    else:
        lo = hi = 1
        c3.caption("k = 1: the data have one feature")
    step = c4.number_input("k step", 1, max(top, 1), min(ks0[1] - ks0[0], top), key="bench_step")
    cv = appkit.param_options(c5, "benchmark", "cv", key="bench_cv", keep=lambda c: c <= smallest)
    reps = appkit.param_options(c6, "benchmark", "n_repeats_kmeans", key="bench_reps")
    once = st.checkbox(
        "select once on all samples (the survey's variant; optimistic)", key="bench_once", value=False
    )
    c7, c8 = st.columns(2)
    stable = c7.checkbox(
        "also the stability of the fold selections (Kuncheva, per feature and by groups)",
        key="bench_stability",
        help=fc.HELP["group_stability"],
    )
    tau = appkit.param_slider(
        c8, "gdm", "tau", key="bench_tau", value=fc.method("gdm").params["tau"].default
    )  # by groups: |ρ| ≥ 1 − τ
    # covariates: adjusted for inside each training fold (supervised methods, selection in each fold)
    covariates = appkit.adjust_for(ds, "bench_cov", "adjust for (sample annotations; fitted in each fold)")
    clicked = st.form_submit_button("Run benchmark", type="primary")
st.caption(
    "Supervised methods: stratified folds; each method selects on the training part, every classifier is "
    "trained on its top k and scored on the test part (one selection per fold serves every k). "
    "Unsupervised methods: selection on all samples, then K-means with the true number of classes, "
    "repeated; NMI and clustering accuracy. Li et al., Feature Selection: A Data Perspective, section 6.4."
)

ks = tuple(range(int(lo), int(hi) + 1, int(step)))
params = {"methods": tuple(chosen), "ks": ks, "classifiers": tuple(clfs), "cv": int(cv)}
params |= {"n_repeats_kmeans": int(reps), "select_in_fold": not once}
params |= {"stability_tau": float(tau)} if stable and not once else {}
params |= {"covariates": covariates} if covariates else {}
run = Run("benchmark", params, appkit.seed())
res = None
if clicked or appkit.shown("benchmark", ds) is not None:
    res = appkit.page_result(
        "benchmark",
        ds,
        run,
        clicked,
        f"Benchmarking {fc.plural(len(chosen), 'method')}",
        progress=True,
        button="Run benchmark",
    )
if res is None:
    st.info("Choose methods and press **Run benchmark**.")
    st.stop()

for note in res.notes:
    st.caption(note)
table = fc.benchmark_summary(res.table)
st.caption(f"{res.seconds:.1f} s; seed {res.run.seed}; {res.run.get('cv')} folds")
if (table["kind"] == "classification").any():
    st.plotly_chart(accuracy_curves(table), key="bench_acc")
if (table["kind"] == "clustering").any():
    st.plotly_chart(clustering_curves(table), key="bench_clu")
st.subheader("Mean over folds / repeats")
st.dataframe(table, hide_index=True, width="stretch", height=320)
st.download_button(
    "Benchmark CSV (one row per method, k, classifier, fold or repeat)",
    fc.benchmark_csv(res.table),
    file_name=f"{ds.name}_benchmark.csv".replace(" ", "_"),
    mime="text/csv",
    key="bench_dl",
    on_click="ignore",
)
