"""A 10x MTX triplet handed over as three files (three uploads, three buffers), not a folder or archive.

The files are generated (tests/omics_files.py). The three files give exactly what the folder and
10x's ``.tar.gz`` give; a missing, repeated or mismatched member is named.
"""

from __future__ import annotations

import gzip
import io
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz.data import load_dataset
from fsviz.data.formats.tenx import pack_triplet, read_triplet, triplet_roles
from tests.omics_files import cell_annotations, tenx_folder, tenx_tar_gz, tenx_triplet


def _load(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(*args, **kw)


@pytest.mark.parametrize(("version", "gz"), [("v3", True), ("v3", False), ("v2", True), ("v2", False)])
def test_three_files_read_as_the_folder_reads(tmp_path, version, gz):
    truth = tenx_folder(tmp_path / "run", version=version, gz=gz)
    counts, barcodes, ids, symbols, _ = truth
    folder = _load(tmp_path / "run")
    files, _ = tenx_triplet(version, gz)
    first = {n[0]: (n, d) for n, d in files.items()}  # m(atrix), f(eatures) or g(enes), b(arcodes)
    matrix, feats, bars = first["m"], first["f" if version == "v3" else "g"], first["b"]
    ds = read_triplet(matrix, feats, bars)
    assert ds.shape == (60, 40) and sp.issparse(ds.X) and ds.X.format == "csr"
    np.testing.assert_array_equal(ds.X.toarray(), counts.toarray())
    assert list(ds.sample_names) == barcodes
    assert ds.feature_names[3] == "MATR3" and ds.feature_names[7] == "MATR3-1"
    assert list(ds.feature_info["feature_id"]) == ids
    assert ds.fingerprint == folder.fingerprint
    said = f"read as a 10x {version} matrix: 60 cells x 40 genes, sparse"
    assert any(n.startswith(said) for n in ds.meta["notes"])
    # and from paths, the same
    paths = [tmp_path / "run" / n for n in (matrix[0], feats[0], bars[0])]
    assert read_triplet(*paths).fingerprint == folder.fingerprint


def test_the_packed_files_give_the_tar_gz_dataset_and_the_same_bytes_in_any_order():
    files, (counts, barcodes, ids, symbols, kind) = tenx_triplet()
    archive, _ = tenx_tar_gz()
    served = _load(io.BytesIO(archive))
    packed = pack_triplet(files)
    assert pack_triplet(list(reversed(list(files.items())))) == packed  # one content, one key
    ds = _load(io.BytesIO(packed))
    assert ds.fingerprint == served.fingerprint and ds.meta["plan"]["compression"] == "tar"
    annotated = read_triplet(
        ("matrix.mtx.gz", io.BytesIO(files["matrix.mtx.gz"])),
        ("features.tsv.gz", files["features.tsv.gz"]),
        ("barcodes.tsv.gz", files["barcodes.tsv.gz"]),
        sample_annotations=io.BytesIO(cell_annotations(barcodes, kind)),
        label="cell_type",
    )
    assert list(annotated.labels) == list(kind)  # the cell annotations join by barcode


def test_triplet_roles_finds_each_member_and_names_what_is_missing_or_repeated():
    assert triplet_roles(["x/barcodes.tsv", "genes.tsv.gz", "MATRIX.mtx.gz"]) == {
        "matrix.mtx": 2,
        "features.tsv": 1,
        "barcodes.tsv": 0,
    }
    with pytest.raises(ValueError, match=r"missing the barcodes \(barcodes.tsv or barcodes.tsv.gz\)"):
        triplet_roles(["matrix.mtx.gz", "features.tsv.gz"])
    with pytest.raises(ValueError, match=r"'matrix.mtx.gz' and 'matrix.mtx' are each the matrix"):
        triplet_roles(["matrix.mtx.gz", "matrix.mtx", "features.tsv.gz", "barcodes.tsv.gz"])
    with pytest.raises(ValueError, match=r"'features.tsv.gz' and 'genes.tsv' are each the features"):
        triplet_roles(["matrix.mtx.gz", "features.tsv.gz", "genes.tsv", "barcodes.tsv.gz"])
    with pytest.raises(ValueError, match=r"missing the matrix .* and the features .* and the barcodes"):
        triplet_roles(["data.csv"])


def test_wrong_files_and_mismatched_counts_are_refused():
    files, _ = tenx_triplet()
    with pytest.raises(ValueError, match=r"'notes.txt' is not one of the triplet's files"):
        pack_triplet({**files, "notes.txt": b"x"})
    with pytest.raises(ValueError, match=r"in the wrong places .* pass matrix, features, barcodes"):
        read_triplet(*[(n, files[n]) for n in ("features.tsv.gz", "matrix.mtx.gz", "barcodes.tsv.gz")])
    with pytest.raises(ValueError, match=r"must be a path or a \(name, content\) pair; got bytes"):
        read_triplet(files["matrix.mtx.gz"], *[(n, files[n]) for n in ("features.tsv.gz", "barcodes.tsv.gz")])
    short = {**files, "barcodes.tsv.gz": gzip.compress(b"AAAC-1\nAAAG-1\n")}
    with pytest.raises(ValueError, match=r"40 genes x 60 cells, but the triplet lists 2 barcodes for its 60"):
        _load(io.BytesIO(pack_triplet(short)))
    fewer = {**files, "features.tsv.gz": gzip.compress(b"ENSG1\tA\tGene Expression\n")}
    with pytest.raises(ValueError, match=r"lists 1 features for its 40 genes"):
        _load(io.BytesIO(pack_triplet(fewer)), sandbox=True)  # the sandboxed door says the same
