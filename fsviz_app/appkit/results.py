"""Runs through the shared result store (with prefetch); the selections, evaluations and exports of them."""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict

import streamlit as st

import fsviz.compute as fc
from fsviz.compute import Run
from fsviz_app.appkit import jobs
from fsviz_app.appkit.cluster import client_for
from fsviz_app.appkit.memory import ByteLRU
from fsviz_app.appkit.scale import check_fits
from fsviz_app.appkit.state import (
    ResultKey,
    add_selection,
    per_dataset,
    result_store,
    seed,
    show,
    shown,
    small,
)
from fsviz_app.appkit.url import sync_url
from fsviz_app.appkit.warmup import wait_for
from fsviz_app.appkit.widgets import show_error

#: a page reruns as its widgets move when its last result took less than this (live tuning)
LIVE_SECONDS = 1.0
#: after a live step whose run took less than this, the slider's next value either way is
#: computed in the background (:func:`prefetch_neighbours`): an arrow-key step is a cache hit.
#: ``FSVIZ_PREFETCH_SECONDS=0`` turns it off (e.g. to time live steps that compute).
PREFETCH_SECONDS = float(os.environ.get("FSVIZ_PREFETCH_SECONDS", "0.5"))


class _Prefetcher:
    """One background thread per server computing runs a page will likely ask for next.

    Newest requests first, at most :attr:`size` waiting (older ones are dropped); a run
    already stored or waiting is not queued twice. A page about to compute calls
    :meth:`wait` first: the run it asks for leaves the queue, and a prefetch in progress
    (a cheap run, see :data:`PREFETCH_SECONDS`) finishes before the page's own computation
    starts, so the two never compete for the cores and a page asking for the run being
    prefetched takes that result. Failures are dropped: the page computes the run itself
    and shows the error.
    """

    size = 2

    def __init__(self, store: ByteLRU):
        self.store, self.lock, self.wake = store, threading.Lock(), threading.Event()
        self.todo: OrderedDict = OrderedDict()
        self.idle = threading.Event()
        self.idle.set()
        threading.Thread(target=self._loop, name="fsviz-prefetch", daemon=True).start()

    def submit(self, ds, runs: list[Run]) -> None:
        with self.lock:
            for run in reversed(runs):  # the first run ends up first in line
                key = ResultKey(ds.fingerprint, run.key)
                if self.store.get(key) is None:
                    self.todo[key] = (ds, run)
                    self.todo.move_to_end(key, last=False)
            while len(self.todo) > self.size:
                self.todo.popitem(last=True)
        self.wake.set()

    def wait(self, key: ResultKey, timeout: float = 60.0) -> None:
        """Drop ``key`` from the queue and let a prefetch in progress finish."""
        with self.lock:
            self.todo.pop(key, None)
        self.idle.wait(timeout)

    def _dependency(self, ds):
        """Runs the prefetched one depends on: from the store, else computed and stored."""

        def get(run: Run):
            key = ResultKey(ds.fingerprint, run.key)
            hit = self.store.get(key)
            if hit is None:
                hit = run.execute(ds, results=get)
                self.store.put(key, hit)
            return hit

        return get

    def _loop(self) -> None:
        while True:
            self.wake.wait()
            with self.lock:
                if not self.todo:
                    self.wake.clear()
                    continue
                key, (ds, run) = self.todo.popitem(last=False)
                if self.store.get(key) is not None:
                    continue
                self.idle.clear()
            try:
                self.store.put(key, run.execute(ds, None, results=self._dependency(ds)))
            except Exception:  # the page computes the run itself and shows the error
                pass
            finally:
                self.idle.set()


@st.cache_resource(show_spinner=False)
def _prefetcher() -> _Prefetcher:
    return _Prefetcher(result_store())


