"""GRM refinement: re-rank a base score for low global redundancy, optionally with prior groups."""
import streamlit as st

import appkit
import fsviz.compute as fc
from fsviz.viz import ranking_bump

st.title("GRM refinement")
ds = appkit.require_dataset()
if not appkit.library_ready("select", "GRM", "LGD", "FisherScore") or not appkit.library_ready(
        "evaluate", "redundancy_rate", "cv_accuracy"):
    st.stop()
m = ds.X.shape[1]

with st.form("grm"):
    c1, c2, c3 = st.columns(3)
    method = c1.selectbox("base score", list(fc.SCORE_METHODS), key="grm_method",
                          format_func=lambda k: fc.SCORE_METHODS[k][1])
    n_nb = c2.slider("neighbourhood size (LGD, Laplacian, ReliefF)", 1, 50, 5, key="grm_nb")
    n_top = c3.number_input("n_top (features GRM re-ranks)", 2, m, min(500, m), key="grm_top")
    c4, c5 = st.columns(2)
    gamma = c4.slider("gamma (weight of the group constraints)", 0.0, 10.0, 1.0, 0.1, key="grm_gamma")
    k = c5.slider("top-k evaluated", 2, 100, 20, key="grm_k")
    run = st.form_submit_button("Run GRM", type="primary")

with st.expander("Group constraints (prior knowledge: features in one group should rank together)"):
    prior = appkit.prior_groups_editor(ds)

res = appkit.grm(ds, method, fc.score_params(method, n_nb), int(n_top), prior, gamma, k, run)
if res is None:
    st.info("Choose a base score and press **Run GRM**.")
    st.stop()
st.caption(f"Shown: GRM on {res.base_method} — {fc.params_label(res.key[2])}; GRM {res.seconds:.2f} s")

before = appkit.evaluation(ds, res.base_order, k)
after = appkit.evaluation(ds, res.refined_order, k)
if before is not None and after is not None:
    c1, c2 = st.columns(2)
    c1.metric(f"redundancy of top {k} (mean |ρ|)", f"{after.redundancy:.3f}",
              f"{after.redundancy - before.redundancy:+.3f} vs base {before.redundancy:.3f}", delta_color="inverse")
    c2.metric(f"CV accuracy of top {k}", f"{after.cv_accuracy:.3f}",
              f"{after.cv_accuracy - before.cv_accuracy:+.3f} vs base {before.cv_accuracy:.3f}")


@st.fragment
def ranking(res):
    shown = st.slider("features shown in the bump chart", 5, 60, 20, key="grm_shown")
    st.plotly_chart(ranking_bump(res.base_order, res.refined_order, ds.feature_names, k=shown,
                                 labels=(res.base_method, "GRM")), key="bump")
    st.subheader("Scores and ranks (sortable)")
    st.dataframe(fc.grm_frame(res, ds.feature_names), hide_index=True, width="stretch", height=320)


ranking(res)
