"""Bad and hostile inputs through every door: the loaders, the CLI and every selector.

The corpus: each hostile file goes through ``load_dataset`` (a ``ValueError`` naming the
problem and the fix) and through ``fsviz info`` (exit 1 and exactly one ``fsviz: error:``
line). Files that declare more data than the memory budget are refused from their
declared sizes, fast and within a few hundred MiB (checked in a subprocess). Every
selector goes through one battery (one class, one sample, NaN, inf, |x| ~ 1e200,
constant features, all constant, sparse vs dense, wrong shapes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.lib import format as npf
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_array

from fsviz import cli
from fsviz.data import load_dataset
from fsviz.data.budget import MemoryBudgetError, parse_size, resolve_budget
from fsviz.data.dataset import default_feature_names
from fsviz.select import GroupSAOLA

ROOT = Path(__file__).resolve().parents[1]
WIDE = 10_001  # more columns than the loader reads with pandas


# ----------------------------------------------------------------------------- hostile files
def _npz_forged(path: Path, key: str, shape, descr: str = "<f8", data: bytes = b"") -> None:
    """An .npz whose member ``key`` has an .npy header declaring ``shape`` (and little data)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        with zf.open(f"{key}.npy", "w") as fh:
            npf.write_array_header_1_0(fh, {"descr": descr, "fortran_order": False, "shape": tuple(shape)})
            fh.write(data)


def _npz_zero_bomb(path: Path, n_bytes: int) -> None:
    """A real compressed .npz: X is ``n_bytes`` of float64 zeros (compresses ~1000:1)."""
    m = n_bytes // 16
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        with zf.open("X.npy", "w", force_zip64=True) as fh:
            npf.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (2, m)})
            chunk = bytes(1 << 20)
            left = 16 * m
            while left:
                fh.write(chunk[: min(left, len(chunk))])
                left -= min(left, len(chunk))


def _wide_header(m: int) -> str:
    return ",".join(f"c{j}" for j in range(m)) + "\n"


def _write(tmp: Path, name: str, content) -> Path:
    p = tmp / name
    if callable(content):
        content(p)
    elif isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    return p


def _np_save_npz(**arrays):
    return lambda p: np.savez(open(p, "wb"), **arrays)  # noqa: SIM115 - np.savez closes nothing


