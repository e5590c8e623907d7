"""AppTest for every page of the app on the bundled sample data.

Each page renders without an exception and shows its chart; the main widgets change the
result; a bad upload shows the loader's message and the app stays usable; results survive
page switches.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz.compute as fc

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
TIMEOUT = 180


def _samples() -> list[str]:
    from fsviz.data import list_samples

    return list(list_samples())


def start(sample: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    if sample is not None:
        at.selectbox(key="sample").set_value(sample).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"fsviz_app/views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def figure(at: AppTest, i: int = 0) -> dict:
    charts = at.get("plotly_chart")
    assert len(charts) > i, "no plotly chart on the page"
    return json.loads(charts[i].proto.spec)


def arr(v) -> np.ndarray:
    """A plotly JSON array (plain list or base64 typed array) as numpy."""
    if isinstance(v, dict) and "bdata" in v:
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.array([np.nan if x is None else x for x in v], dtype=float)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def slider(at: AppTest, prefix: str):
    return next(s for s in at.slider if s.label.startswith(prefix))


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def sample_named(part: str) -> str:
    names = [n for n in _samples() if part in n.lower()]
    assert names, f"no sample whose name contains {part!r}: {_samples()}"
    return names[0]


@pytest.fixture(scope="module")
def digits() -> str:
    return sample_named("digit")


def test_data_page_summarises_the_default_sample():
    at = start()
    assert at.title[0].value == "Data"
    assert int(metric(at, "samples").replace(",", "")) > 0
    assert int(metric(at, "features").replace(",", "")) > 0
    assert any("constant feature" in w.value for w in at.warning) or at.dataframe
    assert len(at.dataframe) >= 2  # summary + first rows


def test_every_sample_loads():
    at = start()
    for name in _samples():
        at.selectbox(key="sample").set_value(name).run()
        assert not at.exception and not at.error, name
        assert at.sidebar.caption[-1].value.startswith("Active: **")


def test_groups_page_tree_and_tau_changes_result(digits):
    at = goto(start(digits), "groups")
    tree = figure(at)["data"][0]
    assert tree["type"] == "treemap"
    n_sf = int(metric(at, "support features (SF)"))
    shown = int(slider(at, "groups shown").value)
    assert sum(p == "root" for p in tree["parents"]) == min(n_sf, shown) + (n_sf > shown)  # + "+N more"
    assert "correlations computed" in [m.label for m in at.metric]
    af_before = int(metric(at, "affiliated features (AF)"))
    slider(at, "tau").set_value(0.5)
    button(at, "Run GDM").click().run()
    assert not at.exception
    af_after = int(metric(at, "affiliated features (AF)"))
    assert af_after != af_before or figure(at)["data"][0]["ids"] != tree["ids"]
    assert "tau=0.5" in at.caption[0].value or any("tau=0.5" in c.value for c in at.caption)
    # a display-only control redraws without recomputing: same result, other layout
    at.radio(key="tree_kind").set_value("sunburst").run()
    assert figure(at)["data"][0]["type"] == "sunburst"
    assert int(metric(at, "affiliated features (AF)")) == af_after


def test_tau_applies_live_when_cheap_and_is_marked_stale_otherwise(digits, monkeypatch):
    import fsviz_app.appkit as appkit

    monkeypatch.setattr(appkit.results, "LIVE_SECONDS", 60.0)  # the last run counts as cheap
    appkit.state.result_store().data.clear()  # the store is process-wide: another test may hold tau=0.45
    at = goto(start(digits), "groups")
    shown = next(c.value for c in at.caption if c.value.startswith("Shown:"))
    slider(at, "tau").set_value(0.4).run()  # no Run click: applied at once
    assert not at.warning, [w.value for w in at.warning]
    assert any("tau=0.4" in c.value for c in at.caption if c.value.startswith("Shown:"))
    monkeypatch.setattr(appkit.results, "LIVE_SECONDS", 0.0)  # every run now counts as slow
    slider(at, "tau").set_value(0.45).run()
    assert any(w.value.startswith("Stale: the result below is for GDM") for w in at.warning)
    assert any("tau=0.4" in c.value for c in at.caption if c.value.startswith("Shown:")) and shown
    button(at, "Run GDM").click().run()
    assert not at.warning and any("tau=0.45" in c.value for c in at.caption if c.value.startswith("Shown:"))


def test_tau_slider_is_drawn_from_gdm_declaration_and_its_maximum_runs(digits):
    tau = fc.method("gdm").params["tau"]
    at = goto(start(digits), "groups")
    s = slider(at, tau.label)
    assert (s.min, s.max, s.step) == (*tau.widget_range(), tau.step) and s.max <= tau.practical[1]
    assert s.max < tau.bounds[1]  # GDM refuses tau = 1: the last notch stays valid
    s.set_value(s.max)
    button(at, "Run GDM").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(f"tau={s.max:g}" in c.value for c in at.caption if c.value.startswith("Shown:"))


def test_neighbourhood_and_ecv_widgets_take_their_range_from_the_declarations(digits):
    """The GRM page's one neighbourhood slider spans values LGD, the Laplacian score, ReliefF and
    MCFS all accept (LGD needs at least 2), and the ECV folds input ends where GDM's declaration does."""
    at = goto(start(digits), "grm")
    s = at.slider(key="grm_n_neighbors")
    assert s.label.startswith(fc.method("lgd").params["n_neighbors"].label)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 6)), np.arange(60) % 2
    lo, hi = int(s.min), int(s.max)  # the widget's proto holds floats
    assert (lo, hi) == (s.min, s.max) and s.step == 1
    for name in fc.NEIGHBOUR_METHODS:
        for k in (lo, hi):
            fc.method(name).estimator(n_neighbors=k).fit(X, y)  # both ends run on a small dataset
    goto(at, "groups")
    ecv = at.number_input(key="gdm_cv_folds")
    assert (ecv.min, ecv.max) == (0, fc.method("gdm").params["cv_folds"].widget_range()[1])  # 0 = off


