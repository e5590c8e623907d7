"""The floors and the run layer, read from the source with ``ast`` (every import, also those
inside functions): data, stats, select, evaluate and viz never import ``fsviz.compute``, and
the modules of ``fsviz.compute`` import one another without a cycle."""

import ast
import functools
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "fsviz"
FLOORS = ("data", "stats", "select", "evaluate", "viz")


def _module(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The parsed source of ``path``, once per session (the checks below walk it many times)."""
    return ast.parse(path.read_text(), str(path))


@functools.cache
def _imports(path: Path, modules: frozenset = frozenset()) -> frozenset[str]:
    """Every module ``path`` imports (``from a import b`` counts ``a`` and ``a.b``), resolved;
    ``from a import b`` of a submodule ``a.b`` listed in ``modules`` counts ``a.b`` only."""
    here = _module(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out = set()
    tree = _tree(path)
    typing_only = {  # ``if TYPE_CHECKING:`` imports name types for annotations; nothing runs them
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                root = package.split(".")
                root = root[: len(root) - node.level + 1]
                base = ".".join(root + ([base] if base else []))
            names = {f"{base}.{a.name}" for a in node.names}
            out |= names
            if not names <= modules:
                out.add(base)
    return frozenset(out)


def _sources(sub: str) -> list[Path]:
    return sorted((PKG / sub).rglob("*.py"))


@pytest.mark.parametrize("floor", FLOORS)
def test_no_floor_imports_the_run_layer(floor):
    bad = {
        _module(p): sorted(i for i in _imports(p) if i == "fsviz.compute" or i.startswith("fsviz.compute."))
        for p in _sources(floor)
    }
    assert not {m: i for m, i in bad.items() if i}, "a library floor imports fsviz.compute"


def test_the_run_layer_has_no_import_cycle():
    mods = {_module(p): p for p in _sources("compute")}
    known = frozenset(mods)
    # the package __init__ re-exports its modules; a module importing a name from
    # "fsviz.compute" itself (rather than from a submodule) closes a cycle through it
    graph = {m: {i for i in _imports(p, known) if i in mods and i != m} for m, p in mods.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(n) :] + [n]))
            if n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def _lazy_table(path: Path) -> dict[str, str]:
    """A package's lazy re-exports (``_EXPORTS = {"name": ".module"}``) as name -> module."""
    for node in _tree(path).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_EXPORTS" for t in node.targets):
            package = _module(path)
            return {k: package + v for k, v in ast.literal_eval(node.value).items()}
    return {}


@functools.cache
def _package_graph() -> dict[str, set[str]]:
    """Module -> the fsviz modules it imports, at module level or inside functions, resolved to
    modules: ``from fsviz.stats import top_pairs`` and ``stats.top_pairs`` (with ``from fsviz
    import stats``) both reach ``fsviz.stats.pairs`` through the package's lazy ``_EXPORTS``."""
    mods = {_module(p): p for p in sorted(PKG.rglob("*.py"))}
    known = frozenset(mods)
    lazy = {m: _lazy_table(p) for m, p in mods.items() if p.name == "__init__.py"}

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            package, _, attr = name.rpartition(".")
            if attr in lazy.get(package, {}):
                return lazy[package][attr]
            name = package
        return name or None

    graph = {}
    for m, p in mods.items():
        deps = {r for i in _imports(p, known) if i.startswith("fsviz") and (r := resolve(i))}
        aliases = {}  # local name -> lazy package it is bound to
        tree = _tree(p)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if f"{node.module}.{a.name}" in lazy:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Import):
                aliases |= {a.asname: a.name for a in node.names if a.asname and a.name in lazy}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                target = lazy[aliases[node.value.id]].get(node.attr)
                if target:
                    deps.add(target)
        graph[m] = deps - {m}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_package_import_graph_has_no_cycle():
    """No module of ``fsviz`` reaches itself through imports, those inside functions included
    (``if TYPE_CHECKING:`` imports name types only and are not counted). In ``fsviz/data/`` the
    Dataset, its names and columns sit at the bottom, the format base and the formats on them,
    ``loaders`` (reading) and ``writers`` on top."""
    graph = _package_graph()
    assert {"fsviz.compute.runners.views", "fsviz.stats.pairs"} <= set(graph)
    assert "fsviz.stats.pairs" in graph["fsviz.compute.runners.views"]  # lazy names resolved
    assert "fsviz.data.writers" in graph["fsviz.data.dataset"]  # Dataset.save's function-level import
    assert not _cycles(graph), "import cycles"


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