#: (file name, content or writer, extra load_dataset kwargs, regex the message must match)
HOSTILE = [
    # --- memory: sizes declared by the file, far beyond any budget
    ("index1e9.svm", "1 1000000000:1\n0 1:2\n", {}, r"1000000000 matrix.*memory budget"),
    (
        "header1e12.svm",
        '# fsviz-svmlight {"n_features": 1000000000000}\n1 1:1\n0 2:1\n',
        {},
        r"1,000,000,000,000 features.*memory budget",
    ),
    (
        "coo1e10.npz",
        _np_save_npz(
            format=np.array("coo"),
            shape=np.array([10, 10**10]),
            data=np.ones(3),
            row=np.arange(3),
            col=np.arange(3),
        ),
        {},
        r"10 x 10,000,000,000.*memory budget",
    ),
    (
        "csr1e10.npz",
        lambda p: sp.save_npz(p, sp.csr_matrix((3, 3))) or _rewrite_shape(p, [3, 10**10]),
        {},
        r"3 x 10,000,000,000.*memory budget",
    ),
    ("claims4GiB.npz", lambda p: _npz_forged(p, "X", (2, 1 << 28)), {}, r"2 x 268,435,456.*memory budget"),
    ("claims1e15.npz", lambda p: _npz_forged(p, "X", (10**6, 10**9)), {}, r"memory budget"),
    ("zerobomb.npz", lambda p: _npz_zero_bomb(p, 64 << 20), {"memory_budget": "16M"}, r"memory budget of 16"),
    (
        "wide_budget.csv",
        lambda p: p.write_text(_wide_header(200_000) + ",".join(["1"] * 200_000) + "\n"),
        {"memory_budget": "8M"},
        r"200,000 columns.*memory budget",
    ),
    ("tall_budget.csv", "a,b\n" + "1,2\n" * 50_000, {"memory_budget": "100K"}, r"memory budget"),
    ("bigfile.csv", "a,b\n" + "1,2\n" * 1000, {"memory_budget": 1000}, r"the file itself.*memory budget"),
    # --- CSV / TSV
    ("empty.csv", b"", {}, r"empty \(0 bytes\)"),
    ("header_only.csv", "a,b,c\n", {}, r"no data rows|holds no data"),
    ("blank_header.csv", "\n1,2\n", {}, r"header\) is empty"),
    ("dups.csv", "a,a\n1,2\n", {}, r"duplicated column name"),
    ("text.csv", "a,b,c\n1,x,u\n2,3,v\n3,y,w\n", {}, r"non-numeric feature column"),
    ("nan.csv", "a,b\n1,NA\n3,4\n", {}, r"NaN"),
    ("inf.csv", "a,b\n1,inf\n3,4\n", {}, r"inf"),
    ("ragged.csv", "a,b\n1,2,3\n4,5\n", {}, r"could not read|fields|finite"),
    ("binary.csv", bytes(range(256)) * 4, {}, r"UTF-8|could not read"),
    ("nolabel.csv", "a,b\n1,2\n3,4\n", {"label": "nope"}, r"label column 'nope' not found"),
    ("onlylabel.csv", "class\nx\ny\n", {}, r"no feature columns"),
    ("missinglabel.csv", "a,class\n1,x\n2,\n", {}, r"missing label"),
    (
        "wide_text.csv",
        lambda p: p.write_text(_wide_header(WIDE) + ",".join(["1"] * (WIDE - 1) + ["x"]) + "\n"),
        {"label": None},
        r"non-numeric feature column 'c10000'",
    ),
    ("wide_ragged.csv", lambda p: p.write_text(_wide_header(WIDE) + "1,2\n"), {}, r"row 0 has 2 fields"),
    (
        "wide_nan.csv",
        lambda p: p.write_text(
            _wide_header(WIDE) + ",".join(["NA"] + ["1"] * (WIDE - 1)) + "\n" + ",".join(["2"] * WIDE) + "\n"
        ),
        {"label": None},
        r"NaN",
    ),
    ("wide_empty.csv", lambda p: p.write_text(_wide_header(WIDE)), {}, r"no data rows"),
    # --- LIBSVM / svmlight
    ("garbage.svm", "1 a:b\n", {}, r"could not read.*LIBSVM"),
    ("neg_header.svm", '# fsviz-svmlight {"n_features": -5}\n1 1:1\n', {}, r"n_features=-5"),
    ("str_header.svm", '# fsviz-svmlight {"n_features": "many"}\n1 1:1\n', {}, r"n_features='many'"),
    ("truncated.svm", '# fsviz-svmlight {"n_samples": 5}\n1 1:1\n0 2:1\n', {}, r"truncated or damaged"),
    ("nan.svm", "1 1:nan\n0 2:1\n", {}, r"NaN"),
    # --- .npz
    ("notzip.npz", b"hello, not a zip", {}, r"not a zip archive"),
    (
        "pickle.npz",
        lambda p: np.savez(open(p, "wb"), X=np.array([[1, 2]], dtype=object)),
        {},
        r"object arrays",
    ),  # noqa: SIM115
    ("onedim.npz", _np_save_npz(X=np.arange(5.0)), {}, r"must be 2-D"),
    ("strings.npz", _np_save_npz(X=np.array([["a", "b"]])), {}, r"must be numeric"),
    ("noX.npz", _np_save_npz(Z=np.ones((2, 2))), {}, r"no feature matrix"),
    ("npy.npz", lambda p: np.save(open(p, "wb"), np.ones((2, 2))), {}, r"single .npy array"),  # noqa: SIM115
    ("ylen.npz", _np_save_npz(X=np.ones((3, 2)), y=np.arange(2)), {}, r"2 labels but 3 samples"),
    ("inf.npz", _np_save_npz(X=np.array([[1.0, np.inf], [2.0, 3.0]])), {}, r"inf"),
    (
        "badsparse.npz",
        _np_save_npz(format=np.array("dia"), shape=np.array([2, 2]), data=np.ones(2)),
        {},
        r"not supported|could not read",
    ),
    # --- .mat, Parquet, unknown
    ("garbage.mat", b"MATLAB 5.0 MAT-file garbage" + bytes(200), {}, r"could not read|MATLAB"),
    ("v73.mat", b"MATLAB 7.3 MAT-file" + bytes(600), {}, r"v7.3"),
    ("garbage.parquet", b"PAR1" + bytes(100), {}, r"could not read.*Parquet"),
    ("mystery.bin", bytes(range(256)), {}, r"cannot tell the format"),
]


