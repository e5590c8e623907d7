"""fsviz.report: one self-contained HTML file of Runs, and ``fsviz report`` writing the same bytes.

The default sample session (the app's default runs on the digits sample: GDM, GRM on Fisher,
SAOLA, the |rho| histogram) is built once per module; its size, its offline-ness (plotly.js
inlined once, nothing fetched), its determinism, its escaping and its reproduce block are
checked against the Runs that made it.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz import cli
from fsviz.compute import Run
from fsviz.data import Dataset, load_sample
from fsviz.report import build_report, session_doc, session_runs, write_report

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "sample_data" / "digits-0-vs-1.npz"
CREATED = "2026-01-01T00:00:00+00:00"
DATE = re.compile(r'<span id="report-created">[^<]*</span>')


def masked(doc: str | bytes) -> str:
    text = doc.decode("utf-8") if isinstance(doc, bytes) else doc
    assert len(DATE.findall(text)) == 1, "the creation date must appear exactly once"
    return DATE.sub('<span id="report-created">DATE</span>', text)


def default_session(ds) -> list[Run]:
    """The runs the app computes by itself on the digits sample (its pages' defaults)."""
    gdm = Run(
        "gdm",
        dict(tau=0.3, n_per_iter=10, max_iter=10, C=1.0, corr="pearson", one_class=False, cv_folds=None),
    )
    base = Run("fisher", fc.score_params("fisher", 5), 0)
    grm = Run("grm", {"base": base, "n_top": min(500, ds.n_features), "gamma": 1.0, "prior_groups": []}, 0)
    saola = Run("saola", dict(alpha=0.01, delta=0.0, data="auto", chunk=200), 0)
    hist = Run("histogram", {"bins": 20, "max_features": 20_000}, 0)
    return [gdm, grm, base, saola, hist]


@pytest.fixture(scope="module")
def digits():
    return load_sample("digits-0-vs-1")


@pytest.fixture(scope="module")
def session(digits):
    return default_session(digits)


@pytest.fixture(scope="module")
def results(digits):
    """One result per Run for this module's builds on digits: the tests below compare documents,
    so each Run is computed once (the CLI tests compute theirs apart, in the CLI)."""
    store = {}

    def get(run):
        if run.key not in store:
            store[run.key] = run.execute(digits, results=get)
        return store[run.key]

    return get


@pytest.fixture(scope="module")
def report(digits, session, results):
    return build_report(digits, session, created=CREATED, results=results)


def test_default_session_report_is_small_and_offline(report):
    from plotly.offline import get_plotlyjs

    size = len(report.encode("utf-8"))
    assert size < 10_000_000, f"{size / 1e6:.1f} MB"
    assert report.count(get_plotlyjs()) == 1  # plotly.js inlined once, not per figure
    assert report.count('<script type="text/javascript">') == 1
    assert "<script src" not in report and "<link" not in report
    assert not re.search(r"https?://[^\"' ]*(cdn|fonts\.|plot\.ly)", report.replace(get_plotlyjs(), ""))
    assert "@import" not in report and "url(" not in report.split("</style>")[0].split("<style>")[1]


def test_every_run_has_its_section_figures_and_provenance(report, session, digits):
    ids = re.findall(r'<div id="([^"]+)" class="plotly-graph-div"', report)
    assert len(ids) == len(set(ids))
    expected = {
        "fig-1-tree",
        "fig-1-masks",
        "fig-2-sparsity",
        "fig-3-bump",
        "fig-4-scores",
        "fig-5-stream",
        "fig-compare",
        "fig-pca",
    }
    assert set(ids) == expected
    for run in session:
        assert html.escape(run.key) in report  # provenance: method, every parameter, seed, version
    assert digits.fingerprint in report
    assert "fsviz version" in report and "Top 20 of" in report
    assert "stratified 5-fold, linear SVM" in report  # the quality metrics come with their protocol
    # the top-k table of GDM names its support features
    gdm = session[0].execute(digits)
    first = str(digits.feature_names[gdm.support[0]])
    assert f"<td>{first}</td>" in report


def test_every_selection_lists_its_top_dropped_features_and_their_stand_ins(report, session, digits):
    assert report.count("<h3>Top dropped features and what stands in for them</h3>") == 4
    fisher = session[2]
    ex = fc.explain_run(fisher, 20).execute(digits)
    first = ex.unselected()[0]
    name, stand = digits.feature_names[first], digits.feature_names[ex.stand_in[first]]
    assert f'<td>{name}</td><td class="num">{ex.score[first]:.4g}</td><td>{stand}</td>' in report


def test_sections_come_in_a_fixed_order_whatever_the_order_of_runs(digits, session, report, results):
    shuffled = [session[i] for i in (4, 2, 0, 3, 1, 0)]  # and a duplicate
    assert build_report(digits, shuffled, created=CREATED, results=results) == report  # same bytes


def test_progress_names_each_part_in_order_and_changes_nothing(digits, session, report, results):
    """``progress`` hears every part (each run's section, the compare section, the rest) before
    it is built, with rising fractions; the document is the one built without it."""
    calls = []
    doc = build_report(
        digits, session, created=CREATED, results=results, progress=lambda f, t: calls.append((f, t))
    )
    assert doc == report
    fracs, texts = [f for f, _ in calls], [t for _, t in calls]
    n = len(session) + 2  # the five runs, the compare section, the header and reproduce block
    assert fracs == [i / n for i in range(n)]
    assert texts[0].startswith(f"Part 1 of {n}: GDM")  # sections in their fixed order of kinds
    assert [t.split(": ", 1)[0] for t in texts] == [f"Part {i} of {n}" for i in range(1, n + 1)]
    assert "compare the selections" in texts[-2] and "how to reproduce" in texts[-1]

    class Stop(BaseException):
        pass

    def stop_at_the_second(frac, text):
        if text.startswith("Part 2"):
            raise Stop  # the app's Cancel raises from its progress callback: it must not be caught

    with pytest.raises(Stop):
        build_report(digits, session, created=CREATED, results=results, progress=stop_at_the_second)


def test_date_is_the_only_difference_between_two_builds(digits, session, report, results):
    other = build_report(
        digits, session[:1] + session[4:], created="2030-05-05T05:05:05+00:00", results=results
    )
    again = build_report(digits, session[:1] + session[4:])  # computed afresh: the same document
    assert masked(other) == masked(again)
    assert masked(report) != masked(again)


def test_reproduce_block_gives_back_the_runs(report, session, digits):
    py = html.unescape(re.search(r'<pre class="code" id="reproduce-python">(.*?)</pre>', report, re.S)[1])
    scope: dict = {"Run": Run}
    runs = []
    for line in py.splitlines():
        if re.match(r"run\d+ = Run\(", line):
            exec(line, scope)  # noqa: S102 - the report's own text, checked to give the same Runs
            runs.append(scope[line.split(" = ")[0]])
    gdm, grm, fisher, saola, hist = session
    assert runs == [gdm, hist, grm, fisher, saola]  # the report's order of kinds
    assert f"assert ds.fingerprint == {digits.fingerprint!r}" in py
    cmds = html.unescape(re.search(r'<pre class="code" id="reproduce-cli">(.*?)</pre>', report, re.S)[1])
    selects = [line for line in cmds.splitlines() if line.startswith("fsviz select")]
    assert len(selects) == 4  # GDM, GRM, Fisher, SAOLA: every selection has its command line
    import shlex

    back = []
    for line in selects:
        argv = shlex.split(line)[1:]
        ns = cli._parser().parse_args(argv)
        back.append(cli._run_of(ns, digits.target_kind))
    assert set(back) == {r for r in session if r.spec.selects}
    (line,) = [line for line in cmds.splitlines() if line.startswith("fsviz histogram")]
    assert line.startswith("fsviz histogram digits-0-vs-1.npz --bins 20 --max-features 20000 --seed 0")
    assert fc.histogram_run(cli._parser().parse_args(shlex.split(line)[1:])) == hist  # the app's Run
    block = html.unescape(re.search(r'<pre class="code" id="session-json">(.*?)</pre>', report, re.S)[1])
    doc = json.loads(block)
    assert doc["dataset"]["fingerprint"] == digits.fingerprint
    assert set(session_runs(doc)) == set(session)


def test_user_strings_are_escaped():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    y = np.repeat([0, 1], 20)
    X[:, 0] += 2 * y
    names = ["<script>alert(1)</script>", "a&b", "c\"d'", "<b>bold</b>", "e", "f"]
    ds = Dataset(X, y=y, feature_names=names, name="<img src=x onerror=alert(2)>")
    doc = build_report(ds, [Run("fisher")], created=CREATED)
    assert "<script>alert(1)" not in doc and "<img src=x" not in doc and "<b>bold</b>" not in doc
    assert html.escape(names[0]) in doc  # the top-k table names the feature, escaped
    assert "&lt;img src=x onerror=alert(2)&gt;" in doc


@pytest.mark.parametrize(
    ("runs", "k", "match"),
    [
        ([], 20, "no runs to include"),
        ([Run("projection", {"features": [0, 1]})], 20, "'projection' view"),
        ([Run("fisher")], 0, "'k' .* must be an int >= 1; got 0"),
        (["fisher"], 20, "must be an fsviz.compute.Run"),
    ],
)
def test_bad_inputs_are_refused(digits, runs, k, match):
    with pytest.raises(ValueError, match=match):
        build_report(digits, runs, k=k)


def test_session_runs_refuses_what_is_not_a_session():
    with pytest.raises(ValueError, match="expected the app's JSON"):
        session_runs({"dataset": {}})
    with pytest.raises(ValueError, match="a run entry is broken"):
        session_runs({"shown": {}, "selections": [{"k": None}]})


def test_cli_report_of_a_session_file_equals_the_library(tmp_path, digits, session, report, monkeypatch):
    monkeypatch.chdir(ROOT)
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session_doc(digits, session)))
    out = tmp_path / "report.html"
    assert cli.main(["report", str(DIGITS), "--runs", str(path), "-o", str(out), "-q"]) == 0
    assert masked(out.read_bytes()) == masked(report)


