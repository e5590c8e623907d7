"""One module per file format, its reader and its writer together, and the reader registry.

:func:`fsviz.data.load_dataset` finds the format (a registered reader that recognises the
content, else the binary kind, the suffix, the text) and reads it through
:mod:`fsviz.data.formats.registry`; :mod:`.source` holds what every reader shares,
:mod:`.archives` unwraps compressed and archived files first. A new format is one module with
a :class:`~fsviz.data.formats.registry.Reader` and one :func:`register` line below (or, outside
fsviz, one ``register(...)`` call); docs/data.md, "Adding a reader", shows one.
"""

from dataclasses import replace

from fsviz.data.formats import (
    anndata,
    archives,
    delimited,
    gct,
    geo,
    loom,
    matlab,
    mtx,
    npz,
    parquet,
    proteomics,
    svmlight,
    tenx,
)
from fsviz.data.formats.registry import Reader, get_reader, readers, register

__all__ = ["Reader", "get_reader", "readers", "register"]

# the built-in readers, in registration order; those with a ``detect`` are asked by content in
# this order (the others answer to fmt= and their suffixes), before the binary kinds and suffixes
register(delimited.CSV_READER)
register(delimited.TSV_READER)
register(delimited.TXT_READER)
register(delimited.XLSX_READER)
register(delimited.XLS_READER)
register(delimited.ODS_READER)
register(parquet.READER)
register(matlab.READER)
register(svmlight.READER)
register(npz.READER)
register(anndata.READER)  # HDF5 by elimination: Loom and 10x's .h5 are recognised first
# label_free: readers whose target only ever comes from the sample annotations (a GEO series'
# characteristics, a CLS file, cell annotations): what they parse serves every target
register(replace(geo.READER, label_free=True))
register(replace(tenx.READER, label_free=True))  # a 10x triplet unpacked from an archive or a folder
register(replace(loom.READER, label_free=True))
register(tenx.H5_READER)
register(replace(gct.READER, label_free=True))
register(replace(gct.CLS_READER, label_free=True))
register(replace(mtx.READER, label_free=True))
register(replace(proteomics.MAXQUANT_READER, label_free=True))
register(replace(proteomics.DIANN_READER, label_free=True))
register(replace(proteomics.SPECTRONAUT_READER, label_free=True))

archives.register_layout("10x", tenx.is_tenx_layout, tenx.tenx_folder_files)
