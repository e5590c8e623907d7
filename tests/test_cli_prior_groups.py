"""``fsviz select --method grm --prior-group NAMES``: prior groups by feature name or gene symbol,
resolved as the app's GRM page resolves pasted names; the report's command lines write them so,
and running those lines gives the report's GRM ranking."""

from __future__ import annotations

import csv
import gzip
import html
import re
import shlex

import pytest

import fsviz.compute as fc
from fsviz import cli
from fsviz.compute import Run
from fsviz.data import load_dataset
from fsviz.report import build_report
from tests.omics_files import geo_platform, tenx_folder
from tests.user_files import geo_series_matrix

PROBES = [f"{1000 + j}_at" for j in range(40)]


@pytest.fixture(scope="module")
def geo(tmp_path_factory):
    """A gzipped GEO series matrix and its platform table (1000_at, 1001_at share DDR1; 1002_at
    has no symbol; 1003_at is 'RFC2 /// MIR4640')."""
    d = tmp_path_factory.mktemp("geo")
    (d / "GSE1_series_matrix.txt.gz").write_bytes(gzip.compress(geo_series_matrix(n_probes=40, n_samples=16)))
    (d / "GPL570.txt.gz").write_bytes(gzip.compress(geo_platform(PROBES)))
    ds = load_dataset(d / "GSE1_series_matrix.txt.gz", feature_annotations=d / "GPL570.txt.gz")
    return d, ds


def _grm(prior) -> Run:
    return Run("grm", {"base": Run("fisher", {}), "n_top": 30, "prior_groups": prior}, 0)


def _main(argv, capsys) -> tuple[int, str]:
    code = cli.main([str(a) for a in argv])
    return code, capsys.readouterr().err


def _ranked(path) -> list[str]:
    with open(path, newline="") as fh:
        return [row["name"] for row in csv.DictReader(fh)]


def test_the_reports_cli_lines_name_the_genes_and_give_the_same_ranking(geo, tmp_path, capsys, monkeypatch):
    d, ds = geo
    grm = _grm([[0, 1, 5], [2, 3], [7, 8, 9]])  # DDR1 (two probes) + SYM5; 1002_at + RFC2; SYM7..9
    doc = build_report(ds, [grm], k=12, created="2026-01-01T00:00:00+00:00")
    text = html.unescape(re.search(r'<pre class="code" id="reproduce-cli">(.*?)</pre>', doc, re.S)[1])
    line = next(ln for ln in text.splitlines() if ln.startswith("fsviz select"))
    named = "--prior-group DDR1,SYM5 --prior-group '1002_at,RFC2 /// MIR4640' --prior-group SYM7,SYM8,SYM9"
    assert named in line  # one name for DDR1's two probes; a probe without a symbol by its ID
    assert "prior_groups=" not in line and "# prior groups by name" not in text
    argv = shlex.split(line)[1:]
    argv[1] = str(d / "GSE1_series_matrix.txt.gz")  # the file the user has (the line names it)
    monkeypatch.chdir(tmp_path)  # -o grm.csv, as the line says
    code, err = _main(argv, capsys)
    assert code == 0, err
    assert "--prior-group: 'DDR1' names 2 features (1000_at, 1001_at): all of them are in group 1" in err
    want = [str(ds.feature_names[j]) for j in grm.execute(ds).selection(12).indices]
    assert _ranked(tmp_path / "grm.csv") == want


def test_prior_group_names_prefer_symbols_and_fall_back_to_ids(geo):
    _, ds = geo
    aliases = fc.name_aliases(ds)
    names = ds.feature_names
    assert fc.prior_group_names([[0, 1], [5, 6]], names, aliases=aliases) == [["DDR1"], ["SYM5", "SYM6"]]
    # one probe of DDR1 alone: its symbol would take both, so its own ID is written
    assert fc.prior_group_names([[0, 5]], names, aliases=aliases) == [["1000_at", "SYM5"]]
    assert fc.prior_group_names([[0, 1]], ["a,b", "c"]) is None  # a comma cannot be written as a name
    for groups in ([[0, 5]], [[0, 1, 5], [2, 3]]):
        back = fc.resolve_prior_groups(
            "\n".join(", ".join(g) for g in fc.prior_group_names(groups, names, aliases=aliases)),
            names,
            aliases=aliases,
        )
        assert [list(g) for g in back.groups] == groups