def test_cli_report_with_method_options_equals_the_library(tmp_path, digits, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "grm.html"
    argv = ["report", str(DIGITS), "--method", "grm", "--base", "laplacian", "--base-param", "n_neighbors=7"]
    assert cli.main([*argv, "--param", "n_top=30", "--seed", "3", "-k", "10", "-o", str(out), "-q"]) == 0
    run = Run("grm", {"base": Run("laplacian", {"n_neighbors": 7}, 3), "n_top": 30}, 3)
    lib = tmp_path / "lib.html"
    write_report(lib, digits, [run], k=10)
    assert masked(out.read_bytes()) == masked(lib.read_bytes())
    assert "Top 10 of" in out.read_text()


def test_cli_report_errors_are_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli.main(["report", str(DIGITS), "-q"]) == 1
    assert "give --runs" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps({"dataset": {"name": "x", "fingerprint": "abc"}, "shown": {}, "selections": []})
    )
    assert cli.main(["report", str(DIGITS), "--runs", str(other), "-q"]) == 1
    err = capsys.readouterr().err
    assert "was saved on dataset 'x'" in err and err.count("\n") == 1
    assert cli.main(["report", str(DIGITS), "--method", "gdm", "--param", "nope=1", "-q"]) == 1
    assert "unknown parameter" in capsys.readouterr().err


