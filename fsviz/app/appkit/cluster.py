"""Heavy runs on a Dask cluster: ``FSVIZ_SCHEDULER``, or a LocalCluster started from the app.

Where a run computes is the sidebar's **Compute** choice (per session):

- **this process** (the default without ``FSVIZ_SCHEDULER``): nothing changes;
- **Dask scheduler** (the default when ``FSVIZ_SCHEDULER`` names one, e.g.
  ``tcp://10.0.0.5:8786``): one client per server process, connected on first use;
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
    """``FSVIZ_SCHEDULER``, or None."""
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


@st.cache_resource(show_spinner=False)
def _scheduler_client(address: str) -> _Held:
    from fsviz._dask import as_client

    return _Held(as_client(address, timeout="10s"))


@st.cache_resource(show_spinner="Starting a local Dask cluster …")
def _local_cluster(n_workers: int) -> _Held:
    """A LocalCluster of worker processes (one thread each), shared by this server's sessions."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    return _Held(Client(cluster, set_as_default=False), cluster)


def local_workers() -> int:
    raw = os.environ.get(WORKERS_ENV, "2").strip()
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{WORKERS_ENV}={raw!r}: expected a number of workers >= 1.")
    return int(raw)


#: a scheduler that could not be reached is tried again after this many seconds (not on every
#: rerun: each try waits for the connection timeout)
RETRY_SECONDS = 60.0
_unreachable: dict[str, tuple[float, str]] = {}


def _connect(address: str):
    import time

    failed = _unreachable.get(address)
    if failed is not None and time.monotonic() - failed[0] < RETRY_SECONDS:
        raise OSError(failed[1])
    try:
        return _scheduler_client(address).client
    except (OSError, ImportError) as e:
        _unreachable[address] = (time.monotonic(), f"{e} (tried again within {RETRY_SECONDS:.0f} s)")
        raise


def client():
    """The Dask client of this session's Compute choice, or None (compute in this process).

    Raises OSError (connection) or ValueError (settings) with the fix; the sidebar shows it.
    """
    choice = st.session_state.get("compute", default_choice())
    if choice == SCHEDULER and scheduler_address():
        return _connect(scheduler_address())
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


def compute_sidebar() -> None:
    """The sidebar's Compute expander: where heavy runs go, and the cluster's workers."""
    st.session_state.setdefault("compute", default_choice())
    with st.expander("Compute", expanded=False):
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
            c = client()
        except (OSError, ValueError, ImportError) as e:
            st.error(f"{e} Heavy runs compute in this process meanwhile.")
            return
        workers = c.scheduler_info().get("workers", {})
        threads = sum(w.get("nthreads", 0) for w in workers.values())
        where = f"{c.scheduler.address}; dashboard {c.dashboard_link}"
        st.caption(f"{len(workers)} workers, {threads} threads at {where}")
