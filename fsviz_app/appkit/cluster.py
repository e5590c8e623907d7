"""Heavy runs on a Dask cluster: ``FSVIZ_SCHEDULER``, or a LocalCluster started from the app.

Where a run computes is the sidebar's **Compute** choice (per session):

- **this process** (the default without ``FSVIZ_SCHEDULER``): nothing changes;
- **Dask scheduler** (the default when ``FSVIZ_SCHEDULER`` names one, e.g.
  ``tcp://10.0.0.5:8786``): one client per server process, connected on first use and
  kept alive through a lost scheduler (:class:`SchedulerLink`: meanwhile heavy runs compute in
  this process, with a note in the sidebar, and the link reconnects in the background);
- **local Dask cluster**: a ``LocalCluster`` of this machine, started on first use and shared
  by the sessions of this server (``FSVIZ_DASK_WORKERS`` workers, default 2, one thread each).

Only heavy runs go there (:func:`is_heavy`), through the ``client=`` paths the library
already has: GDM on data of at least :data:`HEAVY_GDM_CELLS` values (its score scans and
group completion, ``GDM.fit(client=)``), the correlation histogram
(``correlation_histogram(client=)``), the survey benchmark (``benchmark(client=)``), the
stability bootstraps (``bootstrap_selections(client=)``) and the CV folds of an evaluation
(``cv_accuracy`` / ``cv_regression(client=)``). The results are those of a local run
(the library merges the per-block results in block order). A cancelled run releases its
futures (:mod:`appkit.jobs`), so the cluster drops its tasks that have not started.
"""

from __future__ import annotations

import os
import threading
import time

import streamlit as st

#: environment variable: the address of a running Dask scheduler
SCHEDULER_ENV = "FSVIZ_SCHEDULER"
#: environment variable: workers of the LocalCluster the app starts when asked (default 2)
WORKERS_ENV = "FSVIZ_DASK_WORKERS"
#: methods that always go to the cluster when there is one
HEAVY_METHODS = frozenset({"histogram", "benchmark", "stability", "evaluation"})
#: GDM goes to the cluster from this many values (n_samples x n_features) on; below it, the
#: scatter of the data costs more than the scans it spreads
HEAVY_GDM_CELLS = 20_000_000

LOCAL = "this process"
SCHEDULER = "Dask scheduler"
LOCAL_CLUSTER = "local Dask cluster"


def scheduler_address() -> str | None:
    """``FSVIZ_SCHEDULER``, or None. An address of an unsupported form is kept as it is: the
    Compute box says what is wrong with it (:func:`client` raises the ValueError)."""
    return os.environ.get(SCHEDULER_ENV, "").strip() or None


def choices() -> list[str]:
    """The Compute choices of this server."""
    return [LOCAL, SCHEDULER, LOCAL_CLUSTER] if scheduler_address() else [LOCAL, LOCAL_CLUSTER]


def is_heavy(run, ds) -> bool:
    """Whether ``run`` on ``ds`` goes to the cluster (when the session chose one)."""
    if run.method in HEAVY_METHODS:
        return True
    return run.method == "gdm" and ds.n_samples * ds.n_features >= HEAVY_GDM_CELLS


class _Held:
    """A client in a box: Streamlit's cache refuses to keep an awaitable (a Dask Client is one)."""

    def __init__(self, client, cluster=None):
        self.client, self.cluster = client, cluster


