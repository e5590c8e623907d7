"""Compressed and archived files, opened by their content, bounded, before any reader sees them.

Every GEO download is gzipped (``GSE…_series_matrix.txt.gz``), 10x Genomics serves its matrices
as ``.tar.gz`` of gzipped files, and Kaggle's datasets come as zips. :func:`unwrap` takes the
bytes of such a file and gives back the data file inside: a gzip, bzip2, xz (and zstd, when the
``zstandard`` package is installed) stream is decompressed; a zip or tar archive (``.tar``,
``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``) gives its one data file, or the member named by
``member=``, or, when its members are a recognised multi-file layout (see
:data:`MULTI_FILE_LAYOUTS`), all of that layout's files. What it did is recorded in the import plan
(``compression``, ``member``).

Hostile archives are refused with a ``ValueError`` saying what is wrong:

- the size an archive *declares* (a zip member's size, a tar member's size, gzip's trailer) over
  the memory budget is refused before decompressing anything; the bytes actually *streamed* are
  counted too and decompression stops as soon as they pass the budget (a gzip or zip bomb);
- a member whose name leaves the archive (``../x``, ``/etc/x``, ``C:\\x``), a symbolic or hard
  link, a device or FIFO member, an encrypted member, and an archive inside an archive (a zip in
  a zip, a ``.gz`` inside a zip, a gzip of a gzip) are refused whole.

Nothing is ever written to disk: members are read into memory, so a member's name can never
choose where bytes land; the name checks say that the archive is not what it claims. The
loaders run :func:`unwrap` in the sandbox child (:mod:`fsviz.data.sandbox`) for untrusted
input, so a decompressor that over-allocates ends the child, not the server.

Examples
--------
>>> import gzip
>>> out = unwrap(gzip.compress(b"a,b\\n1,2\\n"), "t.csv.gz")
>>> out["data"], out["filename"], out["compression"], out["member"]
(b'a,b\\n1,2\\n', 't.csv', 'gzip', None)
"""

from __future__ import annotations

import bz2
import io
import lzma
import os
import re
import stat
import tarfile
import zipfile
import zlib

from fsviz.data.budget import MemoryBudgetError, format_bytes
from fsviz.data.dialect import sniff_bytes
from fsviz.data.plan import PLAN_CHOICES

__all__ = [
    "COMPRESSIONS",
    "MULTI_FILE_LAYOUTS",
    "compression_of",
    "data_members",
    "decompress",
    "folder_layout",
    "register_layout",
    "strip_compression_suffix",
    "archive_members",
    "archive_members_isolated",
    "unwrap",
    "unwrap_isolated",
]

#: the values of the import plan's ``compression``: "auto" (by content), "none" (read the bytes as
#: they are), or what the file was found to be
COMPRESSIONS = PLAN_CHOICES["compression"]
#: file-name endings of compressed or archived files (lower case), longest first
COMPRESSED_SUFFIXES = (
    ".tar.gz",
    ".tar.bz2",
    ".tar.xz",
    ".tar.zst",
    ".tgz",
    ".gz",
    ".bz2",
    ".xz",
    ".zst",
    ".zip",
    ".tar",
)
#: streams decompressed in blocks of this many bytes (the budget is checked after each)
_BLOCK = 1 << 20
#: archives with more members than this are refused (listing them is already work)
MAX_MEMBERS = 10_000
#: members that are not data: macOS resource forks and folders' metadata, and documentation
#: that downloads carry beside the data (README, LICENSE, a PDF of the codebook)
_NOT_DATA_NAMES = re.compile(
    r"^(readme|license|licence|changelog|notice|md5sum|checksums?)(\.[a-z0-9]+)?$", re.I
)
_NOT_DATA_SUFFIXES = (
    ".md",
    ".pdf",
    ".html",
    ".htm",
    ".json",
    ".xml",
    ".yaml",
    ".yml",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".py",
    ".r",
    ".ipynb",
    ".rtf",
    ".doc",
    ".docx",
    ".log",
    ".md5",
    ".sha256",
)


