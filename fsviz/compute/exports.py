"""Export formats of a selection: its CSV (the one format the app's download and ``fsviz select -o``
both write), the provenance JSON, the reduced dataset and the benchmark table.

The reduced dataset is :meth:`fsviz.data.Dataset.subset` written by
:meth:`~fsviz.data.Dataset.to_csv` (class names kept; the label column never takes a feature's name).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import pandas as pd

from fsviz.compute.results import Selection

#: columns of the selection CSV, in order
SELECTION_COLUMNS = ("rank", "index", "name", "score", "role", "group")
#: what the columns a cut adds hold (the provenance's column notes)
_COLUMN_WORDS = {
    "p": "label-permutation p-value of the feature's score, (1 + #{perm >= observed}) / (1 + B)",
    "q": "Benjamini-Hochberg q-value (the FDR at which the feature would be selected)",
}


def selection_frame(
    selection: Selection,
    feature_names: Sequence[str],
    *,
    raw: bool = True,
    display_names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The export table: ``rank, index, name, score, role, group``, one row per feature; a selection
    cut by a rule adds the rule's numbers (``p``, ``q`` for ``fdr:Q``) and a ``rule`` column.

    ``display_names`` (one per feature: ``Dataset.feature_info["display_name"]``, e.g. gene symbols)
    adds a ``display_name`` column after ``name``, which keeps the original ID.

    ``group`` is the group number 1..K (GDM: the K-th support feature found and its
    affiliated features), 0 for a feature in no group. ``raw=False``: names that begin like a
    spreadsheet formula get a quote in front (:func:`fsviz.data.csv_safety.neutralise`).
    """
    from fsviz.data.csv_safety import neutralise

    names = np.asarray(feature_names, dtype=object)
    idx = np.asarray(selection.indices, dtype=np.int64)
    shown = names[idx].astype(str) if idx.size else np.array([], dtype=str)
    if not raw and shown.size:
        shown = np.array([neutralise(n) for n in shown.tolist()], dtype=object).astype(str)
    frame = pd.DataFrame(
        {
            "rank": np.arange(1, len(idx) + 1, dtype=np.int64),
            "index": idx,
            "name": shown,
            "score": np.asarray(selection.scores, dtype=np.float64),
            "role": np.asarray(selection.roles, dtype=object).astype(str),
            "group": np.asarray(selection.groups, dtype=np.int64),
        },
        columns=list(SELECTION_COLUMNS),
    )
    if display_names is not None:
        frame.insert(3, "display_name", shown_names(display_names, idx, raw))
    for name, values in selection.columns:  # the cut's numbers (p, q, ...), then the rule itself
        frame[name] = np.asarray(values, dtype=np.float64)
    if selection.rule is not None:
        frame["rule"] = selection.rule
    return frame


def shown_names(display_names: Sequence[str], idx: np.ndarray, raw: bool) -> np.ndarray:
    """The display names of features ``idx`` as written (formula-like ones quoted unless ``raw``)."""
    from fsviz.data.csv_safety import neutralise

    shown = np.asarray(display_names, dtype=object)[idx].astype(str) if idx.size else np.array([], dtype=str)
    if not raw and shown.size:
        shown = np.array([neutralise(n) for n in shown.tolist()], dtype=object).astype(str)
    return shown


def selection_csv(
    selection: Selection,
    feature_names: Sequence[str],
    explanation=None,
    *,
    raw: bool = False,
    display_names: Sequence[str] | None = None,
) -> bytes:
    """CSV bytes of :func:`selection_frame`; floats with 17 significant digits (round-trips).

    Names that begin like a spreadsheet formula (``=``, ``+``, ``-``, ``@``, tab, CR) get a quote
    in front, so opening the file in a spreadsheet program runs nothing (OWASP's advice);
    ``raw=True`` writes every name byte for byte (for programs; the CLI's ``--csv-raw``).

    With ``explanation`` (the :class:`~fsviz.compute.ExplainResult` of this selection), every
    unselected feature follows the selection, and the columns ``stand_in, stand_in_corr, reason``
    say what stands in for each feature and why it was left out (``fsviz select --explain``).
    ``display_names`` adds the ``display_name`` column (gene symbols; ``name`` keeps the ID).
    """
    if explanation is None:
        frame = selection_frame(selection, feature_names, raw=raw, display_names=display_names)
    else:
        frame = explanation.selection_frame(selection, feature_names, raw=raw, display_names=display_names)
    return frame.to_csv(index=False, float_format="%.17g", lineterminator="\n").encode()


