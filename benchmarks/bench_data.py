"""Loader overhead: fsviz.data.load_dataset against the bare parser it wraps, same file, same process.

load_dataset adds validation (finite check, label handling, constant features), the
column permutation of MATLAB images and the SHA-256 fingerprint on top of the parser;
this prints both times and their ratio. Not part of CI. Timings are noisy on a shared
machine: best of ``REPEAT`` runs.

    python benchmarks/bench_data.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fsviz.data import Dataset, DataWarning, load_dataset
from fsviz.data.generators import make_grouped_classification, make_sparse_text

REPEAT = 3
DATASETS = Path(os.environ.get("FSVIZ_DATASETS", ROOT.parent / "shared" / "datasets" / "skfeature"))


def best(fn, repeat: int = REPEAT) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def row(what: str, ours: float, peer: float, peer_name: str) -> None:
    print(f"{what:<44} fsviz {ours:8.3f} s   {peer_name:<26} {peer:8.3f} s   ratio {ours / peer:5.2f}x")


def main() -> None:
    warnings.simplefilter("ignore", DataWarning)
    print(f"# fsviz.data loaders vs bare parsers (best of {REPEAT}; shared 2-core machine, noisy)")
    tmp = Path(tempfile.mkdtemp(prefix="fsviz-bench-"))

    coil = DATASETS / "COIL20.mat"
    if coil.is_file():
        import scipy.io as sio

        row(
            "COIL20.mat 1440 x 1024 (image permuted)",
            best(lambda: load_dataset(coil)),
            best(lambda: sio.loadmat(coil)),
            "scipy.io.loadmat",
        )
        arc = DATASETS / "arcene.mat"
        row(
            "arcene.mat 200 x 10000",
            best(lambda: load_dataset(arc)),
            best(lambda: sio.loadmat(arc)),
            "scipy.io.loadmat",
        )
    else:
        print(f"(skipping .mat: {DATASETS} not found)")

    X, y, _ = make_grouped_classification(n_samples=600, n_features=2000, random_state=0)
    ds = Dataset(X, y=y, name="groups")
    import pandas as pd

    csv = tmp / "g.csv"
    ds.save(csv)
    row(
        "CSV 600 x 2000 (exact floats)",
        best(lambda: load_dataset(csv)),
        best(lambda: pd.read_csv(csv)),
        "pandas.read_csv",
    )
    pq = tmp / "g.parquet"
    ds.save(pq)
    row(
        "Parquet 600 x 2000",
        best(lambda: load_dataset(pq)),
        best(lambda: pd.read_parquet(pq)),
        "pandas.read_parquet",
    )
    npz = tmp / "g.npz"
    ds.save(npz)
    row(
        ".npz 600 x 2000 (compressed)",
        best(lambda: load_dataset(npz)),
        best(lambda: dict(np.load(npz))),
        "numpy.load (all arrays)",
    )

    Xs, ys = make_sparse_text(random_state=0)[:2]
    sds = Dataset(Xs, y=ys, name="text")
    svm = tmp / "t.svm"
    t = time.perf_counter()
    sds.save(svm)
    t_write = time.perf_counter() - t
    from sklearn.datasets import load_svmlight_file

    n, m = Xs.shape
    row(
        f"svmlight {n} x {m:,} ({Xs.nnz:,} nnz)",
        best(lambda: load_dataset(svm), 1),
        best(lambda: load_svmlight_file(str(svm), n_features=m, zero_based=True), 1),
        "sklearn load_svmlight_file",
    )
    print(f"{'  (writing it with Dataset.save)':<44} {t_write:8.3f} s, {svm.stat().st_size / 1e6:.1f} MB")

    Xd = np.random.default_rng(0).normal(size=(2048, 10000))
    t_build = best(lambda: Dataset(Xd))
    import hashlib

    t_sha = best(lambda: hashlib.sha256(Xd.data).hexdigest())
    row("Dataset(2048 x 10000 dense) incl. fingerprint", t_build, t_sha, "sha256 of X bytes alone")
    t_sp = best(lambda: Dataset(Xs), 1)
    print(f"{'Dataset(news20-scale sparse) incl. fingerprint':<44} fsviz {t_sp:8.3f} s")
    t_gen = best(lambda: make_sparse_text(random_state=0), 1)
    print(f"{'make_sparse_text (news20 shape)':<44} fsviz {t_gen:8.3f} s")

    # a user's wide table: the Data page inspects it (roles, target, dialect) before loading
    from fsviz.data import infer_column_roles, inspect_table

    rng = np.random.default_rng(7)
    wide = pd.DataFrame(rng.normal(size=(200, 20_000)), columns=[f"g{j}" for j in range(20_000)])
    wide.insert(0, "sample", [f"S{i}" for i in range(200)])
    wide["class"] = rng.choice(["a", "b"], 200)
    wcsv = tmp / "wide.csv"
    wide.to_csv(wcsv, index=False)
    row(
        "inspect_table 200 x 20,000 CSV",
        best(lambda: inspect_table(wcsv)),
        best(lambda: pd.read_csv(wcsv)),
        "pandas.read_csv",
    )
    print(
        f"{'infer_column_roles 200 x 20,000 frame':<44} fsviz {best(lambda: infer_column_roles(wide)):8.3f} s"
    )


if __name__ == "__main__":
    main()
