"""Numba kernels of the wide text reader: records split and numeric cells parsed over the raw bytes.

A cell is parsed here only when the result is certain to be Python's ``float()`` of it: the
decimal grammar ``float()`` accepts (ASCII only, no underscores), turned into the nearest double
by the Eisel-Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per Second", Software:
Practice and Experience 51(8), 2021, sections 5-6; the algorithm of ``fast_float``), which is
correctly rounded like ``float()``; or a missing-value token. Anything else (quoted cells with
escapes, non-ASCII, underscores, text) is listed for the Python reader, which applies the exact
per-cell rule. A record the kernel cannot vouch for (a wrong field count, a NUL byte, an
unterminated quote, a field over the csv module's size limit, unusual whitespace between
whitespace-separated fields) stops the scan: the caller then reads the file in Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: scan_rows' statuses
DONE = 0  # every complete record in the buffer was read (``pos``: where the rest starts)
FULL = 1  # an output buffer is full: flush, then call again from ``pos``
ODD = 2  # a record only the Python reader may judge: read the file in Python

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_M32 = np.uint64(0xFFFFFFFF)
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_S32 = np.uint64(32)
_S52 = np.uint64(52)
_S63 = np.uint64(63)
_HIDDEN = np.uint64(1 << 52)
_INF = np.uint64(0x7FF0000000000000)
_SIGN = np.uint64(0x8000000000000000)
_NAN = np.uint64(0x7FF8000000000000)  # float("nan") and np.nan: the bits of a missing cell
_LOW9 = np.uint64(0x1FF)  # 64 - (52 + 3) low bits of the first product: all ones -> refine
_TEN = np.uint64(10)


def pow5_table() -> np.ndarray:
    """The 128-bit truncated (normalised) powers of five 5**q, q in [-342, 308], as (high, low)
    uint64 pairs: the table of Eisel-Lemire (fast_float's generation rule; exact integers)."""
    out = np.empty((651, 2), dtype=np.uint64)
    for i, q in enumerate(range(-342, 309)):
        if q >= 0:
            p = 5**q
            while p < 1 << 127:
                p <<= 1
            while p >= 1 << 128:
                p >>= 1
        else:
            p5 = 5**-q
            z = p5.bit_length()
            if q >= -27:
                p = (1 << (z + 127)) // p5 + 1
            else:
                p = (1 << (2 * z + 128)) // p5 + 1
                while p >= 1 << 128:
                    p >>= 1
        out[i, 0], out[i, 1] = p >> 64, p & ((1 << 64) - 1)
    return out


@njit(cache=True, inline="always")
def _mul128(a, b):
    """``(high, low)`` 64-bit words of the 128-bit product of two uint64."""
    a0, a1 = a & _M32, a >> _S32
    b0, b1 = b & _M32, b >> _S32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _S32) + (p01 & _M32) + (p10 & _M32)
    return p11 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32), (p00 & _M32) | (mid << _S32)


@njit(cache=True)
def eisel_lemire(q, w, pow5):
    """``(ok, bits)``: the double nearest ``w * 10**q`` (``w`` > 0, every digit exact) as its
    bits without a sign; ``ok`` False in the rare case the 128-bit product cannot decide."""
    if q < -342:
        return True, _U0
    if q > 308:
        return True, _INF
    lz = 0  # leading zeros of w, shifted out (a binary search, unrolled)
    if (w >> np.uint64(32)) == _U0:
        lz += 32
        w <<= np.uint64(32)
    if (w >> np.uint64(48)) == _U0:
        lz += 16
        w <<= np.uint64(16)
    if (w >> np.uint64(56)) == _U0:
        lz += 8
        w <<= np.uint64(8)
    if (w >> np.uint64(60)) == _U0:
        lz += 4
        w <<= np.uint64(4)
    if (w >> np.uint64(62)) == _U0:
        lz += 2
        w <<= np.uint64(2)
    if (w >> _S63) == _U0:
        lz += 1
        w <<= _U1
    hi, lo = _mul128(w, pow5[q + 342, 0])
    if (hi & _LOW9) == _LOW9:  # the low bits may carry: take the next 64 bits of 5**q too
        hi2, _ = _mul128(w, pow5[q + 342, 1])
        lo = lo + hi2
        if hi2 > lo:
            hi += _U1
    if lo == _ONES and (q < -27 or q > 55):
        return False, _U0
    upper = np.int64(hi >> _S63)
    shift = np.uint64(upper + 64 - 52 - 3)
    mant = hi >> shift
    power2 = (((q * (152170 + 65536)) >> 16) + 63) + upper - lz + 1023
    if power2 <= 0:  # subnormal
        if -power2 + 1 >= 64:
            return True, _U0
        mant >>= np.uint64(-power2 + 1)
        mant += mant & _U1
        mant >>= _U1
        return True, mant | (np.uint64(1 if mant >= _HIDDEN else 0) << _S52)
    if lo <= _U1 and -4 <= q <= 23 and (mant & np.uint64(3)) == _U1 and (mant << shift) == hi:
        mant &= ~_U1  # exactly halfway: round to even
    mant += mant & _U1
    mant >>= _U1
    if mant >= (_HIDDEN << _U1):
        mant = _HIDDEN
        power2 += 1
    mant &= ~_HIDDEN
    if power2 >= 0x7FF:
        return True, _INF
    return True, mant | (np.uint64(power2) << _S52)


