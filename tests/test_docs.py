"""Every ```python block of README.md and docs/*.md runs against the installed package, so the
docs cannot drift from the code. A file's blocks run in order in one namespace (a later block may
use what an earlier one made), in a temporary folder. A block preceded by
``<!-- no-test: reason -->`` is skipped with that reason (a large data set, the user's own file,
a cluster); keep those rare."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(
    r"(?:<!--\s*no-test:\s*(?P<why>.*?)\s*-->\s*\n)?^```python\n(?P<code>.*?)^```", re.M | re.S
)


def blocks(text: str) -> list[tuple[int, str, str | None]]:
    """(line, code, no-test reason or None) of every ```python block."""
    return [
        (text.count("\n", 0, m.start("code")) + 1, m.group("code"), m.group("why"))
        for m in BLOCK.finditer(text)
    ]


def test_the_collector_finds_blocks_and_honours_no_test():
    text = (
        "a\n```python\nx = 1\n```\n<!-- no-test: big data -->\n"
        "```python\nload('big.mat')\n```\n```bash\nls\n```\n"
    )
    assert blocks(text) == [(3, "x = 1\n", None), (7, "load('big.mat')\n", "big data")]


@pytest.mark.parametrize("path", [p for p in DOCS if "```python" in p.read_text()], ids=lambda p: p.name)
def test_python_blocks_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{path.stem}"}
    found = blocks(path.read_text())
    ran = 0
    for line, code, why in found:
        if why is not None:
            assert why, f"{path.name}:{line}: a no-test mark needs its reason"
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(code, f"{path.name}:{line}", "exec"), namespace)
            except Exception as e:
                raise AssertionError(f"{path.relative_to(ROOT)}, the block at line {line}: {e!r}") from e
        ran += 1
    if not ran:
        pytest.skip(f"{path.name}: every python block is marked no-test")
