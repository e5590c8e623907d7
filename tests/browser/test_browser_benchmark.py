"""The Benchmark page in a real browser (Chromium through Playwright): run, curves, CSV download.

The server, browser, page and helpers are the fixtures of ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

TITLE = "Benchmark (survey protocol)"


def drop_last(pg, label: str) -> None:
    """Remove the last chosen option of the multiselect ``label`` (Backspace in its input)."""
    box = pg.locator('[data-testid="stMultiSelect"]').filter(has_text=label).first
    box.locator("input").click()
    pg.keyboard.press("Backspace")
    pg.keyboard.press("Escape")


def test_benchmark_page_runs_and_downloads_the_library_table(
    page, shots, tmp_path, goto, settle, charts_drawn
):
    import fsviz.compute as fc
    import fsviz_app.appkit as appkit
    from fsviz.data import list_samples, load_sample
    from fsviz.evaluate import benchmark

    goto(page, "Benchmark (survey)", TITLE)
    assert page.get_by_text("press Run benchmark", exact=False).count() >= 1
    drop_last(page, "methods")  # fisher, mrmr, laplacian (variance dropped)
    drop_last(page, "classifiers")  # linear_svm, decision_tree (naive_bayes dropped)
    page.get_by_role("button", name="Run benchmark").click()
    page.wait_for_selector('[data-testid="stPlotlyChart"]', timeout=240_000)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert charts_drawn(page) == 2  # accuracy curves and clustering curves
    page.screenshot(path=str(shots / "Benchmark.png"), full_page=True)

    with page.expect_download() as info:
        page.get_by_text("Benchmark CSV", exact=False).first.click()
    got = Path(info.value.path()).read_bytes()
    frame = pd.read_csv(io.BytesIO(got))
    methods = list(dict.fromkeys(frame["method"]))
    classifiers = [c for c in dict.fromkeys(frame["classifier"]) if c != "kmeans"]
    assert methods == ["fisher", "mrmr", "laplacian"] and classifiers == ["linear_svm", "decision_tree"]

    names = list(list_samples())
    ds = load_sample(names[appkit.default_sample(names)])
    want = benchmark(
        ds,
        None,
        fc.benchmark_rankers(methods),
        ks=range(5, 51, 5),
        classifiers=classifiers,
        cv=10,
        n_repeats_kmeans=20,
        random_state=0,
    )
    want["time"] = frame["time"].to_numpy()
    assert got == fc.benchmark_csv(want)
