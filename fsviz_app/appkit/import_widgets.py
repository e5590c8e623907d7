"""The Data page's upload widgets: target picker, import settings, column roles, target checks."""

from __future__ import annotations

import hashlib
import itertools
import json
import weakref

import streamlit as st

import fsviz.compute as fc
from fsviz.data.formats.source import TABLE_FORMATS
from fsviz.data.loaders import LOAD_CHOICES
from fsviz_app.appkit.folder_annotations import folder_annotation_picker
from fsviz_app.appkit.intake import (
    IMPORT_DEFAULTS,
    ROLES,
    Upload,
    annotation_frame,
    annotation_targets,
    annotation_upload,
    archive_members_of,
    attach_annotations,
    attach_feature_annotations,
    current_upload,
    detach_annotations,
    detach_feature_annotations,
    effective_plan,
    feature_annotation_frame,
    feature_annotation_upload,
    inspect_upload,
    parse_label,
    sample_fixes,
    session_upload,
    set_aside_roles,
    set_import_option,
    set_role,
    set_target,
)
from fsviz_app.appkit.memory import ByteLRU
from fsviz_app.appkit.state import per_dataset

NO_TARGET = "(no target: unsupervised)"


def import_key(up: Upload, name: str) -> str:
    """The widget key of import option ``name`` of this upload (one set of widgets per file)."""
    return f"imp_{name}_{up.token}"


def copy_label_text(token: str) -> None:
    """The label field's callback (it takes the upload's token: a callback holds no file)."""
    up = session_upload(token)
    if up is not None:
        up.options["label"] = parse_label(st.session_state.get(import_key(up, "label")))


#: the target picker lists at most this many of the other columns (a selectbox of 100,000 probe
#: names travelled to the browser on every rerun and took seconds to draw); the target chosen is
#: always listed, and any column can take the role on the Data page
PICK_COLUMNS = 1000


def target_options(up: Upload, info) -> list[str]:
    """Target picker options: likely targets first (the sample annotations' before the table's),
    then "no target", then the other columns (the sample annotations' first, at most
    :data:`PICK_COLUMNS` of them, the current target kept); empty when there are no columns."""
    ann_target, ann_cands, ann_cols = annotation_targets(up)
    suggested = list(dict.fromkeys([*ann_cands, *(str(c) for c in info.target_candidates)]))
    table = info.frame.columns if info.frame is not None else ()
    if not ann_cols and not len(table):  # nothing to pick from (.mat/.npz/LIBSVM: a variable name)
        return []
    taken, rest = set(suggested), []
    head = list(table[: PICK_COLUMNS + len(taken) + 1])  # iterating an Arrow-backed index: slow
    for c in itertools.chain(ann_cols, head):  # stops at PICK_COLUMNS: not every name per rerun
        c = str(c)
        if c not in taken:
            taken.add(c)
            rest.append(c)
            if len(rest) == PICK_COLUMNS:
                break
    label = up.options.get("label")
    listed = isinstance(label, str) and label not in taken
    if listed and (label in ann_cols or label in table or label in map(str, table)):
        rest.append(label)  # the chosen target is always listed
    return suggested + [NO_TARGET] + rest


def target_choice(up: Upload, info, options: list[str]) -> str:
    """The picker's value: the target the plan reads (a column of the table, of the sample
    annotations, of AnnData's obs or a series matrix's characteristics), else "no target"."""
    label = up.options.get("label")
    ann_target, _, ann_cols = annotation_targets(up)
    if info.fmt not in TABLE_FORMATS or label in ann_cols:
        if label == "auto":  # the file's own candidates (a series matrix's), else the join's pick
            label = info.target or ann_target
        return label if label in options else NO_TARGET
    target = [c for c, r in set_aside_roles(up, info).items() if r == "target"]
    if not target and label == "auto" and ann_target:
        return ann_target  # the join takes it when the table has none
    return target[0] if target and target[0] in options else NO_TARGET


def copy_target(token: str, key: str) -> None:
    """The target picker's callback (the upload's token: a callback holds no file)."""
    up = session_upload(token)
    if up is not None:
        choice = st.session_state[key]
        set_target(up, None if choice == NO_TARGET else choice)


