"""Shared widgets: parameters drawn from declarations, form defaults, target notes, spinner, errors."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

import fsviz.compute as fc
from fsviz._params import Param
from fsviz.compute import Run
from fsviz_app.appkit.state import seed, shown


@contextmanager
def busy(text: str):
    """A spinner in the main area (app.py keeps a slot above the page) while ``text`` runs."""
    slot = st.session_state.get("_busy_slot")
    if slot is None:
        yield
        return
    with slot.container(), st.spinner(text):
        yield
    slot.empty()


def show_error(e: Exception, what: str) -> None:
    """``st.error`` with the message, and the details (type, traceback) in an expander.

    A ValueError is the library's own message (problem and fix); anything else is a bug,
    said so, with the traceback to report.
    """
    import traceback

    if isinstance(e, ValueError):
        st.error(str(e))
    else:
        st.error(f"{what} failed with an internal error ({type(e).__name__}: {e}). Please report it.")
    with st.expander("Details"):
        st.code("".join(traceback.format_exception(e)), language=None)


def _declared(method: str | tuple[str, ...], name: str):
    return fc.shared_param(method, name) if isinstance(method, tuple) else fc.method(method).params[name]


def _start(key: str, p, kw: dict) -> None:
    """A keyed widget without state starts at the declared default (unless the page gives one)."""
    if "value" not in kw and p.default is not None:
        st.session_state.setdefault(key, p.default)


def param_slider(where, method: str | tuple[str, ...], name: str, key: str, label: str | None = None, **kw):
    """A slider drawn from the declaration ``fc.method(method).params[name]``: its label, help,
    step, range (the papers' practical range where declared, never past a valid value: the
    last notch runs) and starting value (the default, when the form has none). A value in the
    form outside that range (a run restored from a session or URL) is brought to the nearest
    end; the caption of the shown result still names it. ``label`` words it for the page.
    Several methods (a tuple of names): one slider whose every value they all accept
    (:func:`fsviz.compute.shared_param`)."""
    p = _declared(method, name)
    lo, hi = p.widget_range()
    _start(key, p, kw)
    current = st.session_state.get(key)
    if isinstance(current, (int, float)) and not lo <= current <= hi:
        st.session_state[key] = min(max(current, lo), hi)
    step = p.step or (1 if p.kind == "int" else None)
    return where.slider(label or p.label, lo, hi, step=step, key=key, help=p.help or None, **kw)


def param_options(where, method: str, name: str, key: str, keep=None, label: str | None = None, **kw):
    """A stepped slider over the declaration's ``options`` (the histogram's 10, 20, 50, 100
    intervals), those ``keep(option)`` accepts (the folds a smallest class allows), starting at
    the default, or the option nearest to it."""
    p = fc.method(method).params[name]
    options = [o for o in p.options if keep is None or keep(o)] or [min(p.options)]
    current = st.session_state.get(key, p.default)
    if current not in options:
        current = min(options, key=lambda o: abs(o - current))
    st.session_state[key] = current  # a select_slider without state starts at its first option
    return where.select_slider(label or p.label, options, key=key, help=p.help or None, **kw)


def param_number(where, method, name: str, key: str, high=None, label: str | None = None, **kw):
    """A number input drawn from the declaration ``fc.method(method).params[name]`` (or the
    :class:`~fsviz._params.Param` ``method`` itself, such as ``fc.SELECTION_SIZE``): label, help,
    step, range (the practical range where declared, else the valid bounds, an open bound moved
    in by the declared step) and starting value (the default, when the form has none); ``high``
    caps the widget (an unbounded parameter, or one bounded by the data)."""
    p = method if isinstance(method, Param) else fc.method(method).params[name]
    low, top = p.bounds
    if p.practical is not None:
        low, top = p.widget_range()
    else:
        iv, step = p.interval, p.step or (1 if p.kind == "int" else 1e-6)
        if low is not None and iv.closed in ("right", "neither"):
            low = low + step
        if top is not None and iv.closed in ("left", "neither"):
            top = top - step
    if high is not None and (top is None or high < top):
        top = high
    cast = int if p.kind == "int" else float
    low = None if low is None else cast(low)
    top = None if top is None else cast(top)
    _start(key, p, kw)
    if top is not None and isinstance(st.session_state.get(key), (int, float)):
        st.session_state[key] = min(st.session_state[key], top)  # a default above the data's cap
    if p.step is not None and "step" not in kw:
        kw["step"] = cast(p.step)
    return where.number_input(label or p.label, low, top, key=key, help=p.help or None, **kw)


def seed_form(prefix: str, values: dict) -> None:
    """Start a form's keyed widgets (keys ``<prefix>_<name>``) from ``values`` when they have
    no state yet: on the first visit, and after a page switch (Streamlit drops the state of
    widgets that were not drawn). The widgets then take no ``value=`` argument."""
    for name, value in values.items():
        st.session_state.setdefault(f"{prefix}_{name}", value)


#: what each page does with each kind of target ("classes", "continuous", None), said on the page
TARGET_NEEDS = {
    "groups": {
        "classes": "Class labels: GDM separates the classes (more than two: all at once, sharing the "
        "kernel weights; or one class vs the rest if you pick one).",
        "continuous": "Continuous target: GDM runs its regression form (squared loss). One-class GDM-OC "
        "needs no target.",
        None: "No target: GDM runs one-class (GDM-OC).",
    },
    "correlation": {
        "classes": "Feature-feature correlations need no target; the explorer below can also correlate "
        "every feature with the class codes.",
        "continuous": "Feature-feature correlations need no target; the explorer below can also correlate "
        "every feature with the continuous target (Pearson or Spearman).",
        None: "Feature-feature correlations need no target.",
    },
    "images": {
        "classes": "Panels show examples and the mean image of each class.",
        "continuous": "Continuous target: panels show examples with their target value and the mean "
        "image of the samples at most / above the median target.",
        None: "No target: panels show examples and the mean image of all samples.",
    },
    "grm": {
        "classes": "Class labels: every base score is offered; quality is CV accuracy.",
        "continuous": "Continuous target: only base scores with a regression form (F-regression, MI, "
        "RReliefF, |Pearson|, |Spearman|) and the unsupervised ones are offered; quality is CV R² and "
        "RMSE of a ridge regression.",
        None: "No target: only unsupervised base scores are offered, and no CV quality.",
    },
    "online": {
        "classes": "Class labels: SU for discrete data, Fisher's Z test for continuous data.",
        "continuous": "Continuous target: Fisher's Z test of each feature's correlation with the target "
        "(SAOLA paper, section 3.4.2); the discrete (SU) mode needs class labels.",
        None: "",
    },
    "compare": {
        "classes": "CV accuracy: stratified 5-fold (fewer if a class is smaller), linear SVM; each method is "
        "refitted with the same parameters on every training fold, so the test fold never picks the "
        "features (no selection bias).",
        "continuous": "Continuous target — CV R² and RMSE: shuffled 5-fold, ridge regression on standardised "
        "features; each method is refitted with the same parameters on every training fold (no selection "
        "bias).",
        None: "No target: redundancy only (no CV quality).",
    },
    "projection": {
        "classes": "Samples coloured by class.",
        "continuous": "Samples coloured by the continuous target (one colour scale).",
        None: "No target: samples in one colour.",
    },
    "stability": {
        "classes": "",
        "continuous": "Continuous target: supervised selections are those with a regression form.",
        None: "No target: unsupervised selections only.",
    },
}


def target_note(ds, page: str) -> str:
    """What ``page`` does with this dataset's kind of target (one line; may be empty)."""
    return TARGET_NEEDS[page][ds.target_kind]


