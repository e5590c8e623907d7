"""load_dataset(missing=..., missing_indicators=..., categorical=...): imputation and one-hot."""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp

from fsviz.data import DataWarning, load_dataset


def named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def quiet_load(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return load_dataset(*args, **kwargs)


@pytest.fixture
def holes() -> pd.DataFrame:
    """Seeded numeric frame with NaNs in some columns (mean != median), labels x/y."""
    rng = np.random.default_rng(7)
    df = pd.DataFrame(rng.exponential(size=(40, 5)), columns=[f"c{j}" for j in range(5)])
    for j, k in ((0, 3), (2, 7), (4, 1)):
        df.iloc[rng.choice(40, size=k, replace=False), j] = np.nan
    df["label"] = np.where(rng.random(40) < 0.5, "x", "y")
    return df


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False, float_format="%.17g").encode()


@pytest.mark.parametrize("strategy", ["mean", "median"])
def test_imputed_values_match_pandas_fillna(holes, strategy):
    feats = holes.drop(columns="label")
    expected = feats.fillna(getattr(feats, strategy)())
    with pytest.warns(
        DataWarning, match=rf"filled 11 missing value\(s\) in 3 feature column\(s\).*{strategy}"
    ):
        ds = load_dataset(named(csv_bytes(holes), "h.csv"), missing=strategy)
    np.testing.assert_allclose(ds.X, expected.to_numpy(), rtol=1e-14, atol=0)
    assert ds.feature_names.tolist() == list(feats.columns)
    rep = ds.meta["missing"]
    assert rep["strategy"] == strategy
    assert rep["counts"] == {"c0": 3, "c2": 7, "c4": 1}
    for c in ("c0", "c2", "c4"):
        assert rep["fill"][c] == pytest.approx(getattr(feats[c], strategy)(), rel=1e-14)


def test_exact_fill_on_exact_values():
    data = b"a,b,label\n1,2,x\n,4,y\n4,,x\n7,NA,y\n"
    ds = quiet_load(named(data, "e.csv"), missing="mean")
    np.testing.assert_array_equal(ds.X, [[1, 2], [4, 4], [4, 3], [7, 3]])
    ds = quiet_load(named(data, "e.csv"), missing="median")
    np.testing.assert_array_equal(ds.X, [[1, 2], [4, 4], [4, 3], [7, 3]])
    ds = quiet_load(named(b"a,label\n1,x\n2,y\n10,x\n,y\n", "e.csv"), missing="median")
    assert ds.X[:, 0].tolist() == [1, 2, 10, 2] and ds.meta["missing"]["fill"] == {"a": 2.0}


def test_indicator_columns(holes):
    ds = quiet_load(named(csv_bytes(holes), "h.csv"), missing="mean", missing_indicators=True)
    names = ds.feature_names.tolist()
    assert names == [f"c{j}" for j in range(5)] + ["c0=missing", "c2=missing", "c4=missing"]
    for c in ("c0", "c2", "c4"):
        np.testing.assert_array_equal(ds.X[:, names.index(f"{c}=missing")], holes[c].isna().astype(float))
    assert ds.meta["missing"]["indicator_names"] == ["c0=missing", "c2=missing", "c4=missing"]


def test_default_error_names_the_fix():
    with pytest.raises(ValueError, match=r"1 missing/NaN.*row 1 column 'a'.*missing=\"mean\""):
        load_dataset(named(b"a,b,label\n1,2,x\n,4,y\n", "e.csv"))
    with pytest.raises(ValueError, match=r"categorical=\"onehot\""):
        load_dataset(named(b"a,b,label\n1,u,x\n2,v,y\n", "e.csv"))


def _npz(X) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, X=X)
    return buf.getvalue()


