"""A target change, a column's role and the sample-sheet join never re-read the file (issue 45).

A Parquet table in the server folder (and the same bytes uploaded) is opened, its sample sheet
joined, the target changed back and forth and a column's role changed: the file is parsed once
(``fsviz.data.parse_count``), and every dataset the app shows equals what ``load_dataset``
reads with the same plan (the same fingerprint). A cancelled read keeps the previous dataset.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz_app.appkit as appkit
from fsviz.data import load_dataset, parse_count

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def _files(folder: Path, n: int = 40, m: int = 300) -> tuple[Path, bytes]:
    """``meth.parquet`` (``sample_id`` + ``m`` beta columns, 1 % missing) and its sample sheet."""
    import pandas as pd

    rng = np.random.default_rng(3)
    B = rng.beta(0.5, 0.5, size=(n, m)).astype(np.float32)
    B[rng.random((n, m)) < 0.01] = np.nan
    ids = [f"S{i:03d}" for i in range(n)]
    frame = pd.DataFrame(B, columns=[f"cg{j:08d}" for j in range(m)])
    frame.insert(0, "sample_id", ids)
    path = folder / "meth.parquet"
    frame.to_parquet(path, index=False)
    sheet = pd.DataFrame(
        {
            "sample_id": ids[::-1],
            "diagnosis": np.where(B[::-1, 0] > 0.5, "tumour", "normal"),
            "sex": np.where(np.arange(n) % 2 == 0, "F", "M"),
            "batch": [f"p{i % 3}" for i in range(n)],
        }
    )
    return path, sheet.to_csv(index=False).encode()


def _dataset(at: AppTest):
    return appkit.state._datasets().get(at.session_state["dataset_key"])


def _target_box(at: AppTest):
    return next(s for s in at.sidebar.selectbox if s.label == "Target column")


class Parses:
    """Parses the app made: ``with parses:`` around the app's steps only (the reference reads
    of :func:`_same_as_the_loader` parse too)."""

    def __init__(self):
        self.n = 0

    def __enter__(self):
        self.before = parse_count()

    def __exit__(self, *exc):
        self.n += parse_count() - self.before


def _same_as_the_loader(at: AppTest, path: Path, sheet: bytes) -> None:
    """The session's dataset is what load_dataset reads with the session's plan."""
    ds = _dataset(at)
    buf = io.BytesIO(sheet)
    buf.name = "samples.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = load_dataset(path, plan=ds.meta["plan"], sample_annotations=buf)
    assert ref.fingerprint == ds.fingerprint
    assert list(ref.labels) == list(ds.labels)


def _join(at: AppTest, sheet: bytes) -> None:
    box = next(u for u in at.get("file_uploader") if u.label.startswith("Sample annotations"))
    box.set_value(("samples.csv", sheet, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_target_change_on_a_server_file_assembles_from_the_one_parse(tmp_path, monkeypatch):
    path, sheet = _files(tmp_path)
    monkeypatch.setenv("FSVIZ_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.radio(key="source").set_value("Server folder").run()
    parses = Parses()
    with parses:
        at.selectbox(key="folder_file").set_value("meth.parquet").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _dataset(at).shape == (40, 300) and parses.n == 1
    with parses:
        _join(at, sheet)
    assert _dataset(at).meta["label_column"] == "diagnosis"  # the sheet's likely target
    _same_as_the_loader(at, path, sheet)
    for target in ("sex", "batch", "diagnosis", "sex"):
        with parses:
            _target_box(at).set_value(target).run()
        assert not at.exception, [e.value for e in at.exception]
        assert _dataset(at).meta["label_column"] == target
        _same_as_the_loader(at, path, sheet)
    assert parses.n == 1  # opened once; the join and four targets assembled


def test_an_uploaded_table_parses_once_through_target_and_join_changes(tmp_path):
    path, sheet = _files(tmp_path, n=30, m=120)
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.radio(key="source").set_value("Upload").run()
    parses = Parses()
    with parses:
        at.file_uploader(key="upload").set_value(
            ("meth.parquet", path.read_bytes(), "application/octet-stream")
        )
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        _join(at, sheet)
        _target_box(at).set_value("batch").run()
    assert _dataset(at).meta["label_column"] == "batch"
    _same_as_the_loader(at, path, sheet)
    assert parses.n == 1


def test_a_target_change_draws_the_page_before_the_leakage_scan_ends(tmp_path, monkeypatch):
    """The Data page's leakage check (``leaky_features`` over every column, 60 % of a target
    change at 20,000 columns) runs beside the page, not before its end: the scan of the new
    target waits until the page has drawn its first rows, and a page that ran the scan first
    would time out here. Its warning and roles table still arrive in the same run."""
    import threading

    import fsviz.compute as fc
    import fsviz.data as fdata

    path, sheet = _files(tmp_path, m=299)  # a table of its own: no other test's stored scan
    monkeypatch.setenv("FSVIZ_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.radio(key="source").set_value("Server folder").run()
    at.selectbox(key="folder_file").set_value("meth.parquet").run()
    _join(at, sheet)
    drawn, seen = threading.Event(), []
    preview, scan = fc.preview_frame, fdata.leaky_features

    def first_rows(ds, *a, **k):
        drawn.set()
        return preview(ds, *a, **k)

    def slow_scan(X, labels, names, *a, **k):
        seen.append(drawn.wait(30))  # the page's end, before the scan's
        found = list(scan(X, labels, names, *a, **k))
        return found + [(0, str(names[0]), "flagged by the test")]  # the page shows what the scan says

    monkeypatch.setattr(fc, "preview_frame", first_rows)
    monkeypatch.setattr(fdata, "leaky_features", slow_scan)
    _target_box(at).set_value("sex").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _dataset(at).meta["label_column"] == "sex"
    assert seen == [True]  # one scan of the new target, after the page's first rows
    assert any(w.value.startswith("Possible target leakage: 1 feature") for w in at.warning)
    roles = [d.value for d in at.dataframe if "role" in d.value.columns][-1]
    assert roles.set_index("column").loc["cg00000000", "role"] == "feature: possible leak"


def _options_reference(ann, candidates, columns, label, pick):
    """The target picker's options as first written: every name listed, then cut."""
    suggested = list(dict.fromkeys([*ann[1], *candidates]))
    every = [*ann[2], *columns]
    if not every:
        return []
    rest = [c for c in dict.fromkeys(every) if c not in set(suggested)]
    if len(rest) > pick:
        rest = rest[:pick] + ([label] if isinstance(label, str) and label in rest[pick:] else [])
    return suggested + [appkit.import_widgets.NO_TARGET] + rest


