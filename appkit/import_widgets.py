"""The Data page's upload widgets: target picker, import settings, column roles, target checks."""

from __future__ import annotations

import hashlib

import streamlit as st

import fsviz.compute as fc
from appkit.intake import (
    IMPORT_DEFAULTS,
    ROLES,
    Upload,
    column_roles,
    current_upload,
    inspect_upload,
    parse_label,
    sample_fixes,
    set_import_option,
    set_role,
    set_target,
)
from appkit.state import per_dataset
from fsviz.data.loaders import LOAD_CHOICES

NO_TARGET = "(no target: unsupervised)"


def import_key(up: Upload, name: str) -> str:
    """The widget key of import option ``name`` of this upload (one set of widgets per file)."""
    return f"imp_{name}_{up.token}"


def copy_label_text(up: Upload) -> None:
    up.options["label"] = parse_label(st.session_state.get(import_key(up, "label")))


def target_options(info) -> list[str]:
    """Target picker options: likely targets first, then "no target", then the other columns."""
    suggested = [str(c) for c in info.target_candidates]
    rest = [str(c) for c in info.frame.columns if str(c) not in suggested]
    return suggested + [NO_TARGET] + rest


def target_choice(up: Upload, info, options: list[str]) -> str:
    """The picker's value: the column whose role is target, else "no target"."""
    target = [c for c, r in column_roles(up, info).items() if r == "target"]
    return target[0] if target and target[0] in options else NO_TARGET


def copy_target(up: Upload, key: str) -> None:
    choice = st.session_state[key]
    set_target(up, None if choice == NO_TARGET else choice)


def _option(up: Upload, name: str, widget, label: str, options, fmt=None, **kw):
    """A widget bound to import option ``name``: it shows the option, and a change is written
    back before the rerun loads the file again (the option outlives the widget)."""
    key = import_key(up, name)
    st.session_state[key] = up.options[name]

    def copy() -> None:
        set_import_option(up, name, st.session_state[key])

    return widget(label, options, key=key, on_change=copy, format_func=fmt or str, **kw)


def load_error_fixes(up: Upload, message: str, info) -> list[tuple[str, str, object]]:
    """Buttons for a file that did not load: ``(label, import option, value)`` that would fix
    the problem ``message`` names (each also has its control in the import settings)."""
    text, o = message.lower(), up.options
    fixes = []
    if "missing" in text and ("label" in text or "target" in text) and o["missing_target"] == "error":
        fixes.append(("Leave out the rows without a target", "missing_target", "drop"))
    elif "missing" in text and o["missing"] == "error":
        fixes.append(("Fill missing values with the median", "missing", "median"))
    if ("text" in text or "non-numeric" in text or "categorical" in text) and o["categorical"] == "error":
        fixes.append(("One-hot encode the text columns", "categorical", "onehot"))
    if info is not None and info.frame is not None and info.n_columns == 1 and info.sep != ";":
        fixes.append(("Read with ';' as the separator", "sep", ";"))
    return fixes


SEPARATORS = {"auto": "auto", ",": "comma ,", ";": "semicolon ;", "\t": "tab", "|": "bar |", r"\s+": "spaces"}
DECIMALS = {"auto": "auto", ".": "point .", ",": "comma ,"}
ORIENTATIONS = {"auto": "auto", False: "samples as rows", True: "features as rows (transposed)"}
#: how the import settings word the values load_dataset takes (its LOAD_CHOICES)
OPTION_WORDS = {
    "missing_target": {"drop": "leave them out", "error": "refuse the file"},
    "missing": {"median": "fill: median", "mean": "fill: mean", "error": "refuse the file"},
    "categorical": {"onehot": "one-hot", "error": "refuse the file"},
}


def _choices(option: str) -> list:
    """The values ``load_dataset`` takes for ``option``, the app's default first."""
    first = IMPORT_DEFAULTS[option]
    return [first] + [v for v in LOAD_CHOICES[option] if v != first]


