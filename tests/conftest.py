"""Shared fixtures and the suite's layout rules.

- Real benchmark data (``FSVIZ_DATASETS``): ``skfeature_path``; ``rng``; ``chromium_path``.
- One Dask cluster: ``dask_cluster`` (a process-based ``LocalCluster``, two single-threaded
  workers, started on first use and closed after the last Dask test) and ``dask_client`` (a
  ``Client`` on it that is not the default client, so code without ``client=`` stays local).
- Markers by place and use, so nobody has to remember them: tests under ``tests/browser/`` (or
  using the ``browser`` fixture) are marked ``browser``; tests using ``dask_client``/``dask_cluster``
  are marked ``dask``; the AppTest modules ``tests/test_app_*.py`` are marked ``app``; the CLI's
  end-to-end tests and the hostile-input battery (``INTEGRATION_MODULES``) are marked ``integration``.
  A few tests at the papers' sizes carry ``@pytest.mark.scale`` by hand. ``make check`` leaves
  these five kinds out; ``make test`` runs them all.
- Under pytest-xdist (``make test`` runs ``-n auto --dist loadgroup --no-loadscope-reorder``): the
  browser tests are two xdist groups (each on one worker with its own Streamlit server and
  Chromium; ``BROWSER_SECOND_GROUP``), the Dask
  tests another (one cluster), and every other module is a group of its own (its module fixtures
  and numba compilations are made once, on one worker); each worker runs BLAS, OpenMP and numba
  with one thread, so two workers do not oversubscribe two cores.

The browser fixtures live in ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
BROWSER_DIR = Path(__file__).resolve().parent / "browser"
#: end-to-end through the CLI (subprocesses), every door at once, or whole HTML reports built from
#: runs: in `make test`, not in `make check`
INTEGRATION_MODULES = {
    "test_cli.py",
    "test_bad_inputs.py",
    "test_careless_inputs.py",
    "test_hostile_files.py",
    "test_report.py",
    "test_notebook.py",
    "test_docs.py",
    "test_install.py",
}
# The conftest files hold no doctests; collected by --doctest-modules, the two "conftest" modules
# would clash (pytest: "import file mismatch").
collect_ignore = ["conftest.py", "browser/conftest.py"]
#: read by BLAS and OpenMP when they load: set for the processes a test starts (server, Dask workers)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# the app's background warm-up (appkit/warmup.py) would compete with the tests for the cores
os.environ.setdefault("FSVIZ_WARMUP", "0")


# Hypothesis: CI draws a fixed sequence of examples (derandomized), so a CI run can be repeated
# (`CI=true make test`) and never fails on a draw nobody saw; elsewhere every run explores new
# examples, and a failing one is kept in .hypothesis/ and replayed first
try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # the test extra installs it
    _hypothesis_settings = None
if _hypothesis_settings is not None:
    _hypothesis_settings.register_profile("ci", derandomize=True)
    if IN_CI:
        _hypothesis_settings.load_profile("ci")


#: a folder: every test process notes the kernel signatures it compiles there (fsviz.compute.warm)
RECORD_ENV = "FSVIZ_RECORD_KERNELS"


def pytest_configure(config):
    if os.environ.get(RECORD_ENV):
        from fsviz.compute.warm import record_compiles

        record_compiles(os.environ[RECORD_ENV])
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Several workers share the cores: one thread each. This process has loaded BLAS and
        # numba already, so they are limited at run time (a test may still raise the limit, as
        # the thread-count tests do); NUMBA_NUM_THREADS is left alone, since numba refuses a
        # change of it once its threads run.
        import numba
        from threadpoolctl import threadpool_limits

        config._fsviz_thread_limits = threadpool_limits(1)  # kept for the session
        numba.set_num_threads(1)
        for var in THREAD_VARS:
            os.environ.setdefault(var, "1")


#: the browser modules of the second xdist group (about half the browser tests' time)
BROWSER_SECOND_GROUP = frozenset(
    {
        "test_browser_research_files.py",
        "test_browser_security.py",
        "test_browser_user_file.py",
        "test_browser_trust.py",
        "test_browser_benchmark.py",
    }
)
#: Tests of the full suite only (``make test-all``, marked ``slow`` here): ``make test`` keeps
#: one browser journey per capability (every page drawn, a live tau step, a face's masks, a
#: user's file to export and refresh, the research files, the report, explanations, the server
#: folder, the hostile uploads) to keep its time down; these journeys walk pages and
#: doors that the kept journeys and the AppTests (tests/test_app_*.py) also cover.
FULL_SUITE_ONLY = frozenset(
    {
        "test_browser.py::test_tau_slider_changes_the_group_tree",  # the live tau step moves the tree
        "test_browser.py::test_prior_groups_by_name_and_provenance_download",  # expression journey
        "test_browser.py::test_upload_csv",  # a user's file journey
        "test_browser.py::test_download_is_byte_identical_to_the_cli",  # AppTest + the report journey
        "test_browser.py::test_deep_link_on_a_fresh_server",  # AppTest refresh tests
        "test_browser_explore.py::test_correlation_explorer_pairs_feature_and_target",
        "test_browser_explore.py::test_stability_resamples_the_shown_selection",
        "test_browser_explore.py::test_session_file_round_trip",  # AppTest session files
        "test_browser_regression.py::test_every_page_on_a_continuous_target",  # AppTest regression pages
        "test_browser_trust.py::test_leak_warning_failed_upload_and_source_switch",
        "test_browser_trust.py::test_which_group_is_a_feature_in",
        "test_browser_trust.py::test_compare_tells_two_gdm_runs_apart",
        "test_browser_user_file.py::test_semicolon_decimal_comma_file_reads_as_numbers",
        "test_browser_benchmark.py::test_benchmark_page_runs_and_downloads_the_library_table",
        # a load test (bench_upload_memory.py in small): test_app_memory.py catches each cause
        "test_browser_security.py::test_upload_memory_stays_within_the_budget",
        # the omics files' journeys (issue 42): test_app_omics.py and test_data_omics_formats.py read them
        "test_browser_omics.py::test_10x_archive_with_cell_annotations_to_gene_symbols_in_why_not_and_the_export",
        "test_browser_omics.py::test_maxquant_with_design_through_grm_prior_genes_to_the_report_fingerprint",
        # a 40 x 50,000 Parquet's target changed twice, one parse (issue 45): test_app_target_change.py
        # counts the parses through the same sidebar at small width
        "test_browser_target_change.py::test_changing_the_target_twice_at_50000_features_reads_the_file_once",
    }
)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    groups = config.pluginmanager.hasplugin("xdist")
    resolved: dict = {}  # one resolve() per file, not per test (0.6 s of 4,700 otherwise)
    for item in items:
        path = resolved.get(item.path)
        if path is None:
            path = resolved[item.path] = Path(str(item.path)).resolve()
        fixtures = getattr(item, "fixturenames", ())
        if f"{path.name}::{getattr(item, 'originalname', item.name)}" in FULL_SUITE_ONLY:
            item.add_marker(pytest.mark.slow)
        if BROWSER_DIR in path.parents or "browser" in fixtures:
            item.add_marker(pytest.mark.browser)
            # two groups, each with its own server and Chromium: the browser tests are the
            # suite's longest chain, and the two workers share it
            group = "browser-2" if path.name in BROWSER_SECOND_GROUP else "browser"
        elif "dask_client" in fixtures or "dask_cluster" in fixtures:
            item.add_marker(pytest.mark.dask)
            group = "dask"
        else:
            if path.name.startswith("test_app_"):
                item.add_marker(pytest.mark.app)
            elif path.name in INTEGRATION_MODULES:
                item.add_marker(pytest.mark.integration)
            group = path.relative_to(ROOT).as_posix() if ROOT in path.parents else str(path)
        if groups and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_finish(session):
    if "streamlit.testing.v1" in sys.modules:  # a collected module uses AppTest
        _share_apptest_setup()


def _share_apptest_setup() -> None:
    """Every AppTest of this process shares one component scan and one script cache.

    A new AppTest scans the metadata of every installed distribution for Streamlit components
    (0.22 s of CPU each time, measured), and each of its runs compiles ``app.py`` and the page
    anew, magic transform included (a fresh ``ScriptCache`` per run). Neither the installed
    packages nor the scripts change during a test session, and a real server scans once and
    shares one script cache among its sessions, as the tests now do.
    """
    import functools

    try:  # Streamlit's internals: where a release moved them, the tests only run slower
        from streamlit.components.v2 import manifest_scanner
        from streamlit.runtime.scriptrunner.script_cache import ScriptCache
        from streamlit.testing.v1 import app_test, local_script_runner

        scan = manifest_scanner.scan_component_manifests
        app_test.ScriptCache, local_script_runner.ScriptCache  # noqa: B018 (both are replaced)
    except (ImportError, AttributeError):
        return
    if getattr(scan, "shared", False):
        return

    @functools.wraps(scan)
    def scan_once(max_workers=None):
        if not hasattr(scan_once, "result"):
            scan_once.result = scan(max_workers)
        return list(scan_once.result)

    scan_once.shared = True
    manifest_scanner.scan_component_manifests = scan_once
    cache = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: cache


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """An expected failure's report without its traceback's source.

    pytest formats the traceback of every failure, an expected one too, and for each frame
    parses the whole source file: a scikit-learn check that fails as expected (the ``xfail``
    checks of ``parametrize_with_checks``) cost 0.6 s of CPU in parsing ``estimator_checks.py``
    over and over, for a report nobody reads. An ``xfail`` test's failure is reported by its
    exception line alone; a failure the mark does not expect (other ``raises=``, or
    ``--runxfail``) keeps its full traceback.
    """
    mark = item.get_closest_marker("xfail")
    short = (
        call.excinfo is not None
        and mark is not None
        and not item.config.option.runxfail
        and (mark.kwargs.get("raises") is None or call.excinfo.errisinstance(mark.kwargs["raises"]))
    )
    if short:
        item.repr_failure = lambda excinfo: excinfo.exconly()
    try:
        return (yield)
    finally:
        if short:
            del item.repr_failure


def datasets_dir() -> Path:
    """Where the scikit-feature .mat files live (FSVIZ_DATASETS, default ../shared/datasets/skfeature)."""
    return Path(os.environ.get("FSVIZ_DATASETS", ROOT.parent / "shared" / "datasets" / "skfeature"))


def require(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false, except under CI=true where it is a failure."""
    if not condition:
        if IN_CI:
            pytest.fail(f"{reason} (a failure under CI=true, not a skip)")
        pytest.skip(reason)