#: multi-file layouts an archive may hold whole: name -> a test of the member names that says
#: whether they are that layout (:func:`register_layout`). :func:`unwrap` then returns every
#: data member (``files``) and the format's reader takes them together
MULTI_FILE_LAYOUTS: dict = {}


#: the same layouts as folders: name -> ``folder_files(path) -> {name: path} or None``
FOLDER_LAYOUTS: dict = {}


def register_layout(name: str, test, folder_files=None) -> None:
    """Recognise a multi-file layout: ``test(member_names) -> bool`` in archives (10x's triplet),
    and ``folder_files(path)`` (its files, or None) in a folder given as the path."""
    MULTI_FILE_LAYOUTS[name] = test
    if folder_files is not None:
        FOLDER_LAYOUTS[name] = folder_files


def folder_layout(path) -> tuple[str, dict[str, str]] | None:
    """``(layout, {name: path})`` of a folder holding a registered multi-file layout, or None."""
    for name, files_of in FOLDER_LAYOUTS.items():
        found = files_of(path)
        if found:
            return name, found
    return None


def _has_zstd() -> bool:
    try:
        import zstandard  # noqa: F401 - optional: only when already installed

        return True
    except ImportError:
        return False


def _is_bz2(head: bytes) -> bool:
    return head[:3] == b"BZh" and head[3:4] in b"123456789" and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90")


def _is_tar(data: bytes) -> bool:
    return data[257:262] == b"ustar"


def compression_of(data: bytes) -> str | None:
    """What wraps ``data``, from its first bytes: ``"gzip"``, ``"bz2"``, ``"xz"``, ``"zst"``,
    ``"zip"`` (an archive, not a workbook or .npz, which are formats), ``"tar"``, or None.

    >>> import gzip
    >>> compression_of(gzip.compress(b"x")), compression_of(b"a,b\\n")
    ('gzip', None)
    """
    head = bytes(data[:16])
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if _is_bz2(head):
        return "bz2"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if head.startswith(b"\x28\xb5\x2f\xfd"):
        return "zst"
    if (
        head.startswith((b"PK\x03\x04", b"PK\x05\x06"))
        and sniff_bytes(bytes(data[:8192]), bytes(data)) == "zip"
    ):
        return "zip"
    if _is_tar(data):
        return "tar"
    return None


def strip_compression_suffix(filename: str) -> str:
    """``GSE1_series_matrix.txt.gz`` -> ``GSE1_series_matrix.txt``; ``x.tgz`` -> ``x.tar``; else as given."""
    low = filename.lower()
    if low.endswith(".tgz"):
        return filename[:-4] + ".tar"
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        if low.endswith(suffix):
            return filename[: -len(suffix)]
    return filename


def _unsafe_name(name: str) -> str | None:
    """Why a member's name is refused, or None."""
    text = name.replace("\\", "/")
    if "\x00" in text:
        return "holds a NUL byte"
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        return "is an absolute path"
    if ".." in text.split("/"):
        return "leaves the archive's folder ('..')"
    return None


def data_members(names: list[str]) -> list[str]:
    """The members of an archive that may be data: not folders, hidden files, macOS metadata
    (``__MACOSX/``, ``._x``, ``.DS_Store``) or documentation (README, LICENSE, .md, .pdf, ...)."""
    out = []
    for n in names:
        parts = n.replace("\\", "/").split("/")
        base = parts[-1]
        if not base or base.startswith(".") or any(p == "__MACOSX" or p.startswith(".") for p in parts[:-1]):
            continue
        low = base.lower()
        if (
            _NOT_DATA_NAMES.match(base)
            or low.endswith(_NOT_DATA_SUFFIXES)
            or low in ("thumbs.db", "desktop.ini")
        ):
            continue
        out.append(n)
    return out