def _shown_as(names: dict, detected):
    """A selectbox's format: each choice by its name, and "auto" with what was detected."""
    return lambda v: f"auto ({names.get(detected, detected)})" if v == "auto" and detected else names[v]


def import_panel(up: Upload) -> None:
    """The Data page's import settings of an upload: dialect, sheet, orientation, missing
    values, text columns and one editable table of column roles."""
    try:
        info, unread = inspect_upload(up), ""
    except ValueError as e:
        info, unread = None, str(e)
        st.error(unread)
    error = st.session_state.get("load_error")
    if error:
        if error != unread:  # the same message once
            st.error(error)
        fixes = load_error_fixes(up, error, info)
        for col, (label, name, value) in zip(st.columns(max(len(fixes), 1)), fixes, strict=False):
            if col.button(label, key=f"loadfix_{name}", type="primary"):
                set_import_option(up, name, value)
                st.rerun()
    with st.expander(f"Import settings: {up.filename}", expanded=True):
        c = st.columns(4)
        if info is None or info.frame is not None and info.fmt in ("csv", "tsv", "txt"):
            with c[0]:
                _option(
                    up,
                    "sep",
                    st.selectbox,
                    "Separator",
                    list(SEPARATORS),
                    _shown_as(SEPARATORS, info.sep if info else None),
                    help="Detected from the first lines; choose another if the table reads as one column.",
                )
            with c[1]:
                _option(
                    up,
                    "decimal",
                    st.selectbox,
                    "Decimal mark",
                    list(DECIMALS),
                    _shown_as(DECIMALS, info.decimal if info else None),
                    help="A comma for numbers such as 1,5 (European spreadsheets export them so).",
                )
        if info is not None and info.sheets:
            with c[0]:
                _option(
                    up,
                    "sheet",
                    st.selectbox,
                    "Sheet",
                    [None, *info.sheets],
                    lambda v: f"first ({info.sheets[0]})" if v is None else v,
                )
        if info is None or info.frame is not None:
            with c[2]:
                _option(
                    up,
                    "transpose",
                    st.selectbox,
                    "Orientation",
                    list(ORIENTATIONS),
                    ORIENTATIONS.get,
                    help="Expression matrices often hold one gene per row: read them transposed.",
                )
            if info is not None and info.suggest_transpose:
                c[2].caption(f"Read transposed: {info.transpose_reason}")
        with c[3]:
            _option(
                up,
                "missing_target",
                st.selectbox,
                "Rows without a target",
                _choices("missing_target"),
                OPTION_WORDS["missing_target"].get,
            )
        c = st.columns(2)
        with c[0]:
            _option(
                up,
                "missing",
                st.radio,
                "Missing feature values",
                _choices("missing"),
                OPTION_WORDS["missing"].get,
                horizontal=True,
                help="Filled from each feature's own values; the Data page lists what was filled.",
            )
        with c[1]:
            _option(
                up,
                "categorical",
                st.radio,
                "Text columns",
                _choices("categorical"),
                OPTION_WORDS["categorical"].get,
                horizontal=True,
                help="One-hot: one 0/1 feature per value, named column=value (a missing value gets "
                "its own column=<missing>). Set a column's role to 'ignored' to leave it out.",
            )
        for note in info.notes if info is not None else ():
            st.caption(note)
        if info is not None and info.frame is not None:
            roles_editor(up, info)


def _fixes(ds) -> dict:
    """The target fixes of the session's data source (an upload's options, or a sample's)."""
    up = current_upload() if st.session_state.get("source") == "Upload" else None
    return up.options if up is not None else sample_fixes(str(st.session_state.get("sample")))


