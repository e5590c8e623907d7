"""HDF5 read as untrusted data: nothing in a file may point outside it.

HDF5 lets a file reach beyond itself: an *external link* names an object in another file,
a dataset may keep its raw bytes in *external storage* (any file, ``/etc/passwd`` included),
and a *virtual dataset* maps regions of datasets in other files. An uploaded ``.h5ad`` that
used any of them would hand the server's files to the uploader (as feature names, values,
exports). :func:`check_hdf5` inspects every link and every dataset's creation properties
before a single value is read and refuses such a file with a message that names the object;
it also refuses soft links that do not resolve (a link loop), filters that would make HDF5
load a plug-in library, and it reports the bytes each dataset declares, so a reader can
check them against the memory budget before it allocates anything.

``allow_external=True`` lifts the first three rules for trusted local files (an atlas split
over several files on your own disk); uploads never set it.

The .h5ad, Loom and 10x ``.h5`` readers open files through :func:`open_hdf5` and
:func:`check_hdf5`; so should an HDF5-based reader registered from outside fsviz.
"""

from __future__ import annotations

import io
import os
from typing import Any

__all__ = ["UnsafeFileError", "check_hdf5", "declared_bytes", "open_hdf5"]

#: filters HDF5 or h5py carry built in: deflate, shuffle, fletcher32, szip, n-bit, scale-offset,
#: and h5py's LZF. Any other filter id makes HDF5 search its plug-in path for a library to load.
BUILTIN_FILTERS = {
    1: "deflate",
    2: "shuffle",
    3: "fletcher32",
    4: "szip",
    5: "nbit",
    6: "scaleoffset",
    32000: "lzf",
}
#: bytes a variable-length string element takes once read (a Python str and its pointer)
VLEN_ELEMENT_BYTES = 64


class UnsafeFileError(ValueError):
    """An HDF5 file points outside itself (external link, external storage, virtual dataset),
    holds a link loop, or asks for a plug-in filter. A ``ValueError``, naming the object."""


def open_hdf5(path_or_buffer: Any):
    """An ``h5py.File`` opened read-only from a path, bytes or a binary file-like."""
    import h5py

    if isinstance(path_or_buffer, (str, os.PathLike)):
        return h5py.File(os.fspath(path_or_buffer), "r")
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        return h5py.File(io.BytesIO(bytes(path_or_buffer)), "r")
    return h5py.File(path_or_buffer, "r")


def declared_bytes(dataset) -> int:
    """Bytes a dataset takes once read, from its declared shape and type (nothing is read)."""
    import h5py

    dt = dataset.dtype
    vlen = dt.kind == "O" or h5py.check_vlen_dtype(dt) is not None
    string = h5py.check_string_dtype(dt)
    per = VLEN_ELEMENT_BYTES if vlen or (string is not None and string.length is None) else dt.itemsize
    shape = dataset.shape or ()
    n = 1
    for v in shape:
        n *= int(v)
    return n * max(int(per), 1)


def _fix(allow_hint: bool) -> str:
    tail = (
        " (load_dataset(..., allow_external=True) reads a trusted local file as it is)" if allow_hint else ""
    )
    return f"Fix: save the data into one self-contained file (e.g. anndata's write_h5ad){tail}."


def check_hdf5(h5file, who: str, *, allow_external: bool = False) -> dict[str, int]:
    """Refuse an HDF5 file that points outside itself; the declared bytes of every dataset.

    Parameters
    ----------
    h5file : h5py.File
        Open, read-only. Nothing is read but links, headers and creation properties.
    who : str
        Names the caller and the file in messages.
    allow_external : bool, default=False
        Accept external links, external raw storage and virtual datasets (trusted local
        files only). Link loops and plug-in filters are refused either way.

    Returns
    -------
    dict of str to int
        Dataset path (no leading ``/``) -> bytes it takes once read.

    Raises
    ------
    UnsafeFileError
        Naming the first object that breaks a rule.
    """
    import h5py

    links: list[str] = []
    h5file.visit_links(links.append)  # hard links only are followed: nothing outside is opened
    for name in links:
        link = h5file.get(name, getlink=True)
        if isinstance(link, h5py.ExternalLink):
            if not allow_external:
                raise UnsafeFileError(
                    f"{who}: object '/{name}' is an external link to {link.path!r} in file "
                    f"{link.filename!r}; an uploaded file may not point at other files. {_fix(True)}"
                )
        elif isinstance(link, h5py.SoftLink):
            try:
                h5file[name]
            except Exception:  # noqa: BLE001 - HDF5 says "too many links" or "doesn't exist"
                raise UnsafeFileError(
                    f"{who}: soft link '/{name}' -> {link.path!r} does not resolve (a link loop or a missing "
                    f"target). {_fix(False)}"
                ) from None
    sizes: dict[str, int] = {}

    def visit(name: str, obj) -> None:
        if not isinstance(obj, h5py.Dataset):
            return
        dcpl = obj.id.get_create_plist()
        if dcpl.get_layout() == h5py.h5d.VIRTUAL and not allow_external:
            raise UnsafeFileError(
                f"{who}: dataset '/{name}' is a virtual dataset (it maps data of other files); an uploaded "
                f"file may not point at other files. {_fix(True)}"
            )
        if dcpl.get_external_count() and not allow_external:
            target = dcpl.get_external(0)[0]
            target = target.decode(errors="replace") if isinstance(target, bytes) else str(target)
            raise UnsafeFileError(
                f"{who}: dataset '/{name}' keeps its values in external file {target!r}; an uploaded "
                f"file may not point at other files. {_fix(True)}"
            )
        for i in range(dcpl.get_nfilters()):
            code = int(dcpl.get_filter(i)[0])
            if code not in BUILTIN_FILTERS:
                raise UnsafeFileError(
                    f"{who}: dataset '/{name}' is compressed with HDF5 filter {code}, a plug-in this reader "
                    "does not load. Fix: save it again with gzip (deflate) or no compression."
                )
        sizes[name] = declared_bytes(obj)

    h5file.visititems(visit)
    return sizes
