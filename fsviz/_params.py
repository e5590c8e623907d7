"""One home for a parameter: what an estimator declares, read by the registry, runs, app and CLI.

Each estimator declares its parameters once, the scikit-learn way::

    _parameter_constraints = {"tau": [Interval(Real, 0.0, 1.0, closed="left")], ...}

(checked in ``fit`` by scikit-learn's own ``validate_parameter_constraints`` through
``BaseEstimator._validate_params``); the default is the one in ``__init__``'s signature.
Where the app shows a parameter, the estimator adds a :class:`ParamUI` in
``_parameter_ui`` (label, help, slider step and the papers' practical range).
:func:`describe` joins the three into :class:`Param` records; nothing else restates them.
"""

from __future__ import annotations

import inspect
import math
import operator
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from sklearn.utils._param_validation import Interval, StrOptions, validate_parameter_constraints

__all__ = [
    "Param",
    "ParamUI",
    "check_data_bound",
    "check_number",
    "describe",
    "signature_default",
    "validate_declared",
    "validate_param",
]


@dataclass(frozen=True)
class ParamUI:
    """What the app needs besides type, bounds and default.

    Attributes
    ----------
    label : str
        The name a person reads (``"tau (correlation threshold 1 - tau)"``).
    help : str, default=""
        One or two sentences for the widget's tooltip.
    step : float or None, default=None
        Slider step; None lets the app choose (1 for ints).
    practical : tuple of (float, float) or None, default=None
        The range the papers use, a subset of the valid range (GDM's tau: [0, 0.5]); a
        slider spans it, other values stay valid.
    groups : bool, default=False
        The value is a list of groups of feature indices (GRM's prior groups): a Run stores it
        in one canonical form (:meth:`Param.canonical`).
    options : tuple or None, default=None
        The values a page offers on a stepped slider (the histogram's bins: 10, 20, 50, 100),
        where a few round values serve better than every integer in the range.
    """

    label: str
    help: str = ""
    step: float | None = None
    practical: tuple[float, float] | None = None
    groups: bool = False
    options: tuple | None = None


@dataclass(frozen=True)
class Param:
    """One declared parameter: name, default, scikit-learn constraints and app hints.

    Attributes
    ----------
    name : str
    default : object
        The default in the estimator's ``__init__`` (or the run's, for run-only parameters).
    constraints : tuple
        scikit-learn constraints (``Interval``, ``StrOptions``, ``"boolean"``, ``None``, ...),
        any one of which a valid value satisfies.
    label, help, step, practical, groups, options
        See :class:`ParamUI`.
    """

    name: str
    default: Any
    constraints: tuple = ("no_validation",)
    label: str = ""
    help: str = ""
    step: float | None = None
    practical: tuple[float, float] | None = None
    groups: bool = False
    options: tuple | None = None

    @property
    def interval(self) -> Interval | None:
        """The first numeric :class:`~sklearn.utils._param_validation.Interval`, if any."""
        return next((c for c in self.constraints if isinstance(c, Interval)), None)

    @property
    def kind(self) -> str:
        """``"int"``, ``"real"``, ``"bool"``, ``"choice"`` or ``"other"``: which widget fits."""
        iv = self.interval
        if iv is not None:
            return "int" if iv.type is Integral else "real"
        if "boolean" in self.constraints:
            return "bool"
        if self.choices:
            return "choice"
        return "other"

    @property
    def choices(self) -> tuple[str, ...]:
        """The allowed strings (from ``StrOptions``), sorted; empty when there are none."""
        out: set[str] = set()
        for c in self.constraints:
            if isinstance(c, StrOptions):
                out |= set(c.options) - set(c.deprecated)
        return tuple(sorted(out))

    @property
    def nullable(self) -> bool:
        """Whether None is a value (declared among the constraints, or not validated at all)."""
        return any(c is None or c == "no_validation" for c in self.constraints)

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """``(low, high)`` of the interval (None where unbounded)."""
        iv = self.interval
        return (None, None) if iv is None else (iv.left, iv.right)

    def widget_range(self) -> tuple[float, float]:
        """``(low, high)`` for a slider: every value in it, ends included, is valid.

        The practical range where declared, clipped to the valid one; an open end moves in by
        one step (a float ``tau`` in ``[0, 1)`` with step 0.01 -> ``(0.0, 0.99)``).

        Raises
        ------
        ValueError
            When the parameter has no bounded numeric range.
        """
        iv = self.interval
        lo, hi = self.practical if self.practical is not None else (iv.left, iv.right) if iv else (None, None)
        if lo is None or hi is None:
            raise ValueError(
                f"Param.widget_range: {self.name!r} has no bounded range (bounds {self.bounds}); "
                "declare a practical range in _parameter_ui."
            )
        step = self.step or (1 if self.kind == "int" else (hi - lo) / 100)
        if iv is not None:  # never past a valid value; an open end reached moves in by a step
            if iv.left is not None:
                lo = max(lo, iv.left)
                if lo == iv.left and iv.closed not in ("left", "both"):
                    lo = iv.left + step
            if iv.right is not None:
                hi = min(hi, iv.right)
                if hi == iv.right and iv.closed not in ("right", "both"):
                    hi = iv.right - step
        if self.kind == "int":
            return int(math.ceil(lo)), int(math.floor(hi))
        return float(lo), float(hi)

    def validate(self, value: Any, owner: str) -> None:
        """Raise ValueError (scikit-learn's ``InvalidParameterError``) unless ``value`` is valid.

        The message names the owner, the parameter, the rule and the value received.
        """
        if "no_validation" in self.constraints:
            return
        validate_parameter_constraints({self.name: list(self.constraints)}, {self.name: value}, owner)

    def canonical(self, value: Any) -> Any:
        """The value in its one canonical form: ints stay ints, reals become floats, groups of
        feature indices become a sorted tuple of sorted tuples of ints (no groups: None).

        So ``tau=0`` and ``tau=0.0`` are one computation with one key, and so are prior groups
        listed in another order. Other values are returned unchanged.
        """
        if self.groups and value is not None and not isinstance(value, str):
            try:
                groups = sorted(tuple(sorted(operator.index(i) for i in g)) for g in value)
            except (TypeError, ValueError):
                return value  # not index groups: the estimator's check names the problem
            return tuple(groups) or None
        kind = self.kind
        if kind == "real" and isinstance(value, Real) and not isinstance(value, bool):
            return float(value)
        if kind == "int" and isinstance(value, Integral) and not isinstance(value, bool):
            return int(value)
        if kind == "bool" and type(value).__name__ == "bool_":
            return bool(value)
        return value