def prefetch_neighbours(ds, run: Run, res, name: str) -> None:
    """Compute ``run`` with parameter ``name`` one slider step up and down (the step and the
    range of its declaration, as :func:`param_slider` draws it) in the background when its
    result ``res`` took less than :data:`PREFETCH_SECONDS`: the next arrow-key step of a live
    slider is then a cache hit."""
    if res is None or res.run != run or res.seconds >= PREFETCH_SECONDS:
        return
    p = run.spec.params[name]
    lo, hi = p.widget_range()
    value = float(run.get(name))
    near = [round(value + d, 10) for d in (p.step, -p.step) if lo <= round(value + d, 10) <= hi]
    _prefetcher().submit(ds, [run.replace(**{name: v}) for v in near])


def stored(ds, run: Run):
    """The stored result of ``run`` on ``ds``, or None."""
    return result_store().get(ResultKey(ds.fingerprint, run.key))


def _dependency(ds):
    """``results(run)`` for the runs a run depends on: from the store, else computed and stored."""

    def get(run: Run):
        hit = stored(ds, run)
        if hit is None:
            hit = run.execute(ds, results=get)
            result_store().put(ResultKey(ds.fingerprint, run.key), hit)
        return hit

    return get


def result(
    ds,
    run: Run,
    label: str | None = None,
    *,
    auto: bool = True,
    progress: bool = False,
    quiet: bool = False,
    clicked: bool = False,
):
    """The result of ``run`` on ``ds``: from the store, else computed when ``auto``.

    A computation runs as a job of this session (:mod:`appkit.jobs`): its status box shows
    the time taken, the run's progress (a bar and, for streams, the selected-set size when
    ``progress``) and a Cancel button; heavy runs go to the app's Dask cluster when there is
    one (:func:`appkit.cluster.client_for`). A run this session cancelled is not started
    again until ``clicked`` (the page's Run button) or its own "Run again" button.
    ``quiet`` computes in the script thread without the status box: a live-tuning step that
    takes well under a second would only flash it, and drawing and removing it costs the
    browser ~0.1 s. A ValueError of the library shows as ``st.error`` and gives None; the
    session stays usable.
    """
    key = ResultKey(ds.fingerprint, run.key)
    hit = stored(ds, run)
    if hit is None and auto:  # a prefetch in progress first: it may be this very run
        _prefetcher().wait(key)
        hit = stored(ds, run)
    job = jobs.running(key)
    if hit is not None or (not auto and job is None):
        return hit
    label = label or f"Running {run.spec.label}"
    if quiet and job is None:
        try:
            wait_for(run)  # a first run on a fresh install: the background compilation
            check_fits(run, ds)
            res = run.execute(ds, None, results=_dependency(ds))
        except Exception as e:  # every failure becomes a message; the session goes on
            show_error(e, f"{run.label} on {ds.name!r}")
            return None
        result_store().put(key, res)
        return res
    if clicked:
        jobs.forget_cancel(key)
    if job is None and jobs.was_cancelled(key):
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.info(f"{label}: cancelled.", icon="✋")
        if not c2.button("Run again", key=f"_again_{abs(hash(key))}", width="stretch"):
            return None
        jobs.forget_cancel(key)
    if job is None:
        client = client_for(run, ds)

        def compute(report):
            # on a fresh install the kernels may be compiling in the background: wait for them
            # rather than compile them a second time beside it
            wait_for(run, report)
            check_fits(run, ds)  # a memory-mapped matrix over the budget: only out-of-core runs
            res = run.execute(ds, report, results=_dependency(ds), client=client)
            result_store().put(key, res)
            return res

        job = jobs.submit(key, label, compute)
    job = jobs.wait(job, expanded=progress)
    error = job.error
    jobs.collect(job)
    if job.state == "cancelled":
        st.info(f"{label}: cancelled. Nothing of it was kept.", icon="✋")
        return None
    if job.state == "failed":
        show_error(error, f"{run.label} on {ds.name!r}")
        return None
    return job.result


