"""GRM refinement: re-rank a base score for low global redundancy, optionally with prior groups."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.compute import Run
from fsviz.viz import ranking_bump

st.title("GRM refinement")
ds = appkit.require_dataset()
m = ds.n_features
top, bottom = st.container(), st.container()  # the prior-group editor (bottom) feeds the run (top)
ctl, out = top.columns([1, 3], gap="medium")

with bottom:
    st.subheader("Prior groups: features that should rank together (GRM eq. 25–26)")
    prior = appkit.prior_groups_editor(ds)

appkit.seed_form("grm", appkit.grm_form_defaults(ds))
with ctl.container(border=True):
    bases = fc.methods_for(ds.target_kind, kinds=("score",))  # valid for this kind of target
    method = st.selectbox("base score", bases, key="grm_method", format_func=lambda k: fc.method(k).label)
    n_nb = appkit.param_slider(st, fc.NEIGHBOUR_METHODS, "n_neighbors", key="grm_n_neighbors")  # all four run
    n_top = appkit.param_number(st, "grm", "n_top", key="grm_n_top", high=max(m, 1))  # GRM's declaration
    gamma = appkit.param_slider(st, "grm", "gamma", key="grm_gamma")
    k = appkit.param_slider(st, "evaluation", "k", key="grm_k", label="top-k evaluated")
    clicked = st.button("Run GRM", type="primary", width="stretch")
ctl.caption(
    f"{fc.plural(len(prior), 'prior group')} over {fc.plural(sum(map(len, prior)), 'feature')} (below)."
)
if ds.target_kind != "classes":
    ctl.caption(appkit.target_note(ds, "grm"))

base = Run(method, fc.score_params(method, n_nb), appkit.seed())
params = {"base": base, "n_top": int(n_top), "gamma": float(gamma), "prior_groups": prior}
run = Run("grm", params, appkit.seed())
with out:
    res = appkit.page_result("grm", ds, run, clicked, "Running GRM", button="Run GRM")
if res is None:
    out.info("Choose a base score and press **Run GRM**.")
    st.stop()
shown_groups = res.run.get("prior_groups") or ()
out.caption(
    f"Shown: {res.run.label}; GRM {res.seconds:.2f} s"
    + (f"; prior groups {fc.groups_in_words(shown_groups, ds.feature_labels)}" if shown_groups else "")
)
for warning in appkit.prior_groups_warnings(ds, res):
    out.warning(warning)
k, whole_table = fc.top_k_in_table(k, m)  # a top k of at most the table's features
if whole_table:
    out.info(whole_table)


@st.fragment(parallel=True)  # CV runs in a worker thread: the chart and table below do not wait
def quality(res, k):
    before = appkit.evaluation(ds, res.base_run, k)
    after = appkit.evaluation(ds, res.run, k)
    if before is None or after is None:
        return
    c1, c2 = st.columns(2)
    c1.metric(
        f"redundancy of top {after.k} (mean |ρ|)",
        f"{after.redundancy:.3f}",
        f"{after.redundancy - before.redundancy:+.3f} vs base {before.redundancy:.3f}",
        delta_color="inverse",
    )
    what = after.quality_label  # "CV accuracy", or "CV R²" for a continuous target
    if fc.evaluation_note(after):  # no "nan": the metric says why it is missing
        c2.metric(f"{what} of top {after.k}", "—", help=fc.evaluation_note(after))
        st.info(f"{what}: {fc.evaluation_note(after)}.")
        return
    c2.metric(
        f"{what} of top {after.k} (± fold std)",
        fc.quality_text(after),
        f"{after.quality - before.quality:+.3f} vs base {fc.quality_text(before)}",
        help=appkit.cv_help(after),
    )
    if after.is_regression:
        st.caption(
            f"CV R² with the selection redone in each training fold (no selection bias); CV RMSE "
            f"{after.cv_rmse:.3f} (base {before.cv_rmse:.3f}). "
            "A lower redundancy is worth it only if R² holds."
        )
    else:
        st.caption(
            "CV accuracy with the selection redone in each training fold (no selection bias). "
            "A lower redundancy is worth it only if the accuracy holds."
        )


with out:
    quality(res, k)


@st.fragment
def ranking(res):
    shown = st.slider("features shown in the bump chart", 5, 60, 20, key="grm_shown")
    st.plotly_chart(
        ranking_bump(
            res.base_order, res.refined_order, ds.feature_labels, k=shown, labels=(res.base_method, "GRM")
        ),
        key="bump",
    )


with out:
    ranking(res)
    with st.expander("The cut: how many of the ranked features to keep, and how sure"):
        appkit.cut_control(ds, res.run, key="grm_cut")  # the one-SE k or stability, drawn on the ranking
    appkit.why_not(ds, res.selection(k), "grm")  # rank, stand-in, correlation, reason
top.subheader("Scores and ranks (sortable)")
appkit.grm_table(top, ds, res, prior, k)


@st.fragment(parallel=True)  # CV of both variants in a worker thread, after their rankings are drawn
def prior_quality(plain, res):
    appkit.prior_effect(ds, plain, res, prior, k)


if prior:
    with bottom:
        st.subheader("What the prior groups change")
        plain = appkit.result(ds, res.run.replace(prior_groups=()), "Running GRM without priors")
        if plain is not None:
            prior_quality(plain, res)
            st.plotly_chart(
                ranking_bump(
                    plain.refined_order,
                    res.refined_order,
                    ds.feature_labels,
                    labels=("GRM without priors", f"GRM with priors (gamma={res.run.get('gamma'):g})"),
                ),
                key="bump_priors",
            )
        if st.button("Sweep gamma (0, 0.3, 1, 3, 10)", key="grm_sweep"):
            appkit.gamma_sweep(ds, res.run, prior, k)