#: what a selectbox holds for an option's None (auto) value
_NONE = "\x00none"


def _option(up: Upload, name: str, widget, label: str, options, fmt=None, **kw):
    """A widget bound to import option ``name``: it shows the option, and a change is written
    back before the rerun loads the file again (the option outlives the widget). The callback
    looks the upload up again: it holds no bytes of the file."""
    key = import_key(up, name)
    shown = fmt or str
    # a selectbox whose state is None shows its placeholder, not the None option: a stand-in
    none = _NONE if options is not None and None in options else None
    if none is not None:
        options = [none if o is None else o for o in options]
        fmt = lambda v: shown(None if v == none else v)  # noqa: E731 - the widget's format_func
    value = up.options.get(name, IMPORT_DEFAULTS.get(name))  # options saved before the option existed
    st.session_state[key] = none if value is None and none is not None else value

    def copy() -> None:
        current = current_upload()
        if current is not None:
            got = st.session_state[key]
            set_import_option(current, name, None if none is not None and got == none else got)

    if options is None:  # a number input
        return widget(label, key=key, on_change=copy, **kw)
    got = widget(label, options, key=key, on_change=copy, format_func=fmt or str, **kw)
    return None if none is not None and got == none else got


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
ENCODINGS = {
    "auto": "auto (UTF-8, else Windows-1252)",
    "utf-8": "UTF-8",
    "cp1252": "Windows-1252",
    "latin-1": "Latin-1",
}
#: how the import settings word the values load_dataset takes (its LOAD_CHOICES)
OPTION_WORDS = {
    "missing_target": {"drop": "leave them out", "error": "refuse the file"},
    "missing": {"median": "fill: median", "mean": "fill: mean", "error": "refuse the file"},
    "categorical": {"onehot": "one-hot", "error": "refuse the file"},
    "dates": {"ignore": "leave out", "number": "days since 1970"},
    "duplicates": {"error": "refuse", "suffix": "suffixes (a, a.1)", "mean": "average them"},
    "transform": {
        "none": "none",
        "log1p": "log1p(x)",
        "log1p_cpm": "log1p(counts per million)",
        "zscore": "z-score",
        "log2": "log2(x)",
    },
}
#: the types a column can be given in the roles table (the plan's ``types``)
TYPE_CHOICES = ("number", "category", "date", "text")


def _choices(option: str) -> list:
    """The values ``load_dataset`` takes for ``option``, the app's default first."""
    first = IMPORT_DEFAULTS[option]
    return [first] + [v for v in LOAD_CHOICES[option] if v != first]


def _shown_as(names: dict, detected):
    """A selectbox's format: each choice by its name, and "auto" with what was detected."""
    return lambda v: f"auto ({names.get(detected, detected)})" if v == "auto" and detected else names[v]


def import_panel(up: Upload) -> None:
    """The Data page's import plan of an upload, all of it: how the file is read (encoding,
    separator, decimal mark, header, skipped and comment lines), which cells are missing, what
    becomes of text, dates and repeated names, the orientation, a value transform, the AnnData
    matrix, the sample annotations, and one editable table of column roles and types."""
    try:
        info, unread = inspect_upload(up), ""
    except ValueError as e:
        info, unread = None, str(e)
    error = st.session_state.get("load_error")
    shown = error or unread
    if shown:  # one message, whichever came first
        st.error(shown)
        fixes = load_error_fixes(up, shown, info)
        for col, (label, name, value) in zip(st.columns(max(len(fixes), 1)), fixes, strict=False):
            if col.button(label, key=f"loadfix_{name}", type="primary"):
                set_import_option(up, name, value)
                st.rerun()
    text = info is None or info.frame is not None and info.fmt in ("csv", "tsv", "txt")
    with st.expander(f"Import plan: {up.filename}" + (f" ({info.fmt})" if info else ""), expanded=True):
        _member_row(up)
        _read_as_row(up, info)
        _intensity_row(up, info)
        if text:
            _file_row(up, info)
        if info is not None and info.sheets:
            _option(
                up,
                "sheet",
                st.selectbox,
                "Sheet",
                [None, *info.sheets],
                lambda v, first=info.sheets[0]: f"first ({first})" if v is None else v,
            )
        if info is not None and info.fmt == "h5ad":
            _anndata_row(up, info)
        _values_row(up, info)
        for note in info.notes if info is not None else ():
            st.caption(note)
        _annotations_row(up, info)
        _feature_annotations_row(up)
        if info is not None and info.frame is not None and info.fmt in TABLE_FORMATS:
            roles_editor(up, info)
        _plan_box(up, info)


