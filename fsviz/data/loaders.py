"""Read datasets from CSV/TSV, spreadsheets, AnnData, Parquet, MATLAB .mat, LIBSVM/svmlight and .npz.

:func:`load_dataset` takes a path or a buffer (``io.BytesIO``, an open binary file, a
Streamlit ``UploadedFile``: anything with ``read``/``getvalue`` and ideally a
``.name``), works out the format from the file name (or, failing that, from the
first bytes; a file whose bytes say another format than its name is read by its
real format, with a note in ``Dataset.meta["notes"]``), validates everything and
returns a :class:`~fsviz.data.Dataset`.
Every problem is a ``ValueError`` that names the file, the rule, what was found
and the fix; garbage bytes in any format give a ``ValueError`` too, never some
parser's internal exception.

:func:`save_dataset` (also ``Dataset.save``) writes CSV/TSV, Parquet, .npz and
svmlight files that :func:`load_dataset` reads back exactly: every value bit for
bit, every name, the order of rows and columns, labels and (except CSV/TSV and
svmlight) the image shape.
"""

from __future__ import annotations

import dataclasses

from fsviz.data.dataset import Dataset
from fsviz.data.formats.source import FORMATS, LABEL_CANDIDATES
from fsviz.data.images import (
    KNOWN_IMAGE_SHAPES,
    column_major_permutation,
    image_feature_names,
    infer_image_shape,
)
from fsviz.data.parsed import assemble, parse_source, plan_of
from fsviz.data.plan import DEFAULT_NA, PLAN_CHOICES, ImportPlan
from fsviz.data.writers import save_dataset

__all__ = [
    "FORMATS",
    "KNOWN_IMAGE_SHAPES",
    "LABEL_CANDIDATES",
    "LOAD_CHOICES",
    "load_defaults",
    "column_major_permutation",
    "image_feature_names",
    "infer_image_shape",
    "load_dataset",
    "save_dataset",
]

# ============================================================================ entry point
#: the values each option of :func:`load_dataset` takes (its defaults are in its signature); the
#: CLI's choices and the app's import settings read them here
LOAD_CHOICES: dict[str, tuple] = PLAN_CHOICES


def load_defaults() -> dict:
    """The default of every :func:`load_dataset` option, read from its signature."""
    import inspect

    return {
        p.name: p.default
        for p in inspect.signature(load_dataset).parameters.values()
        if p.default is not inspect.Parameter.empty
    }