#: ``fsviz/data/`` has its own rule for its readers (``test_no_reader_takes_another_modules_private_names``:
#: they share ``formats/source`` under public names); every other module takes no private name from
#: another family's module
PRIVATE_CHECKED = sorted(p for p in PKG.rglob("*.py") if "data" not in p.relative_to(PKG).parts[:1])


def _family(module: str) -> str:
    """A module's family: its subpackage below a floor (``fsviz.select.gdm``), else the module."""
    parts = module.split(".")
    return ".".join(parts[:3]) if len(parts) > 3 else module


def _foreign_privates(path: Path, mods: dict[str, Path]) -> list[str]:
    """``from M import _name`` (and ``M._name`` of a module alias) where ``M`` is another family's
    module and ``_name`` is not itself a module (an internal module's public names are fine)."""
    here = _module(path)
    tree = _tree(path)
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fsviz"):
            for a in node.names:
                target = f"{node.module}.{a.name}"
                if target in mods:
                    aliases[a.asname or a.name] = target
                elif (
                    a.name.startswith("_")
                    and not a.name.startswith("__")
                    and _family(node.module) != _family(here)
                ):
                    found.append(f"{here}: from {node.module} import {a.name}")
        elif isinstance(node, ast.Import):
            aliases |= {a.asname: a.name for a in node.names if a.asname and a.name in mods}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            owner = aliases[node.value.id]
            name = node.attr
            private = name.startswith("_") and not name.startswith("__")
            if private and f"{owner}.{name}" not in mods and _family(owner) != _family(here):
                found.append(f"{here}: {node.value.id}.{name} ({owner})")
    return found


def test_no_module_takes_another_familys_private_names():
    """What two families share lives in a named internal module under public names (``select/
    _score_common``, ``_graph``, ``_relevance``; ``gdm/_state``): no module reaches into another
    family's private names (GDM's ECV took the estimator's ``_scores`` and ``_window``;
    ``similarity``, ``mcfs`` and ``sparse_learning`` took ``scores``' helpers; ``streaming`` took
    ``saola``'s)."""
    mods = {_module(p): p for p in PKG.rglob("*.py")}
    bad = [hit for p in PRIVATE_CHECKED for hit in _foreign_privates(p, mods)]
    assert not bad, bad


def test_one_meaning_per_name_in_select():
    """A name defined at module level in two select/ modules means two things: ``encode_labels``
    (data's label normaliser vs select's class codes) and ``_fista`` (sparse learning's generic
    FISTA vs the tree lasso's) each had two meanings."""
    seen: dict[str, list[str]] = {}
    for p in sorted((PKG / "select").rglob("*.py")):
        for node in _tree(p).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("__"):
                seen.setdefault(node.name, []).append(_module(p))
    twice = {n: m for n, m in seen.items() if len(m) > 1}
    assert not twice, twice
    data = {n.name for n in ast.parse((PKG / "data" / "names.py").read_text()).body if hasattr(n, "name")}
    assert "encode_labels" in data and "encode_labels" not in seen


def test_the_checker_sees_function_level_imports(tmp_path):
    src = tmp_path / "fsviz" / "viz" / "x.py"
    src.parent.mkdir(parents=True)
    src.write_text("def f():\n    from fsviz.compute import Run\n    from . import groups\n")
    global PKG
    saved, PKG = PKG, tmp_path / "fsviz"
    try:
        assert {"fsviz.compute", "fsviz.compute.Run", "fsviz.viz.groups"} <= _imports(src)
    finally:
        PKG = saved


def test_gdm_is_one_subpackage_with_its_kernels():
    """GDM's estimator, CRM walk, master problem, ECV, completion, column source and kernels
    live in ``fsviz/select/gdm/``, not spread over the flat ``select/`` folder."""
    select = PKG / "select"
    pkg = select / "gdm"
    assert {p.stem for p in pkg.glob("*.py")} >= {
        "__init__",
        "_estimator",
        "_walk",
        "_master",
        "_ecv",
        "_complete",
        "_scan",
        "_column_source",
        "_column_source_kernels",
        "_kernels",
    }
    stray = [p.name for p in select.glob("*.py") if "gdm" in p.stem or p.stem in ("_mkl", "_column_source")]
    assert not stray, f"GDM modules outside fsviz/select/gdm/: {stray}"
    from fsviz.select import GDM
    from fsviz.select.gdm import GDM as GDM2

    assert GDM is GDM2
    # the floors rule holds inside the subpackage too: nothing in it imports the run layer
    assert not any("fsviz.compute" in m for p in pkg.glob("*.py") for m in _imports(p))