def _too_big(who: str, what: str, size: int, limit: int, streamed: bool) -> MemoryBudgetError:
    how = "decompresses to more than" if streamed else "declares"
    said = f"over {format_bytes(limit)}" if streamed else f"{format_bytes(size)}, over"
    tail = "" if streamed else f" {format_bytes(limit)}"
    return MemoryBudgetError(
        f"{who}: {what} {how} {said}{tail} the memory budget; decompression stopped (a compression "
        "bomb, or data too large for this budget). Fix: use a smaller file, or raise the budget "
        "(memory_budget= / --memory-budget / FSVIZ_MEMORY_BUDGET) if the file is trusted and the "
        "machine has the memory.",
        needed=size,
        budget=limit,
    )


def _read_bounded(stream, limit: int, who: str, what: str) -> bytes:
    out = bytearray()
    while True:
        block = stream.read(_BLOCK)
        if not block:
            return bytes(out)
        out += block
        if limit and len(out) > limit:
            raise _too_big(who, what, len(out), limit, streamed=True)


def decompress(kind: str, data: bytes, limit: int, who: str, what: str) -> bytes:
    """The bytes of a ``kind`` (gzip, bz2, xz, zst) stream, bounded by ``limit`` (0: none): the
    declared size (gzip's trailer) first, then the bytes as they stream; ValueError when damaged."""
    if kind == "gzip" and len(data) >= 18:
        declared = int.from_bytes(data[-4:], "little")  # ISIZE: the last member's size mod 2**32
        if limit and declared > limit:
            raise _too_big(who, what, declared, limit, streamed=False)
    try:
        if kind == "gzip":
            import gzip

            stream = gzip.GzipFile(fileobj=io.BytesIO(data))
        elif kind == "bz2":
            stream = bz2.BZ2File(io.BytesIO(data))
        elif kind == "xz":
            stream = lzma.LZMAFile(io.BytesIO(data))
        else:
            if not _has_zstd():
                raise ValueError(
                    f"{who} is zstd-compressed and the zstandard package is not installed. Fix: "
                    "decompress it first (zstd -d), or pip install zstandard."
                )
            import zstandard

            stream = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data))
        with stream:
            return _read_bounded(stream, limit, who, what)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
        detail = str(e).strip() or type(e).__name__
        truncated = isinstance(e, EOFError) or "end-of-stream" in detail
        why = "is cut short (an incomplete download?)" if truncated else f"is damaged ({detail[:120]})"
        raise ValueError(f"{who}: the {kind} stream of {what} {why}. Fix: download the file again.") from None


def _nested(who: str, outer: str, inner: str, name: str) -> ValueError:
    return ValueError(
        f"{who}: {name} inside the {outer} archive is itself {inner}: archives inside archives are "
        "not opened (a common way to hide a compression bomb). Fix: unpack the outer archive and "
        "load the file inside."
    )


def _check_zip(zf: zipfile.ZipFile, who: str) -> list[zipfile.ZipInfo]:
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise ValueError(
            f"{who}: the zip archive has {len(infos):,} members (over {MAX_MEMBERS:,}). Fix: unzip it."
        )
    for info in infos:
        why = _unsafe_name(info.filename)
        if why:
            raise ValueError(
                f"{who}: the zip member {info.filename[:120]!r} {why}; such an archive is refused whole. "
                "Fix: re-create the archive with plain relative names."
            )
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise ValueError(
                f"{who}: the zip member {info.filename[:120]!r} is a symbolic link; links in archives "
                "are refused. Fix: re-create the archive with the files themselves."
            )
        if info.flag_bits & 0x1:
            raise ValueError(
                f"{who}: the zip member {info.filename[:120]!r} is encrypted. Fix: unzip it with its "
                "password and load the file inside."
            )
    return [i for i in infos if not i.is_dir()]