def target_kind_label(ds) -> str:
    """``classes (3)``, ``continuous`` or ``none``: the Data page's headline of the target."""
    kind = ds.target_kind
    if kind == "classes":
        return f"classes ({len(ds.class_labels()[0])})"
    return kind or "none"


def class_labels(ds) -> list[str]:
    """The class names of the dataset as strings (empty without class labels)."""
    return ds.class_labels()[0]


def gdm_form_defaults(ds) -> dict:
    """The GDM form's starting values: those of the result shown, else the defaults."""
    p = (shown("gdm", ds) or default_gdm(ds)).kwargs  # the Run holds every declared parameter
    form = {k: p[k] for k in ("tau", "n_per_iter", "max_iter", "C", "corr", "one_class")}
    return form | {"cv_folds": p.get("cv_folds") or 0, "positive": p.get("positive") or GDM_ALL_CLASSES}


GDM_ALL_CLASSES = "all classes (multiclass GDM)"  # the GDM form's choice of no `positive`


def default_gdm(ds) -> Run:
    """GDM's defaults for this dataset: all classes at once (multiclass GDM, so masks and trees
    describe every class), one-class (GDM-OC) without a target."""
    return Run("gdm", {"one_class": ds.y is None}, seed())


def saola_form_defaults(ds) -> dict:
    """The SAOLA form's starting values: those of the stream shown, else the defaults."""
    run = shown("stream", ds)
    declared = Run("saola", {}).kwargs  # SAOLA's declared defaults (alpha, delta, data, chunk)
    shown_params = run.kwargs if run is not None else {}
    return {k: shown_params.get(k, declared[k]) for k in ("alpha", "delta", "data", "chunk")}


def stream_run(ds, method: str, params: dict, chunk: int, grouping: str) -> Run | None:
    """The streaming Run the online page asks for (None: GDM groups not there yet).

    SAOLA and its baselines (alpha-investing, OSFS, Fast-OSFS, Grafting) take the features
    ``chunk`` at a time; group-SAOLA takes GDM's groups or a random partition.
    """
    if method != "group-saola":
        return Run(method, params | {"chunk": int(chunk)}, seed())
    if grouping == "GDM groups":
        groups = shown("gdm", ds)
        if groups is None:
            return None
    else:
        groups = max(2, ds.n_features // 10)  # the SAOLA paper's random groups of ~10 features
    return Run("group-saola", params | {"groups": groups}, seed())
