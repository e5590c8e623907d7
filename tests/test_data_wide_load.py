"""The reader at width: missing-value fills and dtype conversion over column blocks, not per column.

The vectorised paths must give what the per-column code gave, bit for bit: the references
below are that code, kept here.
"""

import io
import warnings

import numpy as np
import pandas as pd
import pytest

from fsviz.data import DataWarning, impute, load_dataset


def reference_impute(X, names, strategy: str, indicator: bool):
    """The per-column fill (one mean/median per column), as the reader did it before."""
    counts, fills, all_missing, indicators = {}, {}, [], []
    nan_cols = np.flatnonzero(np.isnan(X).any(axis=0))
    if len(nan_cols):
        X = np.array(X, dtype=np.float64)
    for j in nan_cols:
        col = X[:, j]
        miss = np.isnan(col)
        ok = col[np.isfinite(col)]
        if ok.size == 0:
            all_missing.append(str(names[j]))
            continue
        fill = float(ok.mean() if strategy == "mean" else np.median(ok))
        if indicator:
            indicators.append((f"{names[j]}=missing", np.flatnonzero(miss)))
        col[miss] = fill
        counts[str(names[j])] = int(miss.sum())
        fills[str(names[j])] = fill
    return X, counts, fills, all_missing, indicators


def holey(n: int, m: int, seed: int) -> np.ndarray:
    """Values on many scales with NaNs (some columns mostly missing), infinities, signed zeros,
    repeats and constant columns: everything a fill can trip on."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, m)) * 10.0 ** rng.integers(-6, 7, size=m)
    X[:, ::7] = np.round(X[:, ::7])  # repeated values: ties at the median
    X[:, 3::11] = 2.5  # constant
    X[rng.random((n, m)) < 0.5 * rng.random(m)] = np.nan  # per-column rates from 0 to 50 %
    X[:, 5::13] = np.where(rng.random((n, len(range(5, m, 13)))) < 0.5, -0.0, 0.0)
    X[: n // 2, 5::13] = np.nan
    X[rng.random((n, m)) < 0.002] = np.inf
    return X


@pytest.mark.parametrize("strategy", ["mean", "median"])
@pytest.mark.parametrize(
    ("n", "m", "seed"), [(3, 40, 0), (2, 50, 1), (9, 300, 2), (64, 500, 3), (301, 97, 4)]
)
def test_block_fills_equal_the_per_column_reference(monkeypatch, strategy, n, m, seed):
    monkeypatch.setattr(impute, "_FILL_BLOCK_BYTES", 8 * n * 7)  # blocks of 7 columns: many blocks
    X = holey(n, m, seed)
    X[:, np.isnan(X).all(axis=0)] = 1.0  # an all-missing column is an error, tested below
    names = np.array([f"f{j}" for j in range(m)], dtype=object)
    ref, counts, fills, _, ind = reference_impute(X, names, strategy, True)
    got, report = impute.impute_missing(X, names, strategy, True, "t")
    assert got.tobytes() == ref.tobytes()  # bit for bit, signed zeros included
    assert report["counts"] == counts and list(report["counts"]) == list(counts)
    assert np.array_equal(np.array(list(report["fill"].values())), np.array(list(fills.values())))
    assert [a for a, _ in report["indicator_columns"]] == [a for a, _ in ind]
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(report["indicator_columns"], ind, strict=True))
    Xi, _ = impute.append_indicators(got, names, report["indicator_columns"])
    for k, (_, rows) in enumerate(ind):
        assert np.array_equal(np.flatnonzero(Xi[:, m + k]), rows)
    assert Xi[:, m:].sum() == sum(len(r) for _, r in ind)


def test_all_missing_columns_are_named_in_order(monkeypatch):
    monkeypatch.setattr(impute, "_FILL_BLOCK_BYTES", 8 * 5 * 2)
    X = np.ones((5, 9))
    X[:, [1, 6, 7]] = np.nan
    X[2, 3] = np.nan
    with pytest.raises(ValueError, match=r"'f1', 'f6', 'f7'"):
        impute.impute_missing(X, np.array([f"f{j}" for j in range(9)], dtype=object), "median", False, "t")


def test_fills_take_one_median_per_distinct_count_not_per_column(monkeypatch):
    """The fill loop runs over the distinct counts of values, never over the columns."""
    X = holey(40, 2000, 7)
    X[:, np.isnan(X).all(axis=0)] = 1.0
    calls = []
    real = np.median
    monkeypatch.setattr(np, "median", lambda *a, **k: calls.append(1) or real(*a, **k))
    _, report = impute.impute_missing(
        X, np.array([f"f{j}" for j in range(2000)], dtype=object), "median", False, "t"
    )
    assert len(report["counts"]) > 1000
    assert len(calls) <= 41  # one per distinct number of values (0..40), far under one per column


def wide_frame(n: int = 30, m: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = holey(n, m, seed)
    X[np.isinf(X)] = np.nan
    X[:, np.isnan(X).all(axis=0)] = 0.5
    X += 0.0  # no -0.0: a CSV reads "-0" back as 0.0
    df = pd.DataFrame(X, columns=[f"cg{j:05d}" for j in range(m)])
    df.insert(0, "sample_id", [f"S{i:03d}" for i in range(n)])
    df.insert(7, "tissue", rng.choice(["blood", "liver", None], size=n))
    df.insert(200, "batch", rng.choice(["a", "b"], size=n))
    df["class"] = rng.choice(["case", "control"], size=n)
    return df


def reference_matrix(df: pd.DataFrame, strategy: str) -> tuple[np.ndarray, list[str]]:
    """Features one column at a time (one-hot blocks in their place), filled per column."""
    cols, names = [], []
    for c in df.columns:
        if c in ("sample_id", "class"):
            continue
        s = df[c]
        if s.dtype.kind == "f":
            cols.append(s.to_numpy()[:, None])
            names.append(c)
            continue
        miss = s.isna().to_numpy()
        cats = sorted(set(s[~miss]))
        block = np.array([[float(v == t) for t in cats] for v in s], dtype=np.float64)
        if miss.any():
            block = np.hstack([block, miss[:, None].astype(np.float64)])
        cols.append(block)
        names.extend([f"{c}={t}" for t in cats] + ([f"{c}=missing"] if miss.any() else []))
    X = np.hstack(cols)
    filled, *_ = reference_impute(X, np.array(names, dtype=object), strategy, False)
    return filled, names


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("strategy", ["mean", "median"])
def test_wide_table_loads_as_the_per_column_reference(fmt, strategy):
    df = wide_frame()
    buf = io.BytesIO()
    if fmt == "csv":
        df.to_csv(buf, index=False, float_format="%.17g")
    else:
        df.to_parquet(buf, index=False)
    buf.seek(0)
    buf.name = f"wide.{fmt}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        ds = load_dataset(buf, missing=strategy, categorical="onehot", label="class")
    X, names = reference_matrix(df, strategy)
    assert list(ds.feature_names) == names
    assert np.asarray(ds.X).tobytes() == X.tobytes()
    assert list(ds.sample_names) == list(df["sample_id"])
    assert ds.meta["id_columns"] == ["sample_id"]
    assert set(ds.meta["categorical"]) == {"tissue", "batch"}
    assert ds.meta["missing"]["categorical_counts"] == {"tissue": int(df["tissue"].isna().sum())}


def test_wide_frame_is_not_read_column_by_column(monkeypatch):
    """Numeric columns become X as one block: no DataFrame lookup per feature."""
    df = wide_frame(n=20, m=3000, seed=1)
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    buf.seek(0)
    buf.name = "wide.parquet"
    calls = []
    real = pd.DataFrame.__getitem__
    monkeypatch.setattr(pd.DataFrame, "__getitem__", lambda self, key: calls.append(1) or real(self, key))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        ds = load_dataset(buf, missing="median", categorical="onehot", label="class")
    assert ds.n_features > 3000
    assert len(calls) < 100


def reference_floats(fields, na_lower):
    """One parse attempt per cell, as the wide CSV reader did it before."""
    out = np.empty(len(fields))
    for j, v in enumerate(fields):
        try:
            out[j] = float(v)
        except ValueError:
            assert v.strip().lower() in na_lower
            out[j] = np.nan
    return out


def test_wide_csv_rows_parse_as_the_per_cell_reference(monkeypatch):
    from fsviz.data.formats import delimited, wide_scan

    na_lower = delimited.NA_LOWER
    cells = ["0.1", "1e-300", "-0", "", "NA", "nan", "-nan", "NaN", "N/A", "null", "?", " NA ", "inf", "7"]
    rng = np.random.default_rng(0)
    fields = list(rng.choice(cells, size=5000))
    wide_scan.na_spellings(na_lower)  # worked out once per set of tokens
    calls = []
    real = float
    monkeypatch.setattr("builtins.float", lambda v: calls.append(1) or real(v), raising=True)
    got = wide_scan.wide_floats([f for f in fields if f != " NA "], ["c"] * 5000, 0, "t", na_lower)
    monkeypatch.undo()
    ref = reference_floats([f for f in fields if f != " NA "], na_lower)
    assert got.tobytes() == ref.tobytes()
    assert len(calls) == 0  # no parse attempt per cell in Python
    # a spelling outside the set (" NA ") takes the per-cell path, with the same result
    assert (
        wide_scan.wide_floats(fields, ["c"] * 5000, 0, "t", na_lower).tobytes()
        == reference_floats(fields, na_lower).tobytes()
    )


def test_wide_csv_loads_as_the_per_column_reference():
    m = 10_050  # past the wide reader's threshold
    df = wide_frame(n=6, m=m, seed=3).drop(columns=["tissue", "batch"])
    buf = io.BytesIO(df.to_csv(index=False, float_format="%.17g").encode())
    buf.name = "wide.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        ds = load_dataset(buf, missing="mean", label="class")
    X, names = reference_matrix(df, "mean")
    assert list(ds.feature_names) == names
    assert np.asarray(ds.X).tobytes() == X.tobytes()
    assert list(ds.sample_names) == list(df["sample_id"])


def test_the_readers_own_matrix_is_filled_in_place():
    X = holey(20, 300, 5)
    X[:, np.isnan(X).all(axis=0)] = 1.0
    X.setflags(write=False)  # as a reader hands it over
    names = np.array([f"f{j}" for j in range(300)], dtype=object)
    ref, *_ = reference_impute(X, names, "median", False)
    copied, _ = impute.impute_missing(X, names, "median", False, "t")
    assert not np.shares_memory(copied, X) and np.isnan(X).any()  # not the reader's: copied
    filled, _ = impute.impute_missing(X, names, "median", False, "t", owned=True)
    assert filled is X and not filled.flags.writeable
    assert filled.tobytes() == ref.tobytes()


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(20, 300), (300, 2000)])  # below and above the 4 MiB of plain pages
def test_the_fills_copy_keeps_the_layout_and_the_values(order, shape):
    X = np.asarray(holey(*shape, 6), order=order)
    X[:, np.isnan(X).all(axis=0)] = 1.0
    X.setflags(write=False)
    names = np.array([f"f{j}" for j in range(shape[1])], dtype=object)
    ref, *_ = reference_impute(X, names, "mean", False)
    filled, _ = impute.impute_missing(X, names, "mean", False, "t")
    assert not np.shares_memory(filled, X) and np.isnan(X).any()
    assert filled.flags.f_contiguous == (order == "F") and not filled.flags.writeable
    assert filled.tobytes(order="A") == np.asarray(ref, order=order).tobytes(order="A")


def test_plain_pages_are_a_writable_c_array():
    from fsviz.data.pages import empty_plain

    for shape, dtype in (((3, 4), np.float64), ((1024, 1024), np.uint64), ((600, 1000), np.int8)):
        a = empty_plain(shape, dtype)
        assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
        a[...] = 7
        assert (a == 7).all()