def read_selection_csv(data: bytes) -> pd.DataFrame:
    """Inverse of :func:`selection_csv` (scores parsed exactly: the 17 digits give the same
    float back, whatever pandas' own float parser does)."""
    dtypes = {"rank": np.int64, "index": np.int64, "name": str, "score": str, "role": str}
    extra = {
        "group": np.int64,
        "display_name": str,
        "stand_in": str,
        "reason": str,
        "stand_in_corr": str,
        "rule": str,
    }
    frame = pd.read_csv(io.BytesIO(data), dtype=dtypes | extra, keep_default_na=False)
    frame["score"] = np.asarray(frame["score"].to_numpy(dtype=str), dtype=np.float64)
    if "stand_in_corr" in frame:  # an explained selection: empty = no stand-in
        text = frame["stand_in_corr"].to_numpy(dtype=str)
        frame["stand_in_corr"] = np.asarray(np.where(text == "", "nan", text), dtype=np.float64)
    return frame


def provenance(selection: Selection, dataset) -> dict:
    """Where a selection comes from: dataset, method, every parameter, seed, version, date.

    Written next to the selection CSV (the app's JSON download, ``fsviz select
    --provenance``); ``Run.from_dict(provenance(...)["run"])`` gives the Run back, so the
    selection can be recomputed.
    """
    import datetime

    from fsviz import __version__

    run = selection.run
    return {
        "fsviz_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "dataset": {
            "name": str(dataset.name),
            "fingerprint": str(dataset.fingerprint),
            "n_samples": int(dataset.n_samples),
            "n_features": int(dataset.n_features),
            "label_column": dataset.label_column() if dataset.y is not None else None,
            "source": (dataset.meta or {}).get("source"),
            "import_plan": (dataset.meta or {}).get("plan"),
        },
        "method": run.spec.label,
        "run": run.to_dict(),
        **_prior_names(run, dataset),
        "run_key": run.key,
        "k": selection.k,
        "rule": selection.rule,
        "n_selected": selection.n_features,
        "columns": {
            "rank": "1 = first in the method's order",
            "index": "0-based column index in the dataset",
            **(
                {"display_name": "the feature's display name (feature annotations); name keeps its ID"}
                if (dataset.meta or {}).get("feature_info") is not None
                else {}
            ),
            "score": "the method's score of the feature (higher = better)",
            "role": "SF support feature, AF affiliated feature (GDM), selected otherwise",
            "group": "GDM group number 1..K (the K-th support feature found and its AFs); 0 = none",
            **{name: _COLUMN_WORDS.get(name, name) for name, _ in selection.columns},
        },
    }


def _prior_names(run, dataset) -> dict:
    """A GRM run's prior groups by feature name too (the run keeps them as column indices)."""
    groups = run.get("prior_groups") if run.method == "grm" else None
    if not groups:
        return {}
    names = np.asarray(dataset.feature_names, dtype=object)
    return {"prior_groups_by_name": [[str(names[j]) for j in g] for g in groups]}


def provenance_json(selection: Selection, dataset) -> bytes:
    """:func:`provenance` as indented JSON bytes."""
    import json

    return json.dumps(provenance(selection, dataset), indent=2).encode()


def reduced_csv(dataset, indices: Sequence[int], *, raw: bool = False) -> bytes:
    """The dataset restricted to ``indices`` as CSV (``Dataset.subset(...).to_csv()``).

    The sample names first (when the dataset has them: the identifier column it was loaded
    with), feature names as columns in selection order, then the label column with the
    class names as loaded; names holding a comma, a quote or a line break are quoted as
    Python's csv writer does; floats written so that reading back gives the same bits. Names and
    labels that begin like a spreadsheet formula get a quote in front unless ``raw=True``
    (see :func:`selection_csv`).
    """
    idx = np.asarray(indices, dtype=np.int64)
    return dataset.subset(features=idx).to_csv(formula_safe=not raw).encode()


def benchmark_csv(table: pd.DataFrame) -> bytes:
    """CSV bytes of the benchmark table (floats with 17 significant digits, empty = missing).

    The app's download and ``fsviz benchmark -o`` both write this.
    """
    buf = io.StringIO()
    table.to_csv(buf, index=False, float_format="%.17g", lineterminator="\n")
    return buf.getvalue().encode()