def page_result(
    slot: str,
    ds,
    run: Run,
    clicked: bool,
    label: str | None = None,
    progress: bool = False,
    button: str = "Run",
):
    """A page's main result for the parameters ``run`` asks for.

    Computed when the page's button (its label: ``button``) was clicked, when it is already
    stored, on the first visit of small data, or — live tuning — when the result shown took
    less than :data:`LIVE_SECONDS`. Otherwise the page keeps showing its last result, marked
    stale until the button is pressed.
    """
    prev = shown(slot, ds)
    prev_res = stored(ds, prev) if prev is not None else None
    cheap = prev_res is not None and prev_res.seconds < LIVE_SECONDS
    fresh = prev is None and small(ds)
    live = not clicked and not fresh and run != prev and cheap
    under_way = jobs.running(ResultKey(ds.fingerprint, run.key)) is not None  # e.g. a rerun mid-run
    if clicked or fresh or stored(ds, run) is not None or live or under_way:
        if live:  # the URL names the new run before it computes: the browser takes that
            # message (a re-render of the whole app) while the server computes, not after
            per_dataset("shown", ds)[slot] = run
            sync_url(ds)
            per_dataset("shown", ds)[slot] = prev  # until the result is there
        res = result(ds, run, label, progress=progress, quiet=live, clicked=clicked)
        if res is not None:
            show(ds, slot, run)
            return res
    if prev is None:
        return None
    res = prev_res or result(ds, prev, label, auto=small(ds), progress=progress)
    if res is not None and run != prev:
        took = f"took {res.seconds:.1f} s" if res.seconds >= LIVE_SECONDS else "did not finish"
        st.warning(
            f"Stale: the result below is for {prev.label}. The last run {took}, so new parameters "
            f"apply when you press **{button}**.",
            icon="⏳",
        )
    return res


# ---------------------------------------------------------------------------- selections
def keep_shown(ds) -> int:
    """Keep every selection the pages show now (their rows stay when a slider moves on)."""
    runs = [(run, None) for run in _on_screen(ds) if (run, None) not in per_dataset("selections", ds)]
    for run, k in runs:
        add_selection(ds, run, k)
    return len(runs)


def forget_kept(ds) -> None:
    per_dataset("selections", ds).clear()


def _on_screen(ds) -> list[Run]:
    """The selections the pages show: each page's run, and the base score of the GRM shown."""
    runs = []
    for run in list(per_dataset("shown", ds).values()):
        if run.method == "grm" and isinstance(run.get("base"), Run):
            runs.append(run.get("base"))
        if run.spec.selects:
            runs.append(run)
    return runs


def selections(ds) -> dict[str, fc.Selection]:
    """The selections of this dataset whose result is still stored, label -> Selection: the
    kept ones first, then those on screen (one per page; a run in both lists once)."""
    out: dict[str, fc.Selection] = {}
    seen = set()
    for run, k in [*per_dataset("selections", ds), *((r, None) for r in _on_screen(ds))]:
        if (run, k) in seen:
            continue
        # a result the shared store let go (other sessions' runs): small data computes it again
        res = stored(ds, run) or result(ds, run, f"Recomputing {run.label}", auto=small(ds), quiet=True)
        if res is None:
            continue
        seen.add((run, k))
        sel = res.selection(k)
        out[sel.label] = sel
    return out


def kept_labels(ds) -> set[str]:
    """Labels of the kept selections (the compare table marks them)."""
    return {lab for lab, sel in selections(ds).items() if (sel.run, sel.k) in per_dataset("selections", ds)}


def last_shown(ds) -> Run | None:
    """The selection run a page showed last: the export's default."""
    return per_dataset("recent", ds).get("last")


def export_default(ds, labels: list[str]) -> int:
    """Position in ``labels`` of the selection a page showed last (the export's default)."""
    last = last_shown(ds)
    sels = selections(ds)
    hits = [i for i, lab in enumerate(labels) if last is not None and sels[lab].run == last]
    return hits[-1] if hits else len(labels) - 1


