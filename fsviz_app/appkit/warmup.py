"""Warm the server up: compile the numba kernels in the background while the app answers.

The first run of each kernel in a process compiles it (on a fresh install: tens of seconds for
GDM's) or loads it from numba's disk cache (well under a second). Once per server process,
:func:`warm_up` starts ``python -m fsviz.compute.warm --app`` in a process of its own: it
compiles what a first visitor meets first (the leakage check, GDM, the histogram, GRM), printing
``start KEY`` and ``ready KEY`` around each, then every recorded kernel signature. Being another
process, it takes neither the server's GIL nor numba's compiler lock: pages keep answering,
on the second core. When it ends, a thread of the server loads the first-visit kernels from the
cache (a second or two).

A run whose kernels the process is compiling at that moment waits for them (:func:`wait_for`,
in the run's status box, with Cancel) instead of compiling the same kernels a second time beside
it: it waits for what is left of that compilation, never longer; a run the process has not
reached compiles its own kernels, and the process skips them (a claim file next to its lock).
While it compiles, the sidebar says so (:func:`note`). ``FSVIZ_WARMUP=0`` turns all of it off
(the test suite does, for AppTest).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import streamlit as st

#: environment variable: "0" turns the warm-up off
WARMUP_ENV = "FSVIZ_WARMUP"
#: the longest a run waits for the background compilation before compiling on its own
MAX_WAIT_SECONDS = 600.0


class WarmUp:
    """The background compilation of one server process and what it has made ready."""

    def __init__(self, command: list[str] | None = None, load: Callable[[], None] | None = None):
        from fsviz.compute.warm import FIRST_VISIT, claim_path, first_visit, visit_key

        self.load = first_visit if load is None else load
        self.waits_for = {visit_key(method, params) for method, params in FIRST_VISIT}
        self.ready: set[str] = set()
        self.current: str | None = None  # the key the process compiles now
        self.events: list[tuple[float, str]] = []  # (seconds since the start, line): the timeline
        self.changed = threading.Condition()
        self.started = time.monotonic()
        self.compiled_in: float | None = None  # seconds the process took, once it ended
        self.loaded = threading.Event()  # the first-visit kernels are loaded in this process
        self.claims = claim_path()
        self.claims.write_text("")  # this server's visitors have compiled nothing yet
        cmd = command or [sys.executable, "-m", "fsviz.compute.warm", "--app"]
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True
        )
        threading.Thread(target=self._follow, name="fsviz-warm-up", daemon=True).start()

    @property
    def compiling(self) -> bool:
        return self.compiled_in is None

    def _follow(self) -> None:
        for line in self.proc.stdout:
            what, _, key = line.strip().partition(" ")
            with self.changed:
                self.events.append((time.monotonic() - self.started, line.strip()))
                if what == "start":
                    self.current = key
                elif what in ("ready", "skip"):
                    self.ready.add(key)
                    self.current = None if self.current == key else self.current
                self.changed.notify_all()
        self.proc.wait()
        with self.changed:
            self.compiled_in = time.monotonic() - self.started
            self.ready |= self.waits_for | {"all"}  # ended (or failed): nothing left to wait for
            self.current = None
            self.changed.notify_all()
        self.load()  # from the cache now: the first visitor's runs skip even the loading
        self.loaded.set()

    def wait_for(self, key: str, report: Callable[[float, str], None] | None = None) -> float:
        """While the process compiles the kernels of ``key`` (``fsviz.compute.warm.visit_key``),
        wait for them, at most :data:`MAX_WAIT_SECONDS`: what is left of a compilation under way
        is less than a compilation of one's own beside it. A key the process has not started
        is not waited for: the run compiles it, and the process, told so (``claim_path``), skips it.
        ``report(0, text)`` every half second (it may raise to cancel). Returns the seconds waited."""
        t = time.monotonic()
        with self.changed:
            if key in self.waits_for and key != self.current and key not in self.ready:
                with open(self.claims, "a") as f:  # not started: the run compiles it, the process skips it
                    f.write(key + "\n")
            while key == self.current and key not in self.ready:
                waited = time.monotonic() - t
                if waited >= MAX_WAIT_SECONDS:
                    break
                if report is not None:
                    self.changed.release()
                    try:
                        report(
                            0.0,
                            f"Waiting for the numerical kernels being compiled in the background "
                            f"(first start after an install): {waited:.0f} s",
                        )
                    finally:
                        self.changed.acquire()
                self.changed.wait(0.5)
        return time.monotonic() - t


_current: WarmUp | None = None  # the server's, for the job threads (no Streamlit context there)


@st.cache_resource(show_spinner=False)
def warm_up() -> WarmUp | None:
    """Start the background compilation (once per server process); None when switched off."""
    global _current
    if os.environ.get(WARMUP_ENV, "1").strip() == "0":
        return None
    _current = WarmUp()
    return _current


def wait_for(run, report: Callable[[float, str], None] | None = None) -> float:
    """Before ``run`` (a ``fsviz.compute.Run``): wait for the background compilation of its
    kernels, if it is under way (see :class:`WarmUp`). Returns the seconds waited (0 without a
    warm-up, or for a run the warm-up does not compile first)."""
    w = _current
    if w is None:
        return 0.0
    from fsviz.compute.warm import visit_key

    return w.wait_for(visit_key(run.method, dict(run.params)), report)


def note() -> None:
    """A small sidebar note while the kernels compile in the background."""
    w = _current
    if w is None or not w.compiling:
        return
    st.sidebar.caption(
        f"Compiling the numerical kernels in the background (first start after an install, "
        f"{time.monotonic() - w.started:.0f} s so far). A first run may wait for it; "
        "the pages work meanwhile."
    )