@pytest.fixture
def skfeature_path():
    """Factory: ``skfeature_path("COIL20")`` -> Path of COIL20.mat, or skip/fail if absent."""

    def _path(name: str) -> Path:
        p = datasets_dir() / (name if name.endswith(".mat") else f"{name}.mat")
        require(p.is_file(), f"benchmark dataset {p} not found; set FSVIZ_DATASETS to the skfeature folder")
        return p

    return _path


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    p = "/usr/bin/chromium"
    require(Path(p).exists(), "Debian's chromium is not installed (apt-get install -y chromium)")
    return p


# ------------------------------------------------------------------------------------- Dask
#: the running cluster and client, made on first use (``_dask``) and closed by ``_close_dask``
_DASK: dict = {}
#: read by the Dask workers when they start: no profile sampling
PROFILE_ENV = "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED"


def _dask(what: str):
    if not _DASK:
        distributed = pytest.importorskip("distributed")
        # the workers import this checkout's fsviz (and tests' module-level functions), as this
        # process does; they sample no profiles (no test reads them: 2-3 % of a core each, idle)
        _DASK["environ"] = {k: os.environ.get(k) for k in ("PYTHONPATH", PROFILE_ENV)}
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
        os.environ[PROFILE_ENV] = "False"
        try:
            cluster = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            )
        except BaseException:
            _close_dask()
            raise
        _DASK["cluster"] = cluster
        _DASK["client"] = distributed.Client(cluster, set_as_default=False)
    return _DASK[what]


