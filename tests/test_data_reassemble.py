"""Re-assembling a parsed table under another plan equals a fresh load_dataset, and never
changes what was parsed (the cached role facts and the shared float block included)."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fsviz.data import ImportPlan, assemble, load_dataset, parse_count, parse_source
from fsviz.data.blocks import carried, drop_columns, share_floats, take_rows
from fsviz.data.formats import delimited
from tests.test_data_parsed import same

FLOATS = [f"g{j}" for j in range(8)]


def _table(n: int = 30, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"sample_id": [f"S{i:02d}" for i in range(n)]})
    for j, c in enumerate(FLOATS):
        df[c] = np.round(rng.normal(size=n), 3)
        if j % 3 == 1:  # a few gaps: fills differ per column; a target with gaps drops rows
            df.loc[rng.choice(n, size=2, replace=False), c] = np.nan
        if j == 4:
            df.insert(len(df.columns), "age", rng.integers(20, 80, size=n))
    df["batch"] = rng.choice(["b1", "b2", "b3"], size=n)
    df["diagnosis"] = rng.choice(["tumour", "normal"], size=n)
    return df


def _digest(parsed) -> str:
    """A checksum of everything a parsed payload holds that assembling could touch."""
    h = hashlib.sha256()
    if parsed.payload.get("kind") == "wide":
        h.update(parsed.payload["block"].tobytes() + str(parsed.payload["text"]).encode())
        h.update(
            str(parsed.payload.get("fills")).encode() + parsed.payload["preview"].frame.to_json().encode()
        )
        return h.hexdigest()
    frame = parsed.payload["frame"] if "frame" in parsed.payload else parsed.payload["raw"].frame
    h.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    h.update(str(frame.columns.tolist()).encode())
    h.update(carried(frame, "float_block")["block"].tobytes())
    for k, v in sorted(parsed.payload["stats"]["stats"].items()):
        h.update(k.encode() + np.asarray(v).astype(str).tobytes())
    return h.hexdigest()


@pytest.fixture(scope="module", params=["csv", "parquet", "wide"])
def parsed_file(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("re") / f"t.{'parquet' if request.param == 'parquet' else 'csv'}"
    df = _table()
    if request.param == "parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "wide":  # read as a very wide table is (row by row, one float block)
            mp.setattr(delimited, "_WIDE_COLUMNS", 5)
        parsed, by_mean = parse_source(path), parse_source(path, missing="mean")
        assert (parsed.payload.get("kind") == "wide") == (request.param == "wide")
        yield path, parsed, by_mean, mp


plans = st.fixed_dictionaries(
    {
        "label": st.sampled_from([*FLOATS, "age", "batch", "diagnosis", None]),
        "ignore": st.lists(st.sampled_from([*FLOATS, "batch"]), max_size=3, unique=True),
        "id_columns": st.sampled_from(["auto", None, ("sample_id",)]),
        "missing": st.sampled_from(["mean", "median"]),
        "missing_target": st.sampled_from(["drop", "error"]),
    }
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=plans)
@example(  # every feature a float: X from the parsed block, with the parse-time fills
    options={"label": "age", "ignore": [], "id_columns": "auto", "missing": "mean", "missing_target": "error"}
)
@example(
    options={
        "label": "g1",
        "ignore": ["g4"],
        "id_columns": None,
        "missing": "median",
        "missing_target": "drop",
    }
)
def test_a_re_assembled_table_equals_a_fresh_load_under_any_plan(parsed_file, options):
    path, parsed, by_mean, _ = parsed_file
    if options["label"] in options["ignore"]:
        options["ignore"] = [c for c in options["ignore"] if c != options["label"]]
    ignore = list(options["ignore"]) + [c for c in ("batch", "diagnosis") if c != options["label"]]
    plan = ImportPlan(**{**options, "ignore": tuple(dict.fromkeys(ignore))})
    before, count = (_digest(parsed), _digest(by_mean)), parse_count()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fresh = load_dataset(path, plan=plan)  # parsed with plan.missing: the parse-time fills
        except ValueError as e:  # the same refusal, word for word
            with pytest.raises(ValueError) as again:
                assemble(parsed, plan)
            assert str(again.value) == str(e)
            return
        got = assemble(parsed, plan)  # parsed with missing="error": every fill computed here
        by_fills = assemble(by_mean, plan)  # the parse-time mean fills, or computed (median)
    assert parse_count() == count + 1  # load_dataset's parse only
    same(got, fresh)
    same(by_fills, fresh)
    np.testing.assert_array_equal(got.X, fresh.X)
    np.testing.assert_array_equal(by_fills.X, fresh.X)
    assert got.y is None and fresh.y is None or np.array_equal(got.y, fresh.y)
    assert (_digest(parsed), _digest(by_mean)) == before


def test_the_fills_are_computed_at_parse_for_the_plan_s_strategy_only(parsed_file):
    _, parsed, by_mean, _ = parsed_file
    if by_mean.payload.get("kind") == "wide":
        assert parsed.payload["fills"] is None and by_mean.payload["fills"][0] == "mean"
        return
    frame = by_mean.payload["frame"] if "frame" in by_mean.payload else by_mean.payload["raw"].frame
    strategy, fills = carried(frame, "float_block")["fills"]
    block = carried(frame, "float_block")["block"]
    gaps = np.isnan(block).any(axis=0)
    assert strategy == "mean" and gaps.any()
    expected = [block[:, j][np.isfinite(block[:, j])].mean() for j in np.flatnonzero(gaps)]
    assert fills[gaps].tolist() == expected and np.isnan(fills[~gaps]).all()  # bit for bit


def _shared_frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(12, 9)), columns=[f"c{j}" for j in range(9)])
    df.insert(3, "kind", rng.choice(["a", "b"], size=12))
    df.insert(0, "n", rng.integers(0, 5, size=12))
    return share_floats(df)


@settings(max_examples=60, deadline=None)
@given(
    gone=st.lists(st.sampled_from(["n", "kind", *[f"c{j}" for j in range(9)]]), unique=True, max_size=11),
    keep=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_dropping_columns_and_rows_of_a_shared_block_equals_pandas(gone, keep):
    df = _shared_frame()
    block = carried(df, "float_block")["block"].copy()
    keep = np.array(keep)
    pd.testing.assert_frame_equal(drop_columns(df, gone), df.drop(columns=gone), check_column_type=False)
    pd.testing.assert_frame_equal(
        take_rows(df, keep), df.loc[keep].reset_index(drop=True), check_column_type=False
    )
    out = drop_columns(df, gone)
    info = carried(out, "float_block")
    assert info["columns"] == [c for c in out.columns if out[c].dtype == np.float64]
    assert info["block"].flags.c_contiguous and not info["block"].flags.writeable
    np.testing.assert_array_equal(carried(df, "float_block")["block"], block)  # the source untouched


def test_a_frame_whose_floats_no_longer_match_its_block_is_left_to_pandas():
    df = _shared_frame()
    df["c2"] = df["c2"] * 2  # replaced: name and dtype still match the block's, the values do not
    pd.testing.assert_frame_equal(drop_columns(df, ["c1"]), df.drop(columns=["c1"]), check_column_type=False)
    only = df.drop(columns=["n", "kind"])
    from fsviz.data.blocks import shared_features

    assert shared_features(only) is None  # never the block's stale c2
    renamed = _shared_frame().rename(columns={"c5": "renamed"})
    pd.testing.assert_frame_equal(
        drop_columns(renamed, ["c1"]), renamed.drop(columns=["c1"]), check_column_type=False
    )


@pytest.mark.parametrize("strategy", ["mean", "median"])
@pytest.mark.parametrize("indicator", [False, True])
def test_filling_from_parse_time_fills_equals_computing_them(strategy, indicator):
    from fsviz.data.impute import column_fills, impute_missing

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 300))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 7] = 1.0  # no gap
    X[3, 11] = np.inf  # not missing: stays (an error later), never a fill value
    names = np.array([f"f{j}" for j in range(300)], dtype=object)
    computed, ra = impute_missing(X.copy(), names, strategy, indicator, "t")
    known = column_fills(X, strategy)
    assert np.isnan(known[7])
    reused, rb = impute_missing(X.copy(), names, strategy, indicator, "t", known=known)
    np.testing.assert_array_equal(reused, computed)
    assert list(rb["counts"].items()) == list(ra["counts"].items())
    assert list(rb["fill"].items()) == list(ra["fill"].items())
    assert [n for n, _ in rb["indicator_columns"]] == [n for n, _ in ra["indicator_columns"]]
    for (_, r1), (_, r2) in zip(ra["indicator_columns"], rb["indicator_columns"], strict=True):
        np.testing.assert_array_equal(r1, r2)
    partial = known.copy()
    partial[np.flatnonzero(~np.isnan(known))[:5]] = np.nan  # some not known: computed as before
    again, _ = impute_missing(X.copy(), names, strategy, indicator, "t", known=partial)
    np.testing.assert_array_equal(again, computed)
