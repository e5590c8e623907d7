"""``fsviz app``: start the explorer from the installed package, with no checkout.

It runs ``streamlit run`` on :mod:`fsviz_app.main` (the script ``app.py`` runs in a checkout)
with the explorer's Streamlit settings, :data:`STREAMLIT_OPTIONS` (the same as the checkout's
``.streamlit/config.toml``, which ``streamlit run app.py`` reads), and the environment variables
of docs/app.md: ``--data-dir`` sets ``FSVIZ_DATA_DIR``, ``--scheduler`` ``FSVIZ_SCHEDULER``. The
sample data is written on first use into the user's cache folder
(:func:`fsviz.data.samples.sample_dir`). Streamlit replaces this process (``exec``; a child
process where there is no ``exec``), so nothing here imports it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: the script Streamlit runs: the explorer's navigation and sidebar
MAIN = Path(__file__).resolve().with_name("main.py")

#: the explorer's Streamlit settings (the checkout's .streamlit/config.toml holds the same; a test
#: compares them): uploads up to 1 GiB, no usage statistics, a light theme, and no gc.collect(2)
#: after every script run (about 0.2 s a live slider step would wait for; docs/app.md)
STREAMLIT_OPTIONS = {
    "server.maxUploadSize": 1024,
    "server.maxMessageSize": 400,
    "browser.gatherUsageStats": False,
    "client.toolbarMode": "minimal",
    "theme.base": "light",
    "runner.postScriptGC": False,
}


def streamlit_command(
    *,
    port: int = 8501,
    address: str | None = None,
    data_dir: str | os.PathLike | None = None,
    scheduler: str | None = None,
    environ: dict | None = None,
) -> tuple[list[str], dict]:
    """The command line and environment that serve the explorer (see :func:`serve`)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ValueError(f"fsviz app: '--port' must be an int in [1, 65535]; got {port!r}.")
    env = dict(os.environ if environ is None else environ)
    if data_dir is not None:
        folder = Path(data_dir).expanduser().resolve()
        if not folder.is_dir():
            raise ValueError(f"fsviz app: '--data-dir' must be an existing folder; got {str(data_dir)!r}.")
        env["FSVIZ_DATA_DIR"] = str(folder)
    if scheduler:
        env["FSVIZ_SCHEDULER"] = scheduler
    argv = [sys.executable, "-m", "streamlit", "run", str(MAIN), "--server.port", str(port)]
    argv += ["--server.headless", "true"]
    if address:
        argv += ["--server.address", address]
    for name, value in STREAMLIT_OPTIONS.items():
        argv += [f"--{name}", str(value).lower() if isinstance(value, bool) else str(value)]
    return argv, env


def serve(
    *,
    port: int = 8501,
    address: str | None = None,
    data_dir: str | os.PathLike | None = None,
    scheduler: str | None = None,
) -> int:
    """Serve the explorer until interrupted; returns Streamlit's exit code.

    On POSIX this process becomes Streamlit (``exec``): a service manager's or a shell's SIGTERM
    to ``fsviz app`` stops the server itself. As a child it was left running, orphaned, when only
    the launcher was stopped. Elsewhere Streamlit runs as a child and its exit code is returned."""
    argv, env = streamlit_command(port=port, address=address, data_dir=data_dir, scheduler=scheduler)
    host = address or "localhost"
    print(f"fsviz: serving the explorer on http://{host}:{port} (Ctrl+C stops it)", file=sys.stderr)
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(argv[0], argv, env)  # never returns
    try:
        return subprocess.call(argv, env=env)
    except KeyboardInterrupt:
        return 130