def _rewrite_shape(path: Path, shape) -> None:
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["shape"] = np.array(shape)
    np.savez(open(path, "wb"), **arrays)  # noqa: SIM115


@pytest.mark.parametrize("name, content, kwargs, match", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_file_through_load_dataset(tmp_path, name, content, kwargs, match):
    p = _write(tmp_path, name, content)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=match) as info:
            load_dataset(p, **kwargs)
    msg = str(info.value)
    assert msg.startswith("load_dataset") or "load_dataset" in msg
    if "memory budget" in match:
        assert isinstance(info.value, MemoryBudgetError) and "Fix:" in msg


def _cli_args(kwargs: dict) -> list[str]:
    out = []
    if "memory_budget" in kwargs:
        out += ["--memory-budget", str(kwargs["memory_budget"])]
    if "label" in kwargs and kwargs["label"] is not None:
        out += ["--label", kwargs["label"]]
    return out


@pytest.mark.parametrize("name, content, kwargs, match", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_file_through_cli(tmp_path, capsys, name, content, kwargs, match):
    if kwargs.get("label", "auto") is None:
        pytest.skip("the CLI has no --label none")  # covered by the library door
    p = _write(tmp_path, name, content)
    code = cli.main(["info", str(p), *_cli_args(kwargs)])
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.startswith("fsviz: error:")]
    assert code == 1, err
    assert len(lines) == 1 and "Traceback" not in err, err
    assert out == ""


# ----------------------------------------------------------------------------- memory, measured
_PROBE = textwrap.dedent(
    """
    import json, resource, sys, time
    import numpy, scipy.sparse, sklearn.datasets  # imports are not the load's memory
    from fsviz.data import load_dataset
    r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for path in sys.argv[1:]:
        t = time.perf_counter()
        try:
            load_dataset(path)
            kind, msg = "loaded", ""
        except Exception as e:
            kind, msg = type(e).__name__, str(e)
        # the peak since the imports: at least this load's own growth
        grow = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024
        print(json.dumps({"path": path, "kind": kind, "msg": msg, "mib": grow, "s": time.perf_counter() - t}))
    """
)
_MEMORY_CASES = ["index1e9.svm", "header1e12.svm", "coo1e10.npz", "claims4GiB.npz"]


