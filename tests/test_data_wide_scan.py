"""The wide text reader's byte scan (numba) reads what the row-by-row Python reader reads, bit for bit.

The reference is the Python reader itself (``wide._rows_in_python``, taken when the scan returns
None) and, for single cells, ``float()``. Small tables go through the wide path by lowering
``_WIDE_COLUMNS``; the scan's chunk size is lowered too, so records cross chunk boundaries.
"""

import io
import struct
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsviz.data import DataWarning, load_dataset
from fsviz.data.formats import _wide_kernels, delimited, wide, wide_scan
from fsviz.data.formats.source import NA_LOWER, Source


@pytest.fixture(autouse=True)
def _small_wide(monkeypatch):
    monkeypatch.setattr(delimited, "_WIDE_COLUMNS", 3)


def _both(monkeypatch, data: bytes, name: str = "t.csv", chunk: int | None = None, **options):
    """``(scanned, by_rows, used_scan)``: the dataset read with the scan and with the Python reader."""
    calls = []
    real = wide_scan.scan_wide

    def spy(*args, **kwargs):
        calls.append(real(*args, **kwargs))
        return calls[-1]

    def load():  # the dataset, or the words of the error
        buf = io.BytesIO(data)
        buf.name = name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            try:
                return load_dataset(buf, **options)
            except ValueError as e:
                return str(e)

    if chunk is not None:
        monkeypatch.setattr(wide_scan, "_CHUNK", chunk)
    monkeypatch.setattr(wide, "scan_wide", spy)
    scanned = load()
    monkeypatch.setattr(wide, "scan_wide", lambda *a, **k: None)
    by_rows = load()
    monkeypatch.setattr(wide, "scan_wide", real)
    return scanned, by_rows, bool(calls) and calls[0] is not None


def _same(a, b) -> None:
    assert type(a) is type(b), (a, b)
    if isinstance(a, str):  # the same error
        assert a == b
        return
    assert np.asarray(a.X).tobytes() == np.asarray(b.X).tobytes()
    assert a.X.shape == b.X.shape and list(a.feature_names) == list(b.feature_names)
    assert (a.y is None) == (b.y is None)
    if a.y is not None:
        assert a.y.tolist() == b.y.tolist()
    assert (a.sample_names is None) == (b.sample_names is None)
    if a.sample_names is not None:
        assert list(a.sample_names) == list(b.sample_names)


def _bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


# --- single cells: float()'s value, bit for bit, or handed to Python ---------------------------


