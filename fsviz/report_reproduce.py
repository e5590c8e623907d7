"""The report's "How to reproduce" block: the command lines, the Python lines and the session file
that give the same dataset (same fingerprint), Runs and results.

A GRM run keeps its prior groups as column indices; its Python line gives them by the features'
names (``prior_groups_from_names([["TP53", "MDM2"]], ds.feature_names)``) and its command line
by name or gene symbol (``--prior-group TP53,MDM2``), which a person can read, edit, and carry to
the same data read another way (another column order), and which give back the same Run on the
same data.
"""

from __future__ import annotations

import html
import json
import shlex
from pathlib import Path
from typing import Any

import numpy as np

from fsviz.compute import Run
from fsviz.compute.commands import command_line
from fsviz.data.formats.tenx import TRIPLET_NAME

__all__ = ["python_lines", "reproduce_block"]

#: the one helper a Python line may call besides Run (prior groups by name)
_BY_NAME = "prior_groups_from_names"
#: where the data line reads a 10x matrix: the same dataset (fingerprint) from any of its forms
_TENX_NOTE = (
    "# a 10x matrix reads the same from its folder, its .tar(.gz) or its three files: "
    "fsviz.data.formats.tenx.read_triplet('matrix.mtx.gz', 'features.tsv.gz', 'barcodes.tsv.gz', plan=...)"
)


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _py(value: Any, names: np.ndarray, key: str | None = None) -> str:
    """Python source of a parameter value (a nested Run as a ``Run(...)`` call; GRM's prior
    groups by feature name)."""
    if isinstance(value, Run):
        return _run_py(value, names)
    if key == "prior_groups" and value:
        groups = [[str(names[j]) for j in g] for g in value]
        return f"{_BY_NAME}({groups!r}, ds.feature_names)"
    if isinstance(value, tuple):
        return "[" + ", ".join(_py(v, names) for v in value) + "]"
    return repr(value)


def _run_py(run: Run, names: np.ndarray) -> str:
    params = ", ".join(f"{k!r}: {_py(v, names, k)}" for k, v in run.params)
    return f"Run({run.method!r}, {{{params}}}, seed={run.seed})"


def _by_name(run: Run) -> bool:
    """Whether ``run`` (or a Run inside it) has prior groups, which its line gives by name."""
    return any(
        (k == "prior_groups" and bool(v)) or (isinstance(v, Run) and _by_name(v)) for k, v in run.params
    )


def _prior_comment(run: Run, names: np.ndarray) -> str:
    """A comment naming the features of a run's prior groups, when no ``--prior-group`` names give
    them back and ``--param prior_groups=`` below it gives their column positions."""
    groups = run.get("prior_groups") or next(
        (v.get("prior_groups") for _, v in run.params if isinstance(v, Run) and v.get("prior_groups")), ()
    )
    listed = " | ".join(", ".join(str(names[j]) for j in g) for g in groups)
    return f"# prior groups by name: {listed} (--param prior_groups= gives their column positions)"


#: the folder the command line reads three 10x files from (Cell Ranger's name for it)
_TENX_FOLDER = "filtered_feature_bc_matrix"


def _three_files(ds) -> list[str] | None:
    """The names of a 10x matrix's three files when they were handed over apart (the app's three
    uploads, ``read_triplet``) and read as one tar the user does not have; None otherwise."""
    meta = ds.meta or {}
    files = meta.get("tenx_files")
    if Path(str(meta.get("source") or "")).name != TRIPLET_NAME or not files or len(files) != 3:
        return None
    return [str(f) for f in files]


def _plan_of(ds) -> dict:
    """The import plan, without the tar three 10x files were packed in (the lines read the files)."""
    plan = dict((ds.meta or {}).get("plan") or {})
    if _three_files(ds) is not None:
        plan = {k: v for k, v in plan.items() if k not in ("compression", "member")}
    return plan


def _data_args(ds) -> list[str]:
    """``DATA`` and the import plan the CLI needs to read the same dataset (verbatim); three 10x
    files as the folder holding them."""
    meta = ds.meta or {}
    source = Path(str(meta.get("source") or "")).name or "DATA"
    if _three_files(ds) is not None:
        source = _TENX_FOLDER
    plan = _plan_of(ds)
    if plan:
        return [source, "--plan", json.dumps(plan, separators=(",", ":"), ensure_ascii=False)]
    return [source]