def _switch_dataset_script():
    import sys

    import streamlit as st

    sys.path.insert(0, st.session_state["root"])
    import fsviz_app.appkit as appkit

    names = appkit.sample_names()
    appkit.load_sample(names[st.session_state.get("which", 0)])


def test_form_state_of_one_dataset_does_not_leak_into_another():
    """Every form key, whatever its name (the issue's ai_w0, prior_pick, find_feature, tree_*),
    is dropped when another dataset becomes active; the app's own keys stay."""
    at = AppTest.from_function(_switch_dataset_script, default_timeout=TIMEOUT)
    at.session_state["root"] = str(ROOT)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    typed = {"ai_w0": 2.5, "prior_pick": [3], "find_feature": "x7", "tree_groups": 40, "gdm_tau": 0.2}
    for k, v in typed.items():
        at.session_state[k] = v
    at.session_state["seed"] = 5
    at.run()  # the same dataset: nothing is dropped
    assert all(k in at.session_state for k in typed)
    at.session_state["which"] = 1
    at.run()  # another dataset
    assert not at.exception, [e.value for e in at.exception]
    assert [k for k in typed if k in at.session_state] == []
    assert at.session_state["seed"] == 5  # an app key (APP_KEYS) stays


def test_groups_result_survives_page_switch(digits):
    at = goto(start(digits), "groups")
    slider(at, "tau").set_value(0.5)
    button(at, "Run GDM").click().run()
    shown = [c.value for c in at.caption if c.value.startswith("Shown:")]
    goto(at, "compare")
    goto(at, "groups")
    assert [c.value for c in at.caption if c.value.startswith("Shown:")] == shown
    assert slider(at, "tau").value == pytest.approx(0.5)  # the form starts from the result shown


def test_image_masks_on_digits(digits):
    at = goto(start(digits), "image_masks")
    fig = figure(at)
    images = [t for t in fig["data"] if t["type"] == "image"]
    assert len(images) >= 5
    options = at.selectbox(key="mask_group").options
    assert len(options) >= 2
    sf = int(options[1].split("group of feature ")[1].split()[0])
    at.selectbox(key="mask_group").set_value(sf).run()
    assert not at.exception
    fig = figure(at)  # the chosen group bright, the other groups faded (not dropped)
    assert f"group of pixel {sf} highlighted, the others faded" in fig["layout"]["title"]["text"]
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert f"support pixels ({len(options) - 1})" in titles
    assert any(t.startswith("affiliated pixels<br>") and t.endswith("in group") for t in titles)


