"""Files as single-cell and expression pipelines write them, generated (none is a copy of a real file).

A 10x Cell Ranger matrix (the v3 MTX triplet, gzipped, as a folder, its ``.tar.gz`` and its
``.h5``; a v2 triplet with ``genes.tsv``), cell annotations keyed by barcode, GCT 1.2 / 1.3
files with a CLS label file, a MatrixMarket matrix, and a GEO platform annotation table.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import numpy as np
import scipy.io as sio
import scipy.sparse as sp


def tenx_counts(n_cells: int = 60, n_genes: int = 40, seed: int = 0):
    """``(counts cells x genes CSR, barcodes, gene ids, symbols, cell types)``: two cell types, the
    first five genes higher in type "B"; symbols repeat once (``MATR3`` twice, as in GRCh38)."""
    rng = np.random.default_rng(seed)
    kind = np.array(["T cell", "B cell"])[np.arange(n_cells) % 2]
    lam = np.full((n_cells, n_genes), 0.3)
    lam[kind == "B cell", :5] = 4.0
    counts = sp.csr_matrix(rng.poisson(lam).astype(np.float64))
    barcodes = [f"{''.join(rng.choice(list('ACGT'), 16))}-1" for _ in range(n_cells)]
    ids = [f"ENSG{i:011d}" for i in range(n_genes)]
    symbols = [f"GENE{i}" for i in range(n_genes)]
    symbols[7] = symbols[3] = "MATR3"
    return counts, barcodes, ids, symbols, kind


def _mtx_bytes(genes_by_cells: sp.spmatrix) -> bytes:
    buf = io.BytesIO()
    sio.mmwrite(buf, sp.coo_matrix(genes_by_cells), field="integer")
    return buf.getvalue()


def tenx_triplet(version: str = "v3", gz: bool = True, **kw) -> tuple[dict[str, bytes], tuple]:
    """The three files Cell Ranger writes (name -> bytes) and what they hold."""
    counts, barcodes, ids, symbols, kind = tenx_counts(**kw)
    if version == "v3":
        feats = "".join(f"{i}\t{s}\tGene Expression\n" for i, s in zip(ids, symbols, strict=True))
        names = {"matrix.mtx": _mtx_bytes(counts.T), "features.tsv": feats.encode()}
    else:
        feats = "".join(f"{i}\t{s}\n" for i, s in zip(ids, symbols, strict=True))
        names = {"matrix.mtx": _mtx_bytes(counts.T), "genes.tsv": feats.encode()}
    names["barcodes.tsv"] = "".join(b + "\n" for b in barcodes).encode()
    if gz:
        names = {f"{k}.gz": gzip.compress(v) for k, v in names.items()}
    return names, (counts, barcodes, ids, symbols, kind)


def tenx_folder(path: Path, version: str = "v3", gz: bool = True, **kw) -> tuple:
    files, truth = tenx_triplet(version, gz, **kw)
    path.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (path / name).write_bytes(data)
    return truth


def tenx_tar_gz(folder: str = "filtered_feature_bc_matrix", **kw) -> tuple[bytes, tuple]:
    """The ``.tar.gz`` 10x serves: a folder of the gzipped triplet."""
    files, truth = tenx_triplet("v3", True, **kw)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue(), truth


def tenx_h5(path: Path, version: str = "v3", **kw) -> tuple:
    """``filtered_feature_bc_matrix.h5`` (v3: group ``matrix``; v2: a group per genome)."""
    import h5py

    counts, barcodes, ids, symbols, kind = truth = tenx_counts(**kw)
    csc = sp.csc_matrix(counts.T)  # genes x cells, compressed by cell
    with h5py.File(path, "w") as f:
        f.attrs["filetype"] = "matrix"
        g = f.create_group("matrix" if version == "v3" else "GRCh38")
        g["data"], g["indices"], g["indptr"] = csc.data.astype(np.int32), csc.indices, csc.indptr
        g["shape"] = np.array(csc.shape, dtype=np.int32)
        g["barcodes"] = np.array(barcodes, dtype="S")
        if version == "v3":
            feat = g.create_group("features")
            feat["id"], feat["name"] = np.array(ids, dtype="S"), np.array(symbols, dtype="S")
            feat["feature_type"] = np.array(["Gene Expression"] * len(ids), dtype="S")
        else:
            g["genes"], g["gene_names"] = np.array(ids, dtype="S"), np.array(symbols, dtype="S")
    return truth


def cell_annotations(barcodes, kind) -> bytes:
    rows = "".join(f"{b},{k},{i % 3}\n" for i, (b, k) in enumerate(zip(barcodes, kind, strict=True)))
    return ("barcode,cell_type,batch\n" + rows).encode()


def gct(
    version: str = "1.2", n_genes: int = 30, n_samples: int = 12, seed: int = 1
) -> tuple[bytes, bytes, np.ndarray]:
    """A GCT file, its CLS labels and the values (samples x genes)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_genes)).round(4)
    klass = np.array(["tumour", "normal"])[np.arange(n_samples) % 2]
    X[klass == "tumour", :3] += 3
    samples = [f"S{i:02d}" for i in range(n_samples)]
    genes = [f"{1000 + i}_at" for i in range(n_genes)]
    if version == "1.2":
        lines = ["#1.2", f"{n_genes}\t{n_samples}", "\t".join(["Name", "Description", *samples])]
        lines += ["\t".join([g, f"gene {g}", *map(str, X[:, j])]) for j, g in enumerate(genes)]
    else:
        lines = ["#1.3", f"{n_genes}\t{n_samples}\t1\t1", "\t".join(["id", "pr_gene_symbol", *samples])]
        lines.append("\t".join(["cell_line", "na", *(["MCF7", "A549"][i % 2] for i in range(n_samples))]))
        lines += ["\t".join([g, f"SYM{j}", *map(str, X[:, j])]) for j, g in enumerate(genes)]
    cls = (
        f"{n_samples} 2 1\n# tumour normal\n" + " ".join("0" if k == "tumour" else "1" for k in klass) + "\n"
    )
    return ("\n".join(lines) + "\n").encode(), cls.encode(), X