def test_error_paths():
    # an all-empty column is ignored (noted), not imputed
    ds = load_dataset(named(b"a,b,label\n1,,x\n2,,y\n", "e.csv"), missing="mean")
    assert ds.feature_names.tolist() == ["a"] and ds.meta["ignored"] == {"b": "all empty"}
    with pytest.raises(ValueError, match=r"cannot fill feature column\(s\) \['f1'\]: they hold no value"):
        load_dataset(
            named(_npz(np.array([[1.0, np.nan], [2.0, np.nan]])), "e.npz"), label=None, missing="mean"
        )
    with pytest.raises(ValueError, match=r"1 missing label\(s\) at rows \[1\]"):
        load_dataset(named(b"a,label\n1,x\n,\n3,y\n", "e.csv"), missing="mean")
    with pytest.raises(ValueError, match=r"missing must be 'error', 'mean' or 'median'; got 'zero'"):
        load_dataset(named(b"a,label\n1,x\n", "e.csv"), missing="zero")
    with pytest.raises(ValueError, match=r"categorical must be 'error' or 'onehot'; got 'ordinal'"):
        load_dataset(named(b"a,label\n1,x\n", "e.csv"), categorical="ordinal")
    with pytest.raises(ValueError, match=r"1 infinite"):  # inf is not "missing"
        load_dataset(named(b"a,b,label\n1,inf,x\n2,,y\n3,5,x\n", "e.csv"), missing="mean")


def test_npz_and_mat_dense_nan(tmp_path):
    X = np.array([[1.0, 2, 3], [np.nan, 4, 5], [3, np.nan, 7], [5, 8, np.nan]])
    y = np.array([0, 1, 0, 1])
    np.savez(tmp_path / "d.npz", X=X, y=y)
    scipy.io.savemat(tmp_path / "d.mat", {"X": X, "Y": y[:, None]})
    expected = pd.DataFrame(X).fillna(pd.DataFrame(X).median()).to_numpy()
    for f in ("d.npz", "d.mat"):
        ds = quiet_load(tmp_path / f, missing="median", missing_indicators=True)
        np.testing.assert_array_equal(ds.X[:, :3], expected)
        np.testing.assert_array_equal(ds.X[:, 3:], np.isnan(X).astype(float))
        assert ds.meta["missing"]["counts"] == {"f0": 1, "f1": 1, "f2": 1}


def test_sparse_imputes_stored_nans_only(tmp_path):
    dense = np.array([[0.0, 1], [np.nan, 0], [4, 3], [0, 0]])
    S = sp.csr_matrix(dense)  # the NaN is stored, the zeros are not
    sp.save_npz(tmp_path / "s.npz", S)
    ds = quiet_load(tmp_path / "s.npz", label=None, missing="mean", missing_indicators=True)
    assert ds.is_sparse
    # mean over the 3 non-missing values, implicit zeros included: (0 + 4 + 0) / 3
    np.testing.assert_allclose(ds.X.toarray(), [[0, 1, 0], [4 / 3, 0, 1], [4, 3, 0], [0, 0, 0]])
    ds = quiet_load(tmp_path / "s.npz", label=None, missing="median")
    np.testing.assert_array_equal(ds.X.toarray()[:, 0], [0, 0, 4, 0])


def test_fingerprints_differ_between_mean_and_median(holes):
    a = quiet_load(named(csv_bytes(holes), "h.csv"), missing="mean")
    b = quiet_load(named(csv_bytes(holes), "h.csv"), missing="median")
    assert a.fingerprint != b.fingerprint
    c = quiet_load(named(csv_bytes(holes), "h.csv"), missing="mean")
    assert a.fingerprint == c.fingerprint


@pytest.fixture
def cats() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "color": ["red", "blue", None, "red", "green", "blue"],
            "shape": ["sq", "ci", "sq", "tr", "tr", "ci"],
            "label": ["x", "y", "x", "y", "x", "y"],
        }
    )


@pytest.mark.parametrize("kind", ["csv", "tsv", "parquet"])
def test_onehot_matches_get_dummies(cats, kind, tmp_path):
    path = tmp_path / f"c.{kind}"
    if kind == "parquet":
        cats.to_parquet(path)
    else:
        cats.to_csv(path, index=False, sep="," if kind == "csv" else "\t")
    with pytest.warns(
        DataWarning, match=r"encoded 1 missing categor.*\['color'\] as its own '<column>=missing' column"
    ):
        ds = load_dataset(path, categorical="onehot")
    # a missing category is its own column, never an all-zero row
    expected = pd.get_dummies(cats.drop(columns="label"), prefix_sep="=", dtype=float, dummy_na=True)
    expected = expected.rename(columns={"color=nan": "color=missing"}).drop(columns="shape=nan")
    assert ds.feature_names.tolist() == list(expected.columns)
    assert ds.feature_names.tolist() == [
        "size",
        "color=blue",
        "color=green",
        "color=red",
        "color=missing",
        "shape=ci",
        "shape=sq",
        "shape=tr",
    ]
    np.testing.assert_array_equal(ds.X, expected.to_numpy())
    assert (ds.X[:, 1:5].sum(axis=1) == 1).all() and (ds.X[:, 5:].sum(axis=1) == 1).all()
    assert ds.categorical_groups == [[1, 2, 3, 4], [5, 6, 7]]
    assert ds.meta["missing"]["categorical_counts"] == {"color": 1}
    assert ds.class_names.tolist() == ["x", "y"]


