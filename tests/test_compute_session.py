"""Session files: every malformed file is a ValueError saying why (the app shows ValueErrors;
anything else would be a crash), and a file round-trips."""

import json

import pytest

import fsviz.compute as fc
from fsviz.compute import Run
from fsviz.compute.session import groups_by_index, groups_by_name

HEAD = {"dataset": {"name": "toy", "fingerprint": "f" * 64}}
GDM = {"method": "gdm", "params": {"tau": 0.3}, "seed": 0}


@pytest.mark.parametrize(
    "doc, said",
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "the file must be dict"),
        ({"name": "x"}, "not an fsviz session"),
        ({"dataset": "toy"}, "'dataset' must be dict"),
        ({"dataset": {"name": "toy"}}, "'dataset.fingerprint' must be str"),
        (HEAD | {"shown": ["gdm"]}, "'shown' must be dict"),
        (HEAD | {"selections": {"a": 1}}, "'selections' must be list"),
        (HEAD | {"seed": "zero"}, "'seed' must be int"),
        (HEAD | {"shown": {"gdm": {"params": {}}}}, r"'shown.gdm' names an unknown method None"),
        (HEAD | {"shown": {"gdm": "gdm"}}, r"'shown.gdm' must be Mapping"),
        (HEAD | {"shown": {"x": {"method": "nope", "params": {}}}}, "unknown method 'nope'"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "params": {"tau": 2.0}}}}, "'tau' parameter of GDM"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "params": {"taux": 0.2}}}}, "unknown parameter"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "params": "tau=0.2"}}}, r"'shown.gdm'"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "seed": "zero"}}}, r"'shown.gdm'"),
        (HEAD | {"selections": ["gdm"]}, r"'selections\[0\]' must be dict"),
        (HEAD | {"selections": [{"run": GDM, "k": 0}]}, r"'selections\[0\].k' must be an int >= 1"),
        (HEAD | {"selections": [{"run": GDM, "k": "all"}]}, r"'selections\[0\].k' must be an int >= 1"),
        (HEAD | {"prior_groups": [["a", ["b"]]]}, r"'prior_groups\[0\]' entries must be str or int"),
        (HEAD | {"dataset": HEAD["dataset"] | {"source": {"kind": "ftp"}}}, "source.kind"),
        (HEAD | {"dataset": HEAD["dataset"] | {"source": {"kind": "upload"}}}, "sha256"),
        (HEAD | {"dataset": HEAD["dataset"] | {"image_shape": [0, 3]}}, "image_shape"),
        (
            HEAD | {"shown": {"grm": {"method": "grm", "params": {"base": {"run": {"method": "nope"}}}}}},
            "'nope'",
        ),
    ],
)
def test_malformed_session_files_are_value_errors_with_the_reason(doc, said):
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    with pytest.raises(ValueError, match=said):
        fc.read_session(data)


def test_a_session_file_round_trips():
    grm = Run("grm", {"base": Run("fisher"), "prior_groups": [[3, 1], [7, 8]]}, seed=2)
    names = [f"g{i}" for i in range(10)]
    session = fc.SessionFile(
        dataset_name="toy",
        fingerprint="f" * 64,
        source={"kind": "upload", "file": "toy.csv", "sha256": "a" * 64, "import_options": {"sep": ";"}},
        seed=2,
        shown={"gdm": Run("gdm", {"tau": 0.25}), "grm": grm},
        kept=((Run("gdm", {"tau": 0.4}), None), (Run("fisher"), 20)),
        prior_groups=groups_by_name([[1, 3], [7, 8]], names),
        options={"cv": "loo"},
        image_shape=(2, 5),
    )
    back = fc.read_session(fc.session_json(session))
    assert back.shown == session.shown and back.kept == session.kept and back.source == session.source
    assert back.prior_groups == (("g1", "g3"), ("g7", "g8")) and back.options == {"cv": "loo"}
    assert back.image_shape == (2, 5) and back.seed == 2
    assert groups_by_index(back.prior_groups, names) == [[1, 3], [7, 8]]
    with pytest.raises(ValueError, match="features this dataset does not have"):
        groups_by_index(back.prior_groups, names[:5])


def test_import_options_take_both_annotation_tokens_and_check_their_type():
    """A session saved with feature annotations attached restores (the token of the third
    uploader is an option of the app's, not of the import plan); a token that is no text is refused."""
    from fsviz.compute.session import check_import_options

    ok = {"annotations_token": "a1", "feature_annotations_token": "f1", "roles": {}}
    assert check_import_options(ok) is ok
    with pytest.raises(ValueError, match="feature_annotations_token"):
        check_import_options({"feature_annotations_token": 5})
