"""The cut of a ranking on the Compare and export page: a rule with an error rate or a spread
(docs/significance.md) chosen by a control, computed through the result store, drawn and exported."""

from __future__ import annotations

import warnings

import streamlit as st

import fsviz.compute as fc
from fsviz.viz import ranking_cut
from fsviz_app.appkit.results import result

#: the rules a selection can be cut by, as the control names them ("top k" for a ranking of every
#: feature, "own" for a method that decides its selection itself: GDM, SAOLA, knockoffs, ...)
RULES = {
    "top k": "top k (a number you choose)",
    "own": "the method's own selection",
    "fdr": "FDR: permutation q-values (BH)",
    "cv-1se": "one-SE k of the CV curve",
    "stability": "stability selection (PFER bound)",
}


def rules_for(ds, run: fc.Run) -> list[str]:
    """The rules that apply to ``run`` on ``ds``: the FDR cut needs a supervised score, the one-SE
    rule class labels (its CV accuracy), stability selection a target for supervised methods."""
    out = ["top k" if run.spec.kind in ("score", "grm") else "own"]
    if run.spec.kind == "score" and run.spec.supervised and ds.y is not None:
        out.append("fdr")
    if ds.target_kind == "classes":
        out.append("cv-1se")
    if ds.y is not None or not run.spec.supervised:
        out.append("stability")
    return out


def adjust_for(ds, key: str, label: str = "adjust for (sample annotations)") -> tuple[str, ...] | None:
    """The "adjust for" control over the sample annotations (none: no control, None), starting at
    the covariates the import plan marked (``ds.meta["covariates"]``, fc.default_covariates)."""
    annotations = sorted((getattr(ds, "meta", None) or {}).get("sample_annotations") or {})
    if not annotations:
        return None
    marked = [c for c in fc.default_covariates(ds) or () if c in annotations]
    chosen = st.multiselect(
        label,
        annotations,
        default=marked,
        key=key,
        help="Features (and a continuous target) are residualised on these, inside each training fold "
        "or half where the rule refits (docs/significance.md); the import plan's covariates are chosen "
        "to start with.",
    )
    return tuple(chosen) or None


def cut_title(sel: fc.Selection, cut: fc.Selection | None) -> str:
    """A chart title naming the method, and the rule when a rule cut the selection
    (``"Fisher score, fdr:0.05"``)."""
    if cut is None or not cut.rule:
        return sel.method
    return f"{sel.method}, {cut.rule.split(' (')[0]}"


def cut_control(ds, run: fc.Run, key: str) -> fc.Selection | None:
    """The rule control and, for a rule, the selection it keeps (drawn with its cut, the rule named);
    None for top k or the method's own selection, or while the rule's numbers are not computed
    (they are on the button)."""
    what = "ranking" if run.spec.kind in ("score", "grm") else "selection"
    choice = st.radio(
        f"cut the {what} by", rules_for(ds, run), format_func=RULES.get, horizontal=True, key=f"{key}_rule"
    )
    if choice in ("top k", "own"):
        return None
    if choice == "fdr":
        level = st.number_input("FDR level q", 0.001, 1.0, 0.05, 0.01, format="%.3f", key=f"{key}_q")
        cut = fc.Cut("fdr", float(level))
    elif choice == "stability":
        level = st.number_input("selection-probability threshold", 0.55, 1.0, 0.8, 0.05, key=f"{key}_pi")
        cut = fc.Cut("stability", float(level))
    else:
        cut = fc.Cut("cv-1se")
    if run.spec.selects and (getattr(ds, "meta", None) or {}).get("sample_annotations"):
        run = run.replace(covariates=adjust_for(ds, f"{key}_cov"))  # the rule sees adjusted features
    try:
        numbers = fc.cut_run(run, cut)
    except ValueError as e:
        st.error(str(e))
        return None
    clicked = st.button(f"Compute {numbers.spec.label}", key=f"{key}_go")
    res = result(ds, numbers, auto=clicked, clicked=clicked, progress=True)
    if res is None:
        st.caption(f"{numbers.label}: not computed yet; it refits the method (press the button).")
        return None
    if cut.rule == "cv-1se":
        base = result(ds, run, auto=True)
        if base is None:
            return None
        sel = fc.cut_selection(run, cut, ds, results=lambda r: res if r == numbers else base)
        ranked = base.selection(None)  # the method's own order: the one-SE k cuts its first k
        values, value, order = ranked.scores, "score", ranked.indices
    else:
        with warnings.catch_warnings(record=True) as caught:  # the permutations' resolution, in words
            warnings.simplefilter("always")
            sel = res.selection(cut.level)
        for w in caught:
            st.warning(str(w.message), icon="⚠️")
        values, value = (
            (res.evidence, "-log10 q") if cut.rule == "fdr" else (res.probabilities, "selection probability")
        )
        order = None
    st.plotly_chart(
        ranking_cut(
            values,
            sel.n_features,
            cut.text if cut.rule != "cv-1se" else f"cv-1se: k = {sel.n_features}",
            ds.feature_labels,
            qvalues=res.qvalues if cut.rule == "fdr" else None,
            value=value,
            order=order,
        ),
        key=f"{key}_chart",
    )
    st.caption(sel.rule)
    return sel
