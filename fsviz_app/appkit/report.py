"""The sidebar's report: one self-contained HTML file of the runs kept in this session, built as
a job of the session (progress, time taken, Cancel) and then downloaded.

"Build report" starts :func:`fsviz.report.build_report` in a worker thread (:mod:`appkit.jobs`).
Nothing waits for it: a small fragment nested in the sidebar's panel redraws the job's status
every :data:`POLL_SECONDS` (part being built, time taken, Cancel) and ends, so the page and its
own fragments stay usable while the report builds. When the job ends, the app reruns once: the
panel then offers "Download report (HTML)" with the finished bytes, says the report was not
built (Cancel), or shows the error.

The finished report is kept in the session with what it was built from (:class:`ReportState`:
the dataset's fingerprint, the runs in it, k): downloading it again does not build it again; when
the dataset, the runs or k change, the panel says the report is out of date and offers to build
it again.
"""

from __future__ import annotations

import re
import time
import traceback
from dataclasses import dataclass, field

import streamlit as st

import fsviz.compute as fc
import fsviz.report
from fsviz.compute import Run
from fsviz_app.appkit import jobs
from fsviz_app.appkit.state import ResultKey, per_dataset, result_store
from fsviz_app.appkit.widgets import param_number

#: how often the status of a report being built is redrawn (a fragment's ``run_every``)
POLL_SECONDS = 0.5
#: a build that ends this soon after its click is shown done at once (no status box flashes)
QUICK_SECONDS = 0.5

_JOB, _BUILT, _NOTE, _ASKED = "_report_job", "_report_built", "_report_note", "_report_asked"


@dataclass(frozen=True)
class ReportState:
    """What a report is built from: the dataset's fingerprint, the keys of the runs in it (in the
    session file's order) and the top-k."""

    fingerprint: str
    runs: tuple[str, ...]
    k: int


@dataclass(frozen=True)
class BuiltReport:
    """A finished report of this session: its bytes and what it was built from."""

    state: ReportState
    data: bytes = field(repr=False)
    file_name: str
    dataset: str
    seconds: float


@dataclass(frozen=True)
class _Note:
    """Why a build of ``state`` left no report: cancelled (``info``) or failed (``error``, with
    the traceback as text: the exception itself holds the build's frames)."""

    state: ReportState
    kind: str
    text: str
    details: str = ""


def report_download(ds) -> None:
    """Sidebar: the "Report" expander, on every page: the runs in the report (all, or those
    chosen), its top-k, "Build report" and then "Download report (HTML)".

    The runs are read from the session's ``shown`` and ``selections`` in the order of the
    session file, so ``fsviz report DATA --runs <that file>`` writes the same document apart from
    the date; results come from the store (computed and stored when missing).
    """
    # open while a report is building or built: the rerun that ends a build redraws the sidebar,
    # and a browser may draw it afresh, which would fold the panel away from its outcome
    busy = any(k in st.session_state for k in (_JOB, _BUILT, _NOTE))
    with st.expander("Report", expanded=busy):
        _panel(ds)


def _kept(ds) -> list[Run]:
    """The runs of this session a report can hold, in the session file's order."""
    shown, sels = per_dataset("shown", ds), per_dataset("selections", ds)
    doc = {  # the order of the session file: ``fsviz report --runs`` draws the same document
        "shown": {slot: run.to_dict() for slot, run in list(shown.items())},
        "selections": [{"run": run.to_dict(), "k": k} for run, k in list(sels)],
    }
    return [
        r for r in fsviz.report.session_runs(doc) if r.spec.selects or r.method in fsviz.report.REPORT_VIEWS
    ]


def _ask() -> None:
    st.session_state[_ASKED] = True


@st.fragment  # its widgets and the build's click rerun this panel, not the page
def _panel(ds) -> None:
    runs = {r.key: r for r in _kept(ds)}
    chosen = []
    if runs:
        chosen = st.multiselect(
            "Runs in the report",
            list(runs),
            format_func=lambda key: f"{runs[key].label}, seed {runs[key].seed}",
            key="report_runs",
            placeholder="all runs",
            help="None chosen: every run kept in this session when the report is built.",
        )
    k = param_number(st, "evaluation", "k", key="report_k", label="Top-k rows and features evaluated")
    picked = [r for key, r in runs.items() if key in set(chosen)] if chosen else list(runs.values())
    state = ReportState(ds.fingerprint, tuple(r.key for r in picked), int(k))
    just_asked = st.session_state.pop(_ASKED, False)
    if just_asked and picked:
        _start(ds, picked, state)
    job = _job()
    if job is not None and not job.done.wait(QUICK_SECONDS if just_asked else 0.0):
        _watch()  # a timer redraws the status until the job ends; the page goes on meanwhile
        return
    if job is not None:
        _finish(job)
    _offer(state, bool(picked))