def target_checks(ds) -> None:
    """Checks of the target before any run (one class, classes smaller than the CV folds,
    integer codes that look continuous), each with buttons that apply a fix; the fixes in
    force are listed with an undo."""
    from fsviz.data import check_target

    fixes, options = _fixes(ds), per_dataset("options", ds)
    applied = []
    if int(fixes.get("min_class_size") or 0) > 1:
        applied.append(
            ("min_class_size", f"classes with fewer than {fixes['min_class_size']} samples left out")
        )
    if fixes.get("target_kind", "auto") != "auto":
        applied.append(("target_kind", f"target read as {fixes['target_kind']}"))
    if options.get("cv") == "loo":
        applied.append(("cv", "leave-one-out cross-validation"))
    for issue in check_target(ds, cv=5):
        st.warning(issue.message, icon="⚠️")
        buttons = []
        if issue.kind == "small_classes":
            buttons = [
                (f"Leave out classes with fewer than {n} samples", "min_class_size", n) for n in (2, 5)
            ]
            if options.get("cv") != "loo":
                buttons.append(("Use leave-one-out CV", "cv", "loo"))
        elif issue.kind == "looks_continuous":
            buttons = [("Treat the target as continuous (regression)", "target_kind", "continuous")]
        for col, (label, name, value) in zip(st.columns(max(len(buttons), 1)), buttons, strict=False):
            if col.button(label, key=f"fix_{issue.kind}_{name}_{value}", width="stretch"):
                (options if name == "cv" else fixes)[name] = value
                st.rerun()
    for name, text in applied:
        c1, c2 = st.columns([5, 1], vertical_alignment="center")
        c1.caption(f"Fix in force: {text}.")
        if c2.button("Undo", key=f"undo_{name}"):
            (options if name == "cv" else fixes)[name] = "auto" if name in ("cv", "target_kind") else 0
            st.rerun()


def dataset_notes(ds) -> list[str]:
    """What loading did to the file, in words: identifiers kept as row names, columns left
    out, rows dropped, the reader's notes."""
    meta = ds.meta or {}
    notes = [str(n) for n in meta.get("notes", ())]
    ids = meta.get("id_columns") or ()
    if ids:
        notes.append(
            f"Identifier {fc.plural(len(ids), 'column', with_count=False)} {', '.join(map(repr, ids))}: "
            "kept as row names (written back into the reduced export), never a feature."
        )
    ignored = meta.get("ignored") or {}
    if ignored:
        listed = ", ".join(f"{c!r} ({why})" for c, why in list(ignored.items())[:8])
        notes.append(f"Left out: {listed}{' …' if len(ignored) > 8 else ''}.")
    return notes


#: the roles table lists at most this many columns (every non-feature column, then features)
ROLES_ROWS = 1000


def roles_editor(up: Upload, info) -> None:
    """One editable table of column roles (target, feature, identifier, ignored)."""
    frame = fc.column_roles_frame(info.roles, column_roles(up, info), limit=ROLES_ROWS)
    key = f"imp_roles_{up.token}_{hashlib.sha1(frame.to_json().encode()).hexdigest()[:10]}"

    def edited() -> None:
        for row, change in st.session_state[key].get("edited_rows", {}).items():
            if "role" in change:
                set_role(up, info, str(frame["column"].iloc[int(row)]), change["role"])

    st.markdown("**Column roles**")
    st.data_editor(
        frame,
        key=key,
        on_change=edited,
        hide_index=True,
        width="stretch",
        height=min(38 + 35 * len(frame), 320),
        disabled=[c for c in frame.columns if c != "role"],
        column_config={
            "role": st.column_config.SelectboxColumn(
                "role",
                options=list(ROLES),
                required=True,
                help="target: what the selection predicts (one column); feature: goes into X; "
                "identifier: kept as row names and written back into the reduced export, never a "
                "feature; ignored: left out.",
            ),
            "note": st.column_config.TextColumn(width="large"),
        },
    )
    hidden = len(info.roles) - len(frame)
    if hidden > 0:
        names = {str(r.name) for r in info.roles}
        text_key = import_key(up, "ignore_text")

        def ignore_named() -> None:
            for name in (n.strip() for n in st.session_state[text_key].split(",")):
                if name in names:
                    set_role(up, info, name, "ignored")

        st.text_input(
            f"{hidden:,} more feature {fc.plural(hidden, 'column', with_count=False)} not listed: "
            "columns to ignore (names, comma-separated)",
            key=text_key,
            on_change=ignore_named,
        )