@njit(cache=True, inline="always")
def _py_space(c):
    """What ``float()`` strips (Py_ISSPACE: space, \\t, \\n, \\v, \\f, \\r)."""
    return c == 32 or (c >= 9 and c <= 13)


@njit(cache=True, inline="always")
def _strip_space(c):
    """ASCII that ``str.strip()`` strips: Py_ISSPACE and \\x1c-\\x1f."""
    return c == 32 or (c >= 9 and c <= 13) or (c >= 28 and c <= 31)


@njit(cache=True, inline="always")
def _word(buf, s, e, word):
    """Bytes ``[s, e)`` equal ``word`` (lowercase ASCII) ignoring case."""
    if e - s != len(word):
        return False
    for i in range(e - s):
        if (buf[s + i] | 32) != word[i]:
            return False
    return True


_INF_W = np.frombuffer(b"inf", dtype=np.uint8).copy()
_INFINITY_W = np.frombuffer(b"infinity", dtype=np.uint8).copy()
_NAN_W = np.frombuffer(b"nan", dtype=np.uint8).copy()
_POW10 = np.array([10.0**p for p in range(23)])  # exact doubles
_EXACT = np.uint64(1 << 53)  # integers up to this are exact doubles


@njit(cache=True)
def _long_digits(buf, s, e):
    """``(w, q, cut)`` of the digits in ``buf[s:e]`` (a decimal point among them, more than 19
    digits): their first 19 significant digits ``w``, the power of ten ``q`` that scales
    ``w`` to the value, and whether a non-zero digit was cut."""
    w = _U0
    nd = 0
    q = 0
    cut = False
    frac = False
    for p in range(s, e):
        c = buf[p]
        if c < 48 or c > 57:
            frac = True
            continue
        d = np.uint64(c - 48)
        if nd < 19:
            if nd > 0 or d != _U0:
                w = w * _TEN + d
                nd += 1
            if frac:
                q -= 1
        else:
            if not frac:
                q += 1
            cut = cut or d != _U0
    return w, q, cut