def test_the_process_default_template_does_not_change_the_document(digits, session, report, results):
    """Streamlit sets plotly's default template to its own; the report pins plotly's."""
    import plotly.io as pio

    before = pio.templates.default
    pio.templates.default = "plotly_dark"
    try:
        dark = build_report(digits, session, created=CREATED, results=results)
    finally:
        pio.templates.default = before
    assert dark == report


BENCH = {
    "methods": ("fisher", "laplacian"),
    "ks": (5, 10),
    "classifiers": ("linear_svm",),
    "cv": 3,
    "n_repeats_kmeans": 2,
    "select_in_fold": True,
}


@pytest.mark.parametrize(
    ("sample", "runs", "figures", "text"),
    [
        (  # a continuous target: GDM's regression form, CV R² and RMSE of a ridge regression
            "diabetes",
            [Run("gdm"), Run("grm", {"base": Run("f"), "n_top": 10}), Run("saola")],
            {"fig-1-tree", "fig-2-bump", "fig-3-stream", "fig-compare", "fig-pca"},
            "CV R² and RMSE: shuffled",
        ),
        (  # the views besides selections: bootstrap stability (with GDM groups) and the benchmark
            "digits-0-vs-1",
            [
                Run("gdm"),
                Run("stability", {"of": Run("gdm"), "k": None, "n_boot": 5}),
                Run("benchmark", BENCH),
            ],
            {"fig-2-stability", "fig-2-stability-groups", "fig-3-accuracy", "fig-3-clustering"},
            "fsviz benchmark digits-0-vs-1.npz --methods fisher,laplacian --ks 5,10",
        ),
    ],
)
def test_other_targets_and_views(sample, runs, figures, text):
    ds = load_sample(sample)
    doc = build_report(ds, runs, created=CREATED)
    ids = set(re.findall(r'<div id="([^"]+)" class="plotly-graph-div"', doc))
    assert figures <= ids
    assert text in html.unescape(doc)


