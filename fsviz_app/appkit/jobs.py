"""Runs that take a while: computed in a worker thread, shown with progress and a Cancel button.

A page asks :func:`appkit.result` for a run's result; when it is not stored, the run becomes a
:class:`Job` of this session: a thread executes it (``Run.execute`` with a progress callback
and, for heavy runs, the app's Dask client), and the script thread draws a status box with
the run's progress, the time it has taken, and **Cancel**. The script thread only polls, so a
click anywhere reruns the page at once (Streamlit interrupts the script at its next element
update), and a rerun that asks for the same run finds the job and keeps waiting for it
instead of starting another.

Cancel stops the job where it stands: the progress callback raises :class:`Cancelled` at the
next step the run reports, and the thread gets the same exception asynchronously
(``PyThreadState_SetAsyncExc``) for the steps that report none, so it ends at its next Python
instruction (a long numba or BLAS call finishes first). On a Dask cluster the library's own
``finally`` blocks release the run's futures, which cancels its tasks that have not started.
Nothing of a cancelled run is stored, and the session stays usable: the page says the run
was cancelled and asks for Run again (a page that computes small data on its own does not
restart a run its user cancelled; see :func:`was_cancelled`).

Jobs belong to one session (``st.session_state``); two sessions asking for the same run each
compute it, and the result store then holds it once.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

#: a job that takes longer than this draws its status box (a quicker one would only flash it)
SHOW_AFTER = 0.25
#: how often the waiting script redraws the progress (and so notices a click: Streamlit
#: stops a script for a rerun when it next sends something)
POLL_SECONDS = 0.25


class Cancelled(BaseException):  # noqa: N818 - a signal, not an error
    """Raised inside a cancelled job's thread (a BaseException: ``except Exception`` in the
    library does not swallow it)."""


_SERIALS = itertools.count()


@dataclass(eq=False)
class Job:
    """One run computing in a worker thread for this session."""

    key: Any  # the ResultKey
    label: str
    started: float = field(default_factory=time.monotonic)
    frac: float | None = None
    text: str = ""
    info: dict = field(default_factory=dict)
    series: dict = field(default_factory=dict)  # a stream's arrived -> selected
    result: Any = None
    error: BaseException | None = None
    state: str = "running"  # running, done, failed, cancelled
    cancel_event: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    finishing: bool = False
    thread: threading.Thread | None = None
    waiters: int = 0  # script threads drawing this job now (one draws the Cancel button)
    ended: float | None = None
    # the Cancel button's key: one job, one button over reruns; a job started again under the
    # same key in the same script run (a failed read, asked for again) draws its own
    serial: int = field(default_factory=lambda: next(_SERIALS))

    # ------------------------------------------------------------------ in the worker thread
    def progress(self, frac: float, text: str = "", **info: Any) -> None:
        """The ``progress`` callback handed to ``Run.execute``: records, or stops a cancelled run."""
        if self.cancel_event.is_set():
            raise Cancelled
        self.frac = min(max(float(frac), 0.0), 1.0)
        self.text = str(text)
        if "selected" in info and "arrived" in info:
            self.series[int(info["arrived"])] = int(info["selected"])

    def _work(self, fn) -> None:
        try:
            try:
                res = fn(self.progress)
            finally:
                with self.lock:
                    self.finishing = True  # from here on, cancel() leaves the thread alone
            self.result, self.state = res, "done"
        except Cancelled:
            self.state = "cancelled"
        except BaseException as e:  # noqa: BLE001 - shown by the page, the session goes on
            if self.cancel_event.is_set():
                self.state = "cancelled"  # e.g. a Dask future cancelled under the run
            else:
                self.error, self.state = e, "failed"
        finally:
            self.ended = time.monotonic()
            self.done.set()

    # ------------------------------------------------------------------ from the script thread
    def cancel(self) -> None:
        """Stop the run (a button's ``on_click``): it ends at its next step; nothing is stored."""
        self.cancel_event.set()
        with self.lock:
            t = self.thread
            if self.finishing or t is None or not t.is_alive() or t.ident is None:
                return
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(t.ident), ctypes.py_object(Cancelled))

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started


