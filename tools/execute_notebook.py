"""Build docs/notebook.ipynb from its cells below, execute it in a fresh kernel and save it with
its outputs: ``python tools/execute_notebook.py``. ``tests/test_notebook.py`` runs the saved
notebook again and checks that it matches these cells."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebook.ipynb"

CELLS = [
    (
        "markdown",
        "# fsviz in a notebook\n\n"
        "Fit the estimators as in scikit-learn, then draw them with `fsviz.viz`: every figure function "
        "takes the fitted estimator itself, arrays, or the app's run results. Names come from the "
        "pandas or polars frame the estimator was fitted on. No Streamlit is imported; the figures "
        "display inline through plotly's renderers.",
    ),
    (
        "code",
        "import numpy as np\n"
        "import pandas as pd\n"
        "import plotly.io as pio\n\n"
        "from fsviz.data import make_grouped_classification\n"
        "from fsviz.select import GDM, GRM, SAOLA, ReliefF\n"
        "from fsviz.stats import correlation_histogram\n"
        "from fsviz.viz import correlation_sparsity, group_tree, pixel_masks, ranking_bump, "
        "stream_progress\n\n"
        'pio.renderers.default = "plotly_mimetype"  # JupyterLab, VS Code and nbviewer draw it\n\n'
        "X, y, truth = make_grouped_classification(\n"
        "    n_samples=200, n_features=300, n_groups=6, random_state=0\n"
        ")\n"
        'X = pd.DataFrame(X, columns=[f"gene_{i}" for i in range(X.shape[1])])\n'
        "X.shape",
    ),
    ("markdown", "## GDM: support features and their affiliated features"),
    (
        "code",
        "gdm = GDM(random_state=0).fit(X, y)\n"
        "print(len(gdm.support_), 'groups; first support features:', list(gdm.get_feature_names_out()[:5]))\n"
        "group_tree(gdm, max_groups=12)",
    ),
    ("markdown", "## How sparse are the correlations? (TPAMI Fig. 1)"),
    ("code", "correlation_sparsity(correlation_histogram(X.to_numpy(), bins=20), tau=gdm.tau)"),
    ("markdown", "## GRM refines a ranking; prior groups (here GDM's) change it"),
    (
        "code",
        "relief = ReliefF().fit(X, y)\n"
        "groups = [np.r_[s, gdm.groups_[s]] for s in gdm.support_]\n"
        "grm_without = GRM(n_top=60).fit(X, relief.scores_)\n"
        "grm_with = GRM(n_top=60, prior_groups=groups, gamma=2.0).fit(X, relief.scores_)\n"
        'ranking_bump(grm_without, grm_with, k=15, labels=("GRM", "GRM + GDM groups"))',
    ),
    ("markdown", "## SAOLA: features arriving one at a time"),
    ("code", "saola = SAOLA().fit(X, y)\nstream_progress(saola)"),
    ("markdown", "## Pixels: GDM on handwritten digits 0 vs 1 (8 x 8 images)"),
    (
        "code",
        "from sklearn.datasets import load_digits\n\n"
        "digits = load_digits(n_class=2)\n"
        "gdm_pixels = GDM(random_state=0).fit(digits.data, digits.target)\n"
        "pixel_masks(gdm_pixels, (8, 8), images=digits.data, labels=digits.target)",
    ),
    ("markdown", "## Polars frames work too"),
    (
        "code",
        "import polars as pl\n\n"
        "from fsviz.select import FisherScore\n\n"
        "fisher = FisherScore(n_features=5).set_output(transform='polars').fit(pl.from_pandas(X), y)\n"
        "fisher.transform(pl.from_pandas(X)).columns",
    ),
]


def _formatted(source: str) -> str:
    """A code cell as ``ruff format`` writes it (ruff checks the notebook with the rest of the tree)."""
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", "cell.py", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
        cwd=NOTEBOOK.parents[1],
    )
    return out.stdout.rstrip("\n")


def build() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(_formatted(source))
        if kind == "code"
        else nbformat.v4.new_markdown_cell(source)
        for kind, source in CELLS
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 120) -> nbformat.NotebookNode:
    NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return nb


if __name__ == "__main__":
    nb = execute(build(), NOTEBOOK.parent)
    for i, cell in enumerate(nb.cells):  # stable ids keep the saved file's diff to what changed
        cell["id"] = f"cell-{i}"
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote {NOTEBOOK} ({NOTEBOOK.stat().st_size:,} bytes)", file=sys.stderr)
