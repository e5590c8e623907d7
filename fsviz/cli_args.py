"""The command line's reading options (``fsviz info|select|histogram|report|benchmark DATA ...``):
one set for every command that loads data, kept apart from the commands themselves."""

from __future__ import annotations

import argparse

from fsviz.data.formats import readers
from fsviz.data.loaders import LOAD_CHOICES, load_defaults

#: what --format names: the registered readers (a format added to the registry is offered here)
#: and the long-standing aliases
FORMATS = list(
    dict.fromkeys(["csv", "tsv", "parquet", "mat", "libsvm", "npz", "xlsx", "xls", "ods", "h5ad", "geo"])
    | dict.fromkeys(r.name for r in readers() if r.name not in ("svmlight", "txt"))
)


def _metavar(field: str) -> str:
    """``{a,b,c}``: the choices of an import-plan field, shown in the help. The plan checks them
    (:class:`fsviz.data.plan.ImportPlan`, the one place): a bad value gives the library's message."""
    return "{" + ",".join(str(c) for c in LOAD_CHOICES[field]) + "}"


def add_data_args(q: argparse.ArgumentParser) -> None:
    """The reading options every command that loads data takes: the import plan's fields, each
    with the loader's own default and choices (nothing restated here; validated by the plan)."""
    LOADING = load_defaults()
    q.add_argument(
        "data", metavar="DATA", help="CSV/TSV, .xlsx/.xls/.ods, .h5ad, Parquet, .mat, LIBSVM or .npz file"
    )
    q.add_argument(
        "--label",
        help="target column (a row with --transpose yes; an obs column for .h5ad); 'none': no "
        "target; default: the loader's choice",
    )
    q.add_argument(
        "--format",
        choices=FORMATS,
        help="file format when the extension and the content do not tell",
    )
    q.add_argument(
        "--sep",
        default="auto",
        help="field separator of text tables: auto (default: sniffed), comma, semicolon, tab, pipe, "
        "whitespace, or the character itself",
    )
    q.add_argument(
        "--decimal",
        metavar=_metavar("decimal"),
        default=LOADING["decimal"],
        help="decimal mark of text tables",
    )
    q.add_argument("--sheet", help="workbook sheet: a name or a 0-based position (default: the first)")
    q.add_argument(
        "--plan",
        metavar="JSON_OR_FILE",
        help="the whole import plan as JSON (or a file holding it), as the app's Data page and the "
        "report give it; other reading options may not be given beside it",
    )
    q.add_argument(
        "--header",
        choices=["yes", "no"],
        default="yes",
        help="whether the first line names the columns (no: columns V1, V2, ...)",
    )
    q.add_argument("--skip-rows", type=int, default=0, metavar="N", help="lines skipped above the table")
    q.add_argument("--comment", metavar="TEXT", help="skip lines that begin with this (e.g. '#' or '!')")
    q.add_argument(
        "--na-values",
        metavar="LIST",
        help="comma-separated missing-value markers (default: empty, NA, N/A, NaN, null, #N/A, ? ...)",
    )
    q.add_argument("--encoding", metavar=_metavar("encoding"), default="auto", help="text encoding")
    q.add_argument(
        "--duplicates",
        metavar=_metavar("duplicates"),
        default=LOADING["duplicates"],
        help="repeated feature names: refuse (default), suffix them, or average them",
    )
    q.add_argument(
        "--dates",
        metavar=_metavar("dates"),
        default=LOADING["dates"],
        help="date and time columns: left out (default) or read as days since 1970",
    )
    q.add_argument(
        "--transform",
        metavar=_metavar("transform"),
        default=LOADING["transform"],
        help="a value transform (log1p_cpm for counts)",
    )
    q.add_argument("--min-class-size", type=int, default=0, metavar="N", help="leave out smaller classes")
    q.add_argument(
        "--sample-annotations",
        metavar="FILE",
        help="a phenotype table (CSV/TSV/Excel, one row per sample) joined on the sample names; its "
        "columns can be the --label",
    )
    q.add_argument("--annotation-key", metavar="COLUMN", help="its column of sample ids (default: found)")
    q.add_argument(
        "--feature-annotations",
        metavar="FILE",
        help="a table keyed by feature name (a GEO platform annotation: ID -> Gene Symbol) giving each "
        "feature a display name; exports keep both (name = the ID, display_name)",
    )
    q.add_argument("--feature-key", metavar="COLUMN", help="its column of feature names (default: found)")
    q.add_argument(
        "--feature-display",
        metavar="COLUMN",
        help="its column of display names (default: found by name: Gene Symbol, symbol, ...)",
    )
    q.add_argument(
        "--compression",
        metavar=_metavar("compression"),
        default=LOADING["compression"],
        help="what wraps the data: auto (default: from the content; .gz, .bz2, .xz, .zip, .tar, "
        ".tar.gz), none, or what it must be",
    )
    q.add_argument(
        "--member",
        metavar="NAME",
        help="the archive member to read when a .zip/.tar holds several data files",
    )
    q.add_argument(
        "--intensity",
        metavar="FAMILY",
        help="MaxQuant proteinGroups: the intensity family read as the values ('LFQ intensity' "
        "(default when present), 'iBAQ', 'Intensity', 'Reporter intensity corrected')",
    )
    q.add_argument("--matrix", default="X", help=".h5ad: X, raw or layers/<name>")
    q.add_argument("--var-names", metavar="COLUMN", help=".h5ad: the var column that names the features")
    q.add_argument(
        "--transpose",
        metavar="{no,yes,auto}",
        default="no",
        help="yes: the file holds features as rows (an expression matrix); auto: when it looks so",
    )
    q.add_argument(
        "--id-columns",
        metavar="NAMES",
        help="identifier columns kept out of the features (the first: sample names), comma-separated; "
        "'auto' (default: id, sample, rownames, a leading text column distinct per row, ...) or 'none'",
    )
    q.add_argument("--ignore", metavar="NAMES", help="columns to drop, comma-separated")
    q.add_argument(
        "--missing-target",
        metavar=_metavar("missing_target"),
        default=LOADING["missing_target"],
        help="rows without a target value: refuse (default) or drop them",
    )
    q.add_argument(
        "--target-kind",
        metavar=_metavar("target_kind"),
        default=LOADING["target_kind"],
        help="read the target as classes or as a continuous quantity (default: by its values)",
    )
    q.add_argument(
        "--memory-budget",
        metavar="SIZE",
        help="refuse data that would take more memory than this, e.g. 4G or 512M ('none': no "
        "limit; default: $FSVIZ_MEMORY_BUDGET, else 1/8 of the available RAM)",
    )
    q.add_argument(
        "--allow-external",
        action="store_true",
        help="a trusted local HDF5/.h5ad file may point at other files (external links, external "
        "storage, virtual datasets); refused by default",
    )
    q.add_argument(
        "--missing",
        metavar=_metavar("missing"),
        default=LOADING["missing"],
        help="missing feature values: refuse (default) or fill each column with its mean/median",
    )
    q.add_argument(
        "--categorical",
        metavar=_metavar("categorical"),
        default=LOADING["categorical"],
        help="text feature columns: refuse (default) or one-hot encode them (column=value)",
    )
    q.add_argument("-q", "--quiet", action="store_true", help="no progress or messages on stderr")