@st.cache_resource(show_spinner="Starting a local Dask cluster …")
def _local_cluster(n_workers: int) -> _Held:
    """A LocalCluster of worker processes (one thread each), shared by this server's sessions."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    return _Held(Client(cluster, set_as_default=False), cluster)


#: seconds one connection attempt to the scheduler may take (its client's reconnect window too)
CONNECT_SECONDS = 3.0
#: seconds between reconnection attempts after a loss: doubling from the first to the last
RETRY_FIRST_SECONDS = 2.0
RETRY_MAX_SECONDS = 30.0


class SchedulerUnreachable(OSError):
    """The scheduler of ``FSVIZ_SCHEDULER`` is not there now; heavy runs compute in this process."""


class SchedulerLink:
    """The server's connection to one scheduler, which survives the scheduler going away.

    :meth:`client` hands out the client while it runs. A client whose scheduler went away
    (killed, restarted, the network gone: Dask closes it after its reconnect window) is dropped,
    and a new connection is tried in a background thread, again after each failure with a
    doubling wait (:data:`RETRY_FIRST_SECONDS` to :data:`RETRY_MAX_SECONDS`), each try at most
    :data:`CONNECT_SECONDS`. Meanwhile :meth:`client` raises :class:`SchedulerUnreachable` at
    once, so a page render never waits for a dead scheduler and heavy runs compute in this
    process; once a try succeeds the next call returns the new client. Only the very first
    connection is made in the caller's thread (the app's first render with ``FSVIZ_SCHEDULER``).
    """

    def __init__(self, address: str, connect=None, clock=time.monotonic):
        from fsviz._dask import check_scheduler_address

        self.address = check_scheduler_address(address)
        self._connect = connect or self._dask_client
        self._clock = clock
        self._lock = threading.Lock()
        self._first = threading.Lock()  # one first connection at a time
        self._client = None
        self._tried = False
        self._failures = 0
        self._next_try = 0.0
        self._error = ""
        self._thread: threading.Thread | None = None

    def _dask_client(self):
        from fsviz._dask import as_client

        return as_client(self.address, timeout=f"{CONNECT_SECONDS:g}s")

    def _wait(self) -> float:
        return min(RETRY_FIRST_SECONDS * 2 ** max(self._failures - 1, 0), RETRY_MAX_SECONDS)

    def _unreachable(self) -> SchedulerUnreachable:
        due = max(0.0, self._next_try - self._clock())
        when = "retrying now" if due <= 0 or self._thread is not None else f"retrying in {due:.0f} s"
        why = f" ({self._error})" if self._error else ""
        return SchedulerUnreachable(
            f"The Dask scheduler at {self.address} is unreachable{why}: heavy runs compute in "
            f"this process; {when}. Fix: start the scheduler again at {self.address} (and its "
            "workers); the app uses it as soon as it answers."
        )

    def client(self):
        """The running client, or :class:`SchedulerUnreachable` at once (a retry under way)."""
        with self._lock:
            c = self._client
            if c is not None:
                status = str(getattr(c, "status", "closed"))
                if status == "running":
                    return c
                if status == "connecting":  # Dask's own reconnect window: the client may come back
                    self._error = "connection lost, reconnecting"
                    raise self._unreachable()
                self._client = None  # closed by Dask after its reconnect window: a new one is needed
                self._error = "connection lost"
                self._failures, self._next_try = 0, self._clock()
                threading.Thread(target=_close_quietly, args=(c,), daemon=True).start()
            first = not self._tried
        if first:
            return self._connect_first()
        with self._lock:
            if self._client is not None:
                return self._client
            if self._thread is None and self._clock() >= self._next_try:
                self._thread = threading.Thread(target=self._retry, name="fsviz-scheduler-retry", daemon=True)
                self._thread.start()
            raise self._unreachable()

    def _connect_first(self):
        with self._first:
            if self._tried:
                return self.client()
            try:
                c = self._connect()
            except (OSError, ImportError) as e:
                with self._lock:
                    self._tried = True
                    self._failed(e)
                    raise self._unreachable() from e
            with self._lock:
                self._tried, self._client = True, c
            return c

    def _failed(self, error: BaseException) -> None:
        self._failures += 1
        self._next_try = self._clock() + self._wait()
        said = str(error).partition(" Fix:")[0]  # the message's own fix is this link's to say
        self._error = " ".join(said.split())[:300] or type(error).__name__

    def _retry(self) -> None:
        try:
            c = self._connect()
        except Exception as e:  # noqa: BLE001 - any failure is one more try later
            with self._lock:
                self._failed(e)
                self._thread = None
            return
        with self._lock:
            self._client, self._failures, self._error, self._thread = c, 0, "", None

    def wait(self, timeout: float) -> bool:
        """Wait for a reconnection try under way to end; True when none is left running."""
        t = self._thread
        if t is not None:
            t.join(timeout)
        return self._thread is None


def _close_quietly(c) -> None:
    from fsviz._dask import close_quietly

    close_quietly(c)


#: the links of this server process, by address
_LINKS: dict[str, SchedulerLink] = {}
_LINKS_LOCK = threading.Lock()


def local_workers() -> int:
    raw = os.environ.get(WORKERS_ENV, "2").strip()
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{WORKERS_ENV}={raw!r}: expected a number of workers >= 1.")
    return int(raw)


def _scheduler_link(address: str) -> SchedulerLink:
    """The server's one :class:`SchedulerLink` to ``address`` (shared by its sessions)."""
    with _LINKS_LOCK:
        link = _LINKS.get(address)
        if link is None:
            link = _LINKS[address] = SchedulerLink(address)
        return link


def client():
    """The Dask client of this session's Compute choice, or None (compute in this process).

    Raises OSError (an unreachable or lost scheduler: heavy runs compute here meanwhile) or
    ValueError (settings: an address of an unsupported form) with the fix; the sidebar shows it.
    """
    choice = st.session_state.get("compute", default_choice())
    if choice == SCHEDULER and scheduler_address():
        return _scheduler_link(scheduler_address()).client()
    if choice == LOCAL_CLUSTER:
        return _local_cluster(local_workers()).client
    return None


def default_choice() -> str:
    return SCHEDULER if scheduler_address() else LOCAL


def client_for(run, ds):
    """The client a run of this session uses: the cluster for heavy runs, else None."""
    if not is_heavy(run, ds):
        return None
    try:
        return client()
    except (OSError, ValueError, ImportError):
        return None  # the sidebar says why; the run computes here


def _where(c) -> str:
    """The Compute box's caption of a running client; SchedulerUnreachable if it just went away."""
    try:
        workers = c.scheduler_info().get("workers", {})
        address = c.scheduler.address
    except Exception as e:  # noqa: BLE001 - closed between the check and the question
        raise SchedulerUnreachable(
            f"The Dask scheduler at {scheduler_address() or 'the cluster'} stopped answering: heavy "
            "runs compute in this process; retrying."
        ) from e
    threads = sum(w.get("nthreads", 0) for w in workers.values())
    return f"{len(workers)} workers, {threads} threads at {address}; dashboard {c.dashboard_link}"


def compute_sidebar() -> None:
    """The sidebar's Compute expander: where heavy runs go, and the cluster's workers.

    A scheduler that cannot be reached (never started, lost, an address of an unsupported form)
    is said under the expander, where it shows without opening it; the page renders on, and
    heavy runs compute in this process until the scheduler answers again."""
    st.session_state.setdefault("compute", default_choice())
    box = st.expander("Compute", expanded=False)
    with box:
        st.radio(
            "Heavy runs compute in",
            choices(),
            key="compute",
            help="Heavy runs: GDM on large data, the correlation histogram, the survey benchmark, "
            "stability bootstraps and CV folds. Results are the same wherever they compute.",
        )
    if st.session_state["compute"] == LOCAL:
        return
    try:
        caption = _where(client())
    except SchedulerUnreachable as e:
        st.warning(str(e), icon="🔌")
        return
    except (OSError, ValueError, ImportError) as e:
        st.error(f"{e} Heavy runs compute in this process meanwhile.")
        return
    box.caption(caption)