def test_the_target_picker_lists_what_it_listed_without_walking_every_column(monkeypatch):
    """``target_options`` stops at ``PICK_COLUMNS`` names (not 100,000 per rerun) and gives the
    options the full walk gave: random column lists with repeats, sheet columns, candidates and
    a label anywhere (in the first names, beyond them, the sheet's, absent, auto, none)."""
    import types

    import pandas as pd

    iw = appkit.import_widgets
    rng = np.random.default_rng(0)
    for trial in range(300):
        pick = int(rng.integers(1, 8))
        names = [f"c{j}" for j in rng.integers(0, 15, size=int(rng.integers(0, 20)))]
        sheet = [f"s{j}" for j in range(int(rng.integers(0, 3)))] + names[:1]
        ann = (None, sheet[:1], sheet)
        cands = list(rng.choice(names, size=min(2, len(names)), replace=False)) if names else []
        label = [*names, *sheet, "absent", "auto", None][int(rng.integers(0, len(names) + len(sheet) + 3))]
        frame = pd.DataFrame(columns=list(dict.fromkeys(names))) if names else None
        info = types.SimpleNamespace(target_candidates=cands, frame=frame)
        up = types.SimpleNamespace(options={"label": label})
        monkeypatch.setattr(iw, "PICK_COLUMNS", pick)
        monkeypatch.setattr(iw, "annotation_targets", lambda _up, ann=ann: ann)
        want = _options_reference(ann, cands, list(dict.fromkeys(names)), label, pick)
        assert iw.target_options(up, info) == want, (trial, pick, names, sheet, cands, label)