def test_unlabelled_data_has_no_cv_but_a_report():
    X = np.random.default_rng(0).normal(size=(50, 30))
    doc = build_report(Dataset(X, name="unlabelled"), [Run("gdm", {"one_class": True}), Run("laplacian")])
    assert "No cross-validation: the dataset has no class labels" in doc
    assert "fig-pca" in doc and "target: none" not in doc and "<td>none</td>" in doc


def test_fills_and_encodings_are_in_the_header_and_the_commands(tmp_path, monkeypatch):
    from fsviz.data import load_dataset

    rng = np.random.default_rng(1)
    frame = {f"g{i}": rng.normal(size=60) for i in range(5)}
    frame["g0"][[3, 7]] = np.nan
    frame["tissue"] = np.array(["liver", "brain", "lung"] * 20, dtype=object)
    frame["outcome"] = np.repeat(["sick", "well"], 30)
    path = tmp_path / "genes.csv"
    pd.DataFrame(frame).to_csv(path, index=False)
    with pytest.warns(Warning):
        ds = load_dataset(path, label="outcome", missing="mean", categorical="onehot")
    doc = html.unescape(build_report(ds, [Run("fisher")], created=CREATED))
    assert "Missing values filled with the column mean: 2 in 1 column(s) (g0: 2)." in doc
    assert "Text column 'tissue' one-hot encoded into 3 features" in doc
    plan = '{"label":"outcome","missing":"mean","categorical":"onehot"}'
    cmd = f"fsviz select genes.csv --plan '{plan}' --method fisher"  # the import plan, verbatim
    assert cmd in doc
    assert "load_dataset('genes.csv', label='outcome', missing='mean', categorical='onehot')" in doc
    monkeypatch.chdir(tmp_path)  # the printed command line runs where the file is
    out = tmp_path / "r.html"
    argv = ["report", "genes.csv", "--plan", plan, "--method", "fisher"]
    assert cli.main([*argv, "-o", str(out), "-q"]) == 0
    assert masked(out.read_bytes()) == masked(build_report(ds, [Run("fisher")], created=CREATED))


def test_report_tables_never_break_a_number_or_a_name_mid_token(report):
    """Numbers stay on one line (a count cut as "4,999,9 / 50" misreads), and long names
    (probe IDs) wrap only where a column cannot hold them whole: ``overflow-wrap`` does not
    shrink a column below its longest word, as ``word-break: break-word`` did."""
    css = re.search(r"<style>(.*?)</style>", report, re.S).group(1)
    rules = {sel.strip(): body for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", css)}
    assert "white-space: nowrap" in rules["td.num"]
    assert (
        "word-break" not in rules["table.wrap td"] and "overflow-wrap: break-word" in rules["table.wrap td"]
    )
    assert '<td class="num">' in report  # numbers do carry the class


def test_the_report_names_prior_groups_by_their_features_not_their_indices(digits, results):
    names = digits.feature_names
    grm = Run("grm", {"base": Run("fisher", {}), "prior_groups": [[10, 20, 30], [40, 41]]}, 0)
    doc = build_report(digits, [grm], created=CREATED, results=results)
    visible = re.sub(r'<p class="prov">.*?</p>|<pre class="code">.*?</pre>', "", doc, flags=re.S)
    visible = re.sub(
        r"<script.*?</script>|<h2 id=\"provenance\">.*?</table>.*?</table>", "", visible, flags=re.S
    )
    assert "(10, 20, 30)" not in visible and "10,20,30" not in visible
    assert "2 groups of 5 features" in visible
    assert html.escape(", ".join(str(names[i]) for i in (10, 20, 30))) in visible
