"""Issue 45's journey at width: every step of the app beside the bare library call doing its work.

A methylation-like table (float beta values in [0, 1], about 1 % missing, samples in rows, a
``sample_id`` column, Parquet) with a sample sheet (``sample_id``, ``diagnosis``, ``sex``,
``age``, ``batch``; CSV) is opened from the server folder or uploaded, its sample sheet joined,
its target changed, and driven through GDM, "Why not this feature?", GRM, the Stability page,
the Compare page, the export and the report in Chromium. Each step is timed from the click
until the page shows the result and the script is idle, beside the bare library call doing the
same work (timed in this process first), with the issue's bound max(bare + 1 s, 1.5 x bare)
(a target change: 2 s), the load at start and end, and the server's peak RSS against the bare
app's RSS + 4 x the data's float64 bytes. Run through ``bench_app_responsiveness.py``:

    python benchmarks/bench_app_responsiveness.py --shape 300x100000 --kind methylation --source folder
    python benchmarks/bench_app_responsiveness.py --shape 300x20000 --kind methylation --source upload

``FSVIZ_READ_LOG`` is set for the server: the table also says how many times it parsed the file.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
from bench_app_responsiveness import (
    ARGS,
    TITLE_JS,
    free_port,
    load_text,
    start_app,
    wait_health,
    wait_idle,
)

#: the feature "Why not this feature?" asks about (the last probe: never in a default selection's top)
WHY = "cg{:08d}"


def methylation_files(folder: Path, n: int, m: int, seed: int = 0) -> tuple[Path, Path]:
    """``meth_<n>x<m>.parquet`` (``sample_id`` + ``m`` float32 beta columns ``cg00000000``...,
    bimodal around 0 and 1, 20 latent factors, 1 % missing) and its sample sheet
    ``meth_<n>x<m>_samples.csv`` (``diagnosis`` follows three factors, ``sex`` one other)."""
    path = folder / f"meth_{n}x{m}.parquet"
    sheet = folder.parent / f"{path.stem}_samples.csv"  # not in the data folder: it is uploaded
    if path.exists() and sheet.exists():
        return path, sheet
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    F = rng.standard_normal((n, 20)).astype(np.float32)
    owner = rng.integers(0, 20, size=m)
    centre = rng.choice(np.array([-2.5, 0.0, 2.5], dtype=np.float32), size=m, p=[0.45, 0.1, 0.45])
    ids = [f"S{i:04d}" for i in range(n)]
    arrays, step = [pa.array(ids)], 8192
    for a in range(0, m, step):  # block by block: bounded temporaries
        b = min(m, a + step)
        Z = centre[a:b] + 0.6 * rng.standard_normal((n, b - a), dtype=np.float32) + 0.8 * F[:, owner[a:b]]
        B = (1.0 / (1.0 + np.exp(-Z))).astype(np.float32)
        B[rng.random((n, b - a)) < 0.01] = np.nan
        arrays += [pa.array(B[:, j]) for j in range(b - a)]
    pq.write_table(pa.table(arrays, names=["sample_id"] + [WHY.format(j) for j in range(m)]), path)
    score = F[:, :3] @ np.array([1.0, -1.0, 0.5], dtype=np.float32)
    frame = pd.DataFrame(
        {
            "sample_id": ids[::-1],  # another order than the table's: the join matches by name
            "diagnosis": np.where(score > np.median(score), "tumour", "normal")[::-1],
            "sex": np.where(F[:, 5] > 0, "F", "M")[::-1],
            "age": rng.integers(20, 90, size=n),
            "batch": [f"plate{i % 4}" for i in range(n)],
        }
    )
    frame.to_csv(sheet, index=False)
    return path, sheet


def _plan(path: Path, sheet: Path | None, label):
    from fsviz_app.appkit.intake import APP_PLAN

    if sheet is None:
        return APP_PLAN.replace(label=label)
    return APP_PLAN.replace(label=label, sample_annotations=sheet.name, annotation_key="sample_id")


def bare_journey(path: Path, sheet: Path) -> dict[str, float]:
    """The library calls the app's steps make, timed in this process (after a warm-up on a slice,
    so that numba compilation is not timed): step -> seconds."""
    import warnings

    import fsviz.compute as fc
    import fsviz.data as fd
    from fsviz.compute import Run
    from fsviz.report import build_report

    warnings.simplefilter("ignore")
    t: dict[str, float] = {}
    store: dict = {}
    ds = None

    def results(run):
        if run.key not in store:
            store[run.key] = run.execute(ds, results=results)
        return store[run.key]

    t0 = time.perf_counter()
    fd.load_dataset(path, plan=_plan(path, None, "auto"))
    t["open the file"] = time.perf_counter() - t0
    # the join and a target change: the app assembles from what it parsed, and so does this
    parsed = fd.parse_source(path, plan=_plan(path, sheet, "diagnosis"))
    t0 = time.perf_counter()
    ds = fd.assemble(parsed, _plan(path, sheet, "diagnosis"), sample_annotations=sheet)
    t["join the sample sheet"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    fd.assemble(parsed, _plan(path, sheet, "sex"), sample_annotations=sheet)
    t["choose the target"] = time.perf_counter() - t0
    del parsed
    small = ds.subset(features=range(min(ds.n_features, 5000)))
    gdm, base = Run("gdm", {}), fc.grm_default_base(ds.target_kind)
    grm = Run("grm", {"base": Run(base, fc.grm_base_params(base))})
    for run in (gdm, grm, fc.explain_run(gdm, None), Run("stability", {"of": gdm, "n_boot": 2})):
        run.execute(small, results=lambda r: r.execute(small, results=None))  # warm-up: compile
    t0 = time.perf_counter()
    results(gdm)
    t["GDM"] = time.perf_counter() - t0
    t0 = time.perf_counter()  # the app's lookup: the typed feature's own stand-in (explain_feature)
    fc.explain_feature(ds, gdm, results(gdm), ds.n_features - 1)
    t['"Why not this feature?"'] = time.perf_counter() - t0
    t0 = time.perf_counter()
    results(grm)
    t["GRM refinement"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    stability = Run("stability", {"of": gdm, "k": None, "tau": None})
    results(stability)
    t["Stability page"] = time.perf_counter() - t0
    t0 = time.perf_counter()  # the page's table without CV (a large table: Evaluate computes it)
    fc.compare_frame([(results(run).selection(None), None, None) for run in (gdm, grm)], kept=())
    t["Compare page"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    fc.selection_csv(results(grm).selection(fc.TOP_K.default), ds.feature_names)
    t["export (selection CSV)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    doc = build_report(ds, [gdm, grm, stability], results=results)  # the runs the app's session keeps
    print(f"  (bare report: {_runs_in(doc)})")
    t["report (HTML)"] = time.perf_counter() - t0
    return t


# ------------------------------------------------------------------------------------ the app
def _wait_text(page, text: str, where: str = "document.body") -> None:
    page.wait_for_function(f"([t]) => {where}.innerText.includes(t)", arg=[text], timeout=900_000, polling=50)


def _goto(page, name: str, title: str) -> None:
    page.get_by_role("link", name=name, exact=True).click()
    page.wait_for_selector(f"h1:has-text('{title}')", timeout=900_000)


def _target_box(page) -> str:
    box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(
        has_text="Target column"
    )
    values = box.locator("input").evaluate_all("els => els.map(e => e.value)")
    return box.inner_text() + " " + " ".join(values)


def _wait_target(page, name: str) -> None:
    for _ in range(18_000):
        if name in _target_box(page):
            return
        page.wait_for_timeout(50)
    raise TimeoutError(f"the target is not {name!r}: {_target_box(page)!r}")


#: the server's peak RSS since the last step ended (the watcher thread raises it)
STEP_PEAK = [0]


def _runs_in(doc: str) -> str:
    """The runs a report holds, by their section titles: the app's and the bare one's should match."""
    return "; ".join(re.findall(r'<h2 id="run-\d+">\d+\. ([^<]*)</h2>', doc)) or "no run section found"


def _took(out: dict, step: str, t0: float) -> None:
    out[step] = time.perf_counter() - t0
    at = time.strftime("%H:%M:%S", time.localtime()) + f".{int(time.time() * 1000) % 1000:03d}"
    rss = f"; server peak {STEP_PEAK[0] / 2**20:.0f} MiB" if STEP_PEAK[0] else ""
    STEP_PEAK[0] = 0
    print(f"  app: {step:32s} {out[step]:8.2f} s  ({load_text()}; ended {at}{rss})", flush=True)


def app_journey(page, path: Path, sheet: Path, source: str, m: int, out: dict) -> dict[str, float]:
    """The journey in the browser, into ``out``: step -> seconds from the click until the result
    is shown and the script is idle."""
    sb = page.locator('[data-testid="stSidebar"]')
    if source == "upload":
        sb.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
        wait_idle(page)
        t0 = time.perf_counter()
        sb.locator('input[type="file"]').first.set_input_files(str(path))
    else:
        sb.get_by_test_id("stRadioGroup").get_by_text("Server folder", exact=True).click()
        wait_idle(page)
        t0 = time.perf_counter()
        sb.locator('[data-testid="stSelectbox"]').filter(has_text="Server file").first.click()
        page.get_by_role("option", name=re.compile(re.escape(path.name))).first.click()
    _wait_text(page, f"Active: {path.stem}")
    page.wait_for_selector('[data-testid="stMetric"]', timeout=900_000)
    wait_idle(page)
    _took(out, "open the file", t0)

    box = page.locator('[data-testid="stFileUploader"]').filter(has_text="Sample annotations")
    t0 = time.perf_counter()
    box.locator('input[type="file"]').set_input_files(str(sheet))
    _wait_target(page, "diagnosis")  # the join proposes the sheet's column as the target
    wait_idle(page)
    _took(out, "join the sample sheet", t0)

    # from the choice: opening the list and typing into its search box are the person's time
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Target column").first.click()
    page.keyboard.type("sex")
    option = page.get_by_role("option", name="sex", exact=True).first
    option.wait_for()
    t0 = time.perf_counter()
    option.click()
    _wait_target(page, "sex")
    wait_idle(page)  # the dataset with the new target is read (or assembled) in that rerun
    _took(out, "choose the target", t0)

    _goto(page, "Groups (GDM)", "Groups (GDM)")
    wait_idle(page)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Run GDM").click()
    page.wait_for_function(TITLE_JS, timeout=900_000, polling=50)
    wait_idle(page)
    _took(out, "GDM", t0)

    why = page.get_by_label(re.compile("Why not this feature")).first
    t0 = time.perf_counter()
    why.fill(WHY.format(m - 1))
    why.press("Enter")
    page.locator('[data-testid="stMetric"]').filter(has_text="stand-in").first.wait_for(timeout=900_000)
    wait_idle(page)
    _took(out, '"Why not this feature?"', t0)

    _goto(page, "GRM refinement", "GRM refinement")
    wait_idle(page)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Run GRM").click()
    _wait_text(page, "Shown: GRM")
    _took(out, "GRM refinement", t0)  # its result drawn: the CV of base and GRM follow in fragments
    wait_idle(page)
    _took(out, "GRM page idle (its CV done)", t0)

    _goto(page, "Stability (bootstrap)", "Stability")
    wait_idle(page)
    page.locator('[data-testid="stSelectbox"]').filter(has_text="selection").first.click()
    page.get_by_role("option", name=re.compile("^GDM")).first.click()
    wait_idle(page)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Resample", exact=True).click()
    page.locator('[data-testid="stMetric"]').filter(has_text="Kuncheva index").first.wait_for(timeout=900_000)
    wait_idle(page)
    _took(out, "Stability page", t0)

    t0 = time.perf_counter()
    _goto(page, "Compare and export", "Compare and export")
    page.get_by_role("button", name=re.compile("^Selection CSV")).first.wait_for(timeout=900_000)
    wait_idle(page)
    _took(out, "Compare page", t0)
    t0 = time.perf_counter()  # the export's default: the selection shown last (GRM's top 20)
    with page.expect_download(timeout=900_000) as dl:
        page.get_by_role("button", name=re.compile("^Selection CSV")).first.click()
    dl.value.path()
    _took(out, "export (selection CSV)", t0)

    sb.get_by_text("Report", exact=True).click()
    sb.get_by_role("button", name="Build report").wait_for(timeout=900_000)
    wait_idle(page)
    t0 = time.perf_counter()  # from the click that starts the build to the file downloaded
    sb.get_by_role("button", name="Build report").click()
    sb.get_by_text("Building the report").or_(sb.get_by_text("Built in")).first.wait_for(timeout=900_000)
    _took(out, "report: its status shown", t0)  # a newcomer never waits on a blank panel
    sb.get_by_role("button", name="Download report (HTML)").wait_for(timeout=900_000)
    wait_idle(page)
    with page.expect_download(timeout=900_000) as dl:
        sb.get_by_role("button", name="Download report (HTML)").click()
    doc = dl.value.path().read_text(encoding="utf-8")
    _took(out, "report (HTML)", t0)
    print(f"  (app report: {_runs_in(doc)})", flush=True)
    return out


def settle(pid: int, timeout: float = 300.0) -> None:
    """Wait for the server to be ready as it serves after its first minute: the numba warm-up's
    child has ended and the server has loaded the first-visit kernels it compiled (its RSS steady
    for 3 s). The bare app's RSS is taken then: loading the kernels is not the data's memory."""
    import psutil

    proc, end = psutil.Process(pid), time.monotonic() + timeout
    while proc.children(recursive=True) and time.monotonic() < end:
        time.sleep(0.5)
    last, steady = proc.memory_info().rss, time.monotonic()
    while time.monotonic() - steady < 3.0 and time.monotonic() < end:
        time.sleep(0.25)
        now = proc.memory_info().rss
        if abs(now - last) > 4 << 20:
            last, steady = now, time.monotonic()


def _rss(pid: int) -> tuple[int, int]:
    """The server's RSS, and with its children (the numba warm-up, sandboxed readers)."""
    import psutil

    p = psutil.Process(pid)
    own = p.memory_info().rss
    return own, own + sum(c.memory_info().rss for c in p.children(recursive=True))