def test_onehot_missing_indicator_column(cats):
    text = cats.to_csv(index=False).encode()
    ds = quiet_load(named(text, "c.csv"), categorical="onehot", missing_indicators=True)
    expected = pd.get_dummies(cats.drop(columns="label"), prefix_sep="=", dtype=float, dummy_na=True)
    expected = expected.rename(columns={"color=nan": "color=missing"}).drop(columns="shape=nan")
    assert ds.feature_names.tolist() == list(expected.columns)
    np.testing.assert_array_equal(ds.X, expected.to_numpy())
    assert ds.categorical_groups == [[1, 2, 3, 4], [5, 6, 7]]


def test_categorical_groups_follow_subset_and_feed_grm(cats):
    ds = quiet_load(named(cats.to_csv(index=False).encode(), "c.csv"), categorical="onehot")
    sub = ds.subset(features=["shape=tr", "size", "color=red", "shape=ci"])
    assert sub.categorical_groups == [[2], [0, 3]]
    assert ds.with_name("other").categorical_groups == ds.categorical_groups
    from fsviz.select import GRM

    grm = GRM(n_features=2, prior_groups=ds.categorical_groups).fit(ds.X, np.linspace(1, 2, ds.n_features))
    assert grm.n_prior_pairs_ > 0


def test_round_trip_through_csv(cats, holes):
    for frame, kw in (
        (cats, {"categorical": "onehot"}),
        (holes, {"missing": "median", "missing_indicators": True}),
    ):
        ds = quiet_load(named(frame.to_csv(index=False).encode(), "r.csv"), **kw)
        back = quiet_load(named(ds.to_csv().encode(), "r.csv"))
        assert back.fingerprint == ds.fingerprint
        np.testing.assert_array_equal(back.X, ds.X)
        assert back.feature_names.tolist() == ds.feature_names.tolist()
        assert "missing" not in back.meta and back.categorical_groups == []


def test_onehot_parquet_category_and_string_dtypes():
    df = pd.DataFrame(
        {
            "a": [1.0, 2.0, 3.0],
            "c": pd.Categorical(["u", None, "v"]),
            "s": pd.array(["p", pd.NA, "q"], dtype="string"),
            "label": [0, 1, 0],
        }
    )
    buf = io.BytesIO()
    df.to_parquet(buf)
    buf.name = "p.parquet"
    buf.seek(0)
    ds = quiet_load(buf, categorical="onehot")  # missing="error": missing categories are still encoded
    assert ds.feature_names.tolist() == ["a", "c=u", "c=v", "c=missing", "s=p", "s=q", "s=missing"]
    np.testing.assert_array_equal(ds.X, [[1, 1, 0, 0, 1, 0, 0], [2, 0, 0, 1, 0, 0, 1], [3, 0, 1, 0, 0, 1, 0]])
    assert ds.categorical_groups == [[1, 2, 3], [4, 5, 6]]
    assert ds.meta["missing"]["categorical_counts"] == {"c": 1, "s": 1}
    assert ds.meta["missing"]["counts"] == {}


def test_summary_counts_the_values_filled_at_load():
    from fsviz.compute import summary_frame

    data = b"a,b,label\n1,2,0\n,3,1\n3,,0\n4,5,1\n"
    ds = load_dataset(io.BytesIO(data), fmt="csv", missing="median")
    assert ds.summary().n_missing == 2
    frame = summary_frame(ds.summary()).set_index("quantity")["value"]
    assert frame["missing values filled"] == "2"
