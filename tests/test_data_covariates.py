"""The import plan's "covariate" role: columns out of the features, kept per sample to adjust for."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

from fsviz.compute.covariates import covariate_frame
from fsviz.data import ImportPlan, assemble, infer_column_roles, load_dataset, parse_count, parse_source


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _frame(n: int = 30, seed: int = 0, ids: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "g1": rng.normal(size=n),
            "age": rng.integers(20, 80, size=n),
            "g2": rng.normal(size=n),
            "batch": rng.choice(["b1", "b2", "b3"], size=n),
            "class": rng.choice(["case", "control"], size=n),
        }
    )
    if ids:
        df.insert(0, "sample", [f"S{i:02d}" for i in range(n)])
    return df


@pytest.mark.parametrize("wide", [False, True])
def test_covariates_leave_the_features_and_are_kept_by_sample(tmp_path, wide):
    df = _frame()
    if wide:  # the row-by-row reader (more than 10,000 columns)
        extra = pd.DataFrame(np.random.default_rng(1).normal(size=(len(df), 10_001)))
        extra.columns = [f"x{j}" for j in range(extra.shape[1])]
        df = pd.concat([df, extra], axis=1)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    ds = quiet(load_dataset, path, covariates=["age", "batch"])
    names = ds.feature_names.tolist()
    assert "age" not in names and "batch" not in names and names[:2] == ["g1", "g2"]
    assert ds.meta["covariates"] == ["age", "batch"]
    ann = ds.meta["sample_annotations"]
    assert [ann["age"][s] for s in ds.sample_names] == df["age"].tolist()  # numbers stay numbers
    assert [ann["batch"][s] for s in ds.sample_names] == df["batch"].tolist()
    frame, own = covariate_frame(ds, ds.meta["covariates"])  # where the adjustment looks
    assert own == [] and frame["age"].tolist() == df["age"].astype(float).tolist()
    assert frame["batch"].tolist() == df["batch"].tolist()
    assert any("covariate" in note for note in ds.meta["notes"])
    assert ds.meta["plan"]["covariates"] == ["age", "batch"]


def test_without_identifiers_the_rows_are_named_by_number(tmp_path):
    path = tmp_path / "t.csv"
    _frame(ids=False).to_csv(path, index=False)
    ds = quiet(load_dataset, path, covariates=["batch"])
    assert ds.sample_names.tolist()[:3] == ["1", "2", "3"]
    frame, _ = covariate_frame(ds, ["batch"])
    assert frame["batch"].tolist() == _frame(ids=False)["batch"].tolist()


def test_an_annotation_column_is_a_covariate_too_and_changing_them_needs_no_re_read(tmp_path):
    df = _frame()
    path = tmp_path / "t.csv"
    df.drop(columns=["batch", "class"]).to_csv(path, index=False)
    notes = df[["sample", "batch", "class"]].to_csv(index=False).encode()
    parsed = parse_source(path)
    before = parse_count()
    ds = quiet(
        assemble,
        parsed,
        ImportPlan(label="class", covariates=("batch", "age"), sample_annotations="s.csv"),
        sample_annotations=io.BytesIO(notes),
    )
    plain = quiet(
        assemble,
        parsed,
        ImportPlan(label="class", sample_annotations="s.csv"),
        sample_annotations=io.BytesIO(notes),
    )
    assert parse_count() == before
    assert ds.meta["covariates"] == ["batch", "age"] and "covariates" not in plain.meta
    assert ds.feature_names.tolist() == ["g1", "g2"] and plain.feature_names.tolist() == ["g1", "age", "g2"]
    frame, _ = covariate_frame(ds, ["batch", "age"])
    assert (
        frame["batch"].tolist() == df["batch"].tolist()
        and frame["age"].tolist() == df["age"].astype(float).tolist()
    )


def test_the_roles_table_gives_covariate_columns_their_role():
    roles = infer_column_roles(_frame(), covariates=["age"])
    got = {r.name: (r.role, r.reason) for r in roles}
    assert got["age"] == ("covariate", "chosen as covariate")
    assert got["sample"][0] == "identifier" and got["class"][0] == "target"
    auto = {
        r.name: r.role for r in infer_column_roles(_frame().drop(columns=["class"]), covariates=["batch"])
    }
    assert auto["batch"] == "covariate"  # never picked as the target


def test_bad_covariates_are_named_with_the_fix(tmp_path):
    df = _frame()
    df["site"] = "one site"
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    with pytest.raises(
        ValueError, match=r"column 'class' is both the target and a covariate.*Fix: take it out"
    ):
        load_dataset(path, label="class", covariates=["class"], ignore=["batch", "site"])
    with pytest.raises(ValueError, match=r"column 'class' is both the target and a covariate"):
        ImportPlan(label="class", covariates=("class",))
    with pytest.raises(
        ValueError, match=r"covariate 'site' holds one value \('one site'\).*Fix: take it out"
    ):
        quiet(load_dataset, path, covariates=["site", "batch"])
    with pytest.raises(
        ValueError, match=r"covariate\(s\) \['nope'\] are neither columns of the data table nor"
    ):
        quiet(load_dataset, path, covariates=["nope"], ignore=["batch", "site"])
    with pytest.raises(ValueError, match="both an identifier and a covariate"):
        load_dataset(path, id_columns=["sample"], covariates=["sample"], ignore=["batch", "site"])
    with pytest.raises(ValueError, match="'covariates' must be a list of column names"):
        ImportPlan(covariates=5)