def _member_row(up: Upload) -> None:
    """An archive of several data files (a zip, a tar.gz): which member to read. Listed in the
    sandbox child, bounded by the memory budget, like the read itself."""
    members = archive_members_of(up)
    if len(members) < 2:
        return
    _option(
        up,
        "member",
        st.selectbox,
        "Archive member",
        [None, *members],
        lambda v: "the archive's one data file or layout" if v is None else v,
        help="The archive holds several data files: choose the one to read (the import plan's member).",
    )


#: formats recognised in a text file's content that can be read as a plain table instead
RECOGNISED_TEXT = ("gct", "mtx", "maxquant", "diann", "spectronaut")


def _read_as_row(up: Upload, info) -> None:
    """A recognised format (GCT, MatrixMarket) says so, with the one choice that switches it off:
    read the file as a plain table (the import plan's ``fmt``)."""
    from fsviz.data.formats import get_reader

    fmt = up.options.get("fmt")
    if not (info is not None and info.fmt in RECOGNISED_TEXT) and fmt != "txt":
        return
    what = get_reader(info.fmt).description if info is not None and info.fmt in RECOGNISED_TEXT else None
    _option(
        up,
        "fmt",
        st.selectbox,
        "Read as",
        [None, "txt"],
        lambda v: (f"{what} (recognised)" if what else "as recognised") if v is None else "a plain table",
        help="fsviz recognised this file's format from its content; 'a plain table' reads it as delimited "
        "text instead, with the separator, header and column roles below.",
    )


def _intensity_row(up: Upload, info) -> None:
    """MaxQuant's intensity families (LFQ, iBAQ, Intensity, ...): which one is read as the values."""
    if info is None or info.fmt != "maxquant" or len(info.matrices) < 2:
        return
    _option(
        up,
        "intensity",
        st.selectbox,
        "Intensity",
        [None, *info.matrices],
        lambda v, first=info.matrices[0]: f"{first} (default)" if v is None else v,
        help="The MaxQuant intensity family read as the values, one column per sample.",
    )


def _file_row(up: Upload, info) -> None:
    c = st.columns([2, 2, 2, 1, 1, 1])
    with c[0]:
        _option(
            up,
            "encoding",
            st.selectbox,
            "Encoding",
            list(ENCODINGS),
            ENCODINGS.get,
            help="Text files: UTF-8 unless the bytes say otherwise (then Windows-1252).",
        )
    with c[1]:
        _option(
            up,
            "sep",
            st.selectbox,
            "Separator",
            list(SEPARATORS),
            _shown_as(SEPARATORS, info.sep if info else None),
            help="Detected from the first lines; choose another if the table reads as one column.",
        )
    with c[2]:
        _option(
            up,
            "decimal",
            st.selectbox,
            "Decimal mark",
            list(DECIMALS),
            _shown_as(DECIMALS, info.decimal if info else None),
            help="A comma for numbers such as 1,5 (European spreadsheets export them so).",
        )
    key = import_key(up, "header")
    st.session_state[key] = up.options["header"] is not None
    c[3].toggle(
        "First row is a header",
        key=key,
        on_change=lambda: set_import_option(current_upload(), "header", 0 if st.session_state[key] else None),
        help="Off: the file has no line of column names; the columns are named V1, V2, ... "
        "(detected when the first line is typed like the others).",
    )
    with c[4]:
        _option(
            up,
            "skip_rows",
            st.number_input,
            "Skip lines",
            None,
            min_value=0,
            max_value=100_000,
            step=1,
            help="Lines above the table (a title, metadata).",
        )
    ckey = import_key(up, "comment")
    st.session_state[ckey] = up.options.get("comment") or ""
    c[5].text_input(
        "Comment lines",
        key=ckey,
        max_chars=8,
        on_change=lambda: set_import_option(
            current_upload(), "comment", st.session_state[ckey].strip() or None
        ),
        help="Lines that begin with this (e.g. # or !) are skipped wherever they are.",
    )


