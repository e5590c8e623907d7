"""Session files: an analysis saved as JSON (where the data came from, how it was read, every
Run, the kept selections and the prior groups) and read back with every field checked.

The app's "Save session" writes :func:`session_json`; "Load a session" reads it with
:func:`read_session`, which raises ValueError naming the problem for any malformed file.
Prior groups are stored by feature name, so a file stays readable by a person and keeps
its meaning when the columns of the data file move.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fsviz.compute.runs import Run

__all__ = ["SessionFile", "read_session", "session_json"]

#: the sources a session's data can come from
SOURCES = ("sample", "upload")


@dataclass(frozen=True)
class SessionFile:
    """A saved session.

    Attributes
    ----------
    dataset_name, fingerprint : str
        The dataset the runs were computed on (its content fingerprint).
    source : dict
        ``{"kind": "sample", "name": ...}`` or ``{"kind": "upload", "file": ..., "sha256": ...,
        "import_options": {...}}`` (how the file was read: separator, roles, target …);
        empty when unknown (files written before sources were saved).
    seed : int
    shown : dict of str to Run
        The Run each page showed.
    kept : tuple of (Run, int or None)
        The selections kept for comparison.
    prior_groups : tuple of tuple of str
        GRM's prior groups, by feature name.
    options : dict
        Per-dataset choices: ``cv`` ("auto" or "loo") and the target fixes
        (``min_class_size``, ``target_kind``).
    image_shape : tuple or None
    fsviz_version : str
    """

    dataset_name: str
    fingerprint: str
    source: dict = field(default_factory=dict)
    seed: int = 0
    shown: dict = field(default_factory=dict)
    kept: tuple = ()
    prior_groups: tuple = ()
    options: dict = field(default_factory=dict)
    image_shape: tuple | None = None
    fsviz_version: str = ""


def session_json(session: SessionFile) -> bytes:
    """The JSON bytes of ``session`` (what "Save session" downloads)."""
    from fsviz import __version__

    doc = {
        "fsviz_version": __version__,
        "dataset": {
            "name": session.dataset_name,
            "fingerprint": session.fingerprint,
            "source": session.source,
            "image_shape": list(session.image_shape) if session.image_shape else None,
        },
        "seed": int(session.seed),
        "shown": {slot: run.to_dict() for slot, run in session.shown.items()},
        "selections": [{"run": run.to_dict(), "k": k} for run, k in session.kept],
        "prior_groups": [list(g) for g in session.prior_groups],
        "options": dict(session.options),
    }
    return json.dumps(doc, indent=2, default=str).encode()


def _fail(why: str) -> ValueError:
    return ValueError(f"session file: {why}. Save a new one from the app's sidebar (Session file).")


def _expect(value: Any, kind: type | tuple, what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _fail(f"{what} must be {names}; got {type(value).__name__} {value!r:.60}")
    return value


def _run(data: Any, what: str) -> Run:
    from fsviz.compute.registry import METHODS

    _expect(data, Mapping, what)
    if str(data.get("method")) not in METHODS:
        raise _fail(f"{what} names an unknown method {data.get('method')!r}")
    try:
        run = Run.from_dict(data)  # ValueError naming the shape it expects
        for r in (run, *(v for _, v in run.params if isinstance(v, Run))):
            r.spec.validate(r.kwargs)  # unknown parameter, value outside its declaration
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise _fail(f"{what}: {e}") from None
    return run


def read_session(data: bytes | str) -> SessionFile:
    """Parse a session file, checking every field.

    Raises
    ------
    ValueError
        Not JSON, not an object, a missing ``dataset`` entry, a field of the wrong type, an
        unknown method or a broken Run — the message says which.
    """
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise _fail(f"not JSON ({e})") from None
    _expect(doc, dict, "the file")
    if "dataset" not in doc:
        raise _fail("not an fsviz session (no 'dataset' entry)")
    ds = _expect(doc["dataset"], dict, "'dataset'")
    fingerprint = _expect(ds.get("fingerprint"), str, "'dataset.fingerprint'")
    source = _expect(ds.get("source") or {}, dict, "'dataset.source'")
    if source and source.get("kind") not in SOURCES:
        raise _fail(f"'dataset.source.kind' must be one of {SOURCES}; got {source.get('kind')!r}")
    if source.get("kind") == "upload":
        _expect(source.get("sha256"), str, "'dataset.source.sha256'")
        _expect(source.get("file"), str, "'dataset.source.file'")
        _expect(source.get("import_options") or {}, dict, "'dataset.source.import_options'")
    shape = ds.get("image_shape")
    if shape is not None:
        _expect(shape, list, "'dataset.image_shape'")
        if len(shape) != 2 or not all(isinstance(v, int) and v > 0 for v in shape):
            raise _fail(f"'dataset.image_shape' must be [height, width]; got {shape!r}")
    seed = _expect(doc.get("seed", 0), int, "'seed'")
    shown_doc = _expect(doc.get("shown") or {}, dict, "'shown'")
    shown = {str(slot): _run(r, f"'shown.{slot}'") for slot, r in shown_doc.items()}
    kept = []
    for i, item in enumerate(_expect(doc.get("selections") or [], list, "'selections'")):
        _expect(item, dict, f"'selections[{i}]'")
        k = item.get("k")
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
            raise _fail(f"'selections[{i}].k' must be an int >= 1 or null; got {k!r:.40}")
        kept.append((_run(item.get("run"), f"'selections[{i}].run'"), k))
    groups = []
    for i, g in enumerate(_expect(doc.get("prior_groups") or [], list, "'prior_groups'")):
        _expect(g, list, f"'prior_groups[{i}]'")
        groups.append(tuple(str(_expect(n, (str, int), f"'prior_groups[{i}]' entries")) for n in g))
    return SessionFile(
        dataset_name=str(ds.get("name", "")),
        fingerprint=fingerprint,
        source=source,
        seed=seed,
        shown=shown,
        kept=tuple(kept),
        prior_groups=tuple(groups),
        options=_expect(doc.get("options") or {}, dict, "'options'"),
        image_shape=tuple(shape) if shape else None,
        fsviz_version=str(doc.get("fsviz_version", "")),
    )


def groups_by_name(groups: Sequence[Sequence[int]], feature_names: Sequence) -> tuple[tuple[str, ...], ...]:
    """Prior groups (feature indices) as feature names, for a session file."""
    return tuple(tuple(str(feature_names[j]) for j in g) for g in groups)


def groups_by_index(groups: Sequence[Sequence[str]], feature_names: Sequence) -> list[list[int]]:
    """Prior groups saved by name back to feature indices; ValueError naming an unknown name."""
    where = {str(n): j for j, n in enumerate(feature_names)}
    missing = [n for g in groups for n in g if n not in where]
    if missing:
        raise _fail(f"prior groups name features this dataset does not have: {missing[:5]}")
    return [[where[n] for n in g] for g in groups]