def _check_tar(tf: tarfile.TarFile, who: str) -> list[tarfile.TarInfo]:
    out = []
    for k, m in enumerate(tf):
        if k >= MAX_MEMBERS:
            raise ValueError(f"{who}: the tar archive has over {MAX_MEMBERS:,} members. Fix: unpack it.")
        why = _unsafe_name(m.name)
        if why:
            raise ValueError(
                f"{who}: the tar member {m.name[:120]!r} {why}; such an archive is refused whole. "
                "Fix: re-create the archive with plain relative names."
            )
        if m.issym() or m.islnk():
            kind = "symbolic" if m.issym() else "hard"
            raise ValueError(
                f"{who}: the tar member {m.name[:120]!r} is a {kind} link (to {m.linkname[:80]!r}); "
                "links in archives are refused. Fix: re-create the archive with the files themselves."
            )
        if m.isdev() or not (m.isfile() or m.isdir()):
            raise ValueError(
                f"{who}: the tar member {m.name[:120]!r} is a device or special file; refused. Fix: "
                "re-create the archive with plain files."
            )
        if m.isfile():
            out.append(m)
    return out


def _choose(names: list[str], member: str | None, kind: str, who: str) -> tuple[str | None, str | None]:
    """``(member, layout)``: the member to read, or the multi-file layout the members make."""
    if member is not None:
        if member not in names:
            listed = ", ".join(repr(n) for n in names[:20]) + (" …" if len(names) > 20 else "")
            raise ValueError(f"{who}: the {kind} archive has no member {member!r}; its members are {listed}.")
        return member, None
    candidates = data_members(names)
    for layout, test in MULTI_FILE_LAYOUTS.items():
        if test(candidates):
            return None, layout
    if len(candidates) == 1:
        return candidates[0], None
    if not candidates:
        listed = ", ".join(repr(n) for n in names[:20]) or "none"
        raise ValueError(f"{who}: the {kind} archive holds no data file (members: {listed}).")
    listed = ", ".join(repr(n) for n in candidates[:20]) + (" …" if len(candidates) > 20 else "")
    raise ValueError(
        f"{who}: the {kind} archive holds {len(candidates)} data files: {listed}. Fix: choose one with "
        f"member= (library), --member (CLI) or the import settings' 'Archive member' (app), e.g. "
        f"member={candidates[0]!r}."
    )


def _read_archive(kind: str, data: bytes, member, limit: int, who: str, outer: str) -> dict:
    """One member (or a layout's files) of a zip or tar archive."""
    files: dict[str, bytes] = {}
    try:
        if kind == "zip":
            zf = zipfile.ZipFile(io.BytesIO(data))
            infos = {i.filename: i for i in _check_zip(zf, who)}
            chosen, layout = _choose(list(infos), member, "zip", who)
            wanted = [chosen] if layout is None else data_members(list(infos))
            total = sum(infos[n].file_size for n in wanted)
            if limit and total > limit:
                raise _too_big(
                    who, f"the zip member(s) {', '.join(wanted)[:200]}", total, limit, streamed=False
                )
            for n in wanted:
                with zf.open(infos[n]) as fh:
                    left = max(1, limit - sum(map(len, files.values()))) if limit else 0
                    files[n] = _read_bounded(fh, left, who, n)
        else:
            tf = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
            members = {m.name: m for m in _check_tar(tf, who)}
            chosen, layout = _choose(list(members), member, "tar", who)
            wanted = [chosen] if layout is None else data_members(list(members))
            total = sum(members[n].size for n in wanted)
            if limit and total > limit:
                raise _too_big(
                    who, f"the tar member(s) {', '.join(wanted)[:200]}", total, limit, streamed=False
                )
            for n in wanted:
                fh = tf.extractfile(members[n])
                files[n] = _read_bounded(fh, 0, who, n)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error, OSError) as e:
        detail = str(e).strip() or type(e).__name__
        raise ValueError(
            f"{who}: the {kind} archive is damaged or cut short ({detail[:120]}). Fix: download it again."
        ) from None
    if layout is None:
        inner = compression_of(files[chosen])  # a workbook or .npz is data, not a wrapper
        if inner is not None:
            raise _nested(
                who,
                outer,
                {"zip": "a zip archive", "tar": "a tar archive"}.get(inner, f"{inner}-compressed"),
                repr(chosen),
            )
        base = chosen.replace("\\", "/").rsplit("/", 1)[-1]
        return {"data": files[chosen], "filename": base, "member": chosen, "files": None, "layout": None}
    for n, content in files.items():  # a layout's own files may be gzipped (10x: its reader
        inner = compression_of(content)  # unwraps them, refusing anything deeper); nothing else
        if inner is not None and inner != "gzip":
            raise _nested(
                who,
                outer,
                {"zip": "a zip archive", "tar": "a tar archive"}.get(inner, f"{inner}-compressed"),
                repr(n),
            )
    return {"data": None, "filename": None, "member": None, "files": files, "layout": layout}


