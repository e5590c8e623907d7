"""What a person types or a form holds, turned into runs and feature groups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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


def parse_prior_groups(text: str, feature_names: Sequence[str]) -> list[list[int]]:
    """Prior groups from pasted text: one group per line, feature names separated by commas.

    Names must match exactly (a number is a name too, never an index); blank lines are
    skipped. Raises ValueError naming unknown names (with a close match when there is one),
    a feature given in two groups, or a group of one feature.
    """
    import difflib

    lookup = {str(n): j for j, n in enumerate(feature_names)}
    groups, seen, unknown = [], {}, []
    for line_no, line in enumerate(text.splitlines(), start=1):
        names = [n.strip() for n in line.split(",") if n.strip()]
        if not names:
            continue
        unknown += [n for n in names if n not in lookup]
        idx = [lookup[n] for n in names if n in lookup]
        for j in idx:
            if j in seen and seen[j] != line_no:
                raise ValueError(
                    f"prior groups: feature {feature_names[j]!r} is in line {seen[j]} and line {line_no}; "
                    "a feature belongs to one group."
                )
            seen[j] = line_no
        if len(set(idx)) == 1 and not unknown:
            raise ValueError(f"prior groups: line {line_no} names one feature; a group needs at least two.")
        groups.append(sorted(set(idx)))
    if unknown:
        hints = [
            f"{n!r}"
            + (f" (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(n, lookup, 1)) else "")
            for n in unknown[:5]
        ]
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise ValueError(
            f"prior groups: unknown feature name(s) {', '.join(hints)}{more}; names must match exactly."
        )
    return groups