def test_each_file_format_has_its_reader_and_writer_in_one_module():
    """``fsviz/data/formats/``: one module per format; a format fsviz writes is written by
    the module that reads it (CSV/TSV text: ``csv_writer``, ``delimited``'s other half) and is a
    registered ``Writer``; the entry points (loaders.py, writers.py) only sniff and dispatch."""
    import ast

    fmt_dir = PKG / "data" / "formats"
    defs = {
        p.stem: {n.name for n in ast.parse(p.read_text()).body if isinstance(n, ast.FunctionDef)}
        for p in fmt_dir.glob("*.py")
    }
    for stem in ("delimited", "parquet", "matlab", "svmlight", "npz", "anndata", "geo"):
        assert any(f.startswith(("_load_", "load_")) for f in defs[stem]), stem
    from fsviz.data.formats import readers

    for reader in readers():  # every registered reader reads in a format module of its own
        assert reader.read.__module__.startswith("fsviz.data.formats."), reader.name
    # a workbook's sheet becomes a table in spreadsheet.py; the table becomes data as a CSV's does
    assert "read_sheet" in defs["spreadsheet"] and "_load_sheet" in defs["delimited"]
    for stem in ("parquet", "svmlight", "npz"):
        assert f"_write_{stem}" in defs[stem] and {f"_load_{stem}", f"load_{stem}"} & defs[stem]
    from fsviz.data.formats import writers

    for writer in writers():  # registered from the formats (text: csv_writer, delimited's other half)
        module = writer.write.__module__
        assert module.startswith("fsviz.data.formats.") and "registry" not in module, writer.name
    loaders = PKG / "data" / "loaders.py"
    own = {n.name for n in ast.parse(loaders.read_text()).body if isinstance(n, ast.FunctionDef)}
    assert not {f for f in own if f.startswith(("_load_", "_write_", "write_"))} - {"_load_mapped_dir"}
    writers_py = (PKG / "data" / "writers.py").read_text()
    assert "save_dataset" in {getattr(n, "name", "") for n in ast.parse(writers_py).body}
    assert "save_dataset" not in own and "fsviz.data.formats." in writers_py
    # the writers' door names no format: it imports the registry only
    assert not {m for m in _imports(PKG / "data" / "writers.py") if m.startswith("fsviz.data.formats.")} - {
        "fsviz.data.formats.writer_registry",
        "fsviz.data.formats.writer_registry.get_writer",
        "fsviz.data.formats.writer_registry.save",
    }


def test_compute_tables_hold_page_tables_only():
    """Export formats, text parsing and wording left ``compute/tables.py``: each has a module
    named for what it holds, and the public names stay on ``fsviz.compute``."""
    import fsviz.compute as fc
    from fsviz.compute import exports, parsing, tables, wording

    assert {"selection_csv", "read_selection_csv", "reduced_csv", "provenance_json"} <= set(vars(exports))
    assert {"parse_prior_groups", "gdm_run"} <= set(vars(parsing))
    assert {"plural", "HELP", "evaluation_note"} <= set(vars(wording))
    for name in ("selection_csv", "parse_prior_groups", "gdm_run", "plural"):
        assert name not in vars(tables) or vars(tables)[name] is getattr(fc, name)
        assert callable(getattr(fc, name))


#: what each floor may import besides the private helpers (docs/architecture.md, "The floors")
MAY_IMPORT = {
    "data": set(),
    "stats": {"data"},
    "select": {"data", "stats"},
    "evaluate": {"data", "stats", "select"},
    "viz": {"data", "stats"},
    "compute": {"data", "stats", "select", "evaluate", "viz"},
}
PRIVATE_HELPERS = {"_params", "_lazy", "_dask", "_targets", "__version__"}


@pytest.mark.parametrize("floor", sorted(MAY_IMPORT))
def test_each_floor_imports_only_the_floors_below(floor):
    seen = {
        _module(p): sorted(
            {i.split(".")[1] for i in _imports(p) if i.startswith("fsviz.")} - {floor} - PRIVATE_HELPERS
        )
        for p in _sources(floor)
    }
    bad = {m: sorted(set(i) - MAY_IMPORT[floor]) for m, i in seen.items() if set(i) - MAY_IMPORT[floor]}
    assert not bad, f"{floor} imports above its floor: {bad}"


