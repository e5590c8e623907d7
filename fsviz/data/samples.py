"""The bundled sample datasets the app opens with, written by fsviz itself.

``python -m fsviz.data.samples [--if-missing] [--dir DIR]`` writes ``sample_data/``:

========================  ===============  ======================================================
name                      shape            what
========================  ===============  ======================================================
``digits-0-vs-1``         360 x 64         scikit-learn's bundled handwritten digits, classes 0
                                           and 1 only, 8x8 pixel images (pixel masks)
``synthetic-groups``      600 x 2,000      :func:`~fsviz.data.make_grouped_classification`: 12
                                           support features with 0-5 affiliated features each,
                                           the rest noise; ground truth saved alongside
``correlated-blocks``     400 x 100        :func:`~fsviz.data.make_correlated_blocks`: 10 blocks
                                           of 10 features with within-block correlation 0.8 (the
                                           GRM paper's synthetic set); ground truth saved alongside
``diabetes``              442 x 10         scikit-learn's bundled diabetes data: a continuous
                                           target (disease progression, standardised), the
                                           regression sample
========================  ===============  ======================================================

Each dataset is one compressed ``.npz`` file written by :func:`fsviz.data.save_dataset`
(read back exactly by :func:`fsviz.data.load_dataset`), its ground truth a
``<name>.truth.npz`` next to it, and ``manifest.json`` records names, shapes and
fingerprints. The files are generated, not committed (the synthetic set is ~9 MB);
the content is deterministic (fixed seeds), so the fingerprints are the same on
every machine that gives the same floating-point results. :func:`load_sample`
writes a missing file on first use, so the app works even without ``make samples``.
The folder is ``FSVIZ_SAMPLE_DATA`` if set, else ``<repo>/sample_data``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fsviz.data.dataset import Dataset
from fsviz.data.loaders import image_feature_names, load_dataset, save_dataset
from fsviz.data.validation import DataWarning

__all__ = ["SampleInfo", "list_samples", "load_sample", "main", "make_sample", "sample_dir", "write_samples"]

#: bump when the content of a sample changes; files of another version are rewritten
SAMPLES_VERSION = 1


@dataclass(frozen=True)
class SampleInfo:
    """What the app shows about a bundled sample before loading it.

    Attributes
    ----------
    name : str
        Key for :func:`load_sample`.
    title : str
        Short human-readable title.
    description : str
    n_samples, n_features : int
    image_shape : tuple of int or None
    has_truth : bool
        Whether :func:`load_sample` attaches a ground truth (``Dataset.truth``).
    truth_kind : str or None
        ``"groups"`` (:class:`~fsviz.data.GroundTruth`: support features and their
        affiliated features) or ``"blocks"`` (:class:`~fsviz.data.BlockTruth`).
    filename : str
        File name inside :func:`sample_dir`.
    """

    name: str
    title: str
    description: str
    n_samples: int
    n_features: int
    image_shape: tuple | None
    has_truth: bool
    truth_kind: str | None
    filename: str


# ---------------------------------------------------------------------------- builders
def _digits() -> Dataset:
    from sklearn.datasets import load_digits

    bunch = load_digits(n_class=2)
    X = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target, dtype=np.int64)
    return Dataset(
        X,
        y=y,
        feature_names=image_feature_names((8, 8)),
        image_shape=(8, 8),
        name="digits-0-vs-1",
        class_names=["0", "1"],
        description=_INFO["digits-0-vs-1"].description,
    )


def _groups():
    from fsviz.data.generators import make_grouped_classification

    X, y, truth = make_grouped_classification(
        n_samples=600, n_features=2000, n_groups=12, max_affiliates=5, random_state=0
    )
    ds = Dataset(
        X, y=y, name="synthetic-groups", description=_INFO["synthetic-groups"].description, truth=truth
    )
    return ds


def _blocks():
    from fsviz.data.generators import make_correlated_blocks

    X, y, truth = make_correlated_blocks(
        n_samples=400, n_features=100, n_blocks=10, block_corr=0.8, random_state=0
    )
    return Dataset(
        X, y=y, name="correlated-blocks", description=_INFO["correlated-blocks"].description, truth=truth
    )


def _diabetes() -> Dataset:
    from sklearn.datasets import load_diabetes

    bunch = load_diabetes(scaled=False)
    X = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target, dtype=np.float64)
    # z-score: the raw target holds whole numbers (25-346), which type_of_target reads as
    # 214 classes; standardised it is what it is, a continuous quantity (same ranking of
    # features by every regression score, same R^2)
    y = (y - y.mean()) / y.std()
    return Dataset(
        X,
        y=y,
        feature_names=list(bunch.feature_names),
        name="diabetes",
        description=_INFO["diabetes"].description,
    )


_INFO: dict[str, SampleInfo] = {
    "digits-0-vs-1": SampleInfo(
        "digits-0-vs-1",
        "Handwritten digits 0 vs 1 (8x8 pixels)",
        "scikit-learn's bundled optical digits, classes 0 and 1: 360 images of 8x8 pixels with grey "
        "levels 0-16. Pixel features (pixel_<row>_<col>) show as masks on the images.",
        360,
        64,
        (8, 8),
        False,
        None,
        "digits-0-vs-1.npz",
    ),
    "synthetic-groups": SampleInfo(
        "synthetic-groups",
        "Synthetic support/affiliated feature groups (ground truth)",
        "The GDM benchmark (TPAMI 2016, section 5.2) at 600 x 2,000: 12 support features drawn N(0,1), "
        "each with 0-5 affiliated features correlated 0.8-0.95 with it, the rest pure noise; labels a "
        "noisy linear function of the support features. The true groups come with it (Dataset.truth).",
        600,
        2000,
        None,
        True,
        "groups",
        "synthetic-groups.npz",
    ),
    "correlated-blocks": SampleInfo(
        "correlated-blocks",
        "Correlated feature blocks (GRM synthetic set)",
        "The GRM paper's synthetic data: 400 samples, 100 features in 10 blocks of 10 with within-block "
        "correlation 0.8, two classes whose means differ block by block. Block membership comes with it "
        "(Dataset.truth).",
        400,
        100,
        None,
        True,
        "blocks",
        "correlated-blocks.npz",
    ),
    "diabetes": SampleInfo(
        "diabetes",
        "Diabetes progression (continuous target)",
        "scikit-learn's bundled diabetes data (Efron et al. 2004): 442 patients, 10 baseline measurements "
        "(age, sex, BMI, blood pressure, six blood serum values s1-s6); the target is a quantitative "
        "measure of disease progression one year later, standardised to mean 0 and standard deviation 1. "
        "A regression sample: only methods with a regression form apply.",
        442,
        10,
        None,
        False,
        None,
        "diabetes.npz",
    ),
}
_BUILDERS: dict[str, Callable[[], Dataset]] = {
    "digits-0-vs-1": _digits,
    "synthetic-groups": _groups,
    "correlated-blocks": _blocks,
    "diabetes": _diabetes,
}


# ---------------------------------------------------------------------------- ground truth files
def _save_truth(truth, path: Path) -> None:
    from fsviz.data.generators import BlockTruth, GroundTruth

    if isinstance(truth, GroundTruth):
        support = np.asarray(truth.support, dtype=np.int64)
        lens = np.array([len(truth.groups[int(s)]) for s in support], dtype=np.int64)
        af = (
            np.concatenate([np.asarray(truth.groups[int(s)], dtype=np.int64) for s in support])
            if len(support)
            else np.zeros(0, np.int64)
        )
        corr = (
            np.concatenate(
                [
                    np.asarray(
                        truth.affiliate_corr.get(int(s), np.full(len(truth.groups[int(s)]), np.nan)),
                        dtype=np.float64,
                    )
                    for s in support
                ]
            )
            if len(support)
            else np.zeros(0)
        )
        arrays = dict(
            kind=np.array("groups"),
            support=support,
            group_sizes=lens,
            affiliated=af,
            affiliate_corr=corr,
            weights=np.asarray(truth.weights, dtype=np.float64),
        )
    elif isinstance(truth, BlockTruth):
        arrays = dict(
            kind=np.array("blocks"),
            block=np.asarray(truth.block, dtype=np.int64),
            informative_blocks=np.asarray(truth.informative_blocks, dtype=np.int64),
            mean_shift=np.asarray(truth.mean_shift, dtype=np.float64),
            block_corr=np.array(float(truth.block_corr)),
        )
    else:
        raise ValueError(f"write_samples: unknown ground truth type {type(truth).__name__}.")
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def _load_truth(path: Path):
    from fsviz.data.generators import BlockTruth, GroundTruth

    with np.load(path, allow_pickle=False) as z:
        kind = str(z["kind"])
        if kind == "groups":
            support = z["support"]
            bounds = np.concatenate([[0], np.cumsum(z["group_sizes"])])
            af, corr = z["affiliated"], z["affiliate_corr"]
            groups = {int(s): af[bounds[i] : bounds[i + 1]].astype(np.intp) for i, s in enumerate(support)}
            acorr = {int(s): corr[bounds[i] : bounds[i + 1]] for i, s in enumerate(support)}
            return GroundTruth(
                support=support.astype(np.intp), groups=groups, weights=z["weights"], affiliate_corr=acorr
            )
        if kind == "blocks":
            return BlockTruth(
                block=z["block"].astype(np.intp),
                informative_blocks=z["informative_blocks"],
                mean_shift=z["mean_shift"],
                block_corr=float(z["block_corr"]),
            )
    raise ValueError(f"load_sample: unknown ground truth kind {kind!r} in {path}.")


# ---------------------------------------------------------------------------- public API
def sample_dir() -> Path:
    """The sample folder: ``FSVIZ_SAMPLE_DATA`` if set; in a checkout ``<repo>/sample_data``;
    an installed package writes its samples on first use into the user's cache folder,
    ``$XDG_CACHE_HOME/fsviz/sample_data`` (default ``~/.cache``; ``%LOCALAPPDATA%`` on Windows)."""
    env = os.environ.get("FSVIZ_SAMPLE_DATA")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "fsviz" / "__init__.py").is_file():
        return repo / "sample_data"
    if os.name == "nt":
        cache = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    else:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "fsviz" / "sample_data"


def list_samples() -> dict[str, SampleInfo]:
    """The bundled samples, ``name -> SampleInfo``, in display order (``list(...)`` gives the names)."""
    return dict(_INFO)


def make_sample(name: str) -> Dataset:
    """Build a sample in memory from its generator (deterministic), ground truth attached."""
    if name not in _BUILDERS:
        raise ValueError(f"load_sample: unknown sample {name!r}; samples are {list(_INFO)}.")
    return _BUILDERS[name]()


_lock = threading.Lock()
_cache: dict[tuple[str, str], Dataset] = {}


def load_sample(name: str, directory: str | os.PathLike | None = None) -> Dataset:
    """Load a bundled sample as a :class:`Dataset` (name, description, image shape, truth).

    Reads ``<directory>/<name>.npz`` (and its ``.truth.npz``); when missing (or of an
    older samples version) the sample is generated and written there (or only built
    in memory if the folder is not writable). Loaded samples are kept in memory, so
    a second call is free.

    Parameters
    ----------
    name : str
        One of ``list(list_samples())``.
    directory : path, optional
        Default :func:`sample_dir`.
    """
    if name not in _INFO:
        raise ValueError(f"load_sample: unknown sample {name!r}; samples are {list(_INFO)}.")
    folder = Path(directory) if directory is not None else sample_dir()
    key = (name, str(folder.resolve()))
    with _lock:
        if key in _cache:
            return _cache[key]
        info = _INFO[name]
        path = folder / info.filename
        tpath = folder / f"{name}.truth.npz"
        ds = None
        written = _is_current(folder, name) and path.is_file() and (not info.has_truth or tpath.is_file())
        if not written:
            try:
                _write_one(make_sample(name), folder)
                written = True
            except OSError:
                ds = make_sample(name)  # read-only install: use the in-memory copy
        if written:  # read back, so a sample is the same Dataset (meta too) whether or not it was on disk
            with warnings.catch_warnings():  # constant pixels of the digits are known and flagged
                warnings.simplefilter("ignore", DataWarning)
                ds = load_dataset(path, name=name)
            truth = _load_truth(tpath) if info.has_truth else None
            ds = _decorate(ds, info, truth)
        _cache[key] = ds
        return ds


def _decorate(ds: Dataset, info: SampleInfo, truth) -> Dataset:
    object.__setattr__(ds, "description", info.description)
    object.__setattr__(ds, "truth", truth)
    return ds


def _manifest(folder: Path) -> dict:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}


def _is_current(folder: Path, name: str) -> bool:
    entry = _manifest(folder).get("samples", {}).get(name)
    return bool(entry) and entry.get("version") == SAMPLES_VERSION


def _write_one(ds: Dataset, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    info = _INFO[ds.name]
    tag = f".{os.getpid()}.{threading.get_ident()}.tmp"  # concurrent writers never share a temporary file
    tmp = folder / (info.filename + tag)
    save_dataset(ds, tmp, fmt="npz")
    os.replace(tmp, folder / info.filename)
    if ds.truth is not None:
        ttmp = folder / f"{ds.name}.truth.npz{tag}"
        _save_truth(ds.truth, ttmp)
        os.replace(ttmp, folder / f"{ds.name}.truth.npz")
    man = _manifest(folder)
    man.setdefault("samples", {})[ds.name] = {
        "version": SAMPLES_VERSION,
        "file": info.filename,
        "shape": list(ds.shape),
        "fingerprint": ds.fingerprint,
        "truth": f"{ds.name}.truth.npz" if ds.truth is not None else None,
        "title": info.title,
    }
    man["written_by"] = "python -m fsviz.data.samples"
    mtmp = folder / f"manifest.json{tag}"
    mtmp.write_text(json.dumps(man, indent=2, sort_keys=True) + "\n")
    os.replace(mtmp, folder / "manifest.json")


def write_samples(
    directory: str | os.PathLike | None = None, *, if_missing: bool = False, names: list[str] | None = None
) -> list[str]:
    """Write the sample files; return the names written.

    Parameters
    ----------
    directory : path, optional
        Default :func:`sample_dir`.
    if_missing : bool, default=False
        Skip samples whose files exist and are of the current samples version.
    names : list of str, optional
        Only these samples (default all).
    """
    folder = Path(directory) if directory is not None else sample_dir()
    written = []
    for name in names or list(_INFO):
        if name not in _INFO:
            raise ValueError(f"write_samples: unknown sample {name!r}; samples are {list(_INFO)}.")
        info = _INFO[name]
        present = (folder / info.filename).is_file() and (
            not info.has_truth or (folder / f"{name}.truth.npz").is_file()
        )
        if if_missing and present and _is_current(folder, name):
            continue
        _write_one(make_sample(name), folder)
        written.append(name)
    with _lock:
        for k in [k for k in _cache if k[0] in written]:
            del _cache[k]
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m fsviz.data.samples [--if-missing] [--dir DIR] [names ...]``."""
    p = argparse.ArgumentParser(
        prog="python -m fsviz.data.samples", description="Write fsviz's bundled sample datasets."
    )
    p.add_argument("names", nargs="*", help=f"samples to write (default all: {', '.join(_INFO)})")
    p.add_argument(
        "--dir", default=None, help="target folder (default: FSVIZ_SAMPLE_DATA or <repo>/sample_data)"
    )
    p.add_argument(
        "--if-missing", action="store_true", help="only write samples whose files are missing or stale"
    )
    args = p.parse_args(argv)
    try:
        written = write_samples(args.dir, if_missing=args.if_missing, names=args.names or None)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    folder = Path(args.dir) if args.dir else sample_dir()
    if written:
        print(f"wrote {', '.join(written)} to {folder}", file=sys.stderr)
    else:
        print(f"sample data up to date in {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