def test_image_masks_explains_non_image_data():
    names = [n for n in _samples() if "digit" not in n.lower()]
    if not names:
        pytest.skip("only image samples")
    at = goto(start(names[0]), "image_masks")
    assert any("image shape" in i.value for i in at.info)


def test_correlation_sparsity_histogram(digits):
    at = goto(start(digits), "correlation_sparsity")
    fig = figure(at)
    assert fig["layout"]["yaxis"]["type"] == "log"
    assert any("exact" in c.value for c in at.caption)
    bars = arr(fig["data"][0]["y"])
    assert np.nansum(bars) == pytest.approx(100.0)
    slider(at, "tau to mark").set_value(0.1).run()
    assert any(abs(s["x0"] - 0.9) < 1e-9 for s in figure(at)["layout"]["shapes"])


def test_a_stale_histogram_names_the_pages_own_button(digits, monkeypatch):
    """The stale notice says which button applies the new parameters: "Count pairs" here."""
    import fsviz_app.appkit as appkit

    monkeypatch.setattr(appkit.results, "LIVE_SECONDS", 0.0)  # every run counts as slow: no live step
    at = goto(start(digits), "correlation_sparsity")
    at.select_slider(key="hist_bins").set_value(50).run()
    stale = [w.value for w in at.warning if w.value.startswith("Stale:")]
    assert stale and "press **Count pairs**" in stale[0] and "press Run" not in stale[0]


def test_the_feature_name_box_of_wide_data_reads_as_one_sentence(digits, monkeypatch):
    """Wide data get a box for a feature's name: its label keeps the question whole, with no
    stray colon after the question mark."""
    import fsviz_app.appkit as appkit

    monkeypatch.setattr(appkit.scale, "WIDE_FEATURES", 10)  # the digits' 64 features count as wide
    at = goto(start(digits), "groups")
    label = at.text_input(key="find_feature_name").label
    assert label == "Which group is this feature in? (a feature's exact name)" and "?:" not in label


def test_docs_describe_the_prior_group_editor_the_grm_page_shows(digits):
    """docs/app.md once described a data editor of rows feature -> group; the page has a
    multiselect and a paste box, and the docs say so."""
    at = goto(start(digits), "grm")
    assert at.multiselect(key="prior_pick").label.startswith("Pick the features of a new group")
    assert "paste groups" in at.text_area(key="prior_text").label
    row = next(
        line for line in (ROOT / "docs" / "app.md").read_text().splitlines() if "**GRM refinement**" in line
    )
    assert "data_editor" not in row and "multiselect" in row and "paste box" in row


def test_grm_page_base_scores_and_prior_groups(digits):
    at = goto(start(digits), "grm")
    fig = figure(at)
    assert len(fig["data"]) >= 2  # one line per feature in the bump chart
    assert any(m.label.startswith("redundancy of top") for m in at.metric)
    assert any("redone in each training fold" in c.value for c in at.caption)
    caption = [c.value for c in at.caption if c.value.startswith("Shown:")]
    base = next(s for s in at.selectbox if s.label == "base score")
    assert base.value == "fisher"  # the default where there are classes (docs/reproduce.md)
    assert caption and "Fisher score" in caption[0]
    base.set_value("lgd")
    button(at, "Run GRM").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [c.value for c in at.caption if c.value.startswith("Shown:")] != caption
    # one click adds the current GDM groups to the constraint editor
    goto(at, "groups")
    goto(at, "grm")
    button(at, "Add the GDM groups of the Groups page").click().run()
    button(at, "Run GRM").click().run()  # applies the priors even when the last run counted as slow
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(
        "prior group" in c.value and " over " in c.value and not c.value.startswith("0 ") for c in at.caption
    )
    assert any(s.value.startswith("What the prior groups change") for s in at.subheader)
    assert any("prior group" in d.value.columns for d in at.dataframe)


