"""One install, every door: the wheel carries the library, the CLI and the app. ``fsviz app``
serves the explorer from the installed package with no checkout (the slow test builds the wheel,
installs it into a fresh virtual environment outside the checkout and drives it)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

import fsviz
from fsviz.cli import main
from fsviz_app.launch import MAIN, STREAMLIT_OPTIONS, streamlit_command

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib")  # Python 3.11+: reads pyproject.toml and the Streamlit config


def test_the_version_has_one_value():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert fsviz.__version__ == project["version"]
    assert f"## {fsviz.__version__} (" in (ROOT / "CHANGELOG.md").read_text()


def test_fsviz_app_settings_are_the_checkouts_streamlit_config():
    """``fsviz app`` passes the settings ``streamlit run app.py`` reads from .streamlit/config.toml."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    flat = {f"{section}.{key}": value for section, values in config.items() for key, value in values.items()}
    assert flat == STREAMLIT_OPTIONS


def test_fsviz_app_command_line_and_environment(tmp_path):
    argv, env = streamlit_command(port=8642, data_dir=tmp_path, scheduler="tcp://h:8786", environ={})
    assert argv[1:5] == ["-m", "streamlit", "run", str(MAIN)]
    assert argv[argv.index("--server.port") + 1] == "8642"
    assert argv[argv.index("--runner.postScriptGC") + 1] == "false"
    assert env == {"FSVIZ_DATA_DIR": str(tmp_path.resolve()), "FSVIZ_SCHEDULER": "tcp://h:8786"}
    assert MAIN.is_file() and MAIN.parent.name == "fsviz_app"
    with pytest.raises(ValueError, match="'--port' must be an int in"):
        streamlit_command(port=0)


def test_fsviz_app_refuses_a_missing_data_folder(tmp_path, capsys):
    assert main(["app", "--data-dir", str(tmp_path / "nope")]) == 1
    assert "'--data-dir' must be an existing folder" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(argv, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600, **kw)
    assert out.returncode == 0, f"{argv}: {out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.mark.slow
def test_the_wheel_installs_the_library_the_cli_and_the_app(tmp_path):
    """``python -m build`` -> a fresh venv outside the checkout -> ``fsviz select`` on a bundled
    sample, ``fsviz app`` until its health check answers, and the Data page rendering the sample,
    all from the installed package: nothing on sys.path or in the files read is in the checkout."""
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    if not Path(uv).exists():
        pytest.skip("uv is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FSVIZ_", "PYTHON", "VIRTUAL_ENV"))}
    env |= {"PATH": f"{Path(uv).parent}{os.pathsep}{env.get('PATH', '')}", "HOME": str(tmp_path / "home")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "FSVIZ_WARMUP": "0", "UV_LINK_MODE": "copy"}
    dist, venv, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "work"
    work.mkdir()
    _run(
        [sys.executable, "-m", "build", "--wheel", "--installer", "uv", "--outdir", str(dist), str(ROOT)],
        env=env,
    )
    wheel = next(dist.glob("fsviz-*.whl"))
    _run([uv, "venv", "-q", "-p", sys.executable, str(venv)], env=env)
    py = venv / "bin" / "python"
    # the dependencies come from uv's cache (the checkout's environment was installed through it)
    install = [uv, "pip", "install", "-q", "-p", str(py), str(wheel)]
    if subprocess.run([*install, "--offline"], env=env, capture_output=True).returncode != 0:
        _run(install, env=env)
    where = json.loads(
        _run(
            [str(py), "-c", "import json, sys, fsviz; print(json.dumps([fsviz.__file__, sys.path]))"],
            env=env,
            cwd=work,
        ).stdout
    )
    assert Path(where[0]).is_relative_to(venv), where[0]
    assert not [p for p in where[1] if p and Path(p).resolve().is_relative_to(ROOT)], where[1]

    # the CLI on a bundled sample, written on first use into the user cache folder
    fsviz_cmd = str(venv / "bin" / "fsviz")
    _run([str(py), "-m", "fsviz.data.samples", "--if-missing"], env=env, cwd=work)
    sample = tmp_path / "cache" / "fsviz" / "sample_data" / "digits-0-vs-1.npz"
    assert sample.is_file()
    _run(
        [fsviz_cmd, "select", "--method", "fisher", "-k", "5", str(sample), "-o", "sel.csv"],
        env=env,
        cwd=work,
    )
    rows = (work / "sel.csv").read_text().splitlines()
    assert rows[0].startswith("rank,index,name,score") and len(rows) == 6

    # the Data page of the installed app renders the default sample (Streamlit's AppTest)
    script = textwrap.dedent(
        """
        from streamlit.testing.v1 import AppTest
        import fsviz_app.launch as launch
        at = AppTest.from_file(str(launch.MAIN), default_timeout=240).run()
        assert not at.exception, [e.value for e in at.exception]
        print("\\n".join(m.value for m in at.markdown) + "\\n" + "\\n".join(c.value for c in at.caption))
        """
    )
    page = _run([str(py), "-c", script], env=env, cwd=work).stdout
    assert "360" in page and "64" in page, page[-2000:]  # digits 0 vs 1: 360 samples x 64 pixels

    # fsviz app serves it until its health check answers
    port = _free_port()
    server = subprocess.Popen(
        [fsviz_cmd, "app", "--port", str(port), "--address", "127.0.0.1"],
        env=env,
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline, health = time.monotonic() + 120, ""
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
                    health = r.read().decode()
                    break
            except OSError:
                time.sleep(1)
        assert health == "ok", server.stdout.read() if server.poll() is not None else "no answer in 120 s"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            assert "<title>" in r.read().decode().lower() or r.status == 200
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    # stopping fsviz app stopped the server: it is Streamlit itself, not its launcher beside an orphan
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5)