def test_bad_prior_groups_are_one_error_line(geo, capsys):
    d, _ = geo
    data = [d / "GSE1_series_matrix.txt.gz", "--feature-annotations", d / "GPL570.txt.gz"]
    code, err = _main(["select", *data, "--method", "grm", "--prior-group", "DDR1,DDR2"], capsys)
    assert code == 1 and "unknown feature name(s) 'DDR2' (did you mean 'DDR1'" in err, err
    code, err = _main(["select", *data, "--method", "grm", "--prior-group", "SYM5"], capsys)
    assert code == 1 and "names one feature; a group needs at least two" in err, err
    code, err = _main(["select", *data, "--method", "fisher", "--prior-group", "SYM5,SYM6"], capsys)
    assert code == 1 and "--prior-group applies to --method grm only" in err, err
    both = ["--prior-group", "SYM5,SYM6", "--param", "prior_groups=[[1,2]]"]
    code, err = _main(["select", *data, "--method", "grm", *both], capsys)
    assert code == 1 and "give GRM's prior groups once" in err, err


def test_a_10x_symbol_made_unique_takes_all_its_genes(tmp_path, capsys):
    folder = tmp_path / "filtered_feature_bc_matrix"
    symbols = tenx_folder(folder)[3]
    ds = load_dataset(folder)
    names = [str(n) for n in ds.feature_names]
    assert names[3] == "MATR3" and names[7] == "MATR3-1"  # scanpy's var_names_make_unique
    assert ds.feature_info["symbol"].tolist() == symbols  # the symbol each was made from
    aliases = fc.name_aliases(ds)
    got = fc.resolve_prior_groups("MATR3, GENE0", names, aliases=aliases)
    assert got.groups == ((0, 3, 7),)
    assert got.notes == ("'MATR3' names 2 features (MATR3, MATR3-1): all of them are in group 1",)
    assert fc.resolve_prior_groups("MATR3-1, GENE1", names, aliases=aliases).groups == ((1, 7),)
    assert fc.prior_group_names([[0, 3, 7]], names, aliases=aliases) == [["GENE0", "MATR3"]]
    by_ids = load_dataset(folder, var_names="gene_ids")
    got = fc.resolve_prior_groups("MATR3, GENE0", by_ids.feature_names, aliases=fc.name_aliases(by_ids))
    assert got.groups == ((0, 3, 7),)  # the symbols find the genes named by their ids too
    # the CLI, on the 10x folder as Cell Ranger writes it
    argv = ["select", str(folder), "--method", "grm", "--prior-group", "MATR3,GENE0", "-k", "10"]
    code, err = _main([*argv, "-o", tmp_path / "grm.csv"], capsys)
    assert code == 0, err
    assert "--prior-group: 'MATR3' names 2 features (MATR3, MATR3-1): all of them are in group 1" in err
    run = fc.select_run(cli._parser().parse_args(argv), ds.target_kind)
    assert run.get("prior_groups") is None  # resolved only once the data is read
    run = run.replace(prior_groups=[[0, 3, 7]])
    assert _ranked(tmp_path / "grm.csv") == [names[j] for j in run.execute(ds).selection(10).indices]


def test_loom_and_maxquant_names_made_unique_are_found_by_their_symbol(tmp_path):
    import io

    from tests.omics_files import loom, maxquant

    loom(tmp_path / "cells.loom")
    cells = load_dataset(tmp_path / "cells.loom")
    got = fc.resolve_prior_groups("MATR3, GENE0", cells.feature_names, aliases=fc.name_aliases(cells))
    assert got.groups == ((0, 3, 7),) and "'MATR3' names 2 features (MATR3, MATR3-1)" in got.notes[0]
    pg, _, _ = maxquant()
    buf = io.BytesIO(pg)
    buf.name = "proteinGroups.txt"
    with pytest.warns(UserWarning, match="missing value"):
        proteins = load_dataset(buf, missing="median")
    names = [str(n) for n in proteins.feature_names]
    dup = [j for j, n in enumerate(names) if n in ("DUP", "DUP-1")]
    assert len(dup) == 2  # one gene name on two protein groups, made unique
    got = fc.resolve_prior_groups(f"DUP, {names[0]}", names, aliases=fc.name_aliases(proteins))
    assert got.groups == (tuple(sorted({0, *dup})),)