def unwrap(
    source,
    filename: str = "",
    *,
    compression: str = "auto",
    member: str | None = None,
    limit: int = 0,
    who: str = "load_dataset",
) -> dict:
    """The data inside a compressed or archived file.

    Parameters
    ----------
    source : bytes or str
        The file's bytes, or its path.
    filename : str
        Its name (for the inner file's name and messages).
    compression : str, default="auto"
        One of :data:`COMPRESSIONS`. ``"auto"``: by content; ``"none"``: the bytes are returned
        as they are; another value: what the content must be (a ValueError when it is not).
    member : str, optional
        The archive member to read (default: the archive's one data file).
    limit : int, default=0
        Bytes the decompressed data may take (the memory budget; 0: no limit). The sizes the
        archive declares are checked first, then the bytes as they stream.
    who : str
        Names the caller in messages.

    Returns
    -------
    dict
        ``data`` (bytes; None for a multi-file layout), ``filename`` (the inner file's name),
        ``compression`` (what was unwrapped, ``"none"`` when nothing), ``member`` (the archive
        member read, or None), ``files`` (name -> bytes of a multi-file layout, else None),
        ``layout`` (its name, see :data:`MULTI_FILE_LAYOUTS`).

    Raises
    ------
    ValueError
        A damaged or truncated stream, an unsafe member name, a link or special member, an
        encrypted member, a nested archive, several data members and no ``member=``, a
        ``compression`` the content is not. :class:`~fsviz.data.budget.MemoryBudgetError` (a
        ValueError) when the declared or streamed size passes ``limit``.
    """
    if isinstance(source, (str, os.PathLike)):
        from fsviz.data.filetypes import read_regular

        data = read_regular(source, who)  # a regular file only (a pipe or a device is refused)
        filename = filename or os.path.basename(os.fspath(source))
    else:
        data = bytes(source)
    if compression not in COMPRESSIONS:
        raise ValueError(f"{who}: compression must be one of {list(COMPRESSIONS)}; got {compression!r}.")
    plain = {
        "data": data,
        "filename": filename,
        "compression": "none",
        "member": None,
        "files": None,
        "layout": None,
    }
    if compression == "none":
        if member is not None:
            raise ValueError(f"{who}: member={member!r} names an archive member, but compression='none'.")
        return plain
    kind = compression_of(data)
    what = repr(filename) if filename else "the file"
    if kind is None:
        if compression != "auto" or member is not None:
            asked = f"compression={compression!r}" if compression != "auto" else f"member={member!r}"
            raise ValueError(
                f"{who}: {asked} was asked, but {what} is not compressed or archived. Fix: "
                "compression='auto' and no member, or the file the plan was made for."
            )
        return plain
    found = kind
    inner_name = strip_compression_suffix(filename)
    if kind in ("gzip", "bz2", "xz", "zst"):
        data = decompress(kind, data, limit, who, what)
        inner = compression_of(data)
        if inner == "tar":
            found, kind = f"tar.{'gz' if kind == 'gzip' else kind}", "tar"
        elif inner is not None:
            raise _nested(
                who, found, f"{inner}-compressed" if inner not in ("zip",) else "a zip archive", what
            )
    if compression != "auto" and compression != found:
        raise ValueError(
            f"{who}: compression={compression!r} was asked, but {what} is {found}. Fix: compression='auto'."
        )
    if kind in ("zip", "tar"):
        out = _read_archive(kind, data, member, limit, who, found)
        return {**out, "compression": found}
    if member is not None:
        raise ValueError(
            f"{who}: member={member!r} was asked, but {what} is a single {found} stream, not an archive."
        )
    return {
        "data": data,
        "filename": inner_name,
        "compression": found,
        "member": None,
        "files": None,
        "layout": None,
    }


