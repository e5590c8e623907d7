"""Why not this feature? In a real browser: look up a feature GDM left out on the Compare page,
see its stand-in, correlation and reason, and download the explained selection CSV."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd


def test_lookup_a_dropped_feature_and_export_its_stand_in(page, goto, pick, settle, tree_title, shots):
    import fsviz.compute as fc
    import fsviz_app.appkit as appkit
    from fsviz.data import list_samples, load_sample

    names = list(list_samples())
    ds = load_sample(names[appkit.default_sample(names)])
    ex = fc.explain_run(fc.Run("gdm", {}, 0)).execute(ds)  # the app's GDM: the declared defaults
    j = int(next(f for f in ex.unselected() if ex.stand_in[f] >= 0))  # the best-ranked dropped one
    name, stand = str(ds.feature_names[j]), str(ds.feature_names[ex.stand_in[j]])

    goto(page, "Groups (GDM)")
    tree_title(page)
    goto(page, "Compare and export")
    pick(page, "Why not this feature?", name)
    metrics = page.locator('[data-testid="stMetric"]')
    assert metrics.filter(has_text="stand-in").locator('[data-testid="stMetricValue"]').inner_text() == stand
    corr = metrics.filter(has_text="correlation").locator('[data-testid="stMetricValue"]').inner_text()
    assert corr == f"{ex.stand_in_corr[j]:+.3f}"
    page.get_by_text(f"Why: {ex.reason[j]}").wait_for()
    page.locator(".js-plotly-plot .gtitle", has_text=f"{name} against its stand-in {stand}").wait_for()
    page.screenshot(path=str(shots / "why_not.png"), full_page=True)

    page.get_by_text("also list every unselected feature", exact=False).click()
    settle(page)
    with page.expect_download() as info:
        page.get_by_text("Selection CSV", exact=False).first.click()
    frame = pd.read_csv(io.BytesIO(Path(info.value.path()).read_bytes()), keep_default_na=False)
    assert list(frame.columns[-3:]) == ["stand_in", "stand_in_corr", "reason"]
    assert len(frame) == ds.n_features
    row = frame.set_index("name").loc[name]
    assert row["role"] == "unselected" and row["stand_in"] == stand and row["reason"] == ex.reason[j]
    assert float(row["stand_in_corr"]) == ex.stand_in_corr[j]
