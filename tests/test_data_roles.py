"""Target-role detection: suggest_targets and leaky_features on hand-made tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fsviz.data import DataWarning, leaky_features, suggest_targets


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 60
    f = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"gene{i}" for i in range(5)])
    f["sample_id"] = [f"S{i:03d}" for i in range(n)]  # identifier: never a target
    f["batch"] = rng.integers(1, 4, n)  # low-cardinality integers
    f["tumour_type"] = rng.choice(["luminal", "basal", "her2"], n)
    f["age"] = rng.integers(30, 80, n).astype(float)
    return f


def test_tumour_type_is_suggested_first(frame):
    got = suggest_targets(frame)
    assert got[0] == "tumour_type"
    assert "batch" in got and "sample_id" not in got and "gene0" not in got


def test_suggest_targets_name_hints_and_order():
    f = pd.DataFrame(
        {
            "x1": [0.1, 0.2, 0.3, 0.4],
            "DiseaseStatus": [0.5, 1.5, 0.5, 2.5],  # a word of the name is a target word
            "label": [0, 1, 0, 1],  # exact target name + integer codes
            "const": ["a"] * 4,  # one value: never
        }
    )
    assert suggest_targets(f) == ["label", "DiseaseStatus"]
    assert suggest_targets(pd.DataFrame()) == []
    with pytest.raises(ValueError, match="must be a pandas DataFrame; got ndarray"):
        suggest_targets(np.zeros((3, 3)))


def test_copy_of_label_is_leaky_random_features_are_not():
    rng = np.random.default_rng(1)
    n = 120
    y = rng.choice(["normal", "tumour", "metastasis"], n)
    X = rng.normal(size=(n, 50))
    codes = np.unique(y, return_inverse=True)[1]
    X[:, 7] = codes * 10 + 3  # a recoding of the label
    X[:, 20] = codes + rng.uniform(0, 0.9, n)  # intervals per class, many values
    got = leaky_features(X, y, [f"g{i}" for i in range(50)], block_size=16)
    assert [g[:2] for g in got] == [(7, "g7"), (20, "g20")]
    assert "one value per class" in got[0][2] and "2 thresholds" in got[1][2]
    assert leaky_features(sp.csr_matrix(X), y, block_size=16)[0][:2] == (7, "f7")


def test_binary_threshold_leak_and_ties_are_not_perfect():
    y = np.array([0, 0, 0, 1, 1, 1])
    X = np.column_stack(
        [
            [1.0, 2, 3, 4, 5, 6],  # threshold 3.5 separates
            [1.0, 2, 4, 4, 5, 6],  # the value 4 is shared by both classes
            [1.0, 5, 2, 6, 3, 4],  # not monotone
        ]
    )
    got = leaky_features(X, y)
    assert [g[0] for g in got] == [0]
    assert "threshold 3.5" in got[0][2] and "below: 0, above: 1" in got[0][2]


def test_leaky_features_budget_and_errors():
    y = np.array([0, 1] * 10)
    X = np.column_stack([np.random.default_rng(2).normal(size=(20, 3)), y])
    with pytest.warns(DataWarning, match="checked the first 3 of 4 features"):
        assert leaky_features(X, y, max_features=3) == []
    with pytest.raises(ValueError, match="at least 2 classes; got 1"):
        leaky_features(X, np.zeros(20))
    with pytest.raises(ValueError, match="X has 20 rows but y has 3 labels"):
        leaky_features(X, y[:3])


def test_name_masks_equal_the_per_name_tests():
    """The one-scan name masks (wide tables) accept exactly the names the per-name tests accept."""
    from fsviz.data.roles import TARGET_WORDS, _id_named, _words, id_named_mask, target_worded

    rng = np.random.default_rng(3)
    pieces = [
        "id",
        "ID",
        "Id",
        "sample",
        "Name",
        "x",
        "V1",
        "row",
        "İ",
        "ß",
        "\x00",
        "\n",
        "_",
        ".",
        " ",
        "tumourType",
        "DiseaseStatus",
        "class",
        "y",
        "day_y",
        "g",
        "ENSG0001",
        "cellType",
        "uuid",
        "9",
    ]
    names = ["".join(rng.choice(pieces, size=rng.integers(1, 4))) for _ in range(3000)]
    names += ["x", "v1", " X ", "Unnamed: 0", "patientId", "AIDS", "grid", "İD", "label", ""]
    np.testing.assert_array_equal(id_named_mask(names), [_id_named(n) for n in names])
    np.testing.assert_array_equal(target_worded(names), [bool(_words(n) & TARGET_WORDS) for n in names])
    fewer = TARGET_WORDS - {"y"}
    np.testing.assert_array_equal(target_worded(names, fewer), [bool(_words(n) & fewer) for n in names])


@pytest.mark.parametrize(
    ("text", "features"),
    [
        # two rows: any two distinct numbers rise or fall (a hypothesis round trip found this)
        ("0,1,X,00\n0.0,0.0,-1.0,0.0\n0.0,0.0,0.0,0.0\n", ["0", "1", "X", "00"]),
        ("X,g\n3,0\n7,0\n12,0\n", ["g"]),  # rising record numbers over three rows
        ("X,g\n7,0\n3,0\n12,0\n", ["X", "g"]),
        ("g,X\n0,0.5\n0,1.5\n0,2.5\n", ["g", "X"]),  # fractions are measurements
    ],
)
def test_a_column_named_x_is_an_identifier_only_with_id_like_values(text, features):
    """R's default names ("X" for written row names) name ids only with id-like values: a
    feature may be called X."""
    import io
    import warnings

    from fsviz.data import load_dataset

    buf = io.BytesIO(text.encode())
    buf.name = "x.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        ds = load_dataset(buf, label=None)
    assert ds.feature_names.tolist() == features


@pytest.mark.parametrize("seed", range(6))
def test_the_auto_target_ranking_from_parse_facts_equals_suggest_targets(seed):
    # role_decisions ranks target candidates from the parse's column facts (no re-sort of the
    # numeric block): the same order suggest_targets gives the same frame, ties and NaN included
    from fsviz.data.roles import column_stats, role_decisions

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    cols = {}
    for j in range(int(rng.integers(2, 12))):
        kind = rng.integers(0, 5)
        if kind == 0:
            v = rng.normal(size=n)
        elif kind == 1:
            v = rng.integers(0, int(rng.integers(1, 25)), n).astype(float)
        elif kind == 2:
            v = np.round(rng.normal(size=n), 1)
        elif kind == 3:
            v = rng.choice(["a", "b", "c", None], n).astype(object)
        else:
            v = rng.integers(0, 3, n)
        if kind in (0, 1, 2):
            v[rng.random(n) < 0.2] = np.nan
        name = rng.choice(["g", "batch", "status_", "x", "outcome_"]) + str(j)
        cols[name] = v
    frame = pd.DataFrame(cols)
    got = role_decisions(frame, "auto", None, None, stats=column_stats(frame))["stats"]
    if "ranked" in got:
        assert got["ranked"] == suggest_targets(frame, max_suggestions=frame.shape[1])


def test_leaky_features_across_targets_and_class_ranges_that_meet():
    rng = np.random.default_rng(3)
    n = 40
    X = np.round(rng.normal(size=(n, 9)), 1)
    targets = [rng.integers(0, 2, n), rng.choice(["a", "b", "c"], n), rng.integers(0, 3, n)]
    X[:, 2] = targets[0] * 2.5  # leaky for the first target only
    X[:, 7] = np.where(targets[1] == "a", -1.0, np.where(targets[1] == "b", 0.0, 4.0))
    frozen = X.copy()
    frozen.setflags(write=False)
    for y in targets:
        assert leaky_features(frozen, y, block_size=4) == leaky_features(X.copy(), y, block_size=4)
    assert [j for j, _, _ in leaky_features(frozen, targets[0], block_size=4)] == [2]
    assert [j for j, _, _ in leaky_features(frozen, targets[1], block_size=4)] == [7]
    y = np.repeat([0, 1, 2], 4)
    apart = np.array([1, 2, 2, 3, 5, 5, 6, 7, 8, 9, 9, 9.5])  # three ranges, none meeting
    meet = apart.copy()
    meet[4] = 3.0  # class 1's minimum is class 0's maximum: a value two classes share
    inf = apart.copy()
    inf[-1] = np.inf
    got = leaky_features(np.column_stack([apart, meet, inf]), y)
    assert [j for j, _, _ in got] == [0] and "2 thresholds" in got[0][2]


@pytest.mark.parametrize("seed", range(8))
def test_leaky_features_equal_a_brute_force_definition(seed):
    # leaky: every distinct value belongs to one class, and along the sorted distinct values
    # each class is one run (ties between classes: never leaky, whatever the sort order)
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(4, 30)), int(rng.integers(2, 4))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    cols = [rng.integers(0, 4, n).astype(float) for _ in range(12)]
    cols += [y * 2.0 + rng.integers(0, 2, n) * 0.5, y.astype(float), -y * 3.0, np.where(y == 0, 1.0, 1.0 + y)]
    X = np.column_stack(cols)
    X[rng.integers(0, n), 5] = np.nan
    expected = []
    for j in range(X.shape[1]):
        col = X[:, j]
        if not np.isfinite(col).all():
            continue
        values = np.unique(col)
        owners = [set(y[col == v].tolist()) for v in values]
        runs = [o.pop() for o in owners if len(o) == 1]
        changes = sum(a != b for a, b in zip(runs[:-1], runs[1:], strict=True))
        if len(runs) == len(values) and changes == k - 1:
            expected.append(j)
    frozen = X.copy()
    frozen.setflags(write=False)
    for m in (X, frozen, np.asfortranarray(X), sp.csc_matrix(X)):
        assert [j for j, _, _ in leaky_features(m, y, block_size=5)] == expected
