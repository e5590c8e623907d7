"""Move the app's code into the package (``appkit/`` -> ``fsviz_app/appkit/``, ``views/`` ->
``fsviz_app/views/``) and rewrite what refers to it, mechanically.

    python tools/move_app.py            # git mv + rewrite (run once, from the checkout's root)
    python tools/move_app.py --rewrite  # the rewrite only: for code merged in after the move

The rewrite, applied to every tracked ``*.py`` file, the Makefile and pyproject.toml:

    from appkit...          -> from fsviz_app.appkit...       (any indentation)
    import appkit           -> import fsviz_app.appkit as appkit
    "views/<page>.py"       -> "fsviz_app/views/<page>.py"    (also f"views/...", 'views/...')
    Makefile: compileall app.py appkit views fsviz -> compileall app.py fsviz
    pyproject: known-first-party ["fsviz", "appkit"] -> ["fsviz"]

then ``ruff check --fix --select I`` and ``ruff format`` on the files it changed (the imports'
order changes with their names). It is idempotent: a second run changes nothing.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PY_RULES = [
    (re.compile(r"^(\s*)from appkit(?=[. ])", re.M), r"\1from fsviz_app.appkit"),
    (re.compile(r"^(\s*)import appkit[ \t]*$", re.M), r"\1import fsviz_app.appkit as appkit"),
    (re.compile(r"""(?<!\w)(f?["'])views/"""), r"\1fsviz_app/views/"),
]
OTHER_RULES = {
    "Makefile": [
        (re.compile(r"compileall -q -j 0 app\.py appkit views fsviz"), "compileall -q -j 0 app.py fsviz")
    ],
    "pyproject.toml": [
        (re.compile(r'known-first-party = \["fsviz", "appkit"\]'), 'known-first-party = ["fsviz"]')
    ],
}
PACKAGE_DOC = '''"""The explorer: a Streamlit app on the library (``fsviz app`` starts it; in a checkout
``streamlit run app.py``). ``appkit`` holds its helpers, one module per concern; ``views`` its
pages. ``import fsviz`` never imports this package (nor Streamlit)."""
'''


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def move() -> None:
    (ROOT / "fsviz" / "app").mkdir(exist_ok=True)
    for name in ("appkit", "views"):
        if (ROOT / name).is_dir():
            git("mv", name, f"fsviz_app/{name}")
    init = ROOT / "fsviz" / "app" / "__init__.py"
    if not init.exists():
        init.write_text(PACKAGE_DOC)
        git("add", str(init.relative_to(ROOT)))


def rewrite() -> list[Path]:
    changed = []
    for rel in git("ls-files").splitlines():
        path = ROOT / rel
        if not path.is_file() or rel == "tools/move_app.py":  # its own rules and docs stay as written
            continue
        rules = PY_RULES if rel.endswith(".py") else OTHER_RULES.get(rel)
        if not rules:
            continue
        text = path.read_text()
        new = text
        for pattern, repl in rules:
            new = pattern.sub(repl, new)
        if new != text:
            path.write_text(new)
            changed.append(path)
    py = [str(p) for p in changed if p.suffix == ".py"]
    if py:
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run([*ruff, "check", "--fix", "--select", "I", "-q", *py], cwd=ROOT, check=False)
        subprocess.run([*ruff, "format", "-q", *py], cwd=ROOT, check=True)
    return changed


if __name__ == "__main__":
    if "--rewrite" not in sys.argv[1:]:
        move()
    for p in rewrite():
        print(p.relative_to(ROOT))