def maxquant(n_groups: int = 300, n_samples: int = 24, seed: int = 2) -> tuple[bytes, bytes, dict]:
    """A MaxQuant ``proteinGroups.txt`` (LFQ, iBAQ and Intensity families, flags, zeros for
    "not detected", Evidence IDs) and its ``experimental_design.tsv`` with a Condition column."""
    rng = np.random.default_rng(seed)
    samples = [f"S{i:02d}" for i in range(n_samples)]
    condition = np.array(["ctrl", "treat"])[np.arange(n_samples) % 2]
    lfq = rng.lognormal(20, 1, size=(n_groups, n_samples)).round(0)
    lfq[:5, condition == "treat"] *= 8
    lfq[rng.random(lfq.shape) < 0.1] = 0  # not detected
    lfq[-3:] = 0  # never quantified
    reverse = np.zeros(n_groups, dtype=bool)
    reverse[10:14] = True
    contaminant = np.zeros(n_groups, dtype=bool)
    contaminant[20:26] = True
    site = np.zeros(n_groups, dtype=bool)
    site[[30, 31, 20]] = True  # one row flagged twice
    ids = [f"P{10000 + i};Q{20000 + i}" for i in range(n_groups)]
    genes = [f"GENE{i}" if i % 17 else "" for i in range(n_groups)]
    genes[40] = genes[41] = "DUP"
    head = ["Protein IDs", "Majority protein IDs", "Protein names", "Gene names", "Peptides"]
    head += [f"Intensity {s}" for s in samples] + [f"iBAQ {s}" for s in samples]
    head += [f"LFQ intensity {s}" for s in samples]
    head += ["Only identified by site", "Reverse", "Potential contaminant", "id", "Evidence IDs"]
    lines = ["\t".join(head)]
    for i in range(n_groups):
        row = [ids[i], ids[i].split(";")[0], f"Protein {i}", genes[i], str(rng.integers(1, 30))]
        row += (
            [str(int(v * 1.1)) for v in lfq[i]]
            + [str(int(v / 100)) for v in lfq[i]]
            + [str(int(v)) for v in lfq[i]]
        )
        row += ["+" if site[i] else "", "+" if reverse[i] else "", "+" if contaminant[i] else "", str(i)]
        row += [";".join(str(v) for v in rng.integers(0, 10**6, 3))]
        lines.append("\t".join(row))
    design = "Name\tFraction\tExperiment\tCondition\n" + "".join(
        f"raw_{s}\t\t{s}\t{c}\n" for s, c in zip(samples, condition, strict=True)
    )
    flagged = reverse | contaminant | site
    truth = {
        "lfq": lfq,
        "kept": ~flagged & (lfq > 0).any(axis=1),
        "samples": samples,
        "condition": condition,
        "n_flagged": int(flagged.sum()),
    }
    return ("\n".join(lines) + "\n").encode(), design.encode(), truth


