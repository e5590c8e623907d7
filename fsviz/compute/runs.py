"""``Run``: one computation (method, parameters, seed) as a frozen, hashable value.

A ``Run`` names what to compute, never on which data: ``run.execute(dataset)`` computes
it, and ``(dataset.fingerprint, run.key)`` identifies the result. The app, the CLI and the
cross-validation that refits a selection inside each training fold all build Runs and
execute them, so the same method, parameters and seed give the same result everywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsviz import __version__

#: ``progress(fraction_done, text, **info)``; a stream also passes ``arrived=`` and ``selected=``
Progress = Callable[..., None]

#: method name -> registered :class:`~fsviz.compute.registry.Method`. The registry depends on
#: Run, not the other way round: it hands its table over with :func:`bind_registry` when
#: imported (``import fsviz.compute`` imports it before any Run is made).
_METHODS: Mapping[str, Any] = {}


def bind_registry(methods: Mapping[str, Any]) -> None:
    """Let Runs look up methods (their declarations and runners) in ``methods``."""
    global _METHODS
    _METHODS = methods


def registered() -> Mapping[str, Any]:
    """The method table :func:`bind_registry` handed over (name -> Method), for the runners,
    which the registry imports and so cannot import it back."""
    return _METHODS


def _lookup(name: str):
    try:
        return _METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; known are {sorted(_METHODS)}.") from None


def _noop(frac: float, text: str, **info: Any) -> None:
    return None


def plain(value: Any) -> Any:
    """A hashable, order-stable form of a parameter value (lists, ranges -> tuples, numpy -> Python).

    Mappings become sorted ``(name, value)`` tuples; a nested :class:`Run` stays a Run.
    """
    if isinstance(value, Run):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return tuple(plain(v) for v in value.tolist())
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), plain(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple, range)):
        return tuple(plain(v) for v in value)
    return value


def _text(value: Any) -> str:
    """Canonical text of a parameter value: floats by repr, nested Runs by their key."""
    if isinstance(value, Run):
        return value.key
    if isinstance(value, tuple):
        return "(" + ",".join(_text(v) for v in value) + ")"
    return repr(value)


#: the largest seed (numpy's ``RandomState`` takes seeds in [0, 2**32 - 1]); the app's seed box,
#: the CLI's --seed and session files are checked against it
SEED_MAX = 2**32 - 1


@dataclass(frozen=True)
class Run:
    """One computation: a registered method, its parameters and the seed.

    Parameters
    ----------
    method : str
        A key of :data:`fsviz.compute.METHODS` (e.g. ``"gdm"``, ``"fisher"``, ``"grm"``).
    params : mapping, default=None
        The method's parameters by name; their order does not matter. The run is stored in
        one canonical form, so one computation has one key: parameters not given take the
        method's declared defaults (:attr:`Method.params <fsviz.compute.Method.params>`);
        one rule for None: it means "not set" (so the declared default) unless the
        declaration allows None as a value (``cv_folds=None``); numbers take their declared
        type (``tau=0`` is ``tau=0.0``), lists become tuples and groups of feature indices
        sorted tuples. Another ``Run`` may be a value (GRM's base score,
        the GDM run whose groups group-SAOLA streams).
    seed : int, default=0
        Passed as ``random_state`` wherever randomness enters.

    Examples
    --------
    >>> from fsviz.compute import Run
    >>> Run("gdm", {"tau": 0.3, "C": 1.0}) == Run("gdm", {"C": 1.0, "tau": 0.3})
    True
    >>> Run("gdm", {"tau": 0.3}).get("tau")
    0.3
    >>> Run("gdm", {}).key == Run("gdm", {"tau": 0.3}).key  # 0.3 is GDM's default
    True
    """

    method: str
    params: tuple = field(default=())
    seed: int = 0

    def __post_init__(self) -> None:
        params = self.params
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            params = dict(params)
        method = str(self.method)
        spec = _METHODS.get(method)  # unknown names stay as given: executing the run names them
        declared = spec.params if spec is not None else {}
        params = {str(k): declared[k].canonical(v) if k in declared else v for k, v in params.items()}
        # one rule for None: None is "not set" unless the declaration allows None as a value;
        # a parameter not set takes its declared default (get() gives None for undeclared ones)
        params = {
            k: v for k, v in params.items() if v is not None or (k in declared and declared[k].nullable)
        }
        params = {k: p.default for k, p in declared.items()} | params
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "params", plain(params))
        seed = self.seed
        if (
            isinstance(seed, bool)
            or not isinstance(seed, (int, np.integer))
            or not 0 <= int(seed) <= SEED_MAX
        ):
            raise ValueError(
                f"Run: the seed must be an int in [0, {SEED_MAX}] (numpy's range); got {seed!r:.40}."
            )
        object.__setattr__(self, "seed", int(seed))

    @property
    def kwargs(self) -> dict[str, Any]:
        """The parameters as a dict."""
        return dict(self.params)

    def get(self, name: str, default: Any = None) -> Any:
        """One parameter's value (its declared default is filled in; else ``default``)."""
        return self.kwargs.get(name, default)

    def replace(self, **params: Any) -> Run:
        """The same run with some parameters changed.

        ``run.replace(tau=run.get("tau")) == run`` for every parameter.
        """
        return Run(self.method, self.kwargs | params, self.seed)

    @property
    def key(self) -> str:
        """Canonical text of method, parameters, seed and fsviz version: equal runs, equal keys.

        Long keys (prior groups, explicit feature lists) are shortened to a SHA-256 digest
        of the full text.
        """
        body = ",".join(f"{k}={_text(v)}" for k, v in self.params)
        text = f"{self.method}({body})seed={self.seed};fsviz={__version__}"
        if len(text) > 400:
            text = f"{self.method}#{hashlib.sha256(text.encode()).hexdigest()[:32]}"
        return text

    @property
    def spec(self):
        """The registered :class:`~fsviz.compute.registry.Method` behind this run."""
        return _lookup(self.method)

    @property
    def label(self) -> str:
        """A short human label: ``"GDM [tau=0.2]"`` (parameters off their defaults)."""
        p = params_label(self)
        return f"{self.spec.label} [{p}]" if p else self.spec.label

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: ``{"method", "params", "seed"}``, nested Runs as dicts too."""
        return {"method": self.method, "params": {k: _jsonable(v) for k, v in self.params}, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Run:
        """Inverse of :meth:`to_dict` (a session or provenance file back to a Run)."""
        try:
            params = {k: _from_jsonable(v) for k, v in dict(data.get("params") or {}).items()}
            return cls(str(data["method"]), params, int(data.get("seed", 0)))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(
                "Run.from_dict: expected {'method': str, 'params': dict, 'seed': int}; "
                f"got {data!r:.200} ({e})."
            ) from None

    def execute(self, dataset, progress: Progress | None = None, *, results=None, client=None):
        """Compute this run on ``dataset``.

        Parameters
        ----------
        dataset : fsviz.data.Dataset
        progress : callable, optional
            ``progress(fraction_done, text, **info)``, called as the run advances.
        results : callable, optional
            ``results(run) -> result`` for runs this one depends on (a GRM's base score, a
            group-SAOLA's GDM groups); the app passes its cache. Default: execute them.
        client : dask.distributed.Client, optional
            Handed to the estimators that scale out (GDM, SAOLA).

        Returns
        -------
        A frozen result dataclass of :mod:`fsviz.compute.results`.

        Raises
        ------
        fsviz._dask.SchedulerLostError
            (an OSError) ``client``'s scheduler went away during the run: the message names its
            address and the fix (start it again, or run without a client).
        """
        ctx = Context(dataset, progress or _noop, results, client)
        if client is None:
            return self.spec.execute(self, ctx)
        try:
            return self.spec.execute(self, ctx)
        except Exception as e:
            from fsviz._dask import lost_scheduler

            lost = lost_scheduler(client, e)
            if lost is None:
                raise
            raise lost from e


def params_label(run: Run) -> str:
    """``"C=2, tau=0.2"``: a short human label of the parameters a run sets off their defaults.

    A nested Run (GRM's base score, group-SAOLA's GDM groups) shows as its own label;
    groups (GRM's prior groups) by their number and size, long lists by their length.
    """
    spec = _METHODS.get(run.method)
    declared = spec.params if spec is not None else {}
    out = []
    for k, v in run.params:
        if k in declared and plain(declared[k].default) == v:
            continue
        if isinstance(v, Run):
            v = v.label
        elif isinstance(v, float):
            v = f"{v:g}"
        elif isinstance(v, tuple) and v and all(isinstance(g, tuple) for g in v):
            # groups of feature indices (GRM's priors): the label has no feature names to show,
            # and indices read as data ("(72, 1483, 15443)"); the report lists the members by name
            size = sum(map(len, v))
            v = f"{len(v)} group{'s' * (len(v) != 1)} of {size} feature{'s' * (size != 1)}"
        elif isinstance(v, tuple):
            v = f"<{len(v)} items>" if len(v) > 4 else ",".join(map(str, v)) or "none"
        out.append(f"{k}={v}")
    return ", ".join(out)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Run):
        return {"run": value.to_dict()}
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def _from_jsonable(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"run"}:
        return Run.from_dict(value["run"])
    if isinstance(value, list):
        return [_from_jsonable(v) for v in value]
    return value


@dataclass(frozen=True)
class Context:
    """What a method's runner gets besides its Run: the data, progress, dependencies, client."""

    dataset: Any
    progress: Progress = _noop
    results: Callable[[Run], Any] | None = None
    client: Any = None

    def result(self, run: Run):
        """The result of a run this one depends on, on the same data."""
        if self.results is not None:
            return self.results(run)
        return run.execute(self.dataset, client=self.client)


__all__ = ["Context", "Progress", "Run", "bind_registry", "params_label", "plain", "registered"]