def _values_row(up: Upload, info) -> None:
    c = st.columns(4)
    if info is None or info.frame is not None and info.fmt in TABLE_FORMATS:
        with c[0]:
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
                st.caption(f"Read transposed: {info.transpose_reason}")
    with c[1]:
        _option(
            up,
            "missing_target",
            st.selectbox,
            "Rows without a target",
            _choices("missing_target"),
            OPTION_WORDS["missing_target"].get,
        )
    with c[2]:
        _option(
            up,
            "duplicates",
            st.selectbox,
            "Repeated feature names",
            _choices("duplicates"),
            OPTION_WORDS["duplicates"].get,
            help="Probes of one gene repeat its symbol: keep them apart, or average them.",
        )
    with c[3]:
        _option(
            up,
            "transform",
            st.selectbox,
            "Transform",
            _choices("transform"),
            OPTION_WORDS["transform"].get,
            help="Counts (single-cell, RNA-seq) read better as log1p of counts per million; proposed "
            "when the values are non-negative whole numbers.",
        )
    c = st.columns([3, 2, 2, 2])
    with c[0]:
        _na_markers(up, info)
    with c[1]:
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
    with c[2]:
        _option(
            up,
            "categorical",
            st.radio,
            "Text columns",
            _choices("categorical"),
            OPTION_WORDS["categorical"].get,
            horizontal=True,
            help="One-hot: one 0/1 feature per value, named column=value. Text with more than 50 values "
            "is never encoded unless its type is category.",
        )
        if info is not None and info.onehot_columns:
            st.caption(f"One-hot encoding adds {info.onehot_columns:,} column(s).")
    with c[3]:
        _option(
            up,
            "dates",
            st.radio,
            "Date columns",
            _choices("dates"),
            OPTION_WORDS["dates"].get,
            horizontal=True,
        )


def _na_markers(up: Upload, info) -> None:
    from fsviz.data.plan import DEFAULT_NA

    key = import_key(up, "na_values")
    current = list(up.options["na_values"])
    st.session_state[key] = current
    options = list(dict.fromkeys([*DEFAULT_NA, *current]))

    def copy() -> None:
        set_import_option(current_upload(), "na_values", list(st.session_state[key]))

    st.multiselect(
        "Missing-value markers",
        options,
        key=key,
        format_func=lambda v: "(empty cell)" if v == "" else v,
        accept_new_options=True,
        on_change=copy,
        help="Cells read as missing: never a category, never a number. Type to add one (e.g. -999).",
    )
    counts = info.missing_counts if info is not None else {}
    if counts:
        shown = ", ".join(f"{c}: {n}" for c, n in list(counts.items())[:6])
        st.caption(f"Missing in the rows shown: {shown}{' …' if len(counts) > 6 else ''}")


def _anndata_row(up: Upload, info) -> None:
    c = st.columns(2)
    with c[0]:
        _option(
            up,
            "matrix",
            st.selectbox,
            "Matrix",
            info.matrices or ["X"],
            help="X, the raw counts (raw/X) or a layer; sparse data stay sparse.",
        )
    with c[1]:
        _option(
            up,
            "var_names",
            st.selectbox,
            "Feature names",
            [None, *info.var_columns],
            lambda v: "var index (gene ids)" if v is None else f"var column {v}",
        )


def _dropped(up: Upload, name: str, got) -> bool:
    """Whether the annotation uploader ``name`` holds a file not seen before: a file is attached
    once, when dropped, so that a server-folder pick or "Remove" is not undone by the file the
    uploader still shows."""
    if got is None:
        return False
    seen = import_key(up, f"{name}_seen")  # forgotten with its upload
    if st.session_state.get(seen) == got.file_id:
        return False
    st.session_state[seen] = got.file_id
    return True