def test_the_private_helpers_import_nothing_of_fsviz():
    for name in PRIVATE_HELPERS - {"__version__"}:
        assert not {i for i in _imports(PKG / f"{name}.py") if i.startswith("fsviz")}, name


# ---------------------------------------------------------------------------- the app's layout
ROOT = PKG.parent
#: the app: its own package beside the library (the wheel carries both; the library never
#: imports Streamlit), fsviz_app/: main.py (the script Streamlit runs), launch.py (``fsviz app``),
#: the appkit helpers and the views
APP = ROOT / "fsviz_app"
MAIN = APP / "main.py"
#: the app's code: the checkout's app.py (a thin entry) and everything in fsviz_app/
APP_CODE = [*sorted(ROOT.glob("*.py")), *sorted(APP.rglob("*.py"))]
#: the views' URLs (/groups, /grm, ...): links and bookmarks use them, a move must keep them
VIEW_URLS = {
    "groups",
    "image_masks",
    "correlation_sparsity",
    "grm",
    "online",
    "projection",
    "stability",
    "compare",
    "benchmark",
}


def _st_pages() -> list[ast.Call]:
    tree = ast.parse(MAIN.read_text())
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "Page"
    ]


def test_no_pages_folder_streamlit_would_auto_discover():
    """A ``pages/`` folder next to the main script (app.py in a checkout, fsviz_app/main.py when
    installed) switches on Streamlit's legacy multipage mode: a deep link then runs the view
    alone, without the sidebar. The views live in ``fsviz_app/views/``; the checkout's app.py only
    runs the installed module, so the app is the same from either door."""
    assert not (ROOT / "pages").exists() and not (APP / "pages").exists(), "the views belong in views/"
    assert (APP / "views").is_dir() and (APP / "appkit" / "__init__.py").is_file()
    entry = ast.parse((ROOT / "app.py").read_text())
    calls = [ast.unparse(n) for n in ast.walk(entry) if isinstance(n, ast.Call)]
    assert calls == ["runpy.run_module('fsviz_app.main', run_name='__main__')"], calls


def test_app_code_sets_no_private_streamlit_flag():
    """No view, helper or app.py reaches into Streamlit's private pages manager (the old
    ``PagesManager.uses_pages_directory`` switch): st.navigation alone runs the views."""
    bad = []
    for p in APP_CODE:
        if "uses_pages_directory" in p.read_text():
            bad.append(f"{p.relative_to(ROOT)}: uses_pages_directory")
        bad += [f"{p.relative_to(ROOT)}: {i}" for i in _imports(p) if "pages_manager" in i]
    assert not bad


def test_every_view_in_the_navigation_exists_and_keeps_its_url():
    """Every file main.py's ``st.Page`` calls name (``VIEWS / "name.py"``: an absolute path, the
    same from a checkout and an installed package) is in ``views/`` and exists, every view file is
    listed, and each spells out its URL path: renaming a file never moves a URL."""
    files, urls = [], set()
    for call in _st_pages():
        target = call.args[0] if call.args else None
        if isinstance(target, ast.BinOp) and ast.unparse(target.left) == "VIEWS":
            files.append(target.right.value)
            kw = {k.arg: k.value for k in call.keywords}
            assert isinstance(kw.get("url_path"), ast.Constant), (
                f"{target.right.value}: url_path not spelled out"
            )
            urls.add(kw["url_path"].value)
    assert files, "no view in the navigation"
    assert not [f for f in files if not (APP / "views" / f).is_file()], "st.Page names a missing file"
    assert urls == VIEW_URLS
    listed = {p.name for p in (APP / "views").glob("*.py")}
    assert listed == set(files), "a file in views/ that the navigation does not list (or the reverse)"


# ---------------------------------------------------------------------------- declared once
#: the run layer and its callers read the declarations (the library floors own their signatures,
#: which the declarations read in turn): no default of a declared parameter is restated here
CALLERS = [
    *sorted((PKG / "compute").rglob("*.py")),
    PKG / "cli.py",
    PKG / "report.py",
    PKG / "report_reproduce.py",
    *APP_CODE,
]