def test_prior_groups_by_name_refuse_unknown_names(digits):
    at = goto(start(digits), "grm")
    at.text_area(key="prior_text").set_value("pixel_3_4, pixel_3_5\npixel_3_44, pixel_2_2").run()
    button(at, "Add pasted groups").click().run()
    assert any("unknown feature name(s) 'pixel_3_44' (did you mean" in e.value for e in at.error)
    assert any(c.value.startswith("0 prior groups") for c in at.caption)  # nothing coerced
    at.text_area(key="prior_text").set_value("pixel_3_4, pixel_3_5\npixel_2_4, pixel_2_2").run()
    button(at, "Add pasted groups").click().run()
    assert not at.error and any(c.value.startswith("2 prior groups over 4 features") for c in at.caption)
    groups = next(d.value for d in at.dataframe if "features" in d.value.columns)
    assert groups["features"].tolist() == ["pixel_3_4, pixel_3_5", "pixel_2_2, pixel_2_4"]
    at.multiselect(key="prior_pick").set_value([28, 29]).run()  # pixel_3_4 is feature 28
    button(at, "Add as a group").click().run()
    assert any("'pixel_3_4' is already in prior group 1" in e.value for e in at.error)
    button(at, "Sweep gamma (0, 0.3, 1, 3, 10)").click().run()
    sweep = next(d.value for d in at.dataframe if "mean rank spread in a prior group" in d.value.columns)
    assert len(sweep) == 5 and not at.exception


def test_online_page_streams_and_explains(digits):
    at = goto(start(digits), "online")
    assert int(metric(at, "features arrived").replace(",", "")) > 0
    frames = [d.value for d in at.dataframe]
    why = next(f for f in frames if "reason" in f.columns)
    assert (why["reason"].str.len() > 0).all()
    assert set(why["outcome"]) <= {"selected", "irrelevant", "redundant", "removed", "ungrouped"}
    dropped = why[why["outcome"] == "redundant"]
    assert dropped["reason"].str.contains("redundant").all()
    size_before = metric(at, "final selection")
    next(n for n in at.number_input if n.label.startswith("alpha")).set_value(1e-6)
    button(at, "Run stream").click().run()
    assert not at.exception
    assert metric(at, "final selection") != size_before or "alpha=1e-06" in " ".join(
        c.value for c in at.caption
    )
    # group-SAOLA over a random partition of the features
    at.radio(key="saola_method").set_value("group-saola").run()  # its grouping choice appears
    at.selectbox(key="saola_groups").set_value("random partition")
    button(at, "Run stream").click().run()
    assert not at.exception and not at.error
    assert any(c.value.startswith("group-SAOLA [") for c in at.caption)


@pytest.mark.parametrize(
    "method, widget", [("alpha-investing", "initial wealth w0"), ("osfs", "alpha"), ("grafting", "lambda")]
)
def test_online_page_runs_the_saola_papers_baselines(digits, method, widget):
    """The baselines stream on the same page: their own parameters, decisions explained."""
    at = goto(start(digits), "online")
    at.radio(key="saola_method").set_value(method).run()
    assert any(n.label.startswith(widget) for n in at.number_input)
    assert not any(s.key == "saola_groups" for s in at.selectbox)  # group-SAOLA's only
    at.select_slider(key="saola_chunk").set_value(50)  # off the declared default: the label names it
    button(at, "Run stream").click().run()
    assert not at.exception and not at.error
    label = next(c.value for c in at.caption if c.value.startswith(f"{fc.method(method).label} ["))
    assert "chunk=50" in label
    why = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert len(why) == 64 and (why["reason"].str.len() > 0).all()
    assert set(why["outcome"]) <= {"selected", "irrelevant", "redundant", "removed"}
    assert int(metric(at, "final selection")) == (why["outcome"] == "selected").sum()


