"""The GDM paper's own data shapes, written to disk block by block and opened memory-mapped.

The TPAMI GDM paper (Zhai, Ong & Tsang 2016, Table 3) runs on four real collections that
fsviz cannot ship; :func:`write_seed_shape` writes synthetic data of the same shape and
value type, with a few planted groups so that success can be checked:

======================  ============  ============  =============  ==================================
shape                   samples       features      non-zeros      values
======================  ============  ============  =============  ==================================
``"news20"``            9,996         1,355,191     3,584,383      term counts (Zipf), sparse CSC
``"kdd2010"``           19,264,097    29,890,095    586 M          term counts (Zipf), sparse CSC
``"webspam"``           350,000       16,609,143    1.04 B         term counts (Zipf), sparse CSC
``"psoriasis"``         2,176         529,651       dense          0/1/2 int8 genotypes in LD blocks
======================  ============  ============  =============  ==================================

The data go straight to a directory (``meta.json``, ``y.npy``, ``truth.npz`` and either
``X.npy`` -- a Fortran-ordered int8 matrix -- or ``X.data.npy``, ``X.indices.npy``,
``X.indptr.npy`` of a CSC matrix), one column block at a time: memory holds one block,
never the matrix. :func:`fsviz.data.load_dataset` opens such a directory memory-mapped
(:func:`load_seed_shape`), so a GDM fit reads the file rather than a copy of it.

Planted groups: ``n_groups`` support features, each with 2-5 affiliated features at
correlation about 0.9 or more (text: the same documents, a few counts redrawn; genotypes:
SNPs in near-perfect linkage), and labels that depend on the support features only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["SEED_SHAPES", "SeedShape", "SeedTruth", "load_seed_shape", "write_seed_shape"]

_FORMAT = "fsviz-mmap-1"


@dataclass(frozen=True)
class SeedShape:
    """One of the paper's data shapes (TPAMI Table 3) and its C++ GDM-OC time (Table 4)."""

    name: str
    n_samples: int
    n_features: int
    nnz: int | None  # None: dense
    kind: str  # "text" (CSC term counts) or "snp" (int8 genotypes)
    paper_gdm_oc_seconds: float


SEED_SHAPES: dict[str, SeedShape] = {
    "news20": SeedShape("news20", 9_996, 1_355_191, 3_584_383, "text", 1.37),
    "kdd2010": SeedShape("kdd2010", 19_264_097, 29_890_095, 586_000_000, "text", 408.0),
    "webspam": SeedShape("webspam", 350_000, 16_609_143, 1_040_000_000, "text", 171.0),
    "psoriasis": SeedShape("psoriasis", 2_176, 529_651, None, "snp", 89.0),
}


@dataclass(frozen=True, eq=False)
class SeedTruth:
    """Planted groups of a seed shape.

    Attributes
    ----------
    support : ndarray of int
        The planted support features (they drive the labels).
    groups : dict
        Planted support feature -> array of its affiliated features.
    """

    support: np.ndarray
    groups: dict

    def recovered(self, support, groups) -> int:
        """Planted groups found: some found SF lies in the planted group and its group holds all of it.

        ``support`` and ``groups`` are a fitted GDM's ``support_`` and ``groups_``.
        """
        found = 0
        for s in self.support:
            planted = {int(s), *map(int, self.groups[int(s)])}
            for f in planted:
                if f in groups and planted <= {f, *map(int, groups[f])}:
                    found += 1
                    break
        return found


def _check(shape, scale, n_groups, block_bytes):
    if shape not in SEED_SHAPES:
        raise ValueError(f"write_seed_shape: 'shape' must be one of {sorted(SEED_SHAPES)}; got {shape!r}.")
    if not isinstance(scale, (int, float)) or isinstance(scale, bool) or not 0 < scale <= 1:
        raise ValueError(f"write_seed_shape: 'scale' must be a number in (0, 1]; got {scale!r}.")
    if not isinstance(n_groups, (int, np.integer)) or not 1 <= n_groups <= 64:
        raise ValueError(f"write_seed_shape: 'n_groups' must be an int in [1, 64]; got {n_groups!r}.")
    if not isinstance(block_bytes, (int, np.integer)) or block_bytes < 1 << 16:
        raise ValueError(f"write_seed_shape: 'block_bytes' must be an int >= 65536; got {block_bytes!r}.")


