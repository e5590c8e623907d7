"""Stability: a selection redone on bootstrap resamples — how often each feature and GDM group returns."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.compute import Run
from fsviz.viz import stability_bars

st.title("Stability (bootstrap)")
ds = appkit.require_dataset()
sels = appkit.selections(ds)
if not sels:
    st.info("No selection computed for this dataset yet: run GDM, GRM, a score or SAOLA first.")
    st.stop()

if appkit.target_note(ds, "stability"):
    st.caption(appkit.target_note(ds, "stability"))
ctl, out = st.columns([1, 3], gap="medium")
with ctl.container(border=True):
    label = st.selectbox("selection", list(sels), key="stab_sel")
    of = sels[label].run
    has_k = of.spec.kind in ("score", "grm")
    appkit.seed_form("stab", {"k": fc.TOP_K.default})  # a ranking's top k starts where the pages' does
    k = appkit.param_slider(st, "stability", "k", key="stab_k") if has_k else None
    n_boot = appkit.param_options(st, "stability", "n_boot", key="stab_n")
    # groups of a non-GDM selection: |ρ| ≥ 1 − τ, starting at GDM's τ
    tau = (
        None if of.method == "gdm" else appkit.param_slider(st, "gdm", "tau", key="stab_tau", label="group τ")
    )
    clicked = st.button("Resample", type="primary", width="stretch")
ctl.caption(
    "Each resample draws the samples with replacement and reruns the whole selection with the same "
    "parameters. Kuncheva's index (equal sizes; 0 = chance, 1 = identical) and Jaccard's (mean overlap) "
    "summarise the agreement (the survey's open problem on stability)."
)

run = Run("stability", {"of": of, "k": k, "n_boot": int(n_boot), "tau": tau}, appkit.seed())
with out:
    res = appkit.page_result(
        "stability", ds, run, clicked, f"Resampling {of.spec.label} {n_boot} times", button="Resample"
    )
if res is None:
    out.info("Press **Resample**.")
    st.stop()

m1, m2, m3 = out.columns(3)
m1.metric("Kuncheva index", fc.kuncheva_text(res.kuncheva), help=fc.HELP["Kuncheva"])
m2.metric("Jaccard index", f"{res.jaccard:.3f}")
m3.metric("resamples", len(res.subsets), f"{res.seconds:.1f} s", delta_color="off", delta_arrow="off")
g1, g2, g3 = out.columns(3)  # the same indices counted by groups of interchangeable features
g1.metric("Kuncheva, by groups", fc.kuncheva_text(res.group_kuncheva), help=fc.HELP["group_stability"])
g2.metric("Jaccard, by groups", f"{res.group_jaccard:.3f}", help=fc.HELP["group_stability"])
g3.caption(fc.group_stability_text(res))
out.caption(f"Shown: {res.run.get('of').label}; top {res.run.get('k') or 'all'}; seed {res.run.seed}")
out.plotly_chart(
    stability_bars(
        res.frequency,
        ds.feature_labels,
        k=30,
        kuncheva=res.kuncheva if res.kuncheva == res.kuncheva else None,  # NaN: sizes differ
        jaccard=res.jaccard,
    ),
    key="stab_features",
)
if len(res.group_frequency):
    st.subheader("GDM groups: how often a resample selects any member of the group")
    st.caption(
        "A resample that swaps a support feature for one of its affiliated features still selects its group."
    )
    names = fc.group_names(res.group_support, ds.feature_labels)
    st.plotly_chart(stability_bars(res.group_frequency, names, k=30), key="stab_groups")
with st.expander("Stability selection and the other cuts: how many features to keep, and how sure"):
    st.caption(
        "Complementary halves of the samples instead of bootstraps, and the stable set with Meinshausen "
        "and Bühlmann's bound on the expected false selections (docs/significance.md)."
    )
    appkit.cut_control(ds, of, key="stab_cut")