def start(key, label: str, fn) -> Job:
    """A new job computing ``fn(progress)`` in a daemon thread."""
    job = Job(key, label)
    job.thread = threading.Thread(target=job._work, args=(fn,), name=f"fsviz-job {label}", daemon=True)
    job.thread.start()
    return job


def _jobs() -> dict:
    return st.session_state.setdefault("_jobs", {})


def _cancelled() -> set:
    return st.session_state.setdefault("_cancelled", set())


def running(key) -> Job | None:
    """This session's job for ``key`` (running, or finished and not yet collected)."""
    return _jobs().get(key)


#: a finished job nobody collected (its page was left) is forgotten after this many seconds
KEEP_SECONDS = 120.0


def submit(key, label: str, fn) -> Job:
    """This session's job for ``key``: the one under way, else a new one."""
    now = time.monotonic()
    for k, j in list(_jobs().items()):  # finished on a page nobody came back to
        if j.ended is not None and now - j.ended > KEEP_SECONDS:
            _jobs().pop(k, None)
    job = _jobs().get(key)
    if job is None:
        job = start(key, label, fn)
        _jobs()[key] = job
        _cancelled().discard(key)
    return job


def collect(job: Job) -> None:
    """Forget a finished job (its result is in the store, or its error shown); a cancelled
    one is remembered (:func:`was_cancelled`) until the run is asked for again by a click."""
    if _jobs().get(job.key) is job:
        del _jobs()[job.key]
    if job.state == "cancelled":
        _cancelled().add(job.key)
    job.error = None  # drop the traceback: it holds the run's frames (and Dask futures)


def was_cancelled(key) -> bool:
    """Whether this session cancelled the run ``key`` (a page then waits for a click)."""
    return key in _cancelled()


def forget_cancel(key) -> None:
    """A click asks for ``key`` again."""
    _cancelled().discard(key)


def cancel_all() -> int:
    """Cancel every job of this session (a dataset switch); returns how many were running."""
    n = 0
    for job in list(_jobs().values()):
        if job.state == "running":
            job.cancel()
            n += 1
    return n


def wait(job: Job, expanded: bool = False, on_cancel=None) -> Job:
    """Draw the job's progress with a Cancel button until it finishes (or the user cancels,
    which reruns the page; ``on_cancel`` is called too, before the rerun). Returns the
    finished job; the status box is gone by then."""
    if job.done.wait(max(0.0, SHOW_AFTER - job.seconds)):
        return job
    with job.lock:  # two parallel fragments may wait for one run: one Cancel button
        first = job.waiters == 0
        job.waiters += 1
    try:
        return _draw_until_done(job, expanded, on_cancel, first)
    finally:
        with job.lock:
            job.waiters -= 1


def _draw_until_done(job: Job, expanded: bool, on_cancel, with_button: bool) -> Job:
    slot = st.empty()
    with slot.container(border=True):
        c1, c2 = st.columns([5, 1], vertical_alignment="center")
        head = c1.empty()
        if with_button and job.cancel_event.is_set():  # stopping: at its next step
            c2.button("Cancelling …", key=f"_cancelling_{job.serial}", disabled=True, width="stretch")
        elif with_button:
            c2.button(
                "Cancel",
                key=f"_cancel_{job.serial}",
                on_click=job.cancel if on_cancel is None else lambda: (job.cancel(), on_cancel()),
                help="Stop this run; nothing of it is kept and the page stays as it was.",
                width="stretch",
            )
        bar = st.progress(0.0) if expanded or job.frac is not None else None
        chart = st.empty() if expanded else None
        drawn, said, shown = 0.0, None, None
        while not job.done.wait(POLL_SECONDS):
            text = f"**{job.label} …** {job.seconds:.1f} s"
            if text != said:  # the browser gets a message when something it shows changes
                head.markdown(text)
                said = text
            if job.frac is not None and (job.frac, job.text) != shown:
                if bar is None:
                    bar = st.progress(0.0)
                bar.progress(job.frac, text=job.text or None)
                shown = (job.frac, job.text)
            if chart is not None and job.series and time.monotonic() - drawn > 0.3:
                import pandas as pd

                drawn = time.monotonic()
                series = pd.Series(dict(job.series), name="selected features")
                chart.line_chart(series, x_label="features arrived", height=180)
    slot.empty()
    return job