def _python_load(ds, data: list[str]) -> str:
    """The ``load_dataset`` line that reads the same dataset (the plan verbatim)."""
    from fsviz.data.plan import ImportPlan

    call = ImportPlan.from_dict(_plan_of(ds)).python(data[0])
    files = _three_files(ds)
    if files is None:
        return call
    options = call[len(f"load_dataset({data[0]!r}") : -1]  # ", transform='log1p', ..." or ""
    return f"read_triplet({', '.join(map(repr, files))}{options})"


def _session_text(doc: dict) -> str:
    """A session file as JSON, one run per line (short enough to read, valid to load)."""
    dump = json.dumps
    shown = ",\n".join(f"  {dump(slot)}: {dump(run)}" for slot, run in doc["shown"].items())
    sels = ",\n".join(f"  {dump(item)}" for item in doc["selections"])
    head = ", ".join(f"{dump(key)}: {dump(doc[key])}" for key in ("fsviz_version", "dataset", "seed"))
    return f'{{{head},\n "shown": {{\n{shown}}},\n "selections": [\n{sels}]}}'


def python_lines(ds, runs: list[Run], k: int) -> list[str]:
    """The Python lines that read ``ds`` again (checking its fingerprint), run ``runs`` and
    write the report; prior groups by feature name."""
    names = np.asarray(ds.feature_names, dtype=object)
    imports = ["Run", _BY_NAME] if any(_by_name(r) for r in runs) else ["Run"]
    py = [
        f"from fsviz.compute import {', '.join(imports)}",
        "from fsviz.data import load_dataset",
        "from fsviz.report import write_report",
        "",
        f"ds = {_python_load(ds, _data_args(ds))}",
        f"assert ds.fingerprint == {ds.fingerprint!r}",
    ]
    if _three_files(ds) is not None:  # the three files the user gave, not the tar they were kept in
        py[1] = "from fsviz.data.formats.tenx import read_triplet"
    elif (ds.meta or {}).get("format") == "10x":
        py.insert(4, _TENX_NOTE)
    labels = []
    for j, run in enumerate(runs, start=1):
        labels.append(f"run{j}")
        py.append(f"run{j} = {_run_py(run, names)}")
        py.append(f"result{j} = run{j}.execute(ds)  # {run.spec.label}")
    py.append(f"write_report('report.html', ds, [{', '.join(labels)}], k={k})")
    return py


def reproduce_block(ds, runs: list[Run], k: int, session: dict) -> str:
    """The report's "How to reproduce" section (HTML): command lines, Python lines, and
    ``session`` (:func:`fsviz.report.session_doc`) as the session file."""
    data = _data_args(ds)
    lines, notes = [], []
    for run in runs:
        cmd = command_line(run, ds.target_kind, k, dataset=ds)  # prior groups by name
        if cmd is None:
            notes.append(
                f"# {run.label}: no command-line form of its own; the report command below recomputes it"
            )
            continue
        if _by_name(run) and "--prior-group" not in cmd:  # positions: say which features they are
            lines.append(_prior_comment(run, np.asarray(ds.feature_names, dtype=object)))
        lines.append(shlex.join(["fsviz", cmd[0], *data, *cmd[1:], "-o", f"{run.method}.csv"]))
    report = shlex.join(
        ["fsviz", "report", *data, "--runs", "session.json", "-k", str(k), "-o", "report.html"]
    )
    files = _three_files(ds)
    if files is not None:
        notes.insert(0, f"# {_TENX_FOLDER}: a folder holding the three files {', '.join(files)}")
    cli_text = "\n".join(
        notes + lines + ["# this report, from the session block below saved as session.json:", report]
    )
    py = python_lines(ds, runs, k)
    return (
        '<h2 id="reproduce">How to reproduce</h2>'
        "<p>The same dataset (same fingerprint), Runs and seeds give the same results, with the "
        "command line or in Python.</p>"
        f'<h3>Command line</h3><pre class="code" id="reproduce-cli">{_e(cli_text)}</pre>'
        f'<h3>Python</h3><pre class="code" id="reproduce-python">{_e(chr(10).join(py))}</pre>'
        "<h3>Session (save as session.json; the app's sidebar loads it too)</h3>"
        f'<pre class="code" id="session-json">{_e(_session_text(session))}</pre>'
    )
