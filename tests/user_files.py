"""Files shaped like the ones users bring, generated (none is a public file verbatim).

- :func:`penguins_csv`: species target, text columns (island, sex), missing numbers and a missing sex.
- :func:`wisconsin_csv`: an ``id`` column, ``diagnosis`` M/B, 30 measurements and a trailing comma on
  every line (pandas reads an all-empty ``Unnamed: 32``).
- :func:`nci60_csv`: a ``rownames`` column V1..V64, a few thousand genes, 14 tumour types of which five
  have one sample.
- :func:`european_csv` / :func:`european_xlsx`: ``;``-separated with decimal commas, as a spreadsheet
  in a European locale exports it.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

#: NCI60's tumour types and their sizes (14 types, five of one sample)
NCI60_TYPES = {
    "CNS": 5, "RENAL": 9, "BREAST": 7, "NSCLC": 9, "UNKNOWN": 1, "OVARIAN": 6, "MELANOMA": 8,
    "PROSTATE": 2, "LEUKEMIA": 6, "K562B-repro": 1, "K562A-repro": 1, "COLON": 7, "MCF7A-repro": 1,
    "MCF7D-repro": 1,
}  # fmt: skip


def penguins_frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    species = rng.choice(["Adelie", "Chinstrap", "Gentoo"], size=n)
    code = pd.Series(species).map({"Adelie": 0, "Chinstrap": 1, "Gentoo": 2}).to_numpy()
    frame = pd.DataFrame(
        {
            "species": species,
            "island": rng.choice(["Biscoe", "Dream", "Torgersen"], size=n),
            "bill_length_mm": 39 + 6 * code + rng.normal(0, 2, n),
            "bill_depth_mm": 18 - 2.5 * (code == 2) + rng.normal(0, 0.8, n),
            "flipper_length_mm": 190 + 12 * code + rng.normal(0, 5, n),
            "body_mass_g": 3700 + 700 * (code == 2) + rng.normal(0, 300, n),
            "sex": rng.choice(["male", "female"], size=n).astype(object),
            "year": rng.choice([2007, 2008, 2009], size=n),
        }
    )
    frame.loc[[3, 40], ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]] = np.nan
    frame.loc[[3, 8, 40], "sex"] = np.nan
    return frame


def penguins_csv(**kw) -> bytes:
    return penguins_frame(**kw).to_csv(index=False).encode()


def wisconsin_frame(n: int = 150, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    malignant = rng.random(n) < 0.37
    stats = ["radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
             "concave points", "symmetry", "fractal_dimension"]  # fmt: skip
    cols = {"id": rng.choice(np.arange(8_000, 99_999_999), size=n, replace=False)}
    cols["diagnosis"] = np.where(malignant, "M", "B")
    for kind in ("mean", "se", "worst"):
        for j, stat in enumerate(stats):
            shift = (1.5 if j < 4 else 0.4) * malignant
            cols[f"{stat}_{kind}"] = np.round(10 + j + shift + rng.normal(0, 1, n), 5)
    return pd.DataFrame(cols)


def wisconsin_csv(**kw) -> bytes:
    """Every line ends with a comma, as in the widely shared file: an all-empty last column."""
    text = wisconsin_frame(**kw).to_csv(index=False, lineterminator="\n")
    return "".join(line + ",\n" for line in text.splitlines()).encode()


def nci60_frame(n_genes: int = 2000, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = np.concatenate([[t] * k for t, k in NCI60_TYPES.items()])
    rng.shuffle(labels)
    n = labels.size
    codes = pd.factorize(labels)[0]
    X = rng.normal(size=(n, n_genes))
    X[:, :40] += 2.0 * (codes[:, None] % 4 == np.arange(40)[None, :] % 4)
    frame = pd.DataFrame(X.round(6), columns=[f"data.{j + 1}" for j in range(n_genes)])
    frame.insert(0, "rownames", [f"V{i + 1}" for i in range(n)])
    frame["labs"] = labels
    return frame


def nci60_csv(**kw) -> bytes:
    return nci60_frame(**kw).to_csv(index=False).encode()


def european_frame(n: int = 60, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.choice(["Kontrolle", "Behandlung"], size=n)
    frame = pd.DataFrame({"Probe": [f"P{i:03d}" for i in range(n)]})
    for j in range(6):
        frame[f"Messwert {j + 1}"] = np.round(
            10 * (1 + j) + rng.normal(0, 1, n) + 2.5 * (group == "Behandlung") * (j < 2), 3
        )
    frame["Gruppe"] = group
    return frame


def european_csv(**kw) -> bytes:
    """``;`` separators and decimal commas, e.g. ``1000,123``."""
    return european_frame(**kw).to_csv(index=False, sep=";", decimal=",").encode("utf-8")


def european_xlsx(**kw) -> bytes:
    buf = io.BytesIO()
    european_frame(**kw).to_excel(buf, index=False, sheet_name="Messungen")
    return buf.getvalue()


# ------------------------------------------------------------- files as researchers have them (issue 29)
def geo_series_matrix(n_probes: int = 300, n_samples: int = 24, seed: int = 0) -> bytes:
    """A GEO series matrix: 25+ ``!Series_``/``!Sample_`` lines, characteristics as ``key: value``,
    then the probe x sample table between the begin and end markers."""
    rng = np.random.default_rng(seed)
    gsm = [f"GSM{100000 + i}" for i in range(n_samples)]
    state = ["healthy" if i % 2 else "ulcerative colitis" for i in range(n_samples)]

    def q(vals) -> str:
        return "\t".join(f'"{v}"' for v in vals)

    lines = ['!Series_title\t"A made-up colitis study"', '!Series_geo_accession\t"GSE00000"']
    lines += [f'!Series_summary\t"Paragraph {k} about the study."' for k in range(20)]
    lines += ['!Series_contact_name\t"A,,Person"', '!Series_platform_id\t"GPL570"']
    lines.append("!Sample_title\t" + q([f"patient {i}" for i in range(n_samples)]))
    lines.append("!Sample_geo_accession\t" + q(gsm))
    lines.append("!Sample_source_name_ch1\t" + q(["colon biopsy"] * n_samples))
    lines.append("!Sample_characteristics_ch1\t" + q([f"disease state: {s}" for s in state]))
    lines.append("!Sample_characteristics_ch1\t" + q([f"age: {a}" for a in rng.integers(20, 70, n_samples)]))
    lines.append("!Sample_characteristics_ch1\t" + q([f"Sex: {'MF'[i % 2]}" for i in range(n_samples)]))
    lines += ["!series_matrix_table_begin", '"ID_REF"\t' + q(gsm)]
    X = rng.normal(6, 1, size=(n_probes, n_samples))
    X[:10] += np.array([1.5 if s != "healthy" else 0.0 for s in state])
    lines += [f'"{1000 + j}_at"\t' + "\t".join(f"{v:.4f}" for v in X[j]) for j in range(n_probes)]
    lines.append("!series_matrix_table_end")
    return ("\n".join(lines) + "\n").encode()


def expression_with_repeats(n_genes: int = 4000, n_samples: int = 30, n_repeat: int = 40, seed: int = 5):
    """``(matrix_csv, phenotype_csv)``: genes x samples with ``n_repeat`` gene symbols repeated (as
    probe maps do), and a phenotype table (sample id, disease state, age, sex) in another order,
    with one sample the matrix does not have."""
    rng = np.random.default_rng(seed)
    genes = [f"GENE{j}" for j in range(n_genes - n_repeat)]
    genes += [f"GENE{j}" for j in rng.choice(n_genes - n_repeat, n_repeat, replace=False)]
    samples = [f"S{i:02d}" for i in range(n_samples)]
    disease = np.where(np.arange(n_samples) % 3 == 0, "tumour", "normal")
    X = rng.normal(8, 1, size=(n_genes, n_samples))
    X[:20] += 2.0 * (disease == "tumour")
    matrix = pd.DataFrame(np.round(X, 4), columns=samples)
    matrix.insert(0, "symbol", genes)
    pheno = pd.DataFrame(
        {
            "sample_id": samples[::-1] + ["S99"],
            "disease_state": list(disease[::-1]) + ["normal"],
            "age": list(rng.integers(30, 80, n_samples)) + [50],
            "sex": list(rng.choice(["f", "m"], n_samples)) + ["f"],
        }
    )
    return matrix.to_csv(index=False).encode(), pheno.to_csv(index=False).encode()


def anndata_counts(path, n_cells: int = 80, n_genes: int = 60, seed: int = 6):
    """An .h5ad as anndata writes it: sparse CSR counts, obs with cell_type and batch (categorical),
    var with gene symbols beside the ids, a ``counts`` layer and ``raw``."""
    import h5py
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    types = np.array(["T cell", "B cell", "NK cell"])[rng.integers(0, 3, n_cells)]
    lam = rng.gamma(1.0, 2.0, size=(1, n_genes)) * (
        1 + 3 * (types[:, None] == "B cell") * (np.arange(n_genes) < 5)
    )
    X = sp.csr_matrix(rng.poisson(lam).astype(np.float32))

    def strings(group, name, values):
        ds = group.create_dataset(name, data=np.array(values, dtype=object), dtype=h5py.string_dtype())
        ds.attrs["encoding-type"], ds.attrs["encoding-version"] = "string-array", "0.2.0"

    def categorical(group, name, values):
        cats, codes = np.unique(values, return_inverse=True)
        g = group.create_group(name)
        g.attrs["encoding-type"], g.attrs["encoding-version"], g.attrs["ordered"] = (
            "categorical",
            "0.2.0",
            False,
        )
        strings(g, "categories", cats)
        g["codes"] = codes.astype(np.int8)

    def sparse(group, name, M):
        g = group.create_group(name)
        g.attrs["encoding-type"], g.attrs["encoding-version"] = "csr_matrix", "0.1.0"
        g.attrs["shape"] = M.shape
        g["data"], g["indices"], g["indptr"] = M.data, M.indices, M.indptr

    with h5py.File(path, "w") as f:
        f.attrs["encoding-type"], f.attrs["encoding-version"] = "anndata", "0.1.0"
        sparse(f, "X", X)
        obs = f.create_group("obs")
        obs.attrs["encoding-type"], obs.attrs["encoding-version"] = "dataframe", "0.2.0"
        obs.attrs["_index"], obs.attrs["column-order"] = "_index", ["cell_type", "batch", "n_counts"]
        strings(obs, "_index", [f"cell{i}" for i in range(n_cells)])
        categorical(obs, "cell_type", types)
        categorical(obs, "batch", np.array(["b1", "b2"])[np.arange(n_cells) % 2])
        obs["n_counts"] = np.asarray(X.sum(axis=1)).ravel()
        var = f.create_group("var")
        var.attrs["encoding-type"], var.attrs["encoding-version"] = "dataframe", "0.2.0"
        var.attrs["_index"], var.attrs["column-order"] = "_index", ["gene_symbols"]
        strings(var, "_index", [f"ENSG{j:011d}" for j in range(n_genes)])
        strings(var, "gene_symbols", [f"GENE{j}" for j in range(n_genes)])
        layers = f.create_group("layers")
        layers.attrs["encoding-type"], layers.attrs["encoding-version"] = "dict", "0.1.0"
        sparse(layers, "counts", X)
        raw = f.create_group("raw")
        raw.attrs["encoding-type"], raw.attrs["encoding-version"] = "raw", "0.1.0"
        sparse(raw, "X", X)
        rvar = raw.create_group("var")
        rvar.attrs["encoding-type"], rvar.attrs["encoding-version"] = "dataframe", "0.2.0"
        rvar.attrs["_index"], rvar.attrs["column-order"] = "_index", []
        strings(rvar, "_index", [f"ENSG{j:011d}" for j in range(n_genes)])
    return path


def churn_csv(n: int = 400, seed: int = 4) -> bytes:
    """A churn table: an id, a date column, blank numbers, a 180-value town column, a target."""
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2022-01-01")
    f = pd.DataFrame(
        {
            "customer_id": [f"C{100000 + i}" for i in range(n)],
            "signup_date": [
                (start + pd.Timedelta(days=int(d))).strftime("%Y-%m-%d") for d in rng.integers(0, 700, n)
            ],
            "plan": rng.choice(["basic", "plus", "pro"], n),
            "monthly_fee": np.round(rng.normal(30, 8, n), 2),
            "tenure_months": rng.integers(1, 48, n).astype(float),
            "support_calls": rng.poisson(2, n).astype(float),
            "city": [f"Town {k}" for k in rng.integers(0, 180, n)],
        }
    )
    f.loc[rng.choice(n, 25, replace=False), "monthly_fee"] = np.nan
    f.loc[rng.choice(n, 10, replace=False), "tenure_months"] = np.nan
    f["churned"] = np.where(f["support_calls"] + rng.normal(0, 1, n) > 3, "yes", "no")
    return f.to_csv(index=False).encode()


def uci_headerless(n: int = 120, seed: int = 7) -> bytes:
    """A UCI-style file: no header, an id, 9 integer features 1..10, the class last, ``?`` for gaps."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        cls = 4 if i % 3 == 0 else 2
        vals = [str(int(v)) for v in np.clip(rng.integers(1, 6, 9) + (cls == 4) * 4, 1, 10)]
        if i % 11 == 0:
            vals[5] = "?"
        rows.append(",".join([str(1000000 + 37 * i)] + vals + [str(cls)]))
    return ("\n".join(rows) + "\n").encode()


def european_first_column(n: int = 60, seed: int = 8) -> bytes:
    """A European CSV (``;`` and decimal commas) whose first column holds decimal-comma numbers."""
    rng = np.random.default_rng(seed)
    group = rng.choice(["A", "B"], n)
    frame = pd.DataFrame(
        {
            "Gewicht": np.round(rng.normal(70, 10, n) + 5 * (group == "B"), 2),
            "Größe": np.round(rng.normal(1.75, 0.1, n), 3),
            "Alter": rng.integers(20, 80, n),
            "Gruppe": group,
        }
    )
    return frame.to_csv(index=False, sep=";", decimal=",").encode("utf-8")