def load_dataset(
    path_or_buffer,
    label: str | int | None = "auto",
    fmt: str | None = None,
    image_shape: tuple[int, int] | None | bool = None,
    name: str | None = None,
    *,
    image_order: str = "auto",
    memory_budget: int | str | None = None,
    sandbox: bool = False,
    allow_external: bool = False,
    missing: str = "error",
    missing_indicators: bool = False,
    categorical: str = "error",
    sep: str = "auto",
    decimal: str = "auto",
    sheet: str | int | None = None,
    transpose: bool | str = False,
    id_columns: str | list[str] | None = "auto",
    ignore: list[str] | None = None,
    covariates: list[str] | None = None,
    missing_target: str = "error",
    target_kind: str = "auto",
    encoding: str = "auto",
    header: int | None = 0,
    skip_rows: int = 0,
    comment: str | None = None,
    na_values: tuple | list = DEFAULT_NA,
    duplicates: str = "error",
    types: dict | None = None,
    dates: str = "ignore",
    min_class_size: int = 0,
    sample_annotations=None,
    annotation_key: str | None = None,
    transform: str = "none",
    matrix: str = "X",
    var_names: str | None = None,
    compression: str = "auto",
    member: str | None = None,
    intensity: str | None = None,
    feature_annotations=None,
    feature_key: str | None = None,
    feature_display: str | None = None,
    plan: ImportPlan | dict | None = None,
) -> Dataset:
    """Load a dataset from a file or buffer, validated, as a :class:`Dataset`.

    Parameters
    ----------
    path_or_buffer : str, Path, bytes or binary file-like
        A path, or a buffer (``io.BytesIO``, an open file, a Streamlit
        ``UploadedFile``). A buffer's ``.name`` gives the format and the default name.
        A directory written by :func:`fsviz.data.seeds.write_seed_shape` is opened
        memory-mapped: ``X`` is a read-only ``numpy.memmap`` (dense) or a CSC matrix
        whose arrays are memory maps; nothing is copied (``label=None``: no labels).
        A ``.npy`` matrix is read into memory when it fits ``memory_budget``, else opened
        memory-mapped the same way; its labels are ``<stem>.y.npy`` beside it.
    label : str, int, None or "auto", default="auto"
        Where the labels are.

        - CSV/TSV/spreadsheets/Parquet: a column name, or a column position (int
          from 0, the first column; never negative; positions count all columns,
          identifiers too). ``"auto"``: a column named ``label``, ``class``, ``y`` or ``target``
          (exact case first, then any case); else the first column that
          :func:`~fsviz.data.suggest_targets` ranks and that is named like a target
          (``diagnosis``, ``tumour_type``); else the last column if it is text (a
          column of class names); else the first text column with 2 to 50 values;
          complete columns before columns with gaps (see
          :func:`~fsviz.data.infer_column_roles`); else no labels. Files written by
          fsviz (Parquet) name their label column themselves. With
          ``transpose=True`` the label names a *row* of the file (e.g. a ``class`` row).
        - .h5ad: an ``obs`` column; ``"auto"`` picks one as for tables, or none.
        - .mat: the variable name; ``"auto"`` tries ``Y``, ``y``, ``gnd``, ``label``,
          ``labels``, ``target``.
        - .npz: the array name; ``"auto"`` tries ``y``, ``Y``, ``label``, ``labels``, ``target``.
        - svmlight: the first field of every line; ``None`` ignores it.

        ``None`` loads no labels (unsupervised).
    fmt : {"csv", "tsv", "parquet", "mat", "svmlight", "npz", "xlsx", "xls", "ods", "h5ad"}, optional
        When None: from the content when it is binary (a workbook, HDF5, Parquet,
        MATLAB, .npz: read as what it is whatever the file is called, with a note in
        ``meta["notes"]``), else from the file name, else from the text.
    image_shape : tuple (height, width), optional
        For pixel data. When None it is taken from the file (fsviz Parquet/.npz),
        from :data:`KNOWN_IMAGE_SHAPES` by dataset name, or inferred for square
        pixel counts with pixel-like values (see :func:`infer_image_shape`).
        ``False``: no image shape (and no column permutation) whatever the file.
    name : str, optional
        Dataset name; default the file name without suffix.
    image_order : {"auto", "C", "F"}, default="auto"
        Pixel order of images in the file. ``"F"`` (column-major, what MATLAB
        writes; the default for .mat) permutes the columns at load so that
        ``X[i].reshape(image_shape)`` in C order is an upright image; the original
        column of each feature is kept in ``meta["source_columns"]`` and pixel
        features are named ``pixel_<row>_<col>``. ``"C"`` (default elsewhere)
        keeps the columns as they are.
    memory_budget : int, str or None, default=None
        Bytes the loaded data may take (an int, or a size such as ``"2G"``); ``0`` or
        ``"none"``: no limit. None: ``FSVIZ_MEMORY_BUDGET`` or 1/8 of the available RAM
        (see :mod:`fsviz.data.budget`). Checked from the sizes the file declares (LIBSVM
        indices and header, .npy headers and sparse shapes in .npz, MATLAB variable
        shapes, Parquet metadata, CSV column and row counts) *before* allocating.
    sandbox : bool, default=False
        Parse formats whose reader can crash the process on a damaged file (MATLAB .mat:
        ``scipy.io.loadmat`` has been seen to die by SIGSEGV) in a child process, so a
        crash becomes a ValueError. For untrusted input (the app's uploads, the CLI);
        costs a process start (~0.5 s) per .mat file.
        Also spreadsheets and .h5ad files, and the child's memory is limited to a few times
        the budget (:func:`fsviz.data.sandbox.child_memory_limit`): a reader that would
        over-allocate on hostile bytes ends the child, not this process.
    allow_external : bool, default=False
        HDF5-based files (.h5ad) may point outside themselves: external links, external raw
        storage, virtual datasets. By default such a file is refused with a message naming the
        object (an uploaded file must not read the server's files); True reads a *trusted
        local* file as it is (:mod:`fsviz.data.formats._hdf5`).
    missing : {"error", "mean", "median"}, default="error"
        What to do with missing feature values (NaN in .npz/.mat/svmlight, empty cells and
        NA tokens such as ``NA``, ``NaN``, ``null`` in CSV/TSV, nulls in Parquet).
        ``"error"``: a ``ValueError`` saying how many and where. ``"mean"``/``"median"``:
        each affected column is filled with the mean/median of its non-missing values
        (a column with no value at all is a ``ValueError`` naming it). Sparse input:
        only explicitly stored NaNs are missing (implicit zeros are values, so they count
        in the mean/median). Infinite values stay an error; missing labels always do.
        What was done (per-column counts and fill values) is kept in
        ``Dataset.meta["missing"]`` and summarised in a :class:`DataWarning`.
    missing_indicators : bool, default=False
        Add one 0/1 feature ``<name>=missing`` (after all other features) for every
        numeric column that had missing values (one-hot columns always get their
        ``<name>=missing`` column, see ``categorical``). An inferred image shape is dropped when
        indicator columns are added (they are not pixels).
    categorical : {"error", "onehot"}, default="error"
        Non-numeric feature columns of CSV/TSV/Parquet files (up to 10,000 columns).
        ``"error"``: a ``ValueError`` naming them. ``"onehot"``: each becomes one 0/1
        column per distinct value, named ``column=value`` (values sorted as strings),
        in the column's place; a missing category gets its own 0/1 column
        ``column=missing`` at the end of the block (never an all-zero row, which would
        read as "none of the values"), recorded in ``Dataset.meta["missing"]``.
        The blocks are listed in ``Dataset.categorical_groups``.
    sep : str, default="auto"
        Field separator of text tables: ``","``, ``";"``, ``"\\t"``, ``"|"``,
        ``"whitespace"``; ``"auto"`` sniffs it from the first lines (tab for .tsv).
    decimal : {"auto", ".", ","}, default="auto"
        Decimal mark of text tables; ``"auto"``: ``","`` when the separator is not a
        comma and numbers look like ``1,5`` (a European export), else ``"."``.
        Thousands separators (``1,234.5`` or ``1.234,5``) are recognised with it.
    sheet : str or int, optional
        Spreadsheets: the sheet name or 0-based position (default the first sheet);
        see :func:`~fsviz.data.list_sheets`.
    transpose : bool or "auto", default=False
        True: the file holds features as rows (an expression matrix: first column the
        feature names, header the sample names, maybe a label row); the header's
        sample names become ``Dataset.sample_names``. ``"auto"``: transpose when
        :func:`~fsviz.data.inspect_table` suggests it (rows >> columns and a first
        column of distinct names).
    id_columns : "auto", None or list of str, default="auto"
        Identifier columns: kept out of X, the first one (distinct per row) becomes
        ``Dataset.sample_names``. ``"auto"``: as :func:`~fsviz.data.infer_column_roles`
        finds them (``id``, ``sample``, ``rownames``, ``Unnamed: 0``, a leading text
        column distinct per row, ...); None: every column is a feature or the target.
    ignore : list of str, optional
        Columns to drop. All-empty columns (a trailing comma on every line gives one)
        are always dropped, noted in ``meta["ignored"]`` and ``meta["notes"]``.
    covariates : list of str, optional
        Columns to adjust for (a batch, an age, a sex): columns of the table (role
        ``"covariate"``: taken out of the features) or of the sample annotations. Each is kept
        per sample in ``Dataset.meta["sample_annotations"]`` (numbers or text; rows without an
        identifier are named ``1``, ``2``, ...) and the names in ``Dataset.meta["covariates"]``,
        which the selectors' ``covariates=`` and the CLI's ``--covariates`` read. A covariate
        that is also the target, or holds one value for every sample, is a ValueError.
    missing_target : {"error", "drop"}, default="error"
        Rows whose target value is missing: a ValueError that counts them, or drop
        them (noted in ``meta["dropped_rows"]`` and ``meta["notes"]``).
    target_kind : {"auto", "classes", "continuous"}, default="auto"
        ``"continuous"`` keeps a numeric target (integers too: a count, an age) as a
        continuous quantity; ``"classes"`` makes any target class labels; ``"auto"``:
        whole numbers and text are classes, fractional numbers continuous (see
        :func:`~fsviz.data.check_target` for targets that look otherwise).

    encoding : {"auto", "utf-8", "cp1252", "latin-1"}, default="auto"
        Text files: "auto" reads UTF-8 (with or without BOM), else Windows-1252.
    header : int or None, default=0
        The line (after ``skip_rows``, not counting comment lines) that holds the column names;
        None: the file has no header, and the columns are named ``V1``, ``V2``, ... (R's
        convention; :func:`~fsviz.data.inspect_table` detects a first row typed like the rest).
    skip_rows : int, default=0
        Lines skipped at the start of a text file or sheet (metadata above the table).
    comment : str, optional
        Lines of a text file that begin with this (``"#"``, ``"!"``) are skipped.
    na_values : sequence of str, default=DEFAULT_NA
        Cells read as missing (:data:`fsviz.data.plan.DEFAULT_NA`: empty, ``NA``, ``N/A``,
        ``NaN``, ``null``, ``#N/A``, ``?`` ...): never a category, never a number.
    duplicates : {"error", "suffix", "mean"}, default="error"
        Feature names that repeat (probes of one gene): refuse, make them unique (``TP53``,
        ``TP53.1``), or average each name's columns into one feature.
    types : dict of str to str, optional
        A column's type over the detected one: ``"number"`` (text cells become missing),
        ``"category"`` (one-hot encoded, however many values), ``"date"``, ``"text"`` (left
        out). Detected by default: dates (see ``dates``); text with more than 50 distinct
        values or more than 20 % of the rows is never one-hot encoded: it becomes an
        identifier when unique per row, else it is left out, with a note.
    dates : {"ignore", "number"}, default="ignore"
        Date and time columns: left out with a note, or read as days since 1970-01-01.
    min_class_size : int, default=0
        Classes with fewer samples than this are left out (their rows dropped), as the app's
        target fix does.
    sample_annotations : str, Path, buffer or pandas.DataFrame, optional
        A second table with one row per sample (a phenotype table: sample id, disease state,
        age, ...), joined on the sample names (the identifier column, the header after
        transposing, AnnData's obs names). Its columns can be the target (``label=``); the
        join (matched and unmatched samples) is in ``meta["annotations"]``, the other columns
        in ``meta["sample_annotations"]``. Samples without an annotation row are dropped
        when the target comes from the annotations.
    annotation_key : str, optional
        The annotation column that holds the sample names (default: the one matching most).
    transform : {"none", "log1p", "log1p_cpm", "zscore", "log2"}, default="none"
        Applied to the values once read: ``log1p``, ``log1p`` of counts per million (each
        sample scaled to 10^6), each feature centred and scaled (dense data only), or ``log2``
        (proteomics intensities: positive values, dense).
    matrix : str, default="X"
        .h5ad: ``"X"``, ``"raw"`` or ``"layers/<name>"``.
    var_names : str, optional
        .h5ad: the ``var`` column that names the features (gene symbols); default the index.
    feature_annotations : str, Path, buffer or pandas.DataFrame, optional
        A second table keyed by feature name (a GEO platform annotation: ``ID`` -> ``Gene Symbol``)
        giving each feature a display name: ``Dataset.feature_info`` (see
        :mod:`fsviz.data.feature_info`). Formats that carry one (10x ``features.tsv``, AnnData ``var``,
        MaxQuant ``Gene names``) fill ``feature_info`` without it.
    feature_key : str, optional
        Its column of feature names (default: the identifier column naming the most features).
    feature_display : str, optional
        Its column of display names (default: found by name, ``Gene Symbol``, ``symbol``, ...).
    compression : str, default="auto"
        What wraps the data (:mod:`fsviz.data.formats.archives`): ``"auto"`` opens a gzip,
        bzip2, xz (zstd with the ``zstandard`` package) stream or a zip/tar archive (``.tar.gz``
        too) by its content, whatever the name; ``"none"`` reads the bytes as they are; another
        value (``"gzip"``, ``"zip"``, ``"tar.gz"``, ...) is what the file must be. What was found
        is recorded in ``meta["plan"]``. Decompression is bounded by ``memory_budget`` (the sizes
        the archive declares first, then the bytes as they stream), and archives with unsafe
        member names, links, encrypted or nested archives are refused.
    member : str, optional
        The member of a zip/tar archive to read when it holds several data files (default: its
        one data file, or its recognised multi-file layout).
    intensity : str, optional
        MaxQuant ``proteinGroups.txt`` (recognised by its columns): the intensity family read as
        the values, one column per sample (``"LFQ intensity"`` (default when present), ``"iBAQ"``,
        ``"Intensity"``, ``"Reporter intensity corrected"``); see :mod:`fsviz.data.formats.proteomics`.
    plan : ImportPlan or dict, optional
        All of the reading options above as one value (:class:`fsviz.data.plan.ImportPlan`,
        or its dict form): given, it is used instead of them (passing both is an error).

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        Unknown/undetectable format, empty or corrupt file, MATLAB v7.3 (HDF5) file,
        missing label column (the message lists the columns), non-numeric feature
        columns (named; unless ``categorical="onehot"``), NaN values (how many and
        where; unless ``missing="mean"`` or ``"median"``), a feature column with no
        value at all (when imputing), inf values, missing labels, mismatched lengths,
        duplicate feature names, a bad image shape.
    MemoryBudgetError
        (a ``ValueError``) The data would exceed ``memory_budget``, or the process ran
        out of memory while reading them.

    Warns
    -----
    DataWarning
        When constant features are present (they are kept and listed in
        ``Dataset.constant_features``); when missing values were imputed or encoded
        (see ``Dataset.meta["missing"]``).

    Examples
    --------
    >>> import io
    >>> from fsviz.data import load_dataset
    >>> buf = io.BytesIO(b"a,b,class\\n1,2,x\\n3,4,y\\n")
    >>> buf.name = "tiny.csv"
    >>> ds = load_dataset(buf)
    >>> ds.X.tolist(), ds.y.tolist(), list(ds.class_names)
    ([[1.0, 2.0], [3.0, 4.0]], [0, 1], ['x', 'y'])
    """
    given = {k: v for k, v in locals().items() if k in _PLAN_FIELDS and k not in ("path_or_buffer", "plan")}
    plan = plan_of(plan, given)
    parsed = parse_source(
        path_or_buffer, plan, sandbox=sandbox, memory_budget=memory_budget, allow_external=allow_external
    )
    return assemble(
        parsed,
        plan,
        sample_annotations=sample_annotations,
        feature_annotations=feature_annotations,
        name=name,
        image_shape=image_shape,
    )


_PLAN_FIELDS = frozenset(f.name for f in dataclasses.fields(ImportPlan))