def _cells(tokens: list[str], comma: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Each token through ``parse_number``: (kind, bits)."""
    enc = [t.encode() for t in tokens]
    buf = np.frombuffer(b"".join(enc) or b" ", dtype=np.uint8)
    ends = np.cumsum([len(e) for e in enc])
    X = np.zeros((len(enc), 1), dtype=np.uint64)
    kinds = [
        _wide_kernels.parse_number(
            buf, int(e - len(t)), int(e), comma, wide_scan._pow5(), X, X.view(np.float64), i, 0
        )
        for i, (t, e) in enumerate(zip(enc, ends, strict=True))
    ]
    return np.array(kinds), X[:, 0]


def _check_cells(tokens: list[str]) -> None:
    kinds, bits = _cells(tokens)
    for t, k, b in zip(tokens, kinds, bits, strict=True):
        try:
            ref = _bits(float(t))
        except ValueError:
            ref = None
        if k == 1:
            assert ref == int(b), (t, hex(int(b)), ref)
        elif k == 0:  # refused by the ASCII grammar: float() refuses it too, or it is Python's alone
            assert ref is None or "_" in t or not t.isascii(), t


_SPELLINGS = [repr, "{:.17g}".format, "{:.18e}".format, "{:e}".format, "{:.4f}".format, "{:g}".format,
              "{:.25g}".format, "{:.3E}".format, lambda v: f"+{v!r}", lambda v: f" {v!r}\t"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(allow_nan=True, allow_infinity=True) | st.floats(min_value=-1e-300, max_value=1e-300),
            st.sampled_from(range(len(_SPELLINGS))),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_random_float_spellings_parse_to_float_s_bits(cells):
    _check_cells([_SPELLINGS[k](v) for v, k in cells])


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="0123456789", min_size=1, max_size=30),
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=-400, max_value=400),
    st.sampled_from(["", "-", "+"]),
    st.sampled_from(["e", "E"]),
)
def test_random_decimal_strings_parse_to_float_s_bits(digits, point, exp, sign, e):
    point = min(point, len(digits))
    body = digits[:point] + "." + digits[point:]
    _check_cells([sign + body + e + str(exp), sign + digits, sign + body, sign + "." + digits, body + "."])


def test_hard_cases_parse_to_float_s_bits():
    halfway = []
    for x in (1.0, 0.1, 5e-324, 2.2250738585072014e-308, 1.7976931348623155e308, 9007199254740993.0, 123.456):
        y = np.nextafter(x, np.inf)
        from decimal import Decimal, getcontext

        getcontext().prec = 1200
        mid = (Decimal(x) + Decimal(y)) / 2
        halfway += [format(mid, "e"), format(mid, ".18e"), format(mid, ".40e")]
    _check_cells(
        ["1e-5", ".5", "-0", "-0.0e10", "1E+03", "inf", "-Infinity", "+nan", "-nan", "nan", " 3.2 ", "1.",
         "9007199254740993", "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400", "1e400",
         "1e99999999999", "0" * 40 + "1", "0." + "0" * 30 + "123456789012345678901234", "1_000", "0x10",
         "1e", "e5", ".", "-", "", " ", "1d5", "1.5.2", "١٢", "\x0b7\x0c", "12345678901234567890123",
         *halfway]
    )  # fmt: skip


def test_the_kernel_writes_float_s_bits_for_nan_signs_and_negative_zero():
    kinds, bits = _cells(["-nan", "nan", "-0", "-inf"])
    assert kinds.tolist() == [1, 1, 1, 1]
    assert [int(b) for b in bits] == [_bits(float(t)) for t in ("-nan", "nan", "-0", "-inf")]


# --- whole files: the scan and the row reader give the same dataset -----------------------------


def _table(rows: list[list[str]], sep: str = ",", header=None, eol: str = "\n") -> bytes:
    m = len(rows[0])
    header = header or [f"c{j}" for j in range(m)]
    return (eol.join(sep.join(r) for r in [header, *rows]) + eol).encode()


_TOKENS = ["0.1", "1e-300", "-0", "", "NA", "nan", "-nan", "NaN", "N/A", "null", "?", " NA ", "inf", "7",
           '"2.5"', '" 3 "', '"NA"', "1_000", "+.5", "-1.5E+3", "12345678901234567890.5", " 4 "]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_tables_read_as_the_row_reader_reads_them(data):
    n = data.draw(st.integers(min_value=1, max_value=12))
    m = data.draw(st.integers(min_value=4, max_value=9))
    rows = [[data.draw(st.sampled_from(_TOKENS)) for _ in range(m)] for _ in range(n)]
    ids = [f"S{i}" for i in range(n)]
    body = _table([[ids[i], *r] for i, r in enumerate(rows)], header=["sample", *[f"c{j}" for j in range(m)]])
    chunk = data.draw(st.sampled_from([None, 7, 64]))
    mp = pytest.MonkeyPatch()
    try:
        a, b, used = _both(mp, body, chunk=chunk, missing="median", label=None)
    finally:
        mp.undo()
    assert used
    _same(a, b)


@pytest.mark.parametrize(
    ("case", "body", "scanned"),
    [
        ("BOM, CRLF", b"\xef\xbb\xbfsample,a,b,c,d\r\nS1,1,2,3,4\r\nS2,5,,7,8\r\n", True),
        ("bare CR", b"sample,a,b,c,d\rS1,1,2,3,4\rS2,5,6,7,8", True),
        ("blank lines", b"sample,a,b,c,d\n\nS1,1,2,3,4\n   \n\r\nS2,5,6,7,8\n\n", True),
        ("no final line break", b"sample,a,b,c,d\nS1,1,2,3,4\nS2,5,6,7,8", True),
        ("quoted text", b'sample,a,b,c,d\n"S,1 ""x""\n2",1,2,3,4\n"S2"z,5,6,7,8\n', True),
        ("quoted header", b'"sample","a","b\nb","c","d"\nS1,1,2,3,4\nS2,5,6,7,8\n', True),
        ("quoted numbers", b'sample,a,b,c,d\nS1,"1","2.5","NA","4"\nS2,"5""",6,"7"x,8\n', True),
        ("a blank name", b"sample,a,,c,d\nS1,1,2,3,4\nS2,5,6,7,8\n", True),
        ("non-ASCII text", "sample,a,b,c,d\nSé,1,2,3,4\nS2,5,6,7,8\n".encode(), True),
        ("a trailing separator", b"sample,a,b,c,\nS1,1,2,3,\nS2,5,6,7,", True),
        ("NUL byte", b"sample,a,b,c,d\nS1,1,2,3,4\nS2,5,6\x00,7,8\n", False),
        ("a lone quoted blank", b'sample,a,b,c,d\nS1,1,2,3,4\n""\nS2,5,6,7,8\n', False),
    ],
)
def test_dialect_cases_read_as_the_row_reader_reads_them(monkeypatch, case, body, scanned):
    for chunk in (None, 5, 13):
        a, b, used = _both(monkeypatch, body, chunk=chunk, label=None, missing="median")
        assert used == scanned, case
        _same(a, b)