def test_projection_and_compare_after_runs(digits):
    at = goto(start(digits), "groups")
    goto(at, "grm")
    goto(at, "projection")
    fig = figure(at)
    assert len([t for t in fig["data"] if t["type"] == "scattergl"]) >= 2
    assert "(20 features;" in fig["layout"]["annotations"][0]["text"]
    slider(at, "top-k features").set_value(5).run()
    assert "(5 features;" in figure(at)["layout"]["annotations"][0]["text"]
    goto(at, "compare")
    table = at.dataframe[0].value
    assert {"method", "parameters", "n features", fc.CV_HONEST, "redundancy", "run time (s)"} <= set(
        table.columns
    )
    assert fc.CV_BIASED not in table.columns  # the optimistic number only on request
    assert len(table) >= 3 and table[fc.CV_HONEST].notna().all()
    assert (table["evaluated on top"] <= 20).all()
    assert figure(at)["layout"]["yaxis"]["title"]["text"] == fc.CV_HONEST
    labels = [b.label for b in at.get("download_button")]
    assert labels[0].startswith("Selection CSV") and "Reduced dataset CSV" in labels
    assert "Provenance (JSON)" in labels
    assert list(table.columns[:6]) == [
        "method",
        fc.CV_HONEST,
        fc.CV_STD,
        "redundancy",
        "run time (s)",
        "parameters",
    ]
    slider(at, "evaluate the top-k").set_value(5)
    at.checkbox(key="cmp_biased").check()
    button(at, "Evaluate").click().run()
    table = at.dataframe[0].value
    assert (table["evaluated on top"] <= 5).all() and table[fc.CV_BIASED].notna().all()


def test_bad_upload_shows_error_and_app_stays_usable():
    from fsviz.data import load_dataset

    bad = b"a,b,label\n"  # a header and no rows: refused whatever the import settings
    buf = io.BytesIO(bad)
    buf.name = "broken.csv"
    with pytest.raises(ValueError) as loader:
        load_dataset(buf, label="label", name="broken")
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("broken.csv", bad, "text/csv")).run()
    assert not at.exception
    said = "has no data rows"
    assert said in str(loader.value)
    # the loader's own message, once (in the main area, beside the settings that fix it); the
    # sidebar points there; no result of the previous dataset stays on screen
    assert [e.value for e in at.main.error if said in e.value] and not at.sidebar.error
    assert any("did not load" in c.value for c in at.sidebar.caption)
    assert "dataset_key" not in at.session_state
    goto(at, "groups")
    assert not at.exception and not at.get("plotly_chart")
    assert any(said in e.value for e in at.main.error)


def test_a_good_upload_after_a_bad_one_and_source_switches_keep_it():
    at = start()
    fingerprint = at.session_state["dataset_key"]
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("broken.csv", b"a,b,label\n", "text/csv")).run()
    assert at.main.error and "dataset_key" not in at.session_state
    good = b"a,b,label\n1,2,0\n2,3,1\n3,1,0\n4,4,1\n5,0,0\n6,6,1\n"
    at.file_uploader(key="upload").set_value(("good.csv", good, "text/csv")).run()
    assert not at.exception and not at.main.error and at.session_state["dataset_key"] != fingerprint
    good_key = at.session_state["dataset_key"]
    at.radio(key="source").set_value("Sample").run()
    assert at.session_state["dataset_key"] == fingerprint
    at.radio(key="source").set_value("Upload").run()
    assert at.session_state["dataset_key"] == good_key


def _upload_bytes(fmt: str, X: np.ndarray, y: np.ndarray) -> tuple[str, bytes]:
    if fmt == "npz":
        out = io.BytesIO()
        np.savez(out, X=X, y=y)
        return "mine.npz", out.getvalue()
    if fmt == "svmlight":
        from sklearn.datasets import dump_svmlight_file

        out = io.BytesIO()
        dump_svmlight_file(X, y, out)
        return "mine.svm", out.getvalue()
    frame = pd.DataFrame(X, columns=[f"c{i}" for i in range(X.shape[1])])
    frame["label"] = y
    if fmt == "parquet":
        out = io.BytesIO()
        frame.to_parquet(out)
        return "mine.parquet", out.getvalue()
    return "mine.tsv", frame.to_csv(sep="\t", index=False).encode()


@pytest.mark.parametrize("fmt", ["npz", "svmlight", "parquet", "tsv"])
def test_upload_formats(fmt):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(40, 5)), 3)
    y = (X[:, 0] > 0).astype(int)
    name, data = _upload_bytes(fmt, X, y)
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "features") == "5" and metric(at, "samples") == "40"
    assert metric(at, "classes") == "2"


def test_good_csv_upload_becomes_the_dataset():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 6))
    frame = pd.DataFrame(X, columns=[f"c{i}" for i in range(6)])
    frame["label"] = (X[:, 0] > 0).astype(int)
    data = frame.to_csv(index=False).encode()
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("mine.csv", data, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "features") == "6" and metric(at, "samples") == "60"  # 'label' suggested first


