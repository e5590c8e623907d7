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
