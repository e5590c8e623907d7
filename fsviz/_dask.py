"""Run a function over feature blocks locally or on a ``dask.distributed`` cluster.

Heavy scans (all-pairs correlation in :mod:`fsviz.stats.correlation`, SAOLA's
relevance pass) cut their work into *feature blocks*, hand each block to a
module-level function, and merge the per-block results exactly (integer counts
add, index lists concatenate). :func:`map_blocks` runs those block functions
either in this process or on a cluster, and always returns the results **in the
order of the blocks**, so the merge never depends on which worker finished first.

GDM (:mod:`fsviz.select.gdm`) does not go through :func:`map_blocks`: its private
``_Scanner`` scatters GDM's own feature blocks to the workers once per ``fit``
and reuses them for every score scan ``X' alpha~`` of the cutting plane and for
the group-completion scan (one task per block, results in block order, as here);
its CRM walks and master problems run locally. Reading Dask arrays
(:mod:`fsviz.data.chunked`) is the other place outside this module that uses Dask.

Typical use in a library function that accepts ``client=None``::

    from fsviz._dask import feature_blocks, map_blocks

    blocks = feature_blocks(X.shape[1], block_size=4096)      # list of slice
    parts = map_blocks(_score_block, blocks, client=client,
                       shared=(X, alpha), kwargs={"tau": 0.3})
    scores = np.concatenate(parts)

    def _score_block(block: slice, X, alpha, *, tau):   # module level: picklable
        return X[:, block].T @ alpha

``shared`` objects (the data matrix, per-feature statistics) are scattered to
the workers once (``broadcast=True``) instead of being pickled into every task.
Without a client nothing touches Dask: the blocks run in a plain loop, so the
local path has no scheduler overhead and does not even import ``distributed``.
Block functions must be defined at module level (not lambdas or closures) so
that workers can unpickle them by reference.

Do not build another scheduler on top of this: one task per block, Dask does
the placement. Choose blocks so that there are a few times more tasks than
workers (:func:`n_tasks_hint`) and each task does at least ~0.1 s of work.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "SCHEDULER_FORMS",
    "SchedulerLostError",
    "as_client",
    "check_scheduler_address",
    "close_quietly",
    "feature_blocks",
    "lost_scheduler",
    "map_blocks",
    "n_tasks_hint",
    "strided_blocks",
]

#: the scheduler addresses fsviz connects to, as its messages name them
SCHEDULER_FORMS = "tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT (e.g. tcp://10.0.0.5:8786)"
#: an optional tcp:// or tls:// scheme, a host name, IPv4 address or bracketed IPv6 address, a port
_ADDRESS = re.compile(
    r"(?:(tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})"
)


class SchedulerLostError(OSError):
    """A run's Dask scheduler went away (killed, restarted, its machine or network gone)."""


def check_scheduler_address(address: Any) -> str:
    """``address`` stripped, if it is a scheduler address fsviz connects to; else ValueError.

    Accepted: ``tcp://HOST:PORT``, ``tls://HOST:PORT`` and ``HOST:PORT`` (TCP), HOST a name, an
    IPv4 address or a bracketed IPv6 one, PORT in 1..65535. Dask's other transports
    (``ucx://``, ``inproc://``, ``ws://``) are refused here with the accepted forms: ``inproc``
    only reaches a scheduler inside the same process, and the others need libraries and
    settings fsviz does not set up.
    """
    text = address.strip() if isinstance(address, str) else ""
    m = _ADDRESS.fullmatch(text)
    if not m or not 1 <= int(m.group(4)) <= 65535:
        scheme = text.partition("://")[0] if "://" in text else ""
        why = (
            f"the scheme {scheme + '://'!r} is not supported"
            if scheme and scheme not in ("tcp", "tls")
            else ("not a scheduler address")
        )
        raise ValueError(
            f"Dask scheduler address {address!r}: {why}. Expected {SCHEDULER_FORMS}: the address "
            "`dask scheduler` prints when it starts."
        )
    return text


def feature_blocks(n_features: int, block_size: int) -> list[slice]:
    """Contiguous blocks ``[slice(0, b), slice(b, 2b), ...]`` covering ``range(n_features)``.

    Parameters
    ----------
    n_features : int
        Number of features (columns) to cover; 0 gives an empty list.
    block_size : int
        Maximum width of a block, at least 1.
    """
    if int(block_size) < 1:
        raise ValueError(f"feature_blocks: 'block_size' must be an int >= 1; got {block_size!r}.")
    b = int(block_size)
    return [slice(s, min(s + b, n_features)) for s in range(0, int(n_features), b)]


def strided_blocks(n_features: int, n_blocks: int) -> list[slice]:
    """``n_blocks`` interleaved blocks ``slice(t, n_features, n_blocks)``.

    Useful when the cost per feature is skewed by position (e.g. sparse data whose
    frequent terms come first): every block gets a fair share of cheap and expensive
    features. Empty blocks are dropped.
    """
    n_blocks = max(1, min(int(n_blocks), int(n_features)))
    return [slice(t, int(n_features), n_blocks) for t in range(n_blocks) if t < n_features]


def n_tasks_hint(client: Any, per_worker: int = 4) -> int:
    """A reasonable number of tasks: ``per_worker`` times the worker threads (1 locally)."""
    if client is None:
        return 1
    try:
        threads = sum(client.nthreads().values())
    except Exception:  # noqa: BLE001 - a client that cannot answer still gets some parallelism
        threads = 2
    return max(1, per_worker * max(1, threads))


