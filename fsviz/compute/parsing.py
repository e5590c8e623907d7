"""What a person types or a form holds, turned into runs and feature groups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsviz.compute.runs import Run


def gdm_run(form: Mapping[str, Any], seed: int = 0) -> Run:
    """The GDM Run of the Groups page's form: GDM's declared parameters by name.

    The form's own conventions map to the declaration here: ``cv_folds`` 0 means off (None),
    ``positive`` None means all classes at once. Types and defaults are the Run's business.
    """
    params = dict(form)
    if not params.get("cv_folds"):
        params["cv_folds"] = None
    return Run("gdm", params, seed)


@dataclass(frozen=True)
class PriorGroups:
    """Prior groups resolved from pasted names.

    Attributes
    ----------
    groups : tuple of tuple of int
        One group per non-blank line: the features' column indices, sorted.
    notes : tuple of str
        What a person should know: a name that took several features (a symbol shared by
        probes), a name read as a display name or another ID.
    """

    groups: tuple
    notes: tuple = ()


class _Aliases:
    """One column of other names, sorted once: a name's features by binary search."""

    def __init__(self, values) -> None:
        text = np.asarray([str(v).strip() if v is not None else "" for v in values], dtype=str)
        self.order = np.argsort(text, kind="stable")
        self.sorted = text[self.order]

    def get(self, name: str) -> np.ndarray | None:
        lo = np.searchsorted(self.sorted, name, side="left")
        hi = np.searchsorted(self.sorted, name, side="right")
        return np.sort(self.order[lo:hi]) if name and hi > lo else None

    def names(self) -> list[str]:
        return [n for n in np.unique(self.sorted).tolist() if n]


def name_aliases(dataset) -> list[np.ndarray]:
    """The features' other names a person may type (for :func:`resolve_prior_groups`): their
    gene symbols (``Dataset.feature_info``'s display names, without the ``" (ID)"`` a symbol
    shared by several features carries there) and their other IDs (``feature_id``: 10x's
    Ensembl ids beside the symbols); ``[]`` without feature annotations."""
    if (dataset.meta or {}).get("feature_info") is None:
        return []
    info = dataset.feature_info
    shown = info["display_name"].to_numpy(dtype=object).astype(str)
    tails = np.char.add(np.char.add(" (", np.asarray(dataset.feature_names, dtype=str)), ")")
    shared = np.flatnonzero(np.char.endswith(shown, tails) & (shown != tails))
    symbols = shown.astype(object)
    symbols[shared] = [shown[j][: -len(tails[j])] for j in shared]  # the shared ones: a few per gene
    out = [symbols]
    if "symbol" in info.columns:  # 10x's symbols before they were made unique (MATR3 for MATR3-1)
        out.append(info["symbol"].to_numpy(dtype=object))
    if "feature_id" in info.columns:
        out.append(info["feature_id"].to_numpy(dtype=object))
    return out


class _Resolver:
    """A typed name's features: its own feature, every feature of a symbol, or a label's ID."""

    def __init__(self, feature_names: Sequence[str], aliases: Sequence[Sequence[str]] = ()) -> None:
        self.names = [str(n) for n in feature_names]
        self.own = {n: j for j, n in enumerate(self.names)}
        self.tables = []
        for i, column in enumerate(aliases):
            if column is None:
                continue
            if len(column) != len(self.names):
                raise ValueError(
                    f"prior groups: alias column {i} has {len(column)} names for {len(self.names)} features."
                )
            self.tables.append(_Aliases(column))

    def find(self, name: str) -> np.ndarray | None:
        """The features ``name`` gives (sorted column indices), None for an unknown name.

        A feature's own name gives that feature, unless it is also its symbol shared with
        others (10x's ``MATR3`` beside ``MATR3-1``, made unique from one symbol): then all of them.
        """
        import re

        j = self.own.get(name)
        hits = (t.get(name) for t in self.tables)
        if j is not None:
            shared = next((h for h in hits if h is not None and len(h) > 1 and j in h), None)
            return shared if shared is not None else np.array([j])
        hit = next((h for h in hits if h is not None), None)
        label = re.fullmatch(r".*\((.+)\)", name)  # "SYMBOL (ID)", as charts and tables show it
        if hit is None and label is not None and label.group(1) in self.own:
            hit = np.array([self.own[label.group(1)]])
        return hit


