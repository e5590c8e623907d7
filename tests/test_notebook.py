"""docs/notebook.ipynb, the example notebook: saved with its outputs, up to date with its cells
in tools/execute_notebook.py, and it runs in a fresh kernel with no Streamlit imported."""

from __future__ import annotations

import json

import nbformat

from tools.execute_notebook import NOTEBOOK, build, execute


def test_the_saved_notebook_is_its_cells_with_their_outputs():
    saved = nbformat.read(NOTEBOOK, as_version=4)
    assert [c.source for c in saved.cells] == [c.source for c in build().cells], (
        "docs/notebook.ipynb is out of date: run python tools/execute_notebook.py"
    )
    code = [c for c in saved.cells if c.cell_type == "code"]
    assert all(c.outputs for c in code), "saved without outputs"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    figures = [o for c in code for o in c.outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(figures) == 5


def test_the_notebook_runs_without_streamlit(tmp_path):
    nb = build()
    nb.cells.append(
        nbformat.v4.new_code_cell("import json, sys\nprint(json.dumps('streamlit' in sys.modules))")
    )
    execute(nb, tmp_path)  # raises CellExecutionError on the first failing cell
    figures = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("data")]
    assert sum("application/vnd.plotly.v1+json" in o["data"] for o in figures) == 5
    assert json.loads(nb.cells[-1].outputs[-1]["text"]) is False