def write_seed_shape(
    shape: str,
    path,
    *,
    scale: float = 1.0,
    n_groups: int = 8,
    block_bytes: int = 1 << 27,
    random_state: int = 0,
    progress=None,
) -> Path:
    """Write synthetic data of one of the GDM paper's shapes to the directory ``path``.

    Parameters
    ----------
    shape : {"news20", "kdd2010", "webspam", "psoriasis"}
        Which shape (see :data:`SEED_SHAPES`).
    path : str or Path
        Directory to create (must not exist or be empty). Keep large shapes outside a git
        tree: kdd2010 takes about 7 GB, webspam about 12.5 GB, psoriasis 1.15 GB.
    scale : float, default=1.0
        Fraction of the samples, features and non-zeros to write (small shapes for tests;
        the non-zeros per feature and the value type stay those of the full shape).
    n_groups : int, default=8
        Number of planted support features (each with 2-5 affiliated features).
    block_bytes : int, default=2**27
        About how many bytes of one column block are held in memory while writing.
    random_state : int, default=0
        Seed; the same seed and arguments write the same bytes.
    progress : callable, optional
        Called as ``progress(columns_written, n_features)`` after every block.

    Returns
    -------
    Path
        The directory; open it with :func:`fsviz.data.load_dataset`.

    Examples
    --------
    >>> import tempfile
    >>> from fsviz.data import load_dataset
    >>> from fsviz.data.seeds import write_seed_shape
    >>> d = write_seed_shape("news20", tempfile.mkdtemp() + "/n20", scale=0.01)
    >>> ds = load_dataset(d)
    >>> ds.shape
    (100, 13552)
    """
    _check(shape, scale, n_groups, block_bytes)
    spec = SEED_SHAPES[shape]
    n = max(40, int(round(spec.n_samples * scale)))
    m = max(200, int(round(spec.n_features * scale)))
    out = Path(path)
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"write_seed_shape: {str(out)!r} exists and is not empty; choose a new directory.")
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(random_state)
    if spec.kind == "text":
        # at small scales the density grows as 1 / scale: keep it a sparse matrix
        nnz = max(m + 10 * n_groups, min(int(round(spec.nnz * scale)), n * m // 8))
        y, truth, nnz = _write_text(out, n, m, nnz, n_groups, block_bytes, rng, progress)
        meta = {"storage": "csc", "nnz": int(nnz)}
    else:
        y, truth = _write_snp(out, n, m, n_groups, block_bytes, rng, progress)
        meta = {"storage": "dense", "dtype": "int8", "order": "F"}
    np.save(out / "y.npy", y)
    aff = [truth.groups[int(s)] for s in truth.support]
    np.savez(
        out / "truth.npz",
        support=truth.support,
        affiliated=np.concatenate(aff) if aff else np.empty(0, np.int64),
        sizes=np.array([len(a) for a in aff], dtype=np.int64),
    )
    meta.update(
        {
            "format": _FORMAT,
            "name": shape if scale == 1 else f"{shape}-x{scale:g}",
            "shape_name": shape,
            "scale": float(scale),
            "n_samples": int(n),
            "n_features": int(m),
            "random_state": int(random_state),
        }
    )
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    return out


# ----------------------------------------------------------------------------- npy streams
class _NpyStream:
    """A 1-D ``.npy`` file of known length written by appending chunks (never held whole)."""

    def __init__(self, path: Path, dtype, length: int):
        self.f = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.dtype = np.dtype(dtype)
        self.length = int(length)
        self.written = 0
        np.lib.format.write_array_header_2_0(
            self.f,
            {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False, "shape": (length,)},
        )

    def write(self, a) -> None:
        a = np.ascontiguousarray(a, dtype=self.dtype)
        self.f.write(a.tobytes())
        self.written += a.size

    def close(self) -> None:
        self.f.close()
        if self.written != self.length:
            raise RuntimeError(f"_NpyStream: wrote {self.written} values, header says {self.length}.")


# ----------------------------------------------------------------------------- text
def _column_counts(n: int, m: int, nnz: int, rng) -> np.ndarray:
    """Non-zeros per term: 1 each (every term occurs, as in news20) + Zipf(1.05) for the rest, <= n/2."""
    p = np.arange(1, m + 1, dtype=np.float64) ** -1.05
    p = p[rng.permutation(m)]
    cap = max(1, n // 2)
    k = np.ones(m, dtype=np.int64)
    left = nnz - m
    for _ in range(20):
        if left <= 0:
            break
        free = k < cap
        if not free.any():
            break
        add = rng.multinomial(left, p[free] / p[free].sum())
        k[free] += add
        over = np.maximum(k - cap, 0)
        k -= over
        left = int(over.sum())
    return k


def _distinct_rows(counts: np.ndarray, n: int, rng):
    """For each column, ``counts[j]`` distinct rows in [0, n): ``(col_local, rows)`` sorted by column, row.

    Light columns draw with replacement and redraw the duplicates (sort-based; numpy 2.4's
    hash-based ``np.unique`` took seconds per call here); the few heavy ones
    (``counts > n / 16``) draw without replacement one by one.
    """
    heavy = np.flatnonzero(counts > max(n // 16, 1))
    light = counts.copy()
    light[heavy] = 0
    cols = np.repeat(np.arange(counts.size, dtype=np.int64), light)
    key = cols * n + rng.integers(0, n, size=cols.size)
    del cols
    while True:
        key.sort()
        dup = np.zeros(key.size, dtype=bool)
        np.equal(key[1:], key[:-1], out=dup[1:])
        if not dup.any():
            break
        key = key[~dup]
        miss = light - np.bincount(key // n, minlength=counts.size)
        extra = np.repeat(np.arange(counts.size, dtype=np.int64), miss)
        key = np.concatenate([key, extra * n + rng.integers(0, n, size=extra.size)])
    if heavy.size:
        parts = [np.sort(rng.choice(n, size=int(counts[j]), replace=False)) + j * n for j in heavy]
        key = np.sort(np.concatenate([key, *parts]))
    return key // n, key % n


def _planted_text(n, m, counts, n_groups, rng):
    """Planted SF columns (documents + counts), their AFs (same documents minus a few), labels."""
    # SFs among moderately frequent terms: ~2 % of the documents each, at least 20
    df = max(20, n // 50)
    n_aff = rng.integers(2, 6, size=n_groups)
    planted = rng.choice(m, size=n_groups + int(n_aff.sum()), replace=False)
    sf, af = planted[:n_groups], planted[n_groups:]
    cols: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    groups = {}
    sign = np.where(np.arange(n_groups) % 2 == 0, 1.0, -1.0)
    score = np.zeros(n)
    pos = 0
    df = min(df, n // 2)
    docs = rng.permutation(n)  # disjoint document sets while they fit
    for g in range(n_groups):
        if (g + 1) * df <= n:
            rows = np.sort(docs[g * df : (g + 1) * df])
        else:
            rows = np.sort(rng.choice(n, size=df, replace=False))
        vals = 1.0 + rng.geometric(0.5, size=rows.size) - 1
        cols[int(sf[g])] = (rows, vals.astype(np.float64))
        score[rows] += sign[g] * np.log1p(vals)
        members = af[pos : pos + n_aff[g]]
        pos += n_aff[g]
        groups[int(sf[g])] = np.sort(members).astype(np.int64)
        for a in members:  # the same documents, ~5 % of the counts redrawn: |rho| about 0.95
            v = vals.copy()
            redraw = rng.random(rows.size) < 0.05
            v[redraw] = rng.geometric(0.5, size=int(redraw.sum()))
            cols[int(a)] = (rows, v.astype(np.float64))
    noise = rng.random(n)
    y = np.where(score > 0, 1, np.where(score < 0, 0, (noise < 0.5).astype(np.int64)))
    flip = rng.random(n) < 0.05
    y = np.where(flip, 1 - y, y).astype(np.int64)
    for j, (rows, _) in cols.items():
        counts[j] = rows.size
    return cols, SeedTruth(np.sort(sf).astype(np.int64), groups), y


def _write_text(out, n, m, nnz, n_groups, block_bytes, rng, progress):
    counts = _column_counts(n, m, nnz, rng)
    planted, truth, y = _planted_text(n, m, counts, n_groups, rng)
    nnz = int(counts.sum())
    idx_dtype = np.int32 if max(nnz, n, m) < 2**31 - 1 else np.int64
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    np.save(out / "X.indptr.npy", indptr.astype(idx_dtype))
    data_f = _NpyStream(out / "X.data.npy", np.float64, nnz)
    ind_f = _NpyStream(out / "X.indices.npy", idx_dtype, nnz)
    per_block = max(1, block_bytes // 40)  # non-zeros per block (~40 bytes each while generating)
    starts = np.searchsorted(indptr, np.arange(0, nnz, per_block), side="right") - 1
    bounds = np.unique(np.concatenate([starts, [m]]))
    planted_cols = np.array(sorted(planted), dtype=np.int64)
    try:
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            c = counts[a:b]
            cl, rows = _distinct_rows(c, n, rng)
            vals = (1.0 + rng.geometric(0.5, size=rows.size) - 1).astype(np.float64)
            here = planted_cols[(planted_cols >= a) & (planted_cols < b)]
            if here.size:  # replace the random entries of planted columns by the planted ones
                cuts = np.concatenate([[0], np.cumsum(c)])
                parts_r, parts_v, lo = [], [], 0
                for j in here:
                    s, e = cuts[j - a], cuts[j - a + 1]
                    parts_r += [rows[lo:s], planted[int(j)][0]]
                    parts_v += [vals[lo:s], planted[int(j)][1]]
                    lo = e
                rows = np.concatenate(parts_r + [rows[lo:]])
                vals = np.concatenate(parts_v + [vals[lo:]])
            ind_f.write(rows)
            data_f.write(vals)
            if progress is not None:
                progress(int(b), m)
    finally:
        data_f.close()
        ind_f.close()
    return y, truth, nnz


# ----------------------------------------------------------------------------- SNP genotypes
def _write_snp(out, n, m, n_groups, block_bytes, rng, progress):
    """Genotypes 0/1/2 (int8) in linkage blocks, written Fortran-ordered one column block at a time.

    Each LD block (1-40 SNPs) shares one latent haplotype variable per chromosome copy; SNP
    ``j`` carries allele 1 when ``r_j u + sqrt(1 - r_j^2) e > q_j`` (``q_j`` from its minor
    allele frequency, 0.05-0.5; ``r_j`` 0.3-0.85: moderate LD), and the genotype is the sum
    over the two copies. A planted group is a block whose SNPs follow ``u`` almost exactly
    (``r = 0.995``, one allele frequency): the first is the causal SNP, the others its
    affiliated features.
    """
    from scipy.special import ndtri

    # LD block boundaries and which blocks are planted
    sizes = rng.integers(1, 41, size=m // 10 + 10)
    ends = np.cumsum(sizes)
    ends = np.concatenate([ends[ends < m], [m]])
    starts = np.concatenate([[0], ends[:-1]])
    n_aff = rng.integers(2, 6, size=n_groups)
    cand = np.flatnonzero(ends - starts >= 6)
    chosen = np.sort(rng.choice(cand, size=n_groups, replace=False))
    maf = rng.uniform(0.05, 0.5, size=m)
    r = rng.uniform(0.3, 0.85, size=m)
    support, groups = [], {}
    for g, blk in enumerate(chosen):
        s = int(starts[blk])
        members = np.arange(s, s + 1 + n_aff[g])
        r[members] = 0.995
        maf[members] = rng.uniform(0.25, 0.5)
        support.append(s)
        groups[s] = members[1:].astype(np.int64)
    q = -ndtri(maf)  # allele 1 when the latent variable exceeds q
    truth = SeedTruth(np.array(support, dtype=np.int64), groups)
    causal = np.zeros((n, n_groups), dtype=np.int8)
    header = {"descr": "|i1", "fortran_order": True, "shape": (n, m)}
    per_block = max(1, block_bytes // (n * 48))
    cut = np.minimum(np.searchsorted(starts, np.arange(0, m, per_block)), starts.size - 1)
    bstarts = np.unique(np.concatenate([starts[cut], [m]]))
    with open(out / "X.npy", "wb") as f:
        np.lib.format.write_array_header_2_0(f, header)
        for a, b in zip(bstarts[:-1], bstarts[1:], strict=True):
            lo, hi = np.searchsorted(starts, a), np.searchsorted(starts, b)
            blk_of = np.repeat(np.arange(hi - lo), ends[lo:hi] - starts[lo:hi])  # LD block per column
            G = np.zeros((n, b - a), dtype=np.int8, order="F")
            for _copy in range(2):
                U = rng.standard_normal((n, hi - lo))
                E = rng.standard_normal((n, b - a))
                rr = r[a:b]
                G += (rr * U[:, blk_of] + np.sqrt(1.0 - rr**2) * E > q[a:b]).astype(np.int8)
            f.write(np.asfortranarray(G).tobytes(order="F"))
            for g, s in enumerate(support):
                if a <= s < b:
                    causal[:, g] = G[:, s - a]
            if progress is not None:
                progress(int(b), m)
    w = np.where(np.arange(n_groups) % 2 == 0, 1.0, -1.0) * rng.uniform(1.0, 1.5, size=n_groups)
    c = causal.astype(np.float64)
    score = (c - c.mean(axis=0)) @ w
    score += 0.3 * score.std() * rng.standard_normal(n)
    y = (score > np.median(score)).astype(np.int64)
    return y, truth


# ----------------------------------------------------------------------------- loading
def is_seed_dir(path) -> bool:
    """True for a directory written by :func:`write_seed_shape`."""
    try:
        p = Path(os.fspath(path))
    except TypeError:
        return False
    return p.is_dir() and (p / "meta.json").is_file()


def load_seed_shape(path):
    """Open a :func:`write_seed_shape` directory memory-mapped.

    Returns
    -------
    X : numpy.memmap (Fortran-ordered int8) or scipy.sparse.csc_matrix
        Read-only; a CSC matrix's ``data``, ``indices`` and ``indptr`` are read-only
        memory maps of the files (nothing is copied).
    y : ndarray of int64
    truth : SeedTruth
    meta : dict
    """
    from fsviz.data.filetypes import check_regular

    p = Path(os.fspath(path))
    for part in ("meta.json", "X.npy", "X.data.npy", "X.indices.npy", "X.indptr.npy", "y.npy", "truth.npz"):
        if os.path.lexists(p / part):  # each file it opens is a regular file (never a FIFO, a device)
            check_regular(p / part, f"load_dataset: {p.name!r}")
    meta = json.loads((p / "meta.json").read_text())
    if meta.get("format") != _FORMAT:
        raise ValueError(
            f"load_dataset: {str(p)!r} is not an fsviz memory-mapped dataset (meta.json format "
            f"{meta.get('format')!r}, expected {_FORMAT!r})."
        )
    n, m = int(meta["n_samples"]), int(meta["n_features"])
    if meta["storage"] == "dense":
        X = np.load(p / "X.npy", mmap_mode="r")
    else:
        data = np.load(p / "X.data.npy", mmap_mode="r")
        indices = np.load(p / "X.indices.npy", mmap_mode="r")
        indptr = np.load(p / "X.indptr.npy", mmap_mode="r")
        X = sp.csc_matrix((n, m), dtype=np.float64)
        # assign the memory maps directly: the constructor would check (read) every index
        X.data, X.indices, X.indptr = data, indices, indptr
        X.has_sorted_indices = True
        X.has_canonical_format = True
    if tuple(X.shape) != (n, m):
        raise ValueError(f"load_dataset: {str(p)!r}: X has shape {X.shape}, meta.json says {(n, m)}.")
    y = np.load(p / "y.npy")
    t = np.load(p / "truth.npz")
    aff = np.split(t["affiliated"], np.cumsum(t["sizes"])[:-1]) if t["sizes"].size else []
    truth = SeedTruth(t["support"], {int(s): a for s, a in zip(t["support"], aff, strict=True)})
    return X, y, truth, meta