def _annotations_row(up: Upload, info) -> None:
    """A second uploader for the sample annotations (a phenotype table), joined on the sample names."""
    if info is not None and info.fmt == "geo":
        st.caption("Sample annotations: the series matrix's own !Sample_ lines (the target choices).")
        return
    record = annotation_upload(up)
    c = st.columns([3, 2])
    got = c[0].file_uploader(
        "Sample annotations (optional: a phenotype table, one row per sample)",
        type=None,
        key=import_key(up, "annotations_file"),
        help="CSV, TSV or Excel with a column of sample ids (the data's identifier column, or the header "
        "of an expression matrix read transposed). Its columns become target choices.",
    )
    if _dropped(up, "annotations_file", got) and attach_annotations(up, got.name, got.getvalue()):
        st.rerun()  # the sidebar read the data before this uploader: read them again with the join
    folder_annotation_picker(up, "annotations", c[0])
    if record is None:
        return
    try:
        frame = annotation_frame(up)
    except ValueError as e:
        st.error(str(e))
        return
    cols = [str(x) for x in frame.columns]
    with c[1]:
        _option(
            up,
            "annotation_key",
            st.selectbox,
            "Join on",
            [None, *cols],
            lambda v: "the id column that matches most (auto)" if v is None else v,
        )
        if st.button("Remove the annotations", key=import_key(up, "annotations_off")):
            detach_annotations(up)
            st.rerun()


def _feature_annotations_row(up: Upload) -> None:
    """A third uploader for the feature annotations (a GEO platform table, a gene list with symbols),
    joined on the feature names: charts, tables, exports and the report show the symbols."""
    record = feature_annotation_upload(up)
    c = st.columns([3, 2])
    got = c[0].file_uploader(
        "Feature annotations (optional: e.g. a GEO platform table, ID -> Gene Symbol)",
        type=None,
        key=import_key(up, "feature_annotations_file"),
        help="CSV, TSV or Excel (gzipped too) with a column of feature ids (probe ids, Ensembl ids, "
        "accessions) and a column of display names (Gene Symbol, symbol, gene_name, ...). Charts and "
        "exports then show 'SYMBOL (ID)'; features without a symbol keep their ID.",
    )
    if _dropped(up, "feature_annotations_file", got) and attach_feature_annotations(
        up, got.name, got.getvalue()
    ):
        st.rerun()
    folder_annotation_picker(up, "feature_annotations", c[0])
    if record is None:
        return
    try:
        frame = feature_annotation_frame(up)
    except ValueError as e:
        st.error(str(e))
        return
    cols = [str(x) for x in frame.columns]
    with c[1]:
        _option(
            up,
            "feature_key",
            st.selectbox,
            "Feature ids in",
            [None, *cols],
            lambda v: "the id column that matches most (auto)" if v is None else v,
        )
        _option(
            up,
            "feature_display",
            st.selectbox,
            "Display names in",
            [None, *cols],
            lambda v: "found by name (Gene Symbol, symbol, ...)" if v is None else v,
        )
        if st.button("Remove the feature annotations", key=import_key(up, "feature_annotations_off")):
            detach_feature_annotations(up)
            st.rerun()


def _plan_box(up: Upload, info) -> None:
    """The plan itself: what the session, the link, the provenance and the report carry."""
    if info is None:
        return
    plan = effective_plan(up, info)
    with st.popover("The import plan as JSON"):
        st.caption(
            "Every reading decision above as one value: `load_dataset(path, plan=...)` and "
            "`fsviz ... --plan` read the file exactly so."
        )
        st.code(json.dumps(plan.to_dict(), indent=2, ensure_ascii=False), language="json")  # readable
        st.download_button(
            "Download the plan (JSON)",
            plan.to_json(),
            file_name="import-plan.json",
            mime="application/json",
            key=import_key(up, "plan_dl"),
            on_click="ignore",
        )


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
    out, rows dropped, the reader's notes; zeros that likely mean "missing" (Pima-style)."""
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
    zeros = _zeros_note(ds)
    if zeros:
        notes.append(zeros)
    return notes


