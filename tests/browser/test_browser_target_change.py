"""A target change at width reads nothing again (issue 45): a 40 x 50,000 Parquet table opened
from the server folder, its sample sheet joined, the target changed twice; the server's
``FSVIZ_READ_LOG`` shows the file parsed exactly once. A read counter, not a wall-clock bound.
"""

from __future__ import annotations

import numpy as np

N, M = 40, 50_000
NAME = "wide_target_change.parquet"


def _write(folder, tmp_path):
    """The table (``sample_id`` + 50,000 float32 beta columns, 1 % missing) and its sample sheet."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(45)
    B = rng.beta(0.5, 0.5, size=(N, M)).astype(np.float32)
    B[rng.random((N, M)) < 0.01] = np.nan
    ids = [f"S{i:03d}" for i in range(N)]
    arrays = [pa.array(ids)] + [pa.array(B[:, j]) for j in range(M)]
    pq.write_table(pa.table(arrays, names=["sample_id"] + [f"cg{j:08d}" for j in range(M)]), folder / NAME)
    sheet = tmp_path / "samples.csv"
    pd.DataFrame(
        {
            "sample_id": ids[::-1],
            "diagnosis": np.where(B[::-1, 0] > 0.5, "tumour", "normal"),
            "sex": np.where(np.arange(N) % 2 == 0, "F", "M"),
            "batch": [f"plate{i % 3}" for i in range(N)],
        }
    ).to_csv(sheet, index=False)
    return sheet


def _target(page) -> str:
    boxes = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]')
    box = boxes.filter(has_text="Target column")
    values = box.locator("input").evaluate_all("els => els.map(e => e.value)")
    return box.inner_text() + " " + " ".join(values)


def _wait_target(page, name: str) -> None:
    for _ in range(600):
        if name in _target(page):
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"the target is not {name!r}: {_target(page)!r}")


def _reads(read_log) -> list[str]:
    lines = read_log.read_text().splitlines() if read_log.exists() else []
    return [ln for ln in lines if NAME in ln]


def test_changing_the_target_twice_at_50000_features_reads_the_file_once(
    page, data_folder, read_log, tmp_path, settle, pick, shots
):
    sheet = _write(data_folder, tmp_path)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Server folder", exact=True).click()
    settle(page)
    typed = sidebar.get_by_role("textbox", name="…or a path inside the folder")
    typed.fill(NAME)
    typed.press("Enter")
    page.wait_for_function(
        "() => document.body.innerText.includes('Active: wide_target_change')", timeout=300_000
    )
    settle(page)
    assert "50,000 features" in sidebar.inner_text()
    box = page.locator('[data-testid="stFileUploader"]').filter(has_text="Sample annotations")
    box.locator('input[type="file"]').set_input_files(str(sheet))
    settle(page)
    _wait_target(page, "diagnosis")  # the sheet's likely target, joined by sample_id
    settle(page)
    assert len(_reads(read_log)) == 1, _reads(read_log)
    for target in ("sex", "batch"):
        pick(page, "Target column", target)
        _wait_target(page, target)
        settle(page)
        assert "40 samples × 50,000 features" in sidebar.inner_text()
    page.screenshot(path=str(shots / "target_change_at_width.png"), full_page=True)
    assert len(_reads(read_log)) == 1, _reads(read_log)  # opened once: the join and targets assembled