@pytest.fixture(scope="module")
def memory_reports(tmp_path_factory) -> dict:
    """Each memory case loaded in one fresh Python, in turn (one interpreter start for the four):
    name -> its report; a report's peak growth counts every load before it too."""
    folder = tmp_path_factory.mktemp("memory")
    paths = [_write(folder, name, next(h[1] for h in HOSTILE if h[0] == name)) for name in _MEMORY_CASES]
    env = dict(os.environ, PYTHONPATH=str(ROOT), FSVIZ_MEMORY_BUDGET="")
    res = subprocess.run(
        [sys.executable, "-c", _PROBE, *map(str, paths)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert res.returncode == 0, res.stderr
    reports = [json.loads(line) for line in res.stdout.strip().splitlines()[-len(paths) :]]
    return {name: rep for name, rep in zip(_MEMORY_CASES, reports, strict=True)}


@pytest.mark.parametrize("name", _MEMORY_CASES)
def test_memory_cases_fail_fast_and_small(memory_reports, name):
    """The issue's memory blow-ups: a clean MemoryBudgetError, < 300 MiB peak growth, in seconds."""
    rep = memory_reports[name]
    assert rep["path"].endswith(name)
    assert rep["kind"] == "MemoryBudgetError", rep
    assert "memory budget" in rep["msg"] and "Fix:" in rep["msg"]
    assert rep["mib"] < 300, rep
    assert rep["s"] < 20, rep


def test_wide_csv_reads_without_pandas_and_matches_narrow(tmp_path):
    """Past 10,000 columns the CSV is read row by row; same values, names and labels."""
    rng = np.random.default_rng(0)
    m = WIDE + 5
    X = rng.normal(size=(4, m))
    labels = ["a", "b", "a", "b"]
    lines = [",".join([f"c{j}" for j in range(m)] + ["class"])]
    lines += [",".join([repr(float(v)) for v in X[i]] + [labels[i]]) for i in range(4)]
    p = tmp_path / "wide.csv"
    p.write_text("\n".join(lines) + "\n")
    ds = load_dataset(p)
    np.testing.assert_array_equal(ds.X, X)  # bit for bit
    assert ds.feature_names[-1] == f"c{m - 1}" and ds.labels.tolist() == labels
    # last column non-numeric without a label name: the label, as for narrow files
    p2 = tmp_path / "wide2.csv"
    p2.write_text("\n".join(ln.replace(",class", ",kind") for ln in lines) + "\n")
    ds2 = load_dataset(p2)
    assert ds2.n_features == m and ds2.labels.tolist() == labels
    # numeric last column stays a feature
    p3 = tmp_path / "wide3.csv"
    p3.write_text(
        "\n".join([lines[0].replace(",class", ",kind")] + [ln.rsplit(",", 1)[0] + ",7" for ln in lines[1:]])
        + "\n"
    )
    assert load_dataset(p3, label=None).n_features == m + 1
    assert load_dataset(p3).n_features == m + 1


def test_wide_csv_through_cli(tmp_path, capsys):
    m = 30_000
    p = tmp_path / "wide.csv"
    p.write_text(
        _wide_header(m) + "\n".join(",".join(str((i + j) % 3) for j in range(m)) for i in range(3)) + "\n"
    )
    assert cli.main(["info", str(p), "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["n_features"] == m


def test_budget_argument_parsing_and_switch_off(tmp_path):
    assert parse_size("1.5K") == 1536 and parse_size("none") == 0 and parse_size(7) == 7
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")
    with pytest.raises(ValueError, match="not a size"):
        load_dataset(
            tmp_path / "x.csv" if (tmp_path / "x.csv").write_text("a\n1\n2\n") else None, memory_budget="lots"
        )
    assert resolve_budget(None) >= 256 << 20
    p = tmp_path / "t.csv"
    p.write_text("a,b\n" + "1,2\n3,4\n" * 100)
    with pytest.raises(MemoryBudgetError):
        load_dataset(p, memory_budget="1K")
    assert load_dataset(p, memory_budget="none").n_samples == 200
    assert load_dataset(p, memory_budget=0).n_samples == 200


def test_budget_env_variable(tmp_path, monkeypatch):
    p = tmp_path / "t.csv"
    p.write_text("a,b\n" + "1,2\n3,4\n" * 100)
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "1K")
    with pytest.raises(MemoryBudgetError, match="1.0 KiB"):
        load_dataset(p)


def test_default_feature_names_checks_the_budget():
    with pytest.raises(MemoryBudgetError, match="default names for 1,000,000,000,000 features"):
        default_feature_names(10**12)
    assert default_feature_names(3).tolist() == ["f0", "f1", "f2"]


def test_dataset_of_huge_sparse_matrix_is_refused():
    from fsviz.data import Dataset

    with pytest.raises(MemoryBudgetError):
        Dataset(sp.csr_matrix((2, 10**11)))


def test_cli_memory_error_is_one_line(monkeypatch, tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text("a,b\n1,2\n3,4\n")

    def boom(*a, **k):
        raise MemoryError()

    monkeypatch.setattr("fsviz.data.load_dataset", boom)
    assert cli.main(["info", str(p)]) == 1
    err = capsys.readouterr().err
    assert err.count("fsviz: error:") == 1 and "ran out of memory" in err


def test_loader_memory_error_becomes_memory_budget_error(monkeypatch, tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,b\n1,2\n3,4\n")

    def boom(*a, **k):
        raise MemoryError()

    monkeypatch.setattr("fsviz.data.parsed.run_reader", boom)  # the registered reader's call
    with pytest.raises(MemoryBudgetError, match="ran out of memory"):
        load_dataset(p)


def test_cli_internal_error_keeps_the_error_prefix(monkeypatch, tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text("a,b\n1,2\n3,4\n")

    def boom(*a, **k):
        raise RuntimeError("kaputt\nsecond line")

    monkeypatch.setattr("fsviz.data.load_dataset", boom)
    assert cli.main(["info", str(p)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "fsviz: error: internal error: RuntimeError: kaputt second line"
    )


# ----------------------------------------------------------------------------- CLI: selectors
def _csv(tmp_path: Path, X, y, name="d.csv") -> Path:
    p = tmp_path / name
    head = ",".join(f"g{j}" for j in range(X.shape[1])) + ",label\n"
    p.write_text(
        head + "".join(",".join(map(repr, map(float, r))) + f",{int(c)}\n" for r, c in zip(X, y, strict=True))
    )
    return p


@pytest.mark.parametrize("method", ["mrmr", "fcbf", "fisher", "relieff", "saola", "gdm"])
def test_cli_supervised_method_refuses_one_class(tmp_path, capsys, method):
    rng = np.random.default_rng(1)
    p = _csv(tmp_path, rng.normal(size=(20, 4)), np.zeros(20))
    assert cli.main(["select", "--method", method, str(p), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("fsviz: error:") == 1 and "class" in err


@pytest.mark.parametrize("method", ["fisher", "f", "variance", "laplacian", "mcfs", "lgd"])
def test_cli_extreme_magnitudes_rank_like_plain_data(tmp_path, capsys, method):
    X, y = _data()
    p1 = _csv(tmp_path, X, y, "plain.csv")
    p2 = _csv(tmp_path, X * 2.0**660, y, "huge.csv")  # ~1e199, a power of two: exactly the same ranking
    assert cli.main(["select", "--method", method, str(p1), "-q", "-o", str(tmp_path / "a.csv")]) == 0
    assert cli.main(["select", "--method", method, str(p2), "-q", "-o", str(tmp_path / "b.csv")]) == 0
    a = [ln.split(",")[1] for ln in (tmp_path / "a.csv").read_text().splitlines()[1:]]
    b = [ln.split(",")[1] for ln in (tmp_path / "b.csv").read_text().splitlines()[1:]]
    assert a == b


# ----------------------------------------------------------------------------- selector battery
def _data(n=40, m=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = (X[:, 2] > 0).astype(int)
    X[:, 2] += 2 * y
    return X, y


def _selectors():
    from fsviz.select import (
        CFS,
        CIFE,
        CMIM,
        DISR,
        FCBF,
        GDM,
        ICAP,
        JMI,
        LGD,
        MCFS,
        MIFS,
        MRMR,
        SAOLA,
        ChiSquare,
        FisherScore,
        FScore,
        GiniIndex,
        GroupSAOLA,
        LaplacianScore,
        MutualInfo,
        ReliefF,
        TScore,
        VarianceScore,
    )

    # name: (factory, supervised, needs non-negative X)
    return {
        "FisherScore": (FisherScore, True, False),
        "FScore": (FScore, True, False),
        "ChiSquare": (ChiSquare, True, True),
        "MutualInfo": (MutualInfo, True, False),
        "ReliefF": (ReliefF, True, False),
        "MRMR": (lambda: MRMR(n_features=3), True, False),
        "FCBF": (FCBF, True, False),
        "MIFS": (lambda: MIFS(n_features=3), True, False),
        "CIFE": (lambda: CIFE(n_features=3), True, False),
        "JMI": (lambda: JMI(n_features=3), True, False),
        "CMIM": (lambda: CMIM(n_features=3), True, False),
        "ICAP": (lambda: ICAP(n_features=3), True, False),
        "DISR": (lambda: DISR(n_features=3), True, False),
        "CFS": (CFS, True, False),
        "TScore": (TScore, True, False),
        "GiniIndex": (GiniIndex, True, False),
        "GDM": (lambda: GDM(max_iter=2, n_per_iter=2), True, False),
        "SAOLA": (SAOLA, True, False),
        "GroupSAOLA": (GroupSAOLA, True, False),
        "VarianceScore": (VarianceScore, False, False),
        "LGD": (LGD, False, False),
        "LaplacianScore": (LaplacianScore, False, False),
        "MCFS": (MCFS, False, False),
        "GDM-one-class": (lambda: GDM(one_class=True, max_iter=2, n_per_iter=2), False, False),
    }


SELECTORS = list(_selectors())


def _fit(name, X, y):
    factory, supervised, _ = _selectors()[name]
    est = factory()
    kwargs = {"groups": np.arange(np.shape(X)[-1]) // 4} if name == "GroupSAOLA" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y if supervised else None, **kwargs) if supervised else est.fit(X)


def _prep(name, X):
    return np.abs(X) if _selectors()[name][2] else X


def _order(est):
    if hasattr(est, "ranking_"):
        return np.argsort(est.ranking_, kind="stable")
    return np.asarray(est.get_support(indices=True))


@pytest.mark.parametrize("name", SELECTORS)
def test_battery_one_class(name):
    X, y = _data()
    X = _prep(name, X)
    if _selectors()[name][1]:
        with pytest.raises(ValueError, match="class"):
            _fit(name, X, np.zeros_like(y))
    else:
        assert np.isfinite(np.asarray(_fit(name, X, None).scores_, dtype=float)).all()


@pytest.mark.parametrize("name", SELECTORS)
def test_battery_one_sample(name):
    X, y = _data()
    with pytest.raises(ValueError):
        _fit(name, _prep(name, X)[:1], y[:1])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("name", SELECTORS)
def test_battery_non_finite(name, bad):
    X, y = _data()
    X = _prep(name, X)
    X[3, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity|inf"):
        _fit(name, X, y)


@pytest.mark.parametrize("scale", [2.0**660, 1e200, 1e-200], ids=["2^660", "1e200", "1e-200"])
@pytest.mark.parametrize("name", SELECTORS)
def test_battery_extreme_magnitudes(name, scale):
    """Scores stay finite and the informative feature keeps its place at |x| ~ 1e200."""
    X, y = _data()
    X = _prep(name, X)
    ref = _fit(name, X, y)
    est = _fit(name, X * scale, y)
    if hasattr(est, "scores_"):
        assert np.isfinite(np.asarray(est.scores_, dtype=float)).all()
    if (
        scale == 2.0**660 or scale == 1e-200 and name != "MutualInfo"
    ):  # exact (power of two) or nearly: exactly the same computation, scaled
        np.testing.assert_array_equal(_order(est), _order(ref))
    elif name not in ("LGD", "MCFS", "LaplacianScore", "VarianceScore", "GDM-one-class"):
        assert _order(est)[0] == _order(ref)[0] == 2


@pytest.mark.parametrize("name", SELECTORS)
def test_battery_constant_features(name):
    X, y = _data()
    X = np.c_[_prep(name, X), np.full(len(X), 3.0)]
    est = _fit(name, X, y)
    if hasattr(est, "scores_"):
        assert np.isfinite(np.asarray(est.scores_, dtype=float)).all()
    if hasattr(est, "ranking_") and name not in ("MRMR", "FCBF", "SAOLA", "GroupSAOLA", "ReliefF"):
        assert est.ranking_[-1] == X.shape[1]  # the constant feature ranks last


@pytest.mark.parametrize("name", SELECTORS)
def test_battery_all_constant(name):
    X, y = _data()
    try:
        est = _fit(name, np.ones_like(X), y)
    except ValueError as e:
        assert "constant" in str(e).lower()
        return
    if hasattr(est, "scores_"):
        assert np.isfinite(np.asarray(est.scores_, dtype=float)).all()


#: selectors whose sparse and dense results may differ, and why (none since MCFS runs one LARS
#: path for both storages, issue 22)
SPARSE_DENSE_DIFFER: dict[str, str] = {}


@pytest.mark.parametrize("name", SELECTORS)
def test_battery_sparse_matches_dense(name):
    X, y = _data()
    X = _prep(name, X)
    X[np.abs(X) < 0.5] = 0.0
    if name in SPARSE_DENSE_DIFFER:
        pytest.xfail(SPARSE_DENSE_DIFFER[name])
    d = _fit(name, X, y)
    s = _fit(name, sp.csr_matrix(X), y)
    np.testing.assert_array_equal(_order(s), _order(d))


@pytest.mark.parametrize("name", SELECTORS)
def test_battery_wrong_shapes(name):
    X, y = _data()
    X = _prep(name, X)
    with pytest.raises(ValueError):
        _fit(name, X[:, 0], y)  # 1-D X
    with pytest.raises(ValueError):
        _fit(name, X.reshape(2, -1, X.shape[1]), y)  # 3-D X
    if _selectors()[name][1]:
        with pytest.raises(ValueError, match="inconsistent|samples"):
            _fit(name, X, y[:-1])


@pytest.mark.parametrize(
    "case",
    ["nan", "one_sample", "scores_len", "huge"],
)
def test_battery_grm(case):
    from fsviz.select import GRM, FisherScore

    X, y = _data()
    s = FisherScore().fit(X, y).scores_
    grm = GRM(n_top=8, n_features=3)
    if case == "nan":
        X[0, 0] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            grm.fit(X, s)
    elif case == "one_sample":
        with pytest.raises(ValueError, match="sample"):
            grm.fit(X[:1], s)
    elif case == "scores_len":
        with pytest.raises(ValueError, match="one score per feature"):
            grm.fit(X, s[:-1])
    else:
        ref = GRM(n_top=8, n_features=3).fit(X, s)
        est = grm.fit(X * 2.0**660, s)
        assert np.isfinite(est.scores_).all()
        np.testing.assert_array_equal(est.get_support(), ref.get_support())


# ----------------------------------------------------------------------------- scikit-learn checks


class GroupSAOLAPairs(GroupSAOLA):
    """GroupSAOLA streaming consecutive pairs of columns when ``fit`` gets no ``groups``.

    scikit-learn's checks call ``fit(X, y)``; GroupSAOLA requires ``groups`` (no silent
    default), so the checks run on this subclass, which only fills in ``groups``: every
    other line is GroupSAOLA's.
    """

    def fit(self, X, y, groups=None):
        if groups is None:
            m = check_array(X, accept_sparse=True, ensure_all_finite=False, dtype=None).shape[1]
            groups = np.arange(m) // 2
        return super().fit(X, y, groups=groups)


@parametrize_with_checks([GroupSAOLAPairs()])
def test_group_saola_sklearn_conventions(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------- the app's upload door
#: files the app reads by its import defaults (the library refuses them with its own defaults);
#: tests/test_app_user_files.py and test_app_pages.py check what the Data page says about each
APP_READS = {
    "nan.csv": "the app fills missing feature values with the median by default, and says so",
    "nan.svm": "the app fills missing feature values with the median by default, and says so",
    "missinglabel.csv": "the app leaves out rows without a target by default, and says so",
    "dups.csv": "the import plan proposes suffixing the repeated names (shown and editable on the "
    "Data page) instead of refusing the file",
    "wide_ragged.csv": "its one row leaves every other column empty: the app ignores all-empty "
    "columns (listed under 'Left out')",
}


#: the app door's cases in ``make test``: one per format and hazard (declared sizes, width, empty,
#: ragged, binary, pickles, a crashing reader); every case runs through the library and CLI doors,
#: and all of them through the app in the full suite (``make test-all``)
APP_DOOR_CASES = frozenset(
    {
        "claims4GiB.npz", "wide_budget.csv", "empty.csv", "ragged.csv", "binary.csv", "garbage.svm",
        "pickle.npz", "garbage.mat", "garbage.parquet", "mystery.bin",
    }
)  # fmt: skip


@pytest.mark.parametrize(
    "name, content, kwargs, match",
    [pytest.param(*h, id=h[0], marks=() if h[0] in APP_DOOR_CASES else pytest.mark.slow) for h in HOSTILE],
)
def test_hostile_file_through_the_app_upload(tmp_path, monkeypatch, name, content, kwargs, match):
    """Every hostile file uploaded in the app: st.error (never an exception box), no dataset
    active, and the session still usable (a sample loads again)."""
    from streamlit.testing.v1 import AppTest

    if kwargs.get("label", "auto") != "auto":
        pytest.skip("the app's target picker offers only the file's own columns; library door covers it")
    if name == "text.csv":
        pytest.skip("the app's picker suggests the text column as the target: a valid reading, no error")
    if name in APP_READS:
        pytest.skip(APP_READS[name])
    data = _write(tmp_path, name, content).read_bytes()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.radio(key="source").set_value("Upload").run()
    if "memory_budget" in kwargs:  # for the upload only: the sample loads again afterwards
        monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", str(kwargs["memory_budget"]))
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream")).run()
    monkeypatch.delenv("FSVIZ_MEMORY_BUDGET", raising=False)
    assert not at.exception, [e.value for e in at.exception]
    assert at.error and "dataset_key" not in at.session_state
    at.radio(key="source").set_value("Sample").run()
    assert not at.exception and "dataset_key" in at.session_state and not at.main.error


# ---------------------------------------------------------------------------- crash isolation
def test_a_reader_crash_in_the_sandbox_is_an_error_not_a_dead_process():
    import os as _os

    from fsviz.data.sandbox import ChildCrashed, run_isolated

    with pytest.raises(ChildCrashed, match=r"the reader crashed \(signal 6\)"):
        run_isolated(_os.abort)
    with pytest.raises(ZeroDivisionError):  # an exception in the child comes back as it is
        run_isolated(divmod, 1, 0)
    assert run_isolated(divmod, 7, 2) == (3, 1)


def test_sandboxed_mat_loads_the_same_and_damage_is_a_value_error(tmp_path):
    import scipy.io as sio

    p = tmp_path / "ok.mat"
    sio.savemat(p, {"X": np.arange(12.0).reshape(4, 3), "Y": np.array([[1], [2], [1], [2]])})
    plain, boxed = load_dataset(p), load_dataset(p, sandbox=True)
    assert plain.fingerprint == boxed.fingerprint
    raw = bytearray(p.read_bytes())
    raw[200:260] = b"\xff" * 60
    bad = tmp_path / "bad.mat"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="load_dataset: 'bad.mat'"):  # damaged values or structure
        load_dataset(bad, sandbox=True)