@pytest.mark.parametrize("duplicates", ["suffix", "mean", "error"])
def test_duplicate_names_read_as_the_row_reader_reads_them(monkeypatch, duplicates):
    body = b"sample,a,b,a,d\nS1,1,2,3,4\nS2,5,6,7,8\n"
    a, b, used = _both(monkeypatch, body, label=None, duplicates=duplicates)
    assert used == (duplicates != "error")  # refused from the header, before any row is read
    _same(a, b)


def test_text_below_the_first_rows_is_found_by_the_scan_too(monkeypatch):
    rows = [[f"S{i}", *[f"{i + j}.5" for j in range(5)]] for i in range(60)]
    rows[55][3] = "oops"
    body = _table(rows, header=["sample", *[f"c{j}" for j in range(5)]])
    a, b, used = _both(monkeypatch, body, label=None, ignore=["c2"])
    assert used and "c2" not in list(a.feature_names)
    _same(a, b)
    a, b, used = _both(monkeypatch, body, label=None)
    assert used and "non-numeric feature column 'c2' (e.g. 'oops' at row 55)" in a
    _same(a, b)


def test_whitespace_and_decimal_comma_tables(monkeypatch):
    ws = b"sample a b c d\n  S1 1 2.5\t3 4  \n\nS2 5 6 7 8\n"
    a, b, used = _both(monkeypatch, ws, name="t.txt", label=None, sep="whitespace")
    assert used
    _same(a, b)
    odd = b"sample a b c d\nS1 1 2\x0b3 4\nS2 5 6 7 8\n"  # str.split() splits at \x0b: the row reader decides
    a, b, used = _both(monkeypatch, odd, name="t.txt", label=None, sep="whitespace")
    assert not used
    _same(a, b)
    semi = b"sample;a;b;c;d\nS1;1,5;2;3,25;4\nS2;5;6,5;7;8,125\nS3;1;2;3;4\n"
    a, b, used = _both(monkeypatch, semi, label=None)
    assert used and a.X[0, 0] == 1.5
    _same(a, b)


def test_a_wrong_field_count_is_the_row_reader_s_error(monkeypatch):
    body = b"sample,a,b,c,d\nS1,1,2,3,4\nS2,5,6,7\n"
    a, b, used = _both(monkeypatch, body, label=None)
    assert not used and "row 1 has 4 fields but the header has 5" in a
    _same(a, b)


def test_text_that_is_not_utf8_is_left_to_the_row_reader(monkeypatch):
    body = b"sample,a,b,c,d\nS1,1,2,3,4\nS\xe9,5,6,7,8\n"
    src = Source(body)
    kind = np.array([-1, 0, 1, 2, 3], dtype=np.int64)
    assert wide_scan.scan_wide(src, ",", kind, 1, False, 2) is None
    assert wide_scan.scan_wide(Source(body.replace(b"\xe9", b"e")), ",", kind, 1, False, 2) is not None


def test_buffers_fill_and_grow(monkeypatch):
    """Fewer rows expected than there are, text spans and doubtful cells past their room."""
    rows = [[f"S{i}", *(["NA?", '"1"', "x_1"] if i % 2 else ["1", "2", "3"]), f"{i}"] for i in range(40)]
    data = _table(rows, header=["sample", "a", "b", "c", "d"])
    src = Source(data)
    kind = np.array([-1, 0, 1, 2, 3], dtype=np.int64)
    monkeypatch.setattr(wide_scan, "_CHUNK", 16)
    got = wide_scan.scan_wide(src, ",", kind, 1, False, 3)
    assert got is not None
    X, texts, bad = got
    assert X.shape == (40, 4) and texts[0] == [f"S{i}" for i in range(40)]
    assert sorted(bad) == [0, 2] and bad == {0: 1, 2: 1}
    assert X[0].tolist() == [1.0, 2.0, 3.0, 0.0] and X[1, 1] == 1.0 and np.isnan(X[1, [0, 2]]).all()