@njit(cache=True, inline="always")
def parse_number(buf, s, e, comma, pow5, X, Xf, i, k):
    """Read the cell ``buf[s:e]`` as ``float()`` reads it into ``X[i, k]`` (``Xf``: X's memory as
    float64; with ``comma``, ``,`` is a decimal point too: the reader replaces it by ``.``).
    Returns 1 (written); 0: not a number by ``float()``'s ASCII grammar (a missing-value token,
    text, or something only Python reads, e.g. ``1_000``); 2: a number whose digits Python must
    round. Values of at most 15 digits and a power of ten within 1e+-22 are one exact IEEE
    operation (Clinger's fast path), the others Eisel-Lemire."""
    while s < e and _py_space(buf[s]):
        s += 1
    while e > s and _py_space(buf[e - 1]):
        e -= 1
    if s == e:
        return 0
    sign = _U0
    c = buf[s]
    if c == 45 or c == 43:  # - +
        if c == 45:
            sign = _SIGN
        s += 1
        if s == e:
            return 0
        c = buf[s]
    if c > 57:  # a letter: inf, infinity, nan (any case)
        if _word(buf, s, e, _INF_W) or _word(buf, s, e, _INFINITY_W):
            X[i, k] = sign | _INF
            return 1
        if _word(buf, s, e, _NAN_W):
            X[i, k] = sign | _NAN
            return 1
        return 0
    w = _U0  # the digits as one integer: w * 10**q is the value (exact with at most 19 digits)
    p = s
    while p < e and buf[p] >= 48 and buf[p] <= 57:
        w = w * _TEN + np.uint64(buf[p] - 48)
        p += 1
    n_digits = p - s
    q = 0
    if p < e and (buf[p] == 46 or (comma and buf[p] == 44)):  # the decimal point
        p += 1
        f = p
        while p < e and buf[p] >= 48 and buf[p] <= 57:
            w = w * _TEN + np.uint64(buf[p] - 48)
            p += 1
        q = f - p
        n_digits += p - f
    if n_digits == 0:
        return 0
    cut = False
    if n_digits > 19:  # w overflowed: its first 19 significant digits, the others noted
        w, q, cut = _long_digits(buf, s, p)
    s = p
    if s < e and (buf[s] | 32) == 101:  # e E
        s += 1
        neg = False
        if s < e and (buf[s] == 45 or buf[s] == 43):
            neg = buf[s] == 45
            s += 1
        if s == e:
            return 0
        x = 0
        while s < e and buf[s] >= 48 and buf[s] <= 57:
            if x < 1_000_000:  # beyond: zero or infinity whatever the digits
                x = x * 10 + np.int64(buf[s] - 48)
            s += 1
        q += -x if neg else x
    if s != e:
        return 0
    if w == _U0:
        X[i, k] = sign
        return 1
    if not cut and w <= _EXACT and -22 <= q <= 22:  # both operands exact: one correctly rounded step
        v = np.float64(w) * _POW10[q] if q >= 0 else np.float64(w) / _POW10[-q]
        Xf[i, k] = -v if sign != _U0 else v
        return 1
    ok, bits = eisel_lemire(q, w, pow5)
    if cut:  # the value lies between w and w + 1 (times 10**q): decided if both round alike
        ok2, bits2 = eisel_lemire(q, w + _U1, pow5)
        ok = ok and ok2 and bits == bits2
    if not ok:
        return 2
    X[i, k] = sign | bits
    return 1


@njit(cache=True)
def is_missing(buf, s, e, comma, tokens, lengths):
    """The cell is one of the missing-value ``tokens`` (lowercase ASCII, stripped) once stripped
    and lowercased (``,`` read as ``.`` with ``comma``)."""
    while s < e and _strip_space(buf[s]):
        s += 1
    while e > s and _strip_space(buf[e - 1]):
        e -= 1
    for t in range(len(lengths)):
        if lengths[t] != e - s:
            continue
        same = True
        for i in range(e - s):
            c = buf[s + i]
            if c >= 65 and c <= 90:
                c |= 32
            elif comma and c == 44:
                c = 46
            if c != tokens[t, i]:
                same = False
                break
        if same:
            return True
    return False


@njit(cache=True)
def record_end(buf, pos, final, sep, ws):
    """Where the record starting at ``pos`` ends, past its line break (the header's); -1: not
    within ``buf`` (read more), -2: an unterminated quote at the end of the file."""
    n = len(buf)
    quoted = False
    start = True  # at the start of a field: a quote there opens a quoted field
    while pos < n:
        c = buf[pos]
        if quoted:
            if c == 34:
                if pos + 1 < n and buf[pos + 1] == 34:  # an escaped quote
                    pos += 2
                    continue
                if pos + 1 == n and not final:
                    return -1
                quoted = False
            pos += 1
            continue
        if c == 10 or c == 13:
            if c == 13 and pos + 1 < n and buf[pos + 1] == 10:
                pos += 1
            return pos + 1
        if c == 34 and start and not ws:
            quoted = True
        start = c == sep and not ws
        pos += 1
    if quoted and final:
        return -2
    return pos if final else -1


