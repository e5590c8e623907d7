"""AppTest: a user's own file from upload to export.

Files shaped like the ones people bring (tests/user_files.py): an ``id`` column and an
all-empty trailing column, text columns with gaps, ``;`` and decimal commas, an Excel
workbook, classes of one sample. Each loads with the defaults, no identifier reaches a
selector, the target checks offer their fixes, and no "nan" is shown without a reason.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz_app.appkit as appkit
from tests.test_app_pages import APP, TIMEOUT, button, goto
from tests.user_files import european_csv, european_xlsx, nci60_csv, penguins_csv, wisconsin_csv


def upload(name: str, data: bytes, mime: str = "text/csv") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value((name, data, mime)).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def dataset(at: AppTest):
    return appkit.state._datasets().get(at.session_state["dataset_key"])


def shown_text(at: AppTest) -> str:
    parts = [m.value for m in at.metric] + [c.value for c in at.caption] + [i.value for i in at.info]
    for df in at.dataframe:
        parts.append(df.value.to_string())
    return "\n".join(map(str, parts))


def test_wisconsin_id_and_trailing_empty_column():
    at = upload("data.csv", wisconsin_csv())
    assert not at.error, [e.value for e in at.error]
    ds = dataset(at)
    assert ds.n_features == 30 and "id" not in set(map(str, ds.feature_names))
    assert not any(str(n).startswith("Unnamed") for n in ds.feature_names)
    assert ds.sample_names is not None and len(ds.sample_names) == ds.n_samples
    assert sorted(ds.class_labels()[0]) == ["B", "M"]
    notes = " ".join(i.value for i in at.info)
    assert "'id'" in notes and "Unnamed: 32" in notes


def test_roles_table_changes_what_is_loaded():
    at = upload("data.csv", wisconsin_csv())
    key = next(k for k in at.session_state if str(k).startswith("imp_roles_"))
    frame_roles = {}
    token = at.session_state["upload_token"]
    record = appkit.intake.upload_store().get(token)  # the session's own options, as its widgets change them
    up = dataclasses.replace(record, options=at.session_state["upload_options"][token])
    info = appkit.inspect_upload(up)
    for r in info.roles:
        frame_roles[str(r.name)] = r.role
    assert frame_roles["id"] == "identifier" and frame_roles["diagnosis"] == "target"
    assert frame_roles["Unnamed: 32"] == "ignored"
    appkit.set_role(up, info, "radius_mean", "ignored")  # what the editor's callback does
    at.run()
    assert not at.exception and "radius_mean" not in set(map(str, dataset(at).feature_names))
    assert dataset(at).n_features == 29
    assert key  # the roles editor was drawn


def test_penguins_gaps_and_text_columns_load_with_the_defaults():
    at = upload("penguins.csv", penguins_csv())
    assert not at.error, [e.value for e in at.error]
    ds = dataset(at)
    names = set(map(str, ds.feature_names))
    assert "island=Dream" in names and "species" not in names
    assert np.isfinite(ds.X).all()
    assert sorted(ds.class_labels()[0]) == ["Adelie", "Chinstrap", "Gentoo"]
    assert any("filled" in i.value.lower() for i in at.info)


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_european_export_reads_as_numbers(fmt):
    data = european_csv() if fmt == "csv" else european_xlsx()
    at = upload(f"messungen.{fmt}", data, "application/octet-stream")
    assert not at.error, [e.value for e in at.error]
    ds = dataset(at)
    assert ds.n_features == 6 and ds.target_kind == "classes"
    assert float(np.asarray(ds.X)[:, 0].mean()) == pytest.approx(10, abs=3)
    assert "Probe" not in set(map(str, ds.feature_names))


def test_an_excel_file_named_csv_is_never_an_internal_error():
    at = upload("renamed.csv", european_xlsx())
    assert not any("internal error" in e.value for e in at.error)


def test_nci60_tiny_classes_say_why_and_the_fix_applies():
    at = upload("nci60.csv", nci60_csv(n_genes=120))
    ds = dataset(at)
    assert "rownames" not in set(map(str, ds.feature_names)) and ds.n_features == 120
    warnings = " ".join(w.value for w in at.warning)
    assert "sample" in warnings  # the target check names the small classes
    goto(at, "grm")
    text = shown_text(at)
    assert "nan" not in text.lower().replace("nan ", "") or "not computed" in text
    assert any("single sample" in i.value for i in at.info)
    at = upload("nci60.csv", nci60_csv(n_genes=120))  # a new session: the Data page's fix
    button(at, "Use leave-one-out CV").click().run()
    assert not at.exception and any("leave-one-out" in c.value for c in at.caption)
    goto(at, "grm")
    acc = next(m for m in at.metric if m.label.startswith("CV accuracy"))
    assert acc.value != "—" and "±" in acc.value


def test_drop_small_classes_fix():
    at = upload("nci60.csv", nci60_csv(n_genes=200))
    before = dataset(at).n_samples
    button(at, "Leave out classes with fewer than 2 samples").click().run()
    assert not at.exception
    ds = dataset(at)
    assert ds.n_samples == before - 5 and min(ds.class_labels()[1][ds.class_labels()[1] > 0]) >= 2
    assert any("Fix in force" in c.value for c in at.caption)
    button(at, "Undo").click().run()
    assert dataset(at).n_samples == before


def test_a_refresh_keeps_the_uploaded_file():
    at = upload("data.csv", wisconsin_csv())
    token, key = at.session_state["upload_token"], at.session_state["dataset_key"]
    assert at.query_params["upload"] == [token] or at.query_params["upload"] == token
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params["upload"] = token
    fresh.query_params["source"] = "Upload"
    fresh.run()
    assert not fresh.exception and fresh.session_state["dataset_key"] == key
    stranger = AppTest.from_file(APP, default_timeout=TIMEOUT)
    stranger.query_params["upload"] = "not-the-token"
    stranger.query_params["source"] = "Upload"
    stranger.run()
    assert "upload_token" not in stranger.session_state


def test_session_file_restores_prior_groups_and_can_be_loaded_first():
    at = upload("data.csv", wisconsin_csv())
    ds = dataset(at)
    assert any(b.label == "Save session (JSON)" for b in at.get("download_button"))
    appkit_groups = [[0, 1, 2], [5, 6]]
    goto(at, "grm")
    state = at.session_state["prior"][appkit.dataset_key(ds)]
    state.setdefault("groups", []).extend(appkit_groups)
    at.run()
    # a new browser: the session file first, then the data file it asks for
    doc = json.loads(_session_json(at))
    names = [str(n) for n in ds.feature_names]
    assert doc["prior_groups"] == [[names[j] for j in g] for g in appkit_groups]
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    fresh.file_uploader(key="session_load").set_value(
        ("s.json", json.dumps(doc).encode(), "application/json")
    )
    fresh.run()
    assert any("upload that file" in i.value for i in fresh.info)
    fresh.file_uploader(key="upload").set_value(("data.csv", wisconsin_csv(), "text/csv")).run()
    assert any("2 prior groups" in s.value for s in fresh.success), [s.value for s in fresh.success]
    key = fresh.session_state["dataset_key"]
    assert fresh.session_state["prior"][key]["groups"] == appkit_groups


def _session_json(at: AppTest) -> bytes:
    """The session file of ``at`` as the sidebar's button would make it."""
    import fsviz.compute as fc
    from fsviz.compute.session import groups_by_name

    ds = dataset(at)
    key = appkit.dataset_key(ds)
    up = appkit.intake.upload_store().get(at.session_state["upload_token"])
    return fc.session_json(
        fc.SessionFile(
            dataset_name=str(ds.name),
            fingerprint=ds.fingerprint,
            source={"kind": "upload", "file": up.filename, "sha256": up.digest, "import_options": up.options},
            shown=dict(at.session_state["shown"].get(key, {})),
            prior_groups=groups_by_name(at.session_state["prior"][key]["groups"], ds.feature_names),
        )
    )


def test_import_settings_offer_exactly_what_the_loader_takes():
    """The Data page's import settings list load_dataset's own choices (LOAD_CHOICES), worded
    for people, with the app's default first; no choice is restated or missing."""
    from fsviz.data.loaders import LOAD_CHOICES, load_defaults
    from fsviz_app.appkit.import_widgets import DECIMALS, OPTION_WORDS, ORIENTATIONS, _choices
    from fsviz_app.appkit.intake import IMPORT_DEFAULTS

    for option, words in OPTION_WORDS.items():
        assert set(words) == set(LOAD_CHOICES[option]), option
        assert sorted(map(str, _choices(option))) == sorted(map(str, LOAD_CHOICES[option]))
        assert _choices(option)[0] == IMPORT_DEFAULTS[option]
    assert set(ORIENTATIONS) == set(LOAD_CHOICES["transpose"])
    assert set(DECIMALS) == set(LOAD_CHOICES["decimal"])
    loading = load_defaults()
    for option, value in IMPORT_DEFAULTS.items():
        if option in LOAD_CHOICES:
            assert value in LOAD_CHOICES[option], option
        elif option in loading:
            given = tuple(value) if isinstance(value, list) else value
            assert given == loading[option], f"{option}: the app restates a loader default differently"