def _literal(node: ast.AST):
    """The value of a literal (numbers, strings, tuples and lists of them, ``range(...)`` of
    numbers); ``...`` when it is not one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        args = [_literal(a) for a in node.args]
        return tuple(range(*args)) if all(isinstance(a, int) for a in args) else ...
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ...
    return tuple(value) if isinstance(value, list) else value


def _declared_defaults() -> dict[str, list]:
    """``{name: [default, ...]}`` of every declared parameter of every method whose default is a
    number, a string or a tuple (None and booleans say too little to be told apart)."""
    import fsviz.compute as fc

    out: dict[str, list] = {}
    for spec in fc.METHODS.values():
        for name, p in spec.params.items():
            d = p.default
            if d is None or isinstance(d, bool) or not isinstance(d, (int, float, str, tuple)):
                continue
            if isinstance(d, tuple) and (not d or not all(isinstance(v, (int, float, str)) for v in d)):
                continue
            out.setdefault(name, [])
            if d not in out[name]:
                out[name].append(d)
    return out


#: calls that are declarations themselves
DECLARING = {"Param", "ParamUI"}
#: keywords of the widget and plotting APIs that share a name with a declared parameter
#: (SVM-RFE's ``step``): never a run parameter in a call
WIDGET_WORDS = {"step"}
#: Streamlit widgets: the position of their starting value (``st.slider(label, lo, hi, value)``)
WIDGET_VALUE = {"slider": 3, "number_input": 3, "select_slider": 2, "selectbox": 2, "radio": 2}


def _restated(tree: ast.AST, declared: dict[str, list]) -> list[str]:
    """Where a declared default is written again: ``name=<default>`` (a call's keyword or a
    function's default), ``{"name": <default>}``, ``.get("name", <default>)``, a widget keyed
    ``*_name`` given the default, an option ``--name`` with ``default=<default>``."""

    def hit(name: str | None, node: ast.AST | None) -> bool:
        if name not in declared or node is None:
            return False
        value = _literal(node)
        return value is not ... and not isinstance(value, bool) and value in declared[name]

    found = []
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in DECLARING:
                continue
            kw = {k.arg: k.value for k in node.keywords}
            found += [
                f"{where}: {k}={ast.unparse(v)}" for k, v in kw.items() if k not in WIDGET_WORDS and hit(k, v)
            ]
            if called == "get" and len(node.args) == 2:
                name = _literal(node.args[0])
                if isinstance(name, str) and hit(name, node.args[1]):
                    found.append(f"{where}: .get({name!r}, {ast.unparse(node.args[1])})")
            key = _literal(kw["key"]) if "key" in kw else None
            if isinstance(key, str) and "_" in key and called in WIDGET_VALUE:
                name = key.rsplit("_", 1)[1]
                at = WIDGET_VALUE[called]
                for arg in [node.args[at] if len(node.args) > at else None, kw.get("value")]:
                    if hit(name, arg):
                        found.append(f"{where}: widget {key!r} starts at {ast.unparse(arg)}")
            if called == "add_argument":
                for flag in (_literal(a) for a in node.args):
                    if isinstance(flag, str) and flag.startswith("--"):
                        if hit(flag[2:].replace("-", "_"), kw.get("default")):
                            found.append(f"{where}: {flag} default={ast.unparse(kw['default'])}")
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                name = _literal(k) if k is not None else None
                if isinstance(name, str) and hit(name, v):
                    found.append(f"{where}: {{{name!r}: {ast.unparse(v)}}}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            pos = [*args.posonlyargs, *args.args]
            pairs = list(zip(pos[len(pos) - len(args.defaults) :], args.defaults, strict=True))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
            found += [f"{where}: def ...({a.arg}={ast.unparse(d)})" for a, d in pairs if hit(a.arg, d)]
    return found


def test_no_declared_default_is_restated_outside_its_declaration():
    """Declared once: a view's ``bins``, ``max_features``, ``n_boot``, ``k``, ``cv``, ``ks``,
    ``n_repeats_kmeans`` (and every selector's parameters) have their default in one place;
    the CLI, the report, the app's widgets and the runners read it from the declaration."""
    declared = _declared_defaults()
    assert {"bins", "max_features", "n_boot", "k", "cv", "ks", "n_repeats_kmeans", "tau"} <= set(declared)
    bad = {str(p.relative_to(ROOT)): hits for p in CALLERS if (hits := _restated(_tree(p), declared))}
    assert not bad, f"declared defaults written again: {bad}"


def test_the_restatement_checker_sees_each_form():
    declared = {"bins": [20], "k": [20], "ks": [tuple(range(5, 305, 5))], "tau": [0.3]}
    src = """
def page(ds, k=20):
    run.get("bins", 20)
    Run("histogram", {"bins": 20})
    f(tau=0.3)
    st.slider("top-k", 2, 200, 20, key="cmp_k")
    q.add_argument("--bins", type=int, default=20)
    g(ks=range(5, 305, 5))
    ok(bins=10, tau=0.2, width=20)
"""
    hits = _restated(ast.parse(src), declared)
    assert len(hits) == 7, hits


# ---------------------------------------------------------------------------- room sizes
#: the longest a source file may be: past it, a module holds more than one room
MAX_LINES = 800


def test_no_source_file_is_over_800_lines():
    files = [
        *PKG.rglob("*.py"),
        *APP_CODE,
        *(ROOT / "benchmarks").rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
    ]
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_no_reader_takes_another_modules_private_names():
    """The readers (``fsviz/data/formats/``, and ``frames.py``, which turns their tables into
    data) share what they share under public names (:mod:`fsviz.data.formats.source`: ``Source``,
    ``parse_error``, ``readonly``, ...): a format added outside fsviz registers itself with the
    same names."""
    data = PKG / "data"
    readers = [*(data / "formats").glob("*.py"), data / "frames.py"]
    mods = {_module(p): p for p in PKG.rglob("*.py")}
    bad = []
    for p in readers:
        here = _module(p)
        for node in ast.walk(_tree(p)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fsviz"):
                bad += [
                    f"{here}: from {node.module} import {a.name}"
                    for a in node.names
                    if a.name.startswith("_")
                    and not a.name.startswith("__")
                    and node.module != here
                    and f"{node.module}.{a.name}" not in mods
                ]
    assert not bad, bad


#: families whose modules may share private names: one estimator split into private modules
#: (docs/architecture.md, "No module takes another family's private names"), with the reason
PRIVATE_SHARING = {
    "fsviz.select.gdm": "GDM's private modules (fit state, scans, CRM walk, ECV) are one estimator",
}


#: private names still taken across modules, each with the reason it stays
PRIVATE_ALLOWED: dict[str, str] = {}


def _private_imports(here: str, tree: ast.Module, mods) -> list[str]:
    """``from M import _name`` and ``M._name`` (``M`` a module alias) in module ``here``, where
    ``M`` is another module of fsviz and ``_name`` is not itself a module (a private module's public
    names are its interface)."""
    package = here.rpartition(".")[0]
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                root = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(root + ([base] if base else []))
            if not base.startswith("fsviz"):
                continue
            for a in node.names:
                if f"{base}.{a.name}" in mods:
                    aliases[a.asname or a.name] = f"{base}.{a.name}"
                elif a.name.startswith("_") and not a.name.startswith("__") and base != here:
                    found.append((base, f"{here}: from {base} import {a.name}"))
        elif isinstance(node, ast.Import):
            aliases |= {a.asname or a.name: a.name for a in node.names if a.name in mods}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            owner, name = aliases[node.value.id], node.attr
            if name.startswith("_") and not name.startswith("__") and f"{owner}.{name}" not in mods:
                found.append((owner, f"{here}: {node.value.id}.{name} ({owner})"))
    shared = [f for f in PRIVATE_SHARING if _in(here, f)]
    return [hit for owner, hit in found if owner != here and not any(_in(owner, f) for f in shared)]


def test_no_module_takes_another_modules_private_names():
    """Across all of ``fsviz/``: what two modules share has a public name in one of them (or in a
    named shared module, ``formats/source``, ``formats/hdf5``, ``select/_score_common``); only the
    families of ``PRIVATE_SHARING`` share privates among their own modules, and ``PRIVATE_ALLOWED``
    lists what stays for now, each for the reason given."""
    mods = {_module(p): p for p in PKG.rglob("*.py")}
    hits = [hit for m, p in sorted(mods.items()) for hit in _private_imports(m, _tree(p), mods)]
    bad = [hit for hit in hits if hit not in PRIVATE_ALLOWED]
    assert not bad, bad


def test_the_private_name_checker_sees_each_form():
    mods = {"fsviz.a", "fsviz.b", "fsviz.pkg", "fsviz.pkg._mod", "fsviz.select.gdm._x", "fsviz.select.gdm._y"}
    src = "from fsviz.b import _f, g\nfrom fsviz import b as bee\nfrom . import b\nfrom .pkg import _mod\n"
    src += "def h():\n    from .b import _late\n    return bee._h, b._k, _mod.public\n"
    hits = _private_imports("fsviz.a", ast.parse(src), mods)
    assert hits == [
        "fsviz.a: from fsviz.b import _f",
        "fsviz.a: from fsviz.b import _late",
        "fsviz.a: bee._h (fsviz.b)",
        "fsviz.a: b._k (fsviz.b)",
    ]
    inside = "from fsviz.select.gdm._y import _shared\nfrom fsviz.b import _f\n"
    assert _private_imports("fsviz.select.gdm._x", ast.parse(inside), mods) == [
        "fsviz.select.gdm._x: from fsviz.b import _f"
    ]


#: the app's rooms: Streamlit helpers (one module per concern) and the pages that use them
APP_PACKAGES = ("fsviz_app.appkit", "fsviz_app.views")


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _app_graph() -> dict[str, set[str]]:
    """Module -> the app modules it imports (module level or inside functions), for fsviz_app/:
    ``from fsviz_app.appkit import jobs`` counts ``fsviz_app.appkit.jobs``, a name re-exported by
    the package (``from fsviz_app.appkit import busy``) counts the package."""
    mods = {_module(p): p for p in sorted(APP.rglob("*.py"))}
    known = frozenset(mods)
    return {
        m: {i for i in _imports(p, known) if i in mods and i != m and not m.startswith(i + ".")}
        for m, p in mods.items()
    }


def test_the_app_has_no_import_cycle():
    """appkit/ and views/ import one another without a cycle, the imports inside functions
    included: ``state`` reached ``intake`` (the upload stores) and ``widgets`` reached ``results``
    (GRM's form defaults) from inside functions to dodge one. The stores now live in ``state``
    with the other shared stores, GRM's form defaults in ``grm_panels``."""
    graph = _app_graph()
    k = "fsviz_app.appkit"
    assert {f"{k}.state", f"{k}.intake", "fsviz_app.views.grm", "fsviz_app.main"} <= set(graph)
    assert f"{k}.state" in graph[f"{k}.intake"]
    assert not _cycles(graph), "import cycles in the app"


def test_no_app_module_imports_another_inside_a_function():
    """An import placed inside a function to break a circle hides the circle (STYLE.md): appkit's
    modules import one another at module level only."""
    found = []
    for p in sorted((APP / "appkit").rglob("*.py")):
        for fn in ast.walk(_tree(p)):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                for node in ast.walk(fn):
                    mod = getattr(node, "module", None) if isinstance(node, ast.ImportFrom) else None
                    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [mod or ""]
                    found += [f"{_module(p)}:{node.lineno} {n}" for n in names if _in(n, "fsviz_app")]
    assert not found, found


def test_the_library_never_imports_the_app_and_pages_import_no_page():
    """The library is the floor the app stands on: no fsviz module imports the app or Streamlit
    (the CLI's ``fsviz app`` only: its launcher starts Streamlit as a child process and imports
    neither Streamlit nor appkit); appkit never imports a page; a page imports no other page."""
    up = [
        f"{_module(p)} -> {i}"
        for p in sorted(PKG.rglob("*.py"))
        if not _in(_module(p), "fsviz_app")
        for i in _imports(p)
        if _in(i, "fsviz_app") and not (_module(p) == "fsviz.cli" and _in(i, "fsviz_app.launch"))
    ]
    assert not up, up
    streamlit = [
        f"{_module(p)}" for p in sorted(PKG.rglob("*.py")) if any(_in(i, "streamlit") for i in _imports(p))
    ]
    assert not streamlit, f"the library imports Streamlit (it belongs in fsviz_app/): {streamlit}"
    launch = _imports(APP / "launch.py")
    assert not {i for i in launch if _in(i, "streamlit") or _in(i, "fsviz_app.appkit")}, launch
    graph = _app_graph()
    views = "fsviz_app.views"
    assert not {m: d for m, d in graph.items() if _in(m, APP_PACKAGES[0]) and any(_in(x, views) for x in d)}
    assert not {m: d for m, d in graph.items() if _in(m, views) and any(_in(x, views) for x in d)}