#: the zeros note per dataset fingerprint (X and the names): a scan of the matching columns and a
#: regex over every name on each rerun of the Data page ("" when there is none)
_ZEROS_NOTES = ByteLRU(16)


def _zeros_note(ds) -> str | None:
    # by the matrix, not the dataset: a new target shares the parse's X (the note reads X and names)
    key = (id(ds.X), ds.X.shape, hash(tuple(ds.feature_names[:3])))
    got = _ZEROS_NOTES.get(key)
    if got is None or got[0]() is not ds.X:
        got = (weakref.ref(ds.X), fc.zeros_as_missing_note(ds.X, ds.feature_names) or "")
        _ZEROS_NOTES.put(key, got)
    return got[1] or None


#: the roles table per file, preview plan and role edits: one row per column of the file is
#: walked to make it (a Python loop over 20,000 roles on every rerun of the Data page)
_ROLES_TABLES = ByteLRU(16)

#: the roles table lists at most this many columns (every non-feature column, then features)
ROLES_ROWS = 1000


def roles_editor(up: Upload, info) -> None:
    """One editable table of column roles (target, feature, identifier, ignored)."""
    edits = json.dumps(up.options["roles"], sort_keys=True)
    memo = (up.digest, up.filename, info.plan.to_json(), edits)
    hit = _ROLES_TABLES.get(memo)
    if hit is None:
        frame = fc.column_roles_frame(info.roles, up.options["roles"], limit=ROLES_ROWS)
        hit = frame, hashlib.sha1(frame.to_json().encode()).hexdigest()[:10]
        _ROLES_TABLES.put(memo, hit)
    frame = hit[0].copy()  # the editor's frame is the session's: the stored one stays as made
    key = f"imp_roles_{up.token}_{hit[1]}"
    token, listed = up.token, tuple(str(c) for c in frame["column"])  # no file, no preview

    def edited() -> None:
        current = session_upload(token)
        if current is None:
            return
        info = inspect_upload(current)
        for row, change in st.session_state[key].get("edited_rows", {}).items():
            column = listed[int(row)]
            if "role" in change:
                set_role(current, info, column, change["role"])
            if change.get("type") in TYPE_CHOICES:
                types = dict(current.options.get("types") or {}) | {column: change["type"]}
                set_import_option(current, "types", types)

    st.markdown("**Column roles**")
    st.data_editor(
        frame,
        key=key,
        on_change=edited,
        hide_index=True,
        width="stretch",
        height=min(38 + 35 * len(frame), 320),
        disabled=[c for c in frame.columns if c not in ("role", "type")],
        column_config={
            "type": st.column_config.SelectboxColumn(
                "type",
                options=sorted({*TYPE_CHOICES, *frame["type"].astype(str)}),
                help="As detected; choose number (stray text cells become missing), category (one-hot "
                "encoded, however many values), date, or text (left out).",
            ),
            "role": st.column_config.SelectboxColumn(
                "role",
                options=list(ROLES),
                required=True,
                help="target: what the selection predicts (one column); feature: goes into X; "
                "identifier: kept as row names and written back into the reduced export, never a "
                "feature; ignored: left out; covariate: kept per sample to adjust for (a batch, an age), "
                "never a feature.",
            ),
            "note": st.column_config.TextColumn(width="large"),
        },
    )
    hidden = len(info.roles) - len(frame)
    if hidden > 0:
        text_key = import_key(up, "ignore_text")

        def ignore_named() -> None:
            current = session_upload(token)
            if current is None:
                return
            info = inspect_upload(current)
            names = {str(r.name) for r in info.roles}
            for name in (n.strip() for n in st.session_state[text_key].split(",")):
                if name in names:
                    set_role(current, info, name, "ignored")

        st.text_input(
            f"{hidden:,} more feature {fc.plural(hidden, 'column', with_count=False)} not listed: "
            "columns to ignore (names, comma-separated)",
            key=text_key,
            on_change=ignore_named,
        )