def test_missing_tokens_the_kernel_matches_are_float_s_refusals():
    table, lengths = wide_scan._tokens(frozenset({*NA_LOWER, "inf", "-999", "é", " x"}))
    tokens = {bytes(table[i, : lengths[i]]).decode() for i in range(len(lengths))}
    assert "inf" not in tokens and "-999" not in tokens and "nan" not in tokens  # float() reads them
    assert "é" not in tokens and " x" not in tokens  # never matched by the kernel: Python decides
    assert {"", "na", "n/a", "null", "?"} <= tokens


# --- the first rows (the roles' preview): as pandas reads them -----------------------------------

_PREVIEW_TOKENS = ["1", "-0", "007", "123456789012345678", "1234567890123456789", "0.25", "-1.5e-3", "1e5",
                   "2E+300", "1e400", "1.", ".5", " 1", "+1", "inf", "", "NA", "na", "nan", "-nan", "True",
                   '"3"', '"a,b"', "x", "é", "1_0", "0x1"]  # fmt: skip


def _previews(body: bytes, sep: str = ","):
    """The preview frame read through the scan's hook and by pandas alone, and whether the hook
    answered (None: pandas read it all)."""
    from fsviz.data.frames import read_table

    src = Source(body)
    header = delimited._header_fields(src, sep)
    answered = []

    def hook(kwargs):
        answered.append(wide_scan.preview_frame(src, len(header), kwargs))
        return answered[-1]

    text = delimited.text_columns_of(header, "auto")
    got = read_table(src, "csv", sep=sep, nrows=50, text_columns=text, read_rows=hook, who="t")
    ref = read_table(Source(body), "csv", sep=sep, nrows=50, text_columns=text, who="t")
    return got, ref, answered[0] is not None


def _same_frames(a, b) -> None:
    import pandas as pd

    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for c in range(a.shape[1]):  # -0.0 and the NaNs' bits too
        x, y = a.iloc[:, c].to_numpy(), b.iloc[:, c].to_numpy()
        if x.dtype.kind == "f":
            assert x.tobytes() == y.tobytes(), a.columns[c]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_previews_are_pandas_frames(data):
    n = data.draw(st.integers(min_value=1, max_value=60))
    m = data.draw(st.integers(min_value=2, max_value=8))
    pools = [data.draw(st.lists(st.sampled_from(_PREVIEW_TOKENS), min_size=1, max_size=3)) for _ in range(m)]
    rows = [[f"S{i}", *[data.draw(st.sampled_from(pools[j])) for j in range(m)]] for i in range(n)]
    body = _table(rows, header=["sample", *[f"c{j}" for j in range(m)]])
    got, ref, answered = _previews(body)
    assert answered or any('"a,b"' in p for p in pools)  # a separator in a quoted cell: pandas reads
    _same_frames(got.frame, ref.frame)
    assert got.n_rows == ref.n_rows and got.notes == ref.notes


@pytest.mark.parametrize(
    ("body", "answered"),
    [
        (b"id,a,b,c\r\nS1,1,2.5,NA\r\nS2,3,,4\r\n", True),
        (b"id;a;b;c\nS1;1;2;3\nS2;4;5;6\n", True),
        (b"id,a,b,c\nS1,-0,-0,-0\nS2,,1.5,7\n", True),  # integers with a gap: 0.0; beside decimals: -0.0
        (b"id,a,b,c\nS1,1,2,3\n\nS2,4,5,6\n", False),  # a blank line: pandas' rules for it
        (b'id,a,b,c\nS1,1,"2\n",3\nS2,4,5,6\n', False),  # a line break in a quoted cell
        (b'id,a,b,c\nS1,1,2"x,3\nS2,4,5,6\n', False),  # a quote inside a cell
        (b"id,a,b,c\nS1,1,2,3\nS2,4,5\n", False),  # a short row
    ],
)
def test_previews_the_hook_leaves_to_pandas(body, answered):
    sep = ";" if b";" in body else ","
    got, ref, used = _previews(body, sep)
    assert used == answered
    _same_frames(got.frame, ref.frame)