@njit(cache=True)
def scan_rows(buf, pos, final, sep, ws, comma, kind, X, row, texts, hard, tokens, lengths, pow5, limit):
    """Read the records of ``buf`` from ``pos``: numeric cells into ``X[row, kind[j]]`` (as
    float64 bits), the byte ranges of text cells (``kind[j] < 0``: column ``-1 - kind[j]``) into
    ``texts[row - row0]``, the cells only Python may read into ``hard`` (row, column, start,
    end; NaN in X meanwhile). Blank lines are skipped as the csv module and ``str.split`` do.

    Returns ``(status, pos, row, n_hard, non_ascii)``: :data:`DONE` (``pos``: the first record
    not complete in ``buf``, or its end), :data:`FULL` (X, ``texts`` or ``hard`` is full; ``pos``:
    the next record) or :data:`ODD` (stop: the Python reader decides).
    """
    n = len(buf)
    m = len(kind)
    Xf = X.view(np.float64)
    row0 = row
    nh = 0
    odd = False
    non_ascii = False
    while True:
        rec = pos
        while pos < n and (buf[pos] == 10 or buf[pos] == 13 or (ws and (buf[pos] == 32 or buf[pos] == 9))):
            pos += 1  # empty records (csv) and blank lines (whitespace)
        if pos >= n:
            return DONE, pos, row, nh, non_ascii
        if row == X.shape[0] or row - row0 == texts.shape[0] or nh + m > hard.shape[0]:
            return FULL, pos, row, nh, non_ascii
        rec = pos
        nh_rec = nh
        j = 0
        lone_blank = True  # a lone field of blanks is a blank line (skipped)
        while True:
            s = pos
            quoted = False
            simple = True  # a quoted cell with no escaped quote and nothing after its closing quote
            if not ws and pos < n and buf[pos] == 34:
                quoted = True
                pos += 1
                while True:
                    if pos >= n:
                        if final:
                            odd = True
                        break
                    c = buf[pos]
                    if c == 34:
                        if pos + 1 < n and buf[pos + 1] == 34:
                            simple = False
                            pos += 2
                            continue
                        if pos + 1 == n and not final:
                            pos += 1
                            break
                        pos += 1
                        break
                    if c == 0:
                        odd = True
                        break
                    non_ascii = non_ascii or c >= 128
                    pos += 1
                if odd:
                    return ODD, rec, row, nh_rec, non_ascii
            while pos < n:
                c = buf[pos]
                if c == 10 or c == 13 or (ws and (c == 32 or c == 9)) or (not ws and c == sep):
                    break
                if c == 0 or (ws and (c >= 128 or c == 11 or c == 12 or (c >= 28 and c <= 31))):
                    return ODD, rec, row, nh_rec, non_ascii  # str.split would split there too
                non_ascii = non_ascii or c >= 128
                if quoted:
                    simple = False
                pos += 1
            if pos >= n and not final:
                return DONE, rec, row, nh_rec, non_ascii  # the record goes on in the next chunk
            e = pos
            if e - s > limit or j >= m:
                return ODD, rec, row, nh_rec, non_ascii
            if j == 0:
                for i in range(s, e):
                    if not _strip_space(buf[i]):
                        lone_blank = False
                        break
                lone_blank = lone_blank and not quoted
            k = kind[j]
            if k >= 0:
                a, b = (s + 1, e - 1) if quoted else (s, e)
                got = 0
                if simple:
                    got = parse_number(buf, a, b, comma, pow5, X, Xf, row, k)
                    if got == 0 and is_missing(buf, a, b, comma, tokens, lengths):
                        X[row, k] = _NAN
                        got = 1
                if got != 1:
                    X[row, k] = _NAN
                    hard[nh, 0], hard[nh, 1], hard[nh, 2], hard[nh, 3] = row, k, s, e
                    nh += 1
            else:
                texts[row - row0, -1 - k, 0] = s
                texts[row - row0, -1 - k, 1] = e
            j += 1
            if ws:
                while pos < n and (buf[pos] == 32 or buf[pos] == 9):
                    pos += 1
                if pos >= n and not final:
                    return DONE, rec, row, nh_rec, non_ascii
                if pos < n and buf[pos] != 10 and buf[pos] != 13:
                    continue
            elif pos < n and buf[pos] == sep:
                pos += 1
                continue  # (a separator at the end of the file: one more, empty, field)
            break
        if j == 1 and lone_blank:
            nh = nh_rec
            continue
        if j != m:
            return ODD, rec, row, nh_rec, non_ascii
        row += 1


