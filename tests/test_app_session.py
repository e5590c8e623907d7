"""``appkit.load_session``: any malformed session file is a ValueError saying why (the app
shows ValueErrors; anything else would be a crash)."""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("streamlit")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import appkit  # noqa: E402

DS = SimpleNamespace(name="toy", fingerprint="f" * 64)
HEAD = {"dataset": {"name": "toy", "fingerprint": DS.fingerprint}}
GDM = {"method": "gdm", "params": {"tau": 0.3}, "seed": 0}


@pytest.mark.parametrize(
    "doc, said",
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "not an fsviz session"),
        ({"dataset": "toy"}, "not an fsviz session"),
        ({"dataset": {"name": "other", "fingerprint": "0" * 64}}, "saved on dataset 'other'"),
        (HEAD | {"shown": ["gdm"]}, "'shown' must be an object"),
        (HEAD | {"selections": {"a": 1}}, "'selections' a list"),
        (HEAD | {"shown": {"gdm": {"params": {}}}}, r"shown\['gdm'\].*expected \{'method'"),
        (HEAD | {"shown": {"gdm": "gdm"}}, r"shown\['gdm'\]"),
        (HEAD | {"shown": {"x": {"method": "nope", "params": {}}}}, "unknown method 'nope'"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "params": {"tau": 2.0}}}}, "'tau' parameter of GDM"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "params": {"taux": 0.2}}}}, "unknown parameter"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "params": "tau=0.2"}}}, r"shown\['gdm'\]"),
        (HEAD | {"shown": {"gdm": {"method": "gdm", "seed": "zero"}}}, r"shown\['gdm'\]"),
        (HEAD | {"selections": ["gdm"]}, r"selections\[0\] must be an object with a 'run'"),
        (HEAD | {"selections": [{"run": GDM, "k": 0}]}, r"'k' parameter of session file: selections\[0\]"),
        (HEAD | {"selections": [{"run": GDM, "k": "all"}]}, "Got 'all'"),
        (
            HEAD | {"shown": {"grm": {"method": "grm", "params": {"base": {"run": {"method": "nope"}}}}}},
            "'nope'",
        ),
    ],
)
def test_malformed_session_files_are_value_errors_with_the_reason(doc, said):
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    with pytest.raises(ValueError, match=said):
        appkit.load_session(DS, data)