def test_target_column_is_picked_from_a_list_and_not_taken_for_a_feature():
    """Regression: a label column not named label/class/y/target was silently a feature."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    frame = pd.DataFrame(X, columns=[f"gene{i}" for i in range(5)])
    frame["tumour_type"] = np.where(X[:, 0] > 0, "glioma", "normal")
    frame["batch"] = np.arange(60) % 3
    data = frame.to_csv(index=False).encode()
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("tumours.csv", data, "text/csv")).run()
    picker = next(s for s in at.selectbox if s.label == "Target column")
    assert picker.value == "tumour_type" and "(no target: unsupervised)" in picker.options
    assert not at.error and metric(at, "features") == "6" and metric(at, "classes") == "2"
    # with another target (or none) the text column is a feature: one-hot encoded, and said so
    next(s for s in at.selectbox if s.label == "Target column").set_value("(no target: unsupervised)").run()
    assert not at.exception and not at.error and metric(at, "features") == "8"  # tumour_type=glioma/normal
    assert metric(at, "classes") == "none"
    numeric = frame.drop(columns="tumour_type").to_csv(index=False).encode()
    at.file_uploader(key="upload").set_value(("numbers.csv", numeric, "text/csv")).run()
    next(s for s in at.selectbox if s.label == "Target column").set_value("(no target: unsupervised)").run()
    assert metric(at, "features") == "6" and metric(at, "classes") == "none"


def test_uploaded_face_images_get_pixel_masks(skfeature_path):
    """A real image dataset (Yale faces, 32x32, 15 classes): upright masks, GDM one vs rest."""
    path = skfeature_path("Yale")
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(
        ("Yale.mat", path.read_bytes(), "application/octet-stream")
    ).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "features") == "1,024"
    goto(at, "groups")
    assert any(s.label.startswith("one vs rest") for s in at.selectbox)
    goto(at, "image_masks")
    fig = figure(at)
    images = [t for t in fig["data"] if t["type"] == "image"]
    assert len(images) >= 6
    assert any("support pixels (" in a["text"] for a in fig["layout"]["annotations"])
    assert at.slider(key="mask_alpha").value == 0.35  # most pixels tinted: a lighter overlay
    options = at.selectbox(key="mask_group").options
    sizes = [int(o.split(": ")[1].split()[0]) for o in options[1:]]
    assert sizes == sorted(sizes, reverse=True)  # largest groups first


def test_uploaded_mat_keeps_its_name_and_image_shape(skfeature_path):
    """An upload is recognised by its file name: warpAR10P.mat gets its raw 60 x 40 image shape."""
    path = skfeature_path("warpAR10P")
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(
        ("warpAR10P.mat", path.read_bytes(), "application/octet-stream")
    ).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "features") == "2,400"
    summary = at.dataframe[0].value
    assert summary.set_index("quantity").loc["image shape", "value"] == "60x40"
    assert any("warpAR10P" in c.value for c in at.sidebar.caption)
    goto(at, "image_masks")
    assert not at.info, [i.value for i in at.info]
    fig = figure(at)
    images = [t for t in fig["data"] if t["type"] == "image"]
    assert len(images) >= 6
    assert {str(t["z"]["shape"]).replace(" ", "") for t in images} == {"60,40,3"}


def test_refresh_restores_dataset_seed_and_runs_from_the_url(digits):
    import base64

    at = start(digits)
    at.number_input(key="seed").set_value(3).run()
    assert at.query_params["sample"] == digits and at.query_params["seed"] == "3"
    at = goto(at, "groups")
    slider(at, "tau").set_value(0.2)
    button(at, "Run GDM").click().run()
    runs = json.loads(base64.urlsafe_b64decode(at.query_params["runs"].encode()))
    assert runs["gdm"]["params"]["tau"] == 0.2
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)  # a browser refresh: a new session
    fresh.query_params.update({"sample": digits, "seed": "3", "runs": at.query_params["runs"]})
    fresh.run()
    assert not fresh.exception and fresh.session_state["seed"] == 3
    assert fresh.session_state["sample"] == digits
    goto(fresh, "groups")
    assert any("tau=0.2" in c.value for c in fresh.caption)


def test_session_file_saves_and_restores_runs(digits):
    at = start(digits)
    assert any(b.label == "Save session (JSON)" for b in at.get("download_button"))
    other = start(digits)
    data = json.dumps(
        {
            "dataset": {"name": "x", "fingerprint": at.session_state["dataset_key"].fingerprint},
            "shown": {"gdm": {"method": "gdm", "params": {"tau": 0.25}, "seed": 0}},
            "selections": [],
        }
    ).encode()
    other.file_uploader(key="session_load").set_value(("s.json", data, "application/json")).run()
    assert not other.exception and any("Restored 1" in s.value for s in other.success)
    goto(other, "groups")
    assert any("tau=0.25" in c.value for c in other.caption)
    wrong = data.replace(b'"fingerprint": "', b'"fingerprint": "00')
    third = start(digits)
    third.file_uploader(key="session_load").set_value(("s.json", wrong, "application/json")).run()
    assert any("load that dataset first" in e.value for e in third.error)


def test_pages_without_a_target_say_so_and_unsupervised_ones_work():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 8))
    X[:, 1] = X[:, 0] + 0.01 * rng.normal(size=60)
    data = pd.DataFrame(X, columns=[f"c{i}" for i in range(8)]).to_csv(index=False).encode()
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("nolabel.csv", data, "text/csv")).run()
    assert not at.exception and not at.error
    at = goto(at, "groups")
    assert any("No target column: GDM runs one-class" in i.value for i in at.info)
    assert not at.error, [e.value for e in at.error]
    assert any("one_class=True" in c.value for c in at.caption)
    goto(at, "online")
    assert any("has none" in i.value for i in at.info) and not at.error
    goto(at, "grm")
    base = next(s for s in at.selectbox if s.label == "base score")
    unsupervised = {fc.method(n).label for n in fc.score_methods() if not fc.method(n).supervised}
    assert set(base.options) == unsupervised
    assert not at.exception and not at.error


def test_a_feature_that_gives_the_target_away_is_flagged():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    frame = pd.DataFrame(X, columns=[f"gene{i}" for i in range(4)])
    y = np.where(rng.random(80) > 0.5, "glioma", "normal")
    frame["code"] = (y == "glioma").astype(int) * 7.0  # a recoding of the target
    frame["diagnosis"] = y
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(
        ("leak.csv", frame.to_csv(index=False).encode(), "text/csv")
    ).run()
    assert any(
        w.value.startswith("Possible target leakage: 1 feature predict") and "code" in w.value
        for w in at.warning
    )
    roles = [d.value for d in at.dataframe if "role" in d.value.columns][-1]  # the columns as loaded
    assert roles.set_index("column").loc["code", "role"] == "feature: possible leak"
    assert roles.set_index("column").loc["diagnosis", "role"] == "target"


def test_correlation_explorer_pairs_and_correlations(digits):
    at = goto(start(digits), "correlation_sparsity")
    assert not at.exception and not at.error
    pairs = next(d.value for d in at.dataframe if "feature A" in d.value.columns)
    assert len(pairs) == 50 and (pairs["rho"].abs().diff().dropna() <= 1e-12).all()
    titles = [
        figure(at, i)["layout"].get("title", {}).get("text", "") for i in range(len(at.get("plotly_chart")))
    ]
    assert len(titles) >= 3
    at.radio(key="cx_method").set_value("spearman").run()
    assert not at.exception and not at.error
    at.selectbox(key="cx_against").set_value(28).run()
    assert not at.exception and not at.error


def test_stability_page_resamples_a_selection(digits):
    at = goto(start(digits), "groups")
    at = goto(at, "stability")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert 0.0 <= float(metric(at, "Jaccard index")) <= 1.0
    assert len(at.get("plotly_chart")) == 2  # features, and GDM groups


def test_which_group_is_a_feature_in(digits):
    at = goto(start(digits), "groups")
    at.selectbox(key="find_feature").set_value(0).run()  # pixel_0_0 is constant: in no group
    assert any("is in no group" in i.value for i in at.info)
    at.toggle(key="gdm_table").set_value(True).run()
    groups = next(d.value for d in at.dataframe if "support feature" in d.value.columns)
    af = groups[groups["role"] == "AF"].iloc[0]
    at.selectbox(key="find_feature").set_value(int(af["index"])).run()
    assert any(f"group of {af['support feature']}" in s.value for s in at.success)


def test_why_not_this_feature_names_the_stand_in_and_the_reason(digits):
    at = goto(start(digits), "groups")
    at.toggle(key="gdm_table").set_value(True).run()
    groups = next(d.value for d in at.dataframe if "support feature" in d.value.columns)
    af = groups[groups["role"] == "AF"].iloc[0]
    at.selectbox(key="why_gdm").set_value(int(af["index"])).run()
    assert not at.exception
    assert metric(at, "stand-in") == af["support feature"]
    assert metric(at, "correlation (ρ)") == f"{af['|rho| to SF']:+.3f}"
    assert any(f"Why: affiliated to SF {af['support feature']}" in i.value for i in at.info)
    fig = figure(at, len(at.get("plotly_chart")) - 1)  # the feature against its stand-in, by class
    assert fig["layout"]["title"]["text"].startswith(f"{af['name']} against its stand-in")
    assert len(fig["data"]) == 2


def test_stability_page_counts_by_groups_too(digits):
    at = goto(start(digits), "grm")
    at = goto(at, "stability")
    button(at, "Resample").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    per_feature, by_groups = float(metric(at, "Jaccard index")), float(metric(at, "Jaccard, by groups"))
    assert 0.0 <= per_feature <= by_groups <= 1.0
    assert any("count as the same" in c.value for c in at.caption)


def test_two_sessions_with_the_same_bytes_see_only_their_own_names_and_shapes():
    """Regression: summaries and image panels were keyed by content only, so one session saw
    the other's file name and image shape."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(30, 16)), columns=[f"p{i}" for i in range(16)])
    frame["label"] = np.arange(30) % 2
    data = frame.to_csv(index=False).encode()
    sessions = {}
    for who, shape in (("alice", "4x4"), ("bob", "2x8")):
        at = start()
        at.text_input(key="shape").set_value(shape).run()
        at.radio(key="source").set_value("Upload").run()
        at.file_uploader(key="upload").set_value((f"{who}.csv", data, "text/csv")).run()
        sessions[who] = at
    for who, at in sessions.items():
        at.run()
        assert any(s.value == f"Summary of {who}" for s in at.subheader), [s.value for s in at.subheader]
        assert any(f"Active: **{who}**" in c.value for c in at.sidebar.caption)
    alice = goto(sessions["alice"], "image_masks")
    bob = goto(sessions["bob"], "image_masks")
    shape_of = {
        n: {str(t["z"]["shape"]).replace(" ", "") for t in figure(at)["data"] if t["type"] == "image"}
        for n, at in (("alice", alice), ("bob", bob))
    }
    assert shape_of["alice"] == {"4,4,3"} and shape_of["bob"] == {"2,8,3"}


