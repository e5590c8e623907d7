"""Pasted prior groups by gene symbol or display name as well as by feature ID
(:func:`fsviz.compute.resolve_prior_groups`), against a plain reference."""

from __future__ import annotations

import numpy as np
import pytest

import fsviz.compute as fc

IDS = ["1000_at", "1001_at", "1002_at", "1003_at", "1004_at", "1005_s_at"]
SYMBOLS = ["DDR1", "DDR1", "", "RFC2 /// MIR4640", "TP53", "MDM2"]


def _reference(text, ids, symbols):
    """Each name: its ID, else every feature with that symbol (a plain double loop)."""
    out = []
    for line in text.splitlines():
        idx = set()
        for name in (n.strip() for n in line.split(",")):
            if not name:
                continue
            if name in ids:
                idx.add(ids.index(name))
            else:
                idx |= {j for j, s in enumerate(symbols) if s == name}
        if idx:
            out.append(tuple(sorted(idx)))
    return tuple(out)


def test_symbols_ids_and_labels_resolve_and_a_shared_symbol_takes_all_its_probes():
    text = "DDR1, TP53\n1003_at, MDM2 (1005_s_at), 1002_at"
    got = fc.resolve_prior_groups(text, IDS, aliases=[SYMBOLS])
    assert (
        got.groups
        == ((0, 1, 4), (2, 3, 5))
        == _reference("DDR1, TP53\n1003_at, 1005_s_at, 1002_at", IDS, SYMBOLS)
    )
    assert got.notes == ("'DDR1' names 2 features (1000_at, 1001_at): all of them are in group 1",)
    # a symbol with "///" is one name; the ID wins over a symbol equal to another feature's ID
    assert fc.resolve_prior_groups("RFC2 /// MIR4640, TP53", IDS, aliases=[SYMBOLS]).groups == ((3, 4),)
    ids, symbols = ["1000_at", "y", "z"], ["w", "1000_at", "x"]
    assert fc.resolve_prior_groups("1000_at, x", ids, aliases=[symbols]).groups == ((0, 2),)


def test_unknown_names_list_near_matches_among_ids_and_symbols():
    with pytest.raises(ValueError, match=r"'TP35' \(did you mean 'TP53'\?\).*a display name \(gene symbol\)"):
        fc.resolve_prior_groups("DDR1, TP35", IDS, aliases=[SYMBOLS])
    with pytest.raises(
        ValueError, match=r"'ddr1' \(did you mean 'DDR1'\?\)"
    ):  # case is not folded, but hinted
        fc.resolve_prior_groups("ddr1, TP53", IDS, aliases=[SYMBOLS])
    with pytest.raises(ValueError, match=r"feature '1000_at' is in line 1 and line 2"):
        fc.resolve_prior_groups("1000_at, TP53\nDDR1, MDM2", IDS, aliases=[SYMBOLS])
    with pytest.raises(ValueError, match=r"line 1 names one feature"):
        fc.resolve_prior_groups("TP53, 1004_at", IDS, aliases=[SYMBOLS])
    with pytest.raises(ValueError, match=r"alias column 0 has 2 names for 6 features"):
        fc.resolve_prior_groups("TP53, MDM2", IDS, aliases=[["a", "b"]])


@pytest.mark.parametrize("seed", range(5))
def test_random_pastes_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    m = 60
    ids = [f"p{j}" for j in range(m)]
    symbols = [f"G{v}" if v >= 0 else "" for v in rng.integers(-3, 25, m)]  # repeats and blanks
    pool = rng.permutation(sorted(set(ids) | {s for s in symbols if s}))
    lines, used = [], set()
    for chunk in np.array_split(pool[:24], 6):
        members = {
            j
            for n in chunk
            for j in ([ids.index(n)] if n in ids else [k for k, s in enumerate(symbols) if s == n])
        }
        if members & used or len(members) < 2:
            continue
        used |= members
        lines.append(", ".join(chunk))
    text = "\n".join(lines)
    assert fc.resolve_prior_groups(text, ids, aliases=[symbols]).groups == _reference(text, ids, symbols)
    assert fc.parse_prior_groups(
        "\n".join(", ".join(ids[j] for j in g) for g in _reference(text, ids, symbols)), ids
    ) == [list(g) for g in _reference(text, ids, symbols)]


def test_name_aliases_give_the_symbols_of_shared_probes_and_10x_gene_ids():
    import gzip
    import io
    import warnings

    from fsviz.data import load_dataset
    from fsviz.data.formats.tenx import pack_triplet
    from tests.omics_files import geo_platform, tenx_triplet
    from tests.user_files import geo_series_matrix

    probes = [f"{1000 + j}_at" for j in range(40)]
    matrix, platform = (
        io.BytesIO(gzip.compress(geo_series_matrix(n_probes=40, n_samples=12))),
        io.BytesIO(gzip.compress(geo_platform(probes))),
    )
    matrix.name, platform.name = "GSE1_series_matrix.txt.gz", "GPL570.txt.gz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(matrix, feature_annotations=platform)
    (symbols,) = fc.name_aliases(ds)
    assert list(ds.feature_info["display_name"][:4]) == [
        "DDR1 (1000_at)",
        "DDR1 (1001_at)",
        "1002_at",
        "RFC2 /// MIR4640",
    ]
    assert list(symbols[:5]) == ["DDR1", "DDR1", "1002_at", "RFC2 /// MIR4640", "SYM4"]
    assert fc.resolve_prior_groups("DDR1, SYM4", ds.feature_names, aliases=[symbols]).groups == ((0, 1, 4),)
    files, (_, _, ids, _, _) = tenx_triplet()
    tenx = load_dataset(io.BytesIO(pack_triplet(files)))
    symbols, made_from, gene_ids = fc.name_aliases(tenx)  # the symbols before MATR3-1 was made
    assert list(gene_ids) == ids and made_from[7] == "MATR3" and symbols[7] == "MATR3-1"
    got = fc.resolve_prior_groups(
        f"{ids[0]}, {ids[1]}, GENE2", tenx.feature_names, aliases=[symbols, gene_ids]
    )
    assert got.groups == ((0, 1, 2),)
    assert fc.name_aliases(load_dataset(io.BytesIO(b"a,b,label\n1,2,x\n3,4,y\n"))) == []
