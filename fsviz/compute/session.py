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

from fsviz.compute.runs import SEED_MAX, Run

__all__ = ["SessionFile", "check_import_options", "check_run", "parse_json", "read_session", "session_json"]

#: the sources a session's data can come from
SOURCES = ("sample", "upload", "server")
#: a session file is data from outside: bounded in size and nesting before it is believed (an
#: honest file is a few KB; prior groups of many features make it longer, never this long)
MAX_SESSION_BYTES = 16 << 20
MAX_DEPTH = 24
#: the per-dataset options a session carries, and what each may be
OPTION_TYPES = {"cv": str, "min_class_size": int, "target_kind": str}


@dataclass(frozen=True)
class SessionFile:
    """A saved session.

    Attributes
    ----------
    dataset_name, fingerprint : str
        The dataset the runs were computed on (its content fingerprint).
    source : dict
        ``{"kind": "sample", "name": ...}``, ``{"kind": "server", "file": ...}`` (a file of the
        server's data folder) or ``{"kind": "upload", "file": ..., "sha256": ...,
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
    why = why.rstrip(". ")
    return ValueError(f"session file: {why}. Save a new one from the app's sidebar (Session file).")


def _expect(value: Any, kind: type | tuple, what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _fail(f"{what} must be {names}; got {type(value).__name__} {value!r:.60}")
    return value


def parse_json(data: bytes | str, what: str = "session file", *, max_bytes: int = MAX_SESSION_BYTES) -> Any:
    """JSON from outside (a session file, a URL's runs), parsed with limits.

    At most ``max_bytes`` bytes, nested at most :data:`MAX_DEPTH` levels, no ``NaN`` or
    ``Infinity``, integers of at most 4,300 digits (Python's own limit). Raises ValueError naming
    the limit, never RecursionError or MemoryError.
    """
    size = len(data)
    if size > max_bytes:
        raise ValueError(
            f"{what}: {size:,} bytes is more than a session holds (at most {max_bytes:,}). Fix: save a "
            "new one from the app's sidebar (Session file)."
        )

    def constant(name: str):
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        doc = json.loads(data, parse_constant=constant)
    except RecursionError:
        doc = None
        deep = True
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(
            f"{what}: not JSON ({str(e)[:200]}). Fix: save a new one from the app's sidebar."
        ) from None
    else:
        deep = _depth(doc) > MAX_DEPTH
    if deep:
        raise ValueError(
            f"{what}: nested deeper than {MAX_DEPTH} levels; a session is a few levels deep. Fix: save a new "
            "one from the app's sidebar (Session file)."
        )
    return doc


def _depth(doc: Any) -> int:
    deepest, stack = 0, [(doc, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        if isinstance(node, dict):
            stack.extend((v, d + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, d + 1) for v in node)
    return deepest


def check_run(data: Any, what: str) -> Run:
    """A Run from its JSON form, every part checked (a session file's, a URL's, a report's)."""
    return _run(data, what)


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
    doc = parse_json(data)
    _expect(doc, dict, "the file")
    if "dataset" not in doc:
        raise _fail("not an fsviz session (no 'dataset' entry)")
    ds = _expect(doc["dataset"], dict, "'dataset'")
    fingerprint = _expect(ds.get("fingerprint"), str, "'dataset.fingerprint'")
    source = _expect(ds.get("source") or {}, dict, "'dataset.source'")
    if source and source.get("kind") not in SOURCES:
        raise _fail(f"'dataset.source.kind' must be one of {SOURCES}; got {source.get('kind')!r}")
    if source.get("kind") == "server":  # a file of the server's data folder, by its path in it
        _expect(source.get("file"), str, "'dataset.source.file'")
    if source.get("kind") == "upload":
        _expect(source.get("sha256"), str, "'dataset.source.sha256'")
        _expect(source.get("file"), str, "'dataset.source.file'")
        check_import_options(
            _expect(source.get("import_options") or {}, dict, "'dataset.source.import_options'")
        )
    shape = ds.get("image_shape")
    if shape is not None:
        _expect(shape, list, "'dataset.image_shape'")
        if len(shape) != 2 or not all(isinstance(v, int) and v > 0 for v in shape):
            raise _fail(f"'dataset.image_shape' must be [height, width]; got {shape!r}")
    seed = _expect(doc.get("seed", 0), int, "'seed'")
    if not 0 <= seed <= SEED_MAX:
        raise _fail(f"'seed' must be in [0, {SEED_MAX}]; got {seed}")
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
        options=_options(_expect(doc.get("options") or {}, dict, "'options'")),
        image_shape=tuple(shape) if shape else None,
        fsviz_version=str(doc.get("fsviz_version", "")),
    )


def _options(options: dict) -> dict:
    for k, v in options.items():
        want = OPTION_TYPES.get(k)
        if want is None:
            raise _fail(f"'options' has an unknown entry {k!r:.40}; known: {sorted(OPTION_TYPES)}")
        _expect(v, want, f"'options.{k}'")
    return dict(options)


def check_import_options(options: dict) -> dict:
    """An upload's import options (a session file's, a link's): the fields of an import plan, checked
    by :class:`~fsviz.data.plan.ImportPlan`, plus the app's roles table (``roles``: column ->
    target, feature, identifier or ignored) and the tokens of its sample- and feature-annotation
    uploads."""
    from fsviz.data.plan import COLUMN_ROLES, ImportPlan

    _expect(options, dict, "'import_options'")
    roles = _expect(options.get("roles") or {}, dict, "'import_options.roles'")
    bad = {c: r for c, r in roles.items() if r not in COLUMN_ROLES}
    if bad:
        raise _fail(f"'import_options.roles' gives unknown roles {bad!r:.80}")
    tokens = ("annotations_token", "feature_annotations_token")
    for name in tokens:
        if options.get(name) is not None:
            _expect(options[name], str, f"'import_options.{name}'")
    plan = {k: v for k, v in options.items() if k not in ("roles", *tokens)}
    try:
        ImportPlan.from_dict(plan, "'import_options'")
    except ValueError as e:
        raise _fail(str(e)) from None
    return options


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