def test_an_internal_error_in_a_run_is_a_message_with_details(digits, monkeypatch):
    from fsviz.select import FisherScore

    def boom(self, X, y=None):
        raise RuntimeError("kaputt")

    import fsviz_app.appkit as appkit

    monkeypatch.setattr(FisherScore, "fit", boom)
    appkit.state.result_store().data.clear()  # results of earlier tests are process-wide: compute afresh
    at = goto(start(digits), "grm")
    next(s for s in at.selectbox if s.label == "base score").set_value("fisher")
    button(at, "Run GRM").click().run()
    assert not at.exception
    assert any("internal error (RuntimeError: kaputt)" in e.value for e in at.error)
    assert any(x.label == "Details" for x in at.expander)


def test_missing_values_can_be_filled_on_upload_and_the_data_page_says_so():
    data = b"a,b,label\n1,2,0\n,3,1\n3,,0\n4,5,1\n5,6,0\n6,7,1\n"
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("gaps.csv", data, "text/csv")).run()
    # filled by default, and said so
    assert not at.error and metric(at, "samples") == "6"
    assert any(i.value.startswith("Missing values filled with the median") for i in at.info)
    # "refuse the file" refuses it, names the control, and a button applies the fix
    key = f"imp_missing_{at.session_state['upload_token']}"
    at.radio(key=key).set_value("error").run()
    assert any("Missing feature values" in e.value or "missing" in e.value for e in at.error)
    button(at, "Fill missing values with the median").click().run()
    assert not at.error and metric(at, "samples") == "6"