def as_client(client_or_address: Any, timeout: str = "10s") -> Any:
    """Return a ``dask.distributed.Client``: pass one through, or connect to an address.

    ``None`` stays ``None`` (run locally). A string such as ``"tcp://10.0.0.5:8786"``
    connects to a running scheduler; an address of another form (:func:`check_scheduler_address`)
    is a ValueError naming the accepted ones, and connection failures are raised as ``OSError``
    naming the address after ``timeout``.
    """
    if client_or_address is None or not isinstance(client_or_address, str):
        return client_or_address
    address = check_scheduler_address(client_or_address)
    try:
        from distributed import Client
    except ImportError as e:  # pragma: no cover - dask is an optional extra
        raise ImportError(
            "a Dask scheduler address was given but dask.distributed is not installed; "
            "install the extra: pip install 'fsviz[scale]'"
        ) from e
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except Exception as e:  # noqa: BLE001 - refused, timed out, a TLS address without certificates
        why = " ".join(str(e).split()) or type(e).__name__
        raise OSError(
            f"could not connect to the Dask scheduler at {address!r}: {why}. "
            "Fix: start it (`dask scheduler`) and check the address, or compute in this process "
            "(no scheduler)."
        ) from e


def _address_of(client: Any) -> str:
    for get in (lambda: client.scheduler.address, lambda: client.scheduler_info()["address"]):
        try:
            return str(get())
        except Exception:  # noqa: BLE001, S112 - a closed client has no scheduler any more
            continue
    return str(getattr(client, "_start_arg", None) or "?")


def lost_scheduler(client: Any, error: BaseException) -> SchedulerLostError | None:
    """The clear error for ``error`` raised by a run on ``client`` when the scheduler went away
    during it (its futures cancelled, its connection closed), else None (another failure)."""
    if client is None or isinstance(error, SchedulerLostError):
        return None
    try:
        from distributed.client import FutureCancelledError
        from distributed.comm.core import CommClosedError
    except ImportError:  # pragma: no cover - a client without distributed cannot exist
        return None
    from concurrent.futures import CancelledError

    status = str(getattr(client, "status", "running"))
    gone = status not in ("running", "newly-created")
    comm = isinstance(error, (CommClosedError, FutureCancelledError, CancelledError, ConnectionError))
    closed = type(error).__name__ == "ClosedClientError"
    if not (gone or comm or closed):
        return None
    if not (gone or closed) and isinstance(error, (FutureCancelledError, CancelledError)):
        return None  # the scheduler is there: a cancel of the caller's own
    address = _address_of(client)
    return SchedulerLostError(
        f"the Dask scheduler at {address} was lost during the run ({type(error).__name__}: "
        f"{' '.join(str(error).split())[:200]}). Fix: start the scheduler again at {address} "
        "(and its workers), or compute in this process (no scheduler) and run again."
    )


def close_quietly(client: Any, timeout: float = 2.0) -> None:
    """Close ``client`` without waiting long or raising: its scheduler may be gone."""
    if client is None:
        return
    try:
        client.close(timeout=timeout)
    except Exception:  # noqa: BLE001, S110 - a client of a dead scheduler: nothing left to close
        pass


def map_blocks(
    func: Callable[..., Any],
    blocks: Sequence[Any],
    *,
    client: Any = None,
    shared: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Any]:
    """Apply ``func(block, *shared, **kwargs)`` to every block; results in block order.

    Parameters
    ----------
    func : callable
        Module-level function ``func(block, *shared, **kwargs)``.
    blocks : sequence
        Block descriptors (slices, index arrays, tuples of slices...), one task each.
    client : dask.distributed.Client or None, default=None
        Run on this cluster; ``None`` runs the blocks in a loop in this process.
    shared : sequence, default=()
        Large read-only arguments common to all blocks. On a cluster they are
        scattered once with ``broadcast=True``; locally they are passed as they are.
    kwargs : dict, default=None
        Small keyword arguments passed to every call.
    progress : callable, default=None
        ``progress(done, total)`` called after each finished block (in completion
        order on a cluster), e.g. to print to stderr or drive a progress bar. An
        exception it raises stops the run; on a cluster the blocks not yet started are
        cancelled.

    Returns
    -------
    list
        ``[func(blocks[0], ...), func(blocks[1], ...), ...]``.
    """
    kwargs = dict(kwargs or {})
    total = len(blocks)
    if client is None:
        out = []
        for k, block in enumerate(blocks):
            out.append(func(block, *shared, **kwargs))
            if progress is not None:
                progress(k + 1, total)
        return out
    from distributed import as_completed

    # scatter([obj]) ships obj as ONE piece (a bare tuple/list/dict would be split up)
    scattered = [client.scatter([obj], broadcast=True, hash=False)[0] for obj in shared]
    futures = [client.submit(func, block, *scattered, pure=False, **kwargs) for block in blocks]
    try:
        if progress is not None:
            for k, _ in enumerate(as_completed(futures, loop=client.loop)):  # client need not be the default
                progress(k + 1, total)
        return client.gather(futures)
    except BaseException:
        # a stopped caller (an exception from progress, a cancel, an interrupt) frees the
        # workers: the tasks that have not started are dropped, a running one finishes alone
        client.cancel(futures)
        raise
    finally:
        for f in futures + scattered:
            f.release()