def prior_group_names(
    groups: Sequence[Sequence[int]], feature_names: Sequence[str], *, aliases: Sequence[Sequence[str]] = ()
) -> list[list[str]] | None:
    """Prior groups (column indices) as the names a person reads, which
    :func:`resolve_prior_groups` reads back to the same groups: each feature by its gene symbol
    when the symbol gives only features of its group (one name for all of them), else by an
    other ID or its own name. None when no such names give the groups back (a name holding a
    comma, say).

    Parameters
    ----------
    groups : sequence of sequences of int
        The groups' column indices.
    feature_names, aliases
        As :func:`resolve_prior_groups` takes them (:func:`name_aliases` of the dataset).

    Examples
    --------
    >>> symbols = [["DDR1", "DDR1", "TP53", "p4"]]
    >>> prior_group_names([[0, 1], [2, 3]], ["p1", "p2", "p3", "p4"], aliases=symbols)
    [['DDR1'], ['TP53', 'p4']]
    """
    resolver = _Resolver(feature_names, aliases)
    columns = [np.asarray(a, dtype=object) for a in aliases if a is not None] + [np.asarray(resolver.names)]
    out = []
    for group in groups:
        members, words, covered = {int(j) for j in group}, [], set()
        for j in sorted(members):
            if j in covered:  # a symbol given before took it
                continue
            for column in columns:
                word = "" if column[j] is None else str(column[j]).strip()
                hit = resolver.find(word) if word and "," not in word and "\n" not in word else None
                if hit is not None and j in hit and members.issuperset(hit.tolist()):
                    words.append(word)
                    covered.update(hit.tolist())
                    break
            else:
                return None
        out.append(words)
    try:
        back = resolve_prior_groups("\n".join(", ".join(w) for w in out), feature_names, aliases=aliases)
    except ValueError:
        return None
    want = tuple(tuple(sorted({int(j) for j in g})) for g in groups)
    return out if back.groups == want else None


