"""The cut of a selection: a fixed ``k``, or a rule that says how many features to keep and
how sure one can be of them (``fsviz select -k fdr:0.05``; docs/significance.md).

A :class:`Cut` is parsed from the text of ``-k`` (:func:`parse_cut`); :func:`cut_run` gives the
Run that computes the rule's numbers for a selection Run, and :func:`cut_selection` the
:class:`~fsviz.compute.Selection` it keeps, with the rule named and its numbers as columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from fsviz.compute.results import Selection
from fsviz.compute.runs import Run

__all__ = ["CUT_RULES", "Cut", "cut_run", "cut_selection", "parse_cut", "parse_k"]

#: the rules ``-k`` takes besides a number: the text before the colon
CUT_RULES = ("fdr", "stability", "cv-1se")


@dataclass(frozen=True)
class Cut:
    """A rule for the size of a selection: ``rule`` (one of :data:`CUT_RULES`) and its level."""

    rule: str
    level: float | None = None

    @property
    def text(self) -> str:
        """The ``-k`` form: ``"fdr:0.05"``."""
        return self.rule if self.level is None else f"{self.rule}:{self.level:g}"


def parse_cut(text: str) -> Cut:
    """A :class:`Cut` from ``-k``'s text: ``fdr:Q`` (BH q-value at most Q, 0 < Q <= 1; for
    ``--method knockoffs``, knockoff+ at FDR Q), ``stability:PI`` or ``cv-1se``.

    Raises
    ------
    ValueError
        An unknown rule or a level out of range, naming the forms ``-k`` takes.
    """
    forms = (
        "a number of features (e.g. 20), fdr:Q (0 < Q <= 1, e.g. fdr:0.05) or stability:PI "
        "(0.5 < PI <= 1, e.g. stability:0.8) or cv-1se"
    )
    rule, _, level = str(text).strip().partition(":")
    rule = rule.lower()
    if rule == "knockoffs":  # the knockoffs are a method with its own FDR level, not a cut of another
        raise ValueError(
            f"-k {text}: model-X knockoffs are a method: give --method knockoffs -k fdr:{level or 'Q'}."
        )
    if rule not in CUT_RULES:
        raise ValueError(f"-k: unknown rule {text!r}; give {forms}.")
    if rule == "cv-1se":
        if level:
            raise ValueError(f"-k {text}: cv-1se takes no level; give {forms}.")
        return Cut(rule)
    try:
        value = float(level)
    except ValueError:
        raise ValueError(f"-k {text}: the level after '{rule}:' must be a number; give {forms}.") from None
    if rule == "fdr" and not 0.0 < value <= 1.0:
        raise ValueError(f"-k {text}: the FDR level must be in (0, 1]; got {value:g}.")
    if rule == "stability" and not 0.5 < value <= 1.0:
        raise ValueError(
            f"-k {text}: the selection-probability threshold must be in (0.5, 1] (the PFER bound "
            f"needs it above 1/2); got {value:g}."
        )
    return Cut(rule, value)


def parse_k(text: str) -> int | Cut:
    """``-k``'s value: an int (the existing top k) or a :class:`Cut`."""
    try:
        return int(text)
    except ValueError:
        return parse_cut(text)


def cut_run(
    run: Run,
    cut: Cut,
    n_permutations: int | None = None,
    null: str | None = None,
    n_pairs: int | None = None,
    per_half: int | None = None,
    ks=None,
    cv: int | None = None,
) -> Run:
    """The Run computing ``cut``'s numbers for the selection ``run`` (same seed).

    Raises
    ------
    ValueError
        ``fdr`` on a method that does not score every feature, or on an unsupervised score.
    """
    if cut.rule == "fdr" and run.method == "knockoffs":  # knockoff+ at level Q: its own FDR rule
        return run.replace(fdr=float(cut.level))
    if cut.rule == "fdr":
        if run.spec.kind != "score":
            raise ValueError(
                f"-k {cut.text}: the FDR cut tests each feature's score, and {run.spec.label} is not a "
                "score (it selects a subset); choose a scoring method (fisher, f, mi, pearson, ...), "
                "or --method knockoffs (knockoff+ at FDR Q)."
            )
        if not run.spec.supervised:
            raise ValueError(
                f"-k {cut.text}: {run.spec.label} is unsupervised (its score never reads the target), so "
                "permutations of the labels cannot test it; choose a supervised score."
            )
        params: dict[str, Any] = {"of": run}
        if n_permutations is not None:
            params["n_permutations"] = int(n_permutations)
        if null is not None:
            params["null"] = null
        return Run("significance", params, run.seed)
    if cut.rule == "stability":
        if not run.spec.selects:
            raise ValueError(f"-k {cut.text}: {run.spec.label} does not select features.")
        params = {"of": run}
        if n_pairs is not None:
            params["n_pairs"] = int(n_pairs)
        if per_half is not None:
            params["k"] = int(per_half)
        return Run("stability-selection", params, run.seed)
    if cut.rule == "cv-1se":
        if not run.spec.selects:
            raise ValueError(f"-k {cut.text}: {run.spec.label} does not select features.")
        params = {"of": run}
        if ks is not None:
            params["ks"] = tuple(int(k) for k in ks)
        if cv is not None:
            params["n_folds"] = int(cv)
        return Run("cv-curve", params, run.seed)
    raise ValueError(f"unknown cut rule {cut.rule!r}; known are {list(CUT_RULES)}.")  # pragma: no cover


def cut_selection(
    run: Run, cut: Cut, dataset, results: Callable[[Run], Any] | None = None, **options
) -> Selection:
    """The selection of ``run`` kept by ``cut`` on ``dataset`` (``results`` resolves a Run to its
    result, e.g. a cache; default: execute it). ``options``: ``n_permutations`` and ``null`` for
    ``fdr``, ``n_pairs`` and ``per_half`` for ``stability``, ``ks`` and ``cv`` for ``cv-1se`` (None:
    the declared defaults)."""
    numbers = cut_run(run, cut, **{k: v for k, v in options.items() if v is not None})
    resolve = results if results is not None else (lambda r: r.execute(dataset))
    res = resolve(numbers)
    if numbers.method == "knockoffs":  # the selection at the knockoff+ threshold, W and the rule
        return res.selection(None)
    if cut.rule == "cv-1se":
        sized = run
        if run.spec.kind == "subset" and (run.get("n_features") or res.k_1se) < res.k_1se:
            sized = run.replace(n_features=res.k_1se)  # a fixed-size subset: as many as the rule keeps
        return replace(resolve(sized).selection(res.k_1se), rule=res.describe())
    return res.selection(cut.level)