def cv_scheme(ds) -> str:
    """The CV of this dataset's evaluations: ``"auto"`` (stratified 5-fold, fewer when a class is
    smaller) or ``"loo"`` (leave-one-out, the Data page's fix for classes of one sample)."""
    return per_dataset("options", ds).get("cv") or fc.method("evaluation").params["cv"].default


def cv_help(ev: fc.Evaluation) -> str:
    """How an evaluation was cross-validated, for a metric's help."""
    if ev.is_regression:
        how = f"Shuffled {ev.n_folds}-fold, ridge regression on standardised features"
    elif ev.run.get("cv") == "loo":
        how = f"Leave-one-out ({ev.n_folds} folds), linear SVM"
    else:
        how = f"Stratified {ev.n_folds}-fold (fewer if a class is smaller), linear SVM"
    return how + (
        "; the selection is refitted on every training fold, so the test fold never picks the features "
        "(no selection bias)."
        if ev.reselected
        else "; features chosen on all samples (optimistic)."
    )


def evaluation(ds, run: Run, k: int, reselect: bool = True, auto: bool = True) -> fc.Evaluation | None:
    """CV accuracy (R²/RMSE for a continuous target) and redundancy of the top ``k`` of ``run``'s
    selection (see fc.Method 'evaluation')."""
    params = {"of": run, "k": int(k), "reselect": bool(reselect)}
    if cv_scheme(ds) != "auto" and ds.target_kind == "classes":
        params["cv"] = cv_scheme(ds)
    ev = Run("evaluation", params, seed())
    how = "selection redone in each training fold" if reselect else "selection on all samples"
    return result(ds, ev, f"Cross-validating {run.spec.label} ({how})", auto=auto)


def compare_rows(ds, k: int, auto: bool, biased: bool = False, covariates=None) -> list[tuple]:
    """(selection, honest evaluation, evaluation with the selection on all samples or None); with
    ``covariates``, each selection's Run adjusted for them (the evaluation adjusts in each fold)."""
    rows = []
    for sel in selections(ds).values():
        run = sel.run.replace(covariates=covariates) if covariates else sel.run
        honest = evaluation(ds, run, k, auto=auto)
        rows.append((sel, honest, evaluation(ds, run, k, reselect=False, auto=auto) if biased else None))
    return rows


def default_pair(sels: dict) -> tuple[int, int]:
    """Positions of the latest (base score, its GRM refinement) pair of selections, else the first two."""
    labels = list(sels)
    grm_i = [i for i, lab in enumerate(labels) if sels[lab].run.method == "grm"]
    if grm_i:
        j = grm_i[-1]
        base = sels[labels[j]].run.get("base")
        cand = [i for i, lab in enumerate(labels) if sels[lab].run == base]
        return (cand[-1] if cand else 0), j
    return 0, min(1, len(labels) - 1)


def projection(ds, sel: fc.Selection, k: int) -> fc.Projection | None:
    run = Run("projection", {"features": sel.top(k)}, seed())
    return result(ds, run, "Projecting")


def image_panels(ds, n_examples: int, n_means: int = 4) -> fc.ImagePanels | None:
    params = {"shape": ds.image_shape, "n_examples": int(n_examples), "max_means": int(n_means)}
    run = Run("images", params, seed())
    return result(ds, run, "Drawing images")


def file_name(ds, sel: fc.Selection, what: str, ext: str = ".csv") -> str:
    """``digits-0-vs-1_gdm_tau-0.3_selection.csv``: letters, digits, '.', '-' and '_' only."""
    params = fc.params_label(sel.run).replace(", ", "_").replace("=", "-")
    raw = f"{ds.name}_{sel.run.method}_{params}_seed-{sel.run.seed}_{what}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", raw).strip("-_")[:150] + ext


def reduced_csv(ds, sel: fc.Selection, *, raw: bool = False) -> bytes | None:
    """The reduced dataset's CSV (st.error and None when it cannot be written)."""
    try:
        return fc.reduced_csv(ds, sel.indices, raw=raw)
    except ValueError as e:
        st.error(str(e))
        return None
