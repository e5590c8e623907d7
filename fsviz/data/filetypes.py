"""Only regular files are read: a path's type is checked with ``stat`` before anything opens it.

A named pipe (FIFO) blocks the reader that opens it until something writes to it, a character
device such as ``/dev/zero`` never ends, a socket cannot be opened at all, and a folder is not a
data file. None of them can be told from its name (a FIFO can be called ``x.npy``), so every
path a loader or the server's data folder opens goes through :func:`check_regular` first (a
``stat``, which never opens the file), and :func:`open_regular` opens with ``O_NONBLOCK`` and
checks the type again on the open descriptor (the path may have been swapped in between), and
the size against a limit, before the first byte is read.
"""

from __future__ import annotations

import os
import stat

__all__ = ["check_regular", "digest_regular", "file_kind", "open_regular", "read_regular"]


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: ``"a named pipe (FIFO)"``, ``"a character device"``, ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _refuse(path, mode: int, who: str) -> ValueError:
    name = os.path.basename(os.fspath(path).rstrip("/")) or os.fspath(path)
    if stat.S_ISDIR(mode):
        return ValueError(
            f"{who}: {name!r} is a folder, not a data file. Fix: choose a file inside it "
            "(a folder opens only when it is a zarr store or an fsviz memory-mapped dataset)."
        )
    return ValueError(
        f"{who}: {name!r} is {file_kind(mode)}, not a regular file; only regular files are read "
        "(a pipe or a device could block the reader or never end). Fix: copy the data into a "
        "regular file."
    )


def check_regular(path, who: str, *, allow_dir: bool = False) -> os.stat_result:
    """The ``stat`` of ``path`` (symlinks followed) when it is a regular file, else ValueError.

    Never opens the file. ``allow_dir``: a folder passes too (the caller opens folders itself).
    A missing path is a ValueError naming it.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"{who}: file {os.fspath(path)!r} does not exist. Fix: check the path.") from None
    except (OSError, ValueError) as e:  # a loop of links, a NUL byte, no permission
        raise ValueError(f"{who}: {os.fspath(path)!r} cannot be opened ({e}).") from None
    if stat.S_ISREG(st.st_mode) or (allow_dir and stat.S_ISDIR(st.st_mode)):
        return st
    raise _refuse(path, st.st_mode, who)


def open_regular(path, who: str, limit: int = 0):
    """``path`` opened for reading as a binary file object, when it is a regular file of at
    most ``limit`` bytes (0: any size).

    Opened with ``O_NONBLOCK`` (a FIFO swapped in after :func:`check_regular` does not block
    the open) and checked again on the descriptor (``fstat``), so what is read is the regular
    file that was checked.
    """
    check_regular(path, who)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise ValueError(f"{who}: {os.fspath(path)!r} cannot be opened ({e}).") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, st.st_mode, who)
        if limit and st.st_size > limit:
            from fsviz.data.budget import check_memory, format_bytes

            check_memory(st.st_size, f"the file ({format_bytes(st.st_size)})", limit, who=who)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file: reads are whole again
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path, who: str, limit: int = 0) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit`` bytes, 0: any size).

    Reads no more than the size ``fstat`` gave (plus one byte, to notice a file growing while it
    is read): a file cannot make the reader take more than it declared.
    """
    with open_regular(path, who, limit) as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(size + 1)
    if len(data) > size:
        raise ValueError(
            f"{who}: {os.path.basename(os.fspath(path))!r} grew while it was read. Fix: load it again."
        )
    return data


def digest_regular(path, who: str, limit: int = 0, chunk: int = 8 << 20) -> tuple[str, int]:
    """``(SHA-256 hex digest, size)`` of the regular file ``path``, read ``chunk`` bytes at a
    time into one buffer: the same digest as ``hashlib.sha256(read_regular(path, ...))``
    without holding the file (a 173 MB server-folder file was read whole only to be hashed).
    Refused as by :func:`read_regular`, including a file that grows while it is read."""
    import hashlib

    h = hashlib.sha256()
    buf = bytearray(chunk)
    view = memoryview(buf)
    total = 0
    with open_regular(path, who, limit) as fh:
        size = os.fstat(fh.fileno()).st_size
        while (got := fh.readinto(view)) > 0:
            h.update(view[:got])
            total += got
            if total > size:
                name = os.path.basename(os.fspath(path))
                raise ValueError(f"{who}: {name!r} grew while it was read. Fix: load it again.")
    return h.hexdigest(), total