def _start(ds, picked: list[Run], state: ReportState) -> None:
    """Start building the report of ``picked`` as a job of this session."""
    store = result_store()  # here, in the script thread: the job's thread has no Streamlit context

    def results(run: Run):
        key = ResultKey(ds.fingerprint, run.key)
        hit = store.get(key)
        if hit is None:
            hit = run.execute(ds, results=results)
            store.put(key, hit)
        return hit

    name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{ds.name}_fsviz-report").strip("-_")[:150] + ".html"

    def build(progress) -> BuiltReport:
        t0 = time.monotonic()
        doc = fsviz.report.build_report(ds, picked, k=state.k, results=results, progress=progress)
        return BuiltReport(state, doc.encode("utf-8"), name, str(ds.name), time.monotonic() - t0)

    jobs.forget_cancel(state)
    st.session_state.pop(_NOTE, None)
    st.session_state[_JOB] = state  # the job's key: a ReportState is no other job's key
    jobs.submit(state, "Building the report", build)


def _job():
    key = st.session_state.get(_JOB)
    return None if key is None else jobs.running(key)


@st.fragment(run_every=POLL_SECONDS)
def _watch() -> None:
    """The status of the report being built: redrawn on a timer, never waited for. When the job
    has ended, one rerun of the app draws the panel with its outcome (and drops this timer)."""
    job = _job()
    if job is None or job.done.is_set():
        st.rerun()
    with st.container(border=True):
        st.markdown(f"**{job.label} …** {job.seconds:.1f} s")
        if job.frac is not None:
            st.progress(job.frac, text=job.text or None)
        if job.cancel_event.is_set():
            st.button("Cancelling …", key=f"_cancelling_{job.serial}", disabled=True, width="stretch")
        else:
            st.button(
                "Cancel",
                key=f"_cancel_{job.serial}",
                on_click=job.cancel,
                help="Stop building the report; nothing of it is kept.",
                width="stretch",
            )


def _finish(job) -> None:
    """Keep the outcome of an ended job: the report, or the note that says why there is none."""
    error, state = job.error, job.key  # the job's key is the state it builds
    jobs.collect(job)
    jobs.forget_cancel(job.key)  # Build starts it afresh
    st.session_state.pop(_JOB, None)
    if job.state == "done":
        st.session_state[_BUILT] = job.result
        st.session_state.pop(_NOTE, None)
    elif job.state == "cancelled":
        text = "The report was not built: cancelled. Build it again when you want it."
        st.session_state[_NOTE] = _Note(state, "info", text)
    else:
        if isinstance(error, ValueError):
            text = str(error)
        else:
            text = f"Building the report failed with an internal error ({type(error).__name__}: {error}). "
            text += "Please report it."
        st.session_state[_NOTE] = _Note(state, "error", text, "".join(traceback.format_exception(error)))


def _offer(state: ReportState, any_runs: bool) -> None:
    """The report built for ``state`` to download, else "Build report" (saying why a report built
    earlier is out of date)."""
    note = st.session_state.get(_NOTE)
    if note is not None and note.state == state:  # said until the dataset, runs or k change
        if note.kind == "info":
            st.info(note.text, icon="✋")
        else:
            st.error(note.text)
            with st.expander("Details"):
                st.code(note.details, language=None)
    built = st.session_state.get(_BUILT)
    if built is not None and built.state == state:
        st.caption(f"Built in {built.seconds:.1f} s: {fc.plural(len(state.runs), 'run')}, top {state.k}.")
        data = built.data
        st.download_button(
            "Download report (HTML)",
            lambda: data,  # the finished bytes: downloading again builds nothing
            file_name=built.file_name,
            mime="text/html",
            on_click="ignore",
            key="report_dl",
            help="One self-contained HTML file of the runs kept in this session (or those chosen): dataset, "
            "provenance, every run's figures (interactive), top-k tables, CV quality, and how to reproduce "
            "it. Works offline; prints to PDF on A4.",
        )
        return
    if built is not None:
        st.warning(f"The report built earlier is out of date: {_changed(built, state)}.", icon="⚠️")
    st.button(
        "Build report",
        key="report_build",
        on_click=_ask,
        disabled=not any_runs,
        width="stretch",
        help="Builds the HTML report of the runs kept in this session (or those chosen), with progress "
        "and Cancel; the page stays usable meanwhile. Then download it."
        if any_runs
        else "No run is kept in this session yet: run a page first.",
    )


def _changed(built: BuiltReport, state: ReportState) -> str:
    if built.state.fingerprint != state.fingerprint:
        return f"it was built for another dataset ({built.dataset})"
    if built.state.runs != state.runs:
        return "the runs in it changed since"
    return f"it was built with top {built.state.k}"