def main(a) -> int:
    """``--kind methylation``: the issue's table, printed."""
    import datetime

    from playwright.sync_api import sync_playwright

    n, m = (int(v) for v in a.shape.lower().split("x"))
    work = Path(a.workdir) / "folder"
    work.mkdir(parents=True, exist_ok=True)
    path, sheet = methylation_files(work, n, m)
    start_load = load_text()
    print(
        f"{datetime.datetime.now().isoformat(timespec='seconds')}  {start_load}  data: {path.name} "
        f"({path.stat().st_size / 2**20:.1f} MiB) + {sheet.name}, source {a.source}"
    )
    bare = {} if a.no_bare else bare_journey(path, sheet)
    print(f"bare library calls ({load_text()}):")
    for k, v in bare.items():
        print(f"  {k:32s} {v:8.2f} s", flush=True)
    log = Path(a.workdir) / "reads.log"
    log.unlink(missing_ok=True)
    env = os.environ | {"FSVIZ_DATA_DIR": str(work), "FSVIZ_READ_LOG": str(log)}
    port = free_port()
    proc = start_app(port, env)
    url = f"http://127.0.0.1:{port}"
    peak, stop, app = [0, 0], [False], {}

    def watch() -> None:
        while not stop[0]:
            try:
                now = _rss(proc.pid)
                peak[:] = [max(a, b) for a, b in zip(peak, now, strict=True)]
                STEP_PEAK[0] = max(STEP_PEAK[0], now[0])
            except Exception:  # noqa: BLE001 - the process is starting or gone
                pass
            time.sleep(0.1)

    spy = None
    if a.profile:
        import subprocess

        spy = subprocess.Popen(
            ["py-spy", "record", "-p", str(proc.pid), "-r", "50", "--threads", "--nonblocking"]
            + ["-f", "raw", "-o", a.profile],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    try:
        wait_health(url)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            page.set_default_timeout(900_000)
            page.goto(url)
            wait_idle(page)
            page.wait_for_timeout(1000)
            settle(proc.pid)
            bare_app = _rss(proc.pid)  # the app with one session on the sample, before the data
            threading.Thread(target=watch, daemon=True).start()
            try:
                app_journey(page, path, sheet, a.source, m, app)
            except Exception as e:  # the steps measured so far still print
                page.screenshot(path=str(Path(a.workdir) / "journey_failed.png"), full_page=True)
                print(f"journey stopped: {type(e).__name__}: {str(e)[:300]}")
            browser.close()
    finally:
        stop[0] = True
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    reads = sum(path.name in ln for ln in log.read_text().splitlines()) if log.exists() else None
    print_table(app, bare, start_load, load_text(), peak, bare_app, n * m * 8, reads, a.source, path)
    return 0


def bound(step: str, bare: float | None) -> float | None:
    """The issue's bound for ``step``: a target change 2 s, else max(bare + 1 s, 1.5 x bare)."""
    if step == "choose the target":
        return 2.0
    return None if bare is None else max(bare + 1.0, 1.5 * bare)


def print_table(app, bare, load_start, load_end, peak, bare_app, data_bytes, reads, source, path) -> None:
    mib = 2**20
    print(f"\n| step ({source}) | app | bare library | bound | |")
    print("|---|---|---|---|---|")
    for step in dict.fromkeys([*bare, *app]):
        got, ref = app.get(step), bare.get(step)
        lim = bound(step, ref)
        verdict = "" if got is None or lim is None else ("pass" if got <= lim else "**FAIL**")
        cells = [f"{v:.2f} s" if v is not None else "—" for v in (got, ref, lim)]
        print(f"| {step} | {cells[0]} | {cells[1]} | {cells[2]} | {verdict} |")
    print()
    for what, got, base in (
        ("server", peak[0], bare_app[0]),
        ("server + children (numba warm-up, sandboxed readers)", peak[1], bare_app[1]),
    ):
        limit = base + 4 * data_bytes
        verdict = "pass" if got <= limit else "FAIL"
        print(
            f"{what}: peak RSS {got / mib:.0f} MiB; bound: bare app {base / mib:.0f} MiB + 4 x "
            f"{data_bytes / mib:.0f} MiB (float64) = {limit / mib:.0f} MiB: {verdict}"
        )
    if reads is not None:
        print(f"parses of {path.name} by the server (FSVIZ_READ_LOG): {reads}")
    print(f"load at start: {load_start}; at end: {load_end}")
