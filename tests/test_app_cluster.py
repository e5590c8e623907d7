"""A lost Dask scheduler is a state the app recovers from (appkit/cluster.py).

* :class:`appkit.cluster.SchedulerLink` hands out a running client only; a client whose
  scheduler went away is dropped, a page never waits for a dead scheduler (the retries run in
  the background, with a doubling wait) and the new client is used once a retry succeeds.
* Two sessions with ``FSVIZ_SCHEDULER`` keep rendering their pages when the scheduler is killed
  (``kill -9``): the sidebar says heavy runs compute in this process, a heavy run (the
  correlation histogram) computes here, and both use the scheduler again once a new one answers
  at the same address.
* An address of an unsupported form (``ucx://``, ``inproc://``) is an ``st.error`` naming the
  accepted forms, and the app renders on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

from fsviz_app.appkit import cluster

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


# ------------------------------------------------------------------- the link, without Dask
class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _FakeClient:
    def __init__(self, name: str):
        self.name, self.status, self.closed = name, "running", False

    def close(self, timeout=None):
        self.closed, self.status = True, "closed"


class _Connect:
    """Fails while ``up`` is False; each success returns a new client."""

    def __init__(self, up: bool, delay: float = 0.0):
        self.up, self.delay, self.calls, self.made = up, delay, 0, []

    def __call__(self):
        self.calls += 1
        time.sleep(self.delay)
        if not self.up:
            raise OSError("could not connect to the Dask scheduler at 'tcp://10.9.9.9:8786': refused")
        self.made.append(_FakeClient(f"c{len(self.made)}"))
        return self.made[-1]


def _link(connect, clock):
    return cluster.SchedulerLink("tcp://10.9.9.9:8786", connect=connect, clock=clock)


def test_a_lost_client_is_dropped_and_replaced_without_a_render_waiting(monkeypatch):
    monkeypatch.setattr(cluster, "RETRY_FIRST_SECONDS", 2.0)
    clock, connect = _Clock(), _Connect(up=True)
    link = _link(connect, clock)
    first = link.client()
    assert first is connect.made[0] and link.client() is first and connect.calls == 1

    first.status = "connecting"  # Dask's own reconnect window: not used, not dropped
    with pytest.raises(cluster.SchedulerUnreachable, match="heavy runs compute in this process"):
        link.client()
    first.status = "running"
    assert link.client() is first

    first.status = "closed"  # the scheduler is gone; Dask closed the client
    connect.up, connect.delay = False, 0.3
    t = time.perf_counter()
    with pytest.raises(cluster.SchedulerUnreachable) as e:
        link.client()
    assert time.perf_counter() - t < 0.2  # the retry runs in the background
    assert "tcp://10.9.9.9:8786" in str(e.value) and "retrying" in str(e.value)
    assert link.wait(5) and connect.calls == 2
    assert "refused" in str(_raises(link))  # the failure is said

    calls = connect.calls
    for _ in range(5):  # within the wait: no new try, every call answers at once
        _raises(link)
    assert connect.calls == calls
    clock.now += 2.0
    connect.up, connect.delay = True, 0.0
    _raises(link)  # starts the retry, answers before it ends
    assert link.wait(5)
    assert link.client() is connect.made[-1] is not first
    deadline = time.time() + 5
    while not first.closed and time.time() < deadline:
        time.sleep(0.01)
    assert first.closed  # the dead client was closed, off the render's thread


def _raises(link) -> cluster.SchedulerUnreachable:
    with pytest.raises(cluster.SchedulerUnreachable) as e:
        link.client()
    return e.value


def test_retries_wait_longer_after_each_failure_up_to_a_bound(monkeypatch):
    monkeypatch.setattr(cluster, "RETRY_FIRST_SECONDS", 1.0)
    monkeypatch.setattr(cluster, "RETRY_MAX_SECONDS", 5.0)
    clock, connect = _Clock(), _Connect(up=False)
    link = _link(connect, clock)
    _raises(link)  # the first connection, in the caller's thread
    assert connect.calls == 1
    waits = []
    for _ in range(5):
        start = clock.now
        while connect.calls == len(waits) + 1:
            clock.now += 0.5
            _raises(link)
            link.wait(5)
        waits.append(clock.now - start)
    assert waits == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_unsupported_scheduler_schemes_are_a_clear_error():
    for bad in ("ucx://10.0.0.5:8786", "inproc://x", "not an address"):
        with pytest.raises(ValueError, match=r"Expected tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT"):
            cluster.SchedulerLink(bad)


# ------------------------------------------------------------------ the app, a real scheduler
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_scheduler(port: int) -> int:
    """A Dask scheduler in a child process of its own (forked: this process has imported Dask
    already, so it answers in a fraction of a second); its pid, for ``kill -9``."""
    import distributed

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:

            async def serve():
                async with distributed.Scheduler(host="127.0.0.1", port=port, dashboard=False) as s:
                    await s.finished()

            asyncio.run(serve())
        finally:
            os._exit(0)
    deadline = time.time() + 30
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return pid
        time.sleep(0.05)
    _kill(pid)
    raise RuntimeError(f"the Dask scheduler on port {port} did not start")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _sidebar_text(at) -> str:
    parts = [w.value for w in at.sidebar.warning] + [e.value for e in at.sidebar.error]
    parts += [c.value for c in at.sidebar.caption]
    return "\n".join(str(p) for p in parts)


def _until(what, seconds: float):
    deadline = time.time() + seconds
    while True:
        got = what()
        if got or time.time() > deadline:
            return got
        time.sleep(0.1)


@pytest.fixture
def fresh_links():
    yield
    for link in list(cluster._LINKS.values()):
        if link._client is not None:
            threading.Thread(target=cluster._close_quietly, args=(link._client,), daemon=True).start()
    cluster._LINKS.clear()


@pytest.mark.slow  # 15-45 s: two sessions' first renders and the histogram page (the link's logic: above)
def test_two_sessions_render_through_a_killed_scheduler_and_use_it_again(monkeypatch, fresh_links):
    pytest.importorskip("distributed")
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1.0)
    monkeypatch.setattr(cluster, "RETRY_FIRST_SECONDS", 0.2)
    monkeypatch.setattr(cluster, "RETRY_MAX_SECONDS", 0.5)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    pid = _start_scheduler(port)
    monkeypatch.setenv("FSVIZ_SCHEDULER", address)
    try:
        sessions = [AppTest.from_file(APP, default_timeout=120).run() for _ in range(2)]
        for at in sessions:
            assert not at.exception, [e.value for e in at.exception]
            assert at.radio(key="compute").value == cluster.SCHEDULER
            assert f"at {address}" in _sidebar_text(at) and not at.sidebar.warning

        _kill(pid)  # kill -9: no goodbye to the clients

        def lost(at):
            at.run()
            assert not at.exception, [e.value for e in at.exception]
            text = _sidebar_text(at)
            return "unreachable" in text and "heavy runs compute in this process" in text

        for at in sessions:
            assert _until(lambda at=at: lost(at), 10), _sidebar_text(at)
            assert address in at.sidebar.warning[0].value
        t = time.perf_counter()
        sessions[0].run()  # a dead scheduler costs a render nothing
        rerun = time.perf_counter() - t
        at = sessions[1]
        at.switch_page("fsviz_app/views/correlation_sparsity.py").run()  # a heavy run: computed here
        assert not at.exception, [e.value for e in at.exception]
        assert at.get("plotly_chart") and not at.error, [e.value for e in at.error]

        pid = _start_scheduler(port)  # the scheduler comes back at the same address

        def back(at):
            at.run()
            assert not at.exception, [e.value for e in at.exception]
            return not at.sidebar.warning and f"at {address}" in _sidebar_text(at)

        for at in sessions:
            assert _until(lambda at=at: back(at), 15), _sidebar_text(at)
        assert cluster._LINKS[address].client().status == "running"
        assert rerun < 5, f"a render with the scheduler gone took {rerun:.1f} s"
    finally:
        _kill(pid)


@pytest.mark.parametrize("address", ["ucx://10.0.0.5:8786", "inproc://x"])
def test_an_unsupported_scheduler_address_is_a_message_and_the_app_renders(monkeypatch, address, fresh_links):
    monkeypatch.setenv("FSVIZ_SCHEDULER", address)
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(e.value for e in at.sidebar.error)
    assert "tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT" in text and address in text
    assert "Heavy runs compute in this process" in text