@njit(cache=True)
def _preview_class(buf, s, e, sep, tokens, lengths, pow5, Xi, X, Xf, r, j):
    """What pandas' C parser makes of the cell ``buf[s:e]`` (see :func:`preview_cells`)."""
    if e > s and buf[s] == 34:  # quoted: pandas reads it; plain quoting only
        if e - s < 2 or buf[e - 1] != 34:
            return -1
        for i in range(s + 1, e - 1):
            c = buf[i]
            if c == 34 or c == 10 or c == 13 or c == sep:
                return -1
        return 3
    for i in range(s, e):
        if buf[i] == 34:
            return -1  # a quote inside a cell: the parsers' rules differ
    for t in range(len(lengths)):  # a missing-value token, exactly (pandas' na_values)
        if lengths[t] == e - s:
            same = True
            for i in range(e - s):
                if buf[s + i] != tokens[t, i]:
                    same = False
                    break
            if same:
                return 0
    p = s
    if p < e and buf[p] == 45:
        p += 1
    d = p
    v = 0
    while p < e and buf[p] >= 48 and buf[p] <= 57:
        v = v * 10 + np.int64(buf[p] - 48)
        p += 1
    if p == d or p - d > 18:
        return 3
    if p == e:  # an integer
        Xi[r, j] = -v if buf[s] == 45 else v
        parse_number(buf, s, e, False, pow5, X, Xf, r, j)  # its value in a float column
        return 1
    if buf[p] == 46:
        p += 1
        f = p
        while p < e and buf[p] >= 48 and buf[p] <= 57:
            p += 1
        if p == f:
            return 3
    if p < e and (buf[p] | 32) == 101:
        p += 1
        if p < e and (buf[p] == 43 or buf[p] == 45):
            p += 1
        x = p
        while p < e and buf[p] >= 48 and buf[p] <= 57:
            p += 1
        if p == x or p - x > 3:
            return 3
    if p != e or parse_number(buf, s, e, False, pow5, X, Xf, r, j) != 1:
        return 3
    if (X[r, j] & _INF) == _INF:
        return 3  # infinite: pandas decides
    return 2


@njit(cache=True)
def preview_cells(buf, first, spans, sep, tokens, lengths, pow5, Xi, Xf, cls, kind):
    """Classify the cells of a table's first rows (``spans``: their byte ranges, from
    :func:`scan_rows`) as pandas' C parser reads them: ``cls`` 0 a missing-value token (exactly
    one of ``tokens``), 1 an integer (``-?digits``, at most 18; value in ``Xi``), 2 a plain
    decimal (``-?digits[.digits][e[+-]ddd]``, finite), 3 anything else (pandas reads that
    column). ``Xf``: then each column's values as pandas gives them, where its dtype is float64
    (``float()``'s for classes 1 and 2, which pandas' parser gives for these, but the integers'
    values when a column holds integers and missing cells only; NaN where missing). ``kind``:
    each column's dtype, 0 float64, 1 int64 (every cell an integer), 3 pandas reads it. False
    when the rows are not plainly one line each (blank lines between them, a quote inside a
    cell, a quoted cell holding a separator or a line break): pandas reads them all."""
    X = Xf.view(np.uint64)
    prev = first
    for r in range(spans.shape[0]):
        for j in range(spans.shape[1]):
            s, e = spans[r, j, 0], spans[r, j, 1]
            if j > 0:
                ok = s == prev + 1
            elif r == 0:
                ok = s == first
            else:
                gap = s - prev
                ok = (gap == 1 and (buf[prev] == 10 or buf[prev] == 13)) or (
                    gap == 2 and buf[prev] == 13 and buf[prev + 1] == 10
                )
            if not ok:
                return False
            prev = e
            c = _preview_class(buf, s, e, sep, tokens, lengths, pow5, Xi, X, Xf, r, j)
            if c < 0:
                return False
            cls[r, j] = c
    n = spans.shape[0]
    for j in range(spans.shape[1]):
        seen = np.zeros(4, dtype=np.int64)
        for r in range(n):
            seen[cls[r, j]] += 1
        if seen[3]:
            kind[j] = 3
        elif seen[1] == n:
            kind[j] = 1
        else:
            kind[j] = 0
            whole = seen[2] == 0  # integers and gaps: pandas' int64 values as floats (-0 is 0.0)
            for r in range(n):
                if cls[r, j] == 0:
                    Xf[r, j] = np.nan
                elif whole:
                    Xf[r, j] = np.float64(Xi[r, j])
    return True