def _unwrap_in_child(source, filename: str, compression: str, member, limit: int, who: str) -> dict:
    """:func:`unwrap` with positional arguments (what :func:`fsviz.data.sandbox.run_isolated` passes)."""
    return unwrap(source, filename, compression=compression, member=member, limit=limit, who=who)


def unwrap_isolated(
    source, filename: str = "", *, compression="auto", member=None, limit=0, who="load_dataset"
):
    """:func:`unwrap` in the sandbox child (memory-limited; see :mod:`fsviz.data.sandbox`): a
    decompressor that over-allocates or crashes ends the child, and comes back as a ValueError."""
    from fsviz.data.sandbox import ChildCrashed, child_memory_limit, run_isolated

    try:
        return run_isolated(
            _unwrap_in_child,
            source,
            filename,
            compression,
            member,
            limit,
            who,
            who=who,
            memory_limit=child_memory_limit(limit),
        )
    except ChildCrashed as e:
        raise ValueError(
            f"{e} The compressed file is damaged or a compression bomb. Fix: decompress it yourself "
            "and check what is inside."
        ) from None


def archive_members(source, filename: str = "", *, limit: int = 0, who: str = "load_dataset") -> list[str]:
    """The members of a zip or tar archive (maybe gzip/bzip2/xz-compressed) that may be data
    (:func:`data_members`), checked as :func:`unwrap` checks them; ``[]`` for anything else.
    What the app's "Archive member" choice lists."""
    if isinstance(source, (str, os.PathLike)):
        from fsviz.data.filetypes import read_regular

        source = read_regular(source, who)
    data = bytes(source)
    kind = compression_of(data)
    if kind in ("gzip", "bz2", "xz", "zst"):
        data = decompress(kind, data, limit, who, repr(filename) if filename else "the file")
        kind = compression_of(data)
    try:
        if kind == "zip":
            return data_members([i.filename for i in _check_zip(zipfile.ZipFile(io.BytesIO(data)), who)])
        if kind == "tar":
            return data_members(
                [m.name for m in _check_tar(tarfile.open(fileobj=io.BytesIO(data), mode="r:"), who)]
            )
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as e:
        raise ValueError(f"{who}: the {kind} archive is damaged or cut short ({str(e)[:120]}).") from None
    return []


def _members_in_child(source, filename: str, limit: int, who: str) -> list[str]:
    return archive_members(source, filename, limit=limit, who=who)


def archive_members_isolated(
    source, filename: str = "", *, limit: int = 0, who: str = "load_dataset"
) -> list[str]:
    """:func:`archive_members` in the sandbox child (untrusted uploads)."""
    from fsviz.data.sandbox import ChildCrashed, child_memory_limit, run_isolated

    try:
        return run_isolated(
            _members_in_child, source, filename, limit, who, who=who, memory_limit=child_memory_limit(limit)
        )
    except ChildCrashed as e:
        raise ValueError(f"{e} The archive is damaged or a compression bomb.") from None
