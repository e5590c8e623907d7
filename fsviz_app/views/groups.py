"""Groups (GDM): support features, their affiliated features, and how few correlations it took."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.viz import group_tree

st.title("Groups (GDM)")
ds = appkit.require_dataset()


@st.fragment  # a tau move reruns this view only, not the sidebar: live tuning stays quick
def groups_view():
    ctl, out = st.columns([1, 3], gap="medium")

    classes = appkit.class_labels(ds)
    appkit.seed_form("gdm", appkit.gdm_form_defaults(ds))  # the form starts from the result shown
    if ds.y is None:
        ctl.info(
            "No target column: GDM runs one-class (GDM-OC). Choose a target in the sidebar for two classes."
        )
    elif ds.target_kind == "continuous":
        ctl.info(appkit.target_note(ds, "groups"))
    with ctl.container(border=True):
        # every widget from GDM's declaration (fc.method("gdm").params): labels, help, bounds, step
        tau = appkit.param_slider(st, "gdm", "tau", key="gdm_tau")
        c1, c2 = st.columns(2)
        n_per_iter = appkit.param_number(c1, "gdm", "n_per_iter", key="gdm_n_per_iter", high=200)
        max_iter = appkit.param_number(c2, "gdm", "max_iter", key="gdm_max_iter", high=100)
        C = appkit.param_number(c1, "gdm", "C", key="gdm_C", high=1e4, format="%.4g")
        ecv_max = fc.method("gdm").params["cv_folds"].widget_range()[1]  # 0 = off, else GDM's declaration
        folds = c2.number_input("ECV folds (0 = off)", 0, ecv_max, key="gdm_cv_folds", help=fc.HELP["ECV"])
        corr = st.radio(
            fc.method("gdm").params["corr"].label,
            fc.method("gdm").params["corr"].choices,
            horizontal=True,
            key="gdm_corr",
            format_func={"pearson": "PCC", "su": "SU (nonlinear)"}.get,
            help=fc.method("gdm").params["corr"].help,
        )
        one_class = st.toggle("one-class (GDM-OC)", key="gdm_one_class", disabled=ds.y is None)
        positive = (
            st.selectbox(
                "one vs rest: positive class, or all classes",
                [appkit.GDM_ALL_CLASSES, *classes],
                key="gdm_positive",
                help="All classes: one GDM selects support features for every class at once; "
                "a class: GDM separates it from the rest",
            )
            if len(classes) > 2
            else None
        )
        if positive == appkit.GDM_ALL_CLASSES:
            positive = None
        clicked = st.button("Run GDM", type="primary", width="stretch")

    form = dict(tau=tau, n_per_iter=n_per_iter, max_iter=max_iter, C=C, corr=corr, one_class=one_class)
    run = fc.gdm_run(form | {"cv_folds": folds, "positive": positive}, appkit.seed())
    with out:
        res = appkit.page_result("gdm", ds, run, clicked, "Running GDM", button="Run GDM")
    if res is None:
        out.info("Set the parameters and press **Run GDM**.")
        return

    m1, m2, m3, m4 = out.columns(4)
    m1.metric("support features (SF)", len(res.support), help=fc.HELP["SF"])
    m2.metric("affiliated features (AF)", len(res.af), help=fc.HELP["AF"])
    m3.metric(
        "correlations computed",
        fc.compact_count(res.n_correlations),
        fc.share_of_pairs(res.n_correlations, res.n_pairs),
        delta_color="off",
        delta_arrow="off",
        help=fc.HELP["correlations"],
    )
    m4.metric(
        "all pairs m(m−1)/2",
        fc.compact_count(res.n_pairs),
        f"GDM fit {res.seconds:.2f} s",
        delta_color="off",
        delta_arrow="off",
        help=f"{res.n_pairs:,} pairs",
    )
    out.caption(f"Shown: {res.run.label}, seed {res.run.seed}")
    if fc.gdm_all_kept_note(res, ds.n_features):
        out.info(fc.gdm_all_kept_note(res, ds.n_features))

    def tree_view(res):
        c1, c2, c3 = st.columns(3)
        kind = c1.radio("layout", ["treemap", "icicle", "sunburst"], horizontal=True, key="tree_kind")
        # Chromium's treemap redraw grows with the tiles (GLIOMA: 202 tiles 2.5x the time
        # of 72): defaults keep a tau move under ~80 tiles; the sliders go to 200 x 100
        max_groups = c2.slider("groups shown", 1, 200, 12, key="tree_groups")
        max_af = c3.slider("affiliated shown per group", 1, 100, 5, key="tree_af")
        st.plotly_chart(
            group_tree(res, ds.feature_labels, max_groups=max_groups, max_affiliated=max_af, kind=kind),
            key="group_tree",
        )
        st.caption(f"Tile colour: {fc.HELP['s_j']}")

    with out:
        tree_view(res)

    def which_group(res):
        # a list of every name above appkit.WIDE_FEATURES would travel to the browser on every
        # rerun: wide data get a name box (the tree draws the largest groups; this finds the rest)
        feature = appkit.feature_picker(ds, "Which group is this feature in?", key="find_feature")
        if feature is None:
            return
        found, text = fc.feature_group_text(res, int(feature), ds.feature_labels)
        (st.success if found else st.info)(text)

    with out:
        which_group(res)
        with st.expander("The cut: how many of GDM's features to keep, and how sure"):
            appkit.cut_control(ds, res.run, key="gdm_cut")  # the one-SE k or stability, drawn and named
        appkit.why_not(ds, res.selection(), "gdm")  # rank, stand-in, correlation, reason
    # on demand: redrawing a table of every group member on each tau move costs ~0.1 s
    if st.toggle("Show the groups table (sortable: group, role, name, score, |ρ| to SF)", key="gdm_table"):
        st.dataframe(fc.groups_frame(res, ds.feature_labels), hide_index=True, width="stretch", height=320)
    appkit.sync_url(ds)
    appkit.prefetch_neighbours(ds, run, res, "tau")  # last: after the deltas


groups_view()