def diann_pg_matrix(n_groups: int = 80, n_runs: int = 6, seed: int = 3) -> tuple[bytes, list[str]]:
    """A DIA-NN ``report.pg_matrix.tsv``: metadata columns, then one column per run's raw file path."""
    rng = np.random.default_rng(seed)
    runs = [f"D:\\runs\\2024-01\\S{i:02d}_{'ctrl' if i % 2 else 'treat'}.raw" for i in range(n_runs)]
    head = ["Protein.Group", "Protein.Ids", "Protein.Names", "Genes", "First.Protein.Description", *runs]
    lines = ["\t".join(head)]
    for i in range(n_groups):
        vals = rng.lognormal(15, 1, n_runs)
        cells = ["" if rng.random() < 0.1 else f"{v:.1f}" for v in vals]
        lines.append("\t".join([f"P{i}", f"P{i};Q{i}", f"PROT{i}_HUMAN", f"G{i}", f"protein {i}", *cells]))
    return ("\n".join(lines) + "\n").encode(), runs


def loom(path: Path, **kw) -> tuple:
    """A Loom file (genes x cells ``matrix``; ``row_attrs`` Gene/Accession; ``col_attrs`` CellID and
    a cluster label), as loompy writes it."""
    import h5py

    counts, barcodes, ids, symbols, kind = truth = tenx_counts(**kw)
    with h5py.File(path, "w") as f:
        f.create_dataset(
            "matrix", data=counts.T.toarray().astype(np.float32), chunks=(8, 16), compression="gzip"
        )
        rows, cols = f.create_group("row_attrs"), f.create_group("col_attrs")
        rows["Gene"], rows["Accession"] = np.array(symbols, dtype="S"), np.array(ids, dtype="S")
        cols["CellID"], cols["ClusterName"] = np.array(barcodes, dtype="S"), np.array(kind, dtype="S")
        cols["nUMI"] = np.asarray(counts.sum(axis=1)).ravel()
        f.create_group("layers")
    return truth


def geo_platform(probes, extra: int = 20) -> bytes:
    """A GEO platform annotation table as GEO's "full table" download writes it: ``#`` lines that
    describe the columns, then ``ID``, ``GB_ACC``, ``Gene Title``, ``Gene Symbol``,
    ``ENTREZ_GENE_ID`` (tab-separated), one row per probe of the platform (more than the data's).

    Of the data's probes the first two share a symbol (``DDR1``, as probes of one gene do), the
    third has none (blank), the fourth two genes (``RFC2 /// MIR4640``); the others one each."""
    ids = list(probes) + [f"AFFX-extra-{i}_at" for i in range(extra)]
    symbols = [f"SYM{j}" for j in range(len(ids))]
    symbols[0] = symbols[1] = "DDR1"
    symbols[2] = ""
    symbols[3] = "RFC2 /// MIR4640"
    lines = [
        "#ID = Affymetrix probe set ID",
        "#Gene Symbol = A gene symbol, when one is available (from UniGene).",
        "#ENTREZ_GENE_ID = Entrez Gene identifier",
        "ID\tGB_ACC\tGene Title\tGene Symbol\tENTREZ_GENE_ID",
    ]
    lines += [
        f"{p}\tNM_{100000 + j}\tgene {s or 'unknown'} title\t{s}\t{780 + j}"
        for j, (p, s) in enumerate(zip(ids, symbols, strict=True))
    ]
    return ("\n".join(lines) + "\n").encode()