def check_number(
    owner: str,
    name: str,
    value: Any,
    *,
    integer: bool,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    why: str = "",
) -> int | float:
    """One number checked against a scikit-learn ``Interval`` whose bounds depend on the data
    (``n_neighbors`` at most ``n_samples - 1``): the one checker for values a declaration
    cannot bound in advance. Returns the value as ``int`` or ``float``.

    Raises
    ------
    ValueError
        ``"{owner}: '{name}' must be an int in the range [1, 89]{why}; got 200."``
    """
    closed = {(False, True): "left", (False, False): "neither", (True, True): "both", (True, False): "right"}
    iv = Interval(
        Integral if integer else Real,
        low,
        high,
        closed=closed[(high is not None and not high_open, low is not None and not low_open)],
    )
    ok = iv.is_satisfied_by(value) and not isinstance(value, bool)
    if ok and not integer:
        ok = math.isfinite(value)
    if not ok:
        raise ValueError(f"{owner}: {name!r} must be {iv}{why}; got {value!r}.")
    return int(value) if integer else float(value)


def check_data_bound(
    owner: str, name: str, value: Any, declared: list, *, high: float, why: str = ""
) -> int | float:
    """``value`` against its declared ``Interval`` with the upper end the data sets
    (``n_neighbors`` at most ``n_samples - 1``): the static part of the rule stays in the
    estimator's declaration, only ``high`` comes from the data. Returns the value as a number.

    Raises
    ------
    ValueError
        ``"{owner}: 'n_neighbors' must be an int in the range [1, 89] (X has 90 samples); got 200."``
    """
    iv = next(c for c in declared if isinstance(c, Interval))
    top = high if iv.right is None else min(iv.right, high)
    return check_number(
        owner,
        name,
        value,
        integer=iv.type is Integral,
        low=iv.left,
        high=top,
        low_open=iv.left is not None and iv.closed in ("right", "neither"),
        why=why,
    )


def validate_declared(owner: str, estimator: type, **values: Any) -> None:
    """Values given outside an estimator (a plain function's arguments: ``lgd_score(X, n_neighbors)``)
    checked against that estimator's declaration, so the function and the class share one rule.

    Raises
    ------
    ValueError
        ``InvalidParameterError`` (a ValueError) naming ``owner``, the parameter, the rule and the value.
    """
    declared = estimator._parameter_constraints
    validate_parameter_constraints({k: declared[k] for k in values}, values, owner)


def validate_param(owner: str, name: str, value: Any, constraints: list) -> None:
    """scikit-learn's check of one value against ``constraints`` (for values outside ``__init__``).

    Raises
    ------
    ValueError
        ``InvalidParameterError`` (a ValueError) naming ``owner``, ``name``, the rule and the value.
    """
    validate_parameter_constraints({name: constraints}, {name: value}, owner)


def signature_default(func: Any, name: str) -> Any:
    """The default ``func``'s signature gives ``name``: a declaration that is not the function's
    own (a view's parameter in the run layer) reads the library's default from its one home.

    Raises
    ------
    ValueError
        When ``func`` has no parameter ``name`` or it has no default.
    """
    p = inspect.signature(func).parameters.get(name)
    if p is None or p.default is inspect.Parameter.empty:
        raise ValueError(
            f"signature_default: {getattr(func, '__name__', func)!r} has no default for {name!r}."
        )
    return p.default


def describe(estimator: type) -> dict[str, Param]:
    """The declared parameters of an estimator class, in ``__init__`` order.

    Every ``__init__`` parameter except ``random_state`` (a Run's seed) appears, with the
    default from the signature, the constraints from ``_parameter_constraints`` (or
    ``("no_validation",)``) and the app hints from ``_parameter_ui`` (label defaults to the name).
    """
    constraints = getattr(estimator, "_parameter_constraints", {}) or {}
    ui = getattr(estimator, "_parameter_ui", {}) or {}
    out: dict[str, Param] = {}
    for p in inspect.signature(estimator.__init__).parameters.values():
        if p.name in ("self", "random_state") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        hint = ui.get(p.name, ParamUI(p.name))
        default = None if p.default is inspect.Parameter.empty else p.default
        declared = constraints.get(p.name, "no_validation")
        out[p.name] = Param(
            name=p.name,
            default=default,
            constraints=("no_validation",) if declared == "no_validation" else tuple(declared),
            label=hint.label,
            help=hint.help,
            step=hint.step,
            practical=hint.practical,
            groups=hint.groups,
            options=hint.options,
        )
    return out