def _close_dask() -> None:
    client, cluster = _DASK.pop("client", None), _DASK.pop("cluster", None)
    if client is not None:
        client.close()
    if cluster is not None:
        cluster.close()
    for key, value in _DASK.pop("environ", {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def dask_cluster():
    """The session's ``LocalCluster``: two worker processes with one thread each, started on
    first use.

    Processes, not threads: what a test sends to a worker really goes through pickling, as on a
    real cluster. Its ``scheduler_address`` is a TCP address another client (the CLI) can use.
    Under xdist the Dask tests are one group, run one after the other: the cluster is closed
    after the group's last test (an idle cluster costs about 15 % of a core: its scheduler here,
    its workers' heartbeats), otherwise at the end of the session.
    """
    return _dask("cluster")


@pytest.fixture
def dask_client(dask_cluster):
    """A ``Client`` on :func:`dask_cluster`; not the default client (pass it as ``client=``)."""
    return _dask("client")


@pytest.hookimpl(trylast=True)  # after the test's own fixtures are torn down
def pytest_runtest_teardown(item, nextitem):
    if _DASK and os.environ.get("PYTEST_XDIST_WORKER"):
        if nextitem is None or nextitem.get_closest_marker("dask") is None:
            _close_dask()


def pytest_sessionfinish(session, exitstatus):
    _close_dask()