def resolve_prior_groups(
    text: str, feature_names: Sequence[str], *, aliases: Sequence[Sequence[str]] = ()
) -> PriorGroups:
    """Prior groups from pasted text: one group per line, names separated by commas; a name is a
    feature's name (its ID), or one of its other names (``aliases``: display names such as gene
    symbols, other IDs), or its label ``SYMBOL (ID)``.

    A feature's own name wins (unless it is also its symbol, shared with others: 10x's ``MATR3``
    takes ``MATR3-1`` too, the repeats scanpy's ``var_names_make_unique`` renamed); otherwise the
    first alias column that holds the name gives every feature under it (a symbol shared by
    several probes takes all of them, and a note says so).
    Names match exactly (a number is a name too, never an index); blank lines are skipped.

    Parameters
    ----------
    text : str
        The pasted lines.
    feature_names : sequence of str
        The features' names (unique), in column order.
    aliases : sequence of sequences of str, default=()
        Other names per feature, each as long as ``feature_names`` (``Dataset.feature_info``'s
        ``display_name``, a ``feature_id`` column); blank entries are no name.

    Returns
    -------
    PriorGroups

    Raises
    ------
    ValueError
        Unknown names (each with its nearest names, IDs and aliases alike), a feature in two
        groups, a group of one feature, or an alias column of the wrong length.

    Examples
    --------
    >>> got = resolve_prior_groups("DDR1, p3", ["p1", "p2", "p3"], aliases=[["DDR1", "DDR1", "TP53"]])
    >>> got.groups, got.notes[0]
    (((0, 1, 2),), "'DDR1' names 2 features (p1, p2): all of them are in group 1")
    """
    import difflib

    resolver = _Resolver(feature_names, aliases)
    names, own, tables = resolver.names, resolver.own, resolver.tables
    groups, seen, unknown, notes = [], {}, [], []
    for line_no, line in enumerate(text.splitlines(), start=1):
        given = [n.strip() for n in line.split(",") if n.strip()]
        if not given:
            continue
        idx: list[int] = []
        for n in given:
            hit = resolver.find(n)
            if hit is None:
                unknown.append(n)
                continue
            idx += hit.tolist()
            if len(hit) > 1:
                listed = ", ".join(names[j] for j in hit[:5]) + (", ..." if len(hit) > 5 else "")
                group = len(groups) + 1
                notes.append(f"{n!r} names {len(hit)} features ({listed}): all of them are in group {group}")
        for j in idx:
            if j in seen and seen[j] != line_no:
                raise ValueError(
                    f"prior groups: feature {names[j]!r} is in line {seen[j]} and line {line_no}; "
                    "a feature belongs to one group."
                )
            seen[j] = line_no
        if len(set(idx)) == 1 and not unknown:
            raise ValueError(f"prior groups: line {line_no} names one feature; a group needs at least two.")
        groups.append(tuple(sorted(set(idx))))
    if unknown:
        pool = list(own) + [k for t in tables for k in t.names()]
        hints = []
        for n in unknown[:5]:
            near = difflib.get_close_matches(n, pool, 3) or difflib.get_close_matches(n.upper(), pool, 3)
            said = " or ".join(", ".join(map(repr, near)).rsplit(", ", 1)) if near else ""
            hints.append(f"{n!r}" + (f" (did you mean {said}?)" if near else ""))
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        what = "a feature name or a display name (gene symbol)" if tables else "a feature name"
        raise ValueError(
            f"prior groups: unknown feature name(s) {', '.join(hints)}{more}; each must match {what} exactly."
        )
    return PriorGroups(tuple(groups), tuple(notes))


def parse_prior_groups(text: str, feature_names: Sequence[str]) -> list[list[int]]:
    """Prior groups from pasted text: one group per line, feature names separated by commas.

    Names must match exactly (a number is a name too, never an index); blank lines are
    skipped. Raises ValueError naming unknown names (with a close match when there is one),
    a feature given in two groups, or a group of one feature. :func:`resolve_prior_groups`
    takes display names (gene symbols) too.
    """
    return [list(g) for g in resolve_prior_groups(text, feature_names).groups]


def prior_groups_from_names(groups: Sequence[Sequence[str]], feature_names: Sequence[str]) -> list[list[int]]:
    """GRM's prior groups given by feature names (the IDs ``Dataset.feature_names`` holds) as
    the column indices a Run keeps, each group sorted: what the report's reproduce lines call.

    Parameters
    ----------
    groups : sequence of sequences of str
        Each group's feature names.
    feature_names : sequence of str
        The dataset's feature names, in column order.

    Raises
    ------
    ValueError
        A name the features do not have (with its near names), or a feature in two groups.

    Examples
    --------
    >>> prior_groups_from_names([["c", "a"]], ["a", "b", "c"])
    [[0, 2]]
    """
    import difflib

    own = {str(n): j for j, n in enumerate(feature_names)}
    missing = [str(n) for g in groups for n in g if str(n) not in own]
    if missing:
        hints = [
            f"{n!r}" + (f" (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(n, own, 1)) else "")
            for n in missing[:5]
        ]
        raise ValueError(
            f"prior groups: unknown feature name(s) {', '.join(hints)}; names must match exactly."
        )
    out = [sorted({own[str(n)] for n in g}) for g in groups]
    counts = np.bincount(
        np.concatenate([np.asarray(g, dtype=np.int64) for g in out] or [np.zeros(0, np.int64)])
    )
    if (counts > 1).any():
        raise ValueError(
            f"prior groups: feature {str(feature_names[int(np.argmax(counts > 1))])!r} is in two groups; "
            "a feature belongs to one group."
        )
    return out
