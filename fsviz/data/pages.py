"""Big fresh arrays in plain pages.

numpy advises the kernel to back every array of 4 MiB or more with transparent huge pages
(``madvise(MADV_HUGEPAGE)``). Where the kernel then compacts memory to find them
(``/sys/kernel/mm/transparent_hugepage/defrag`` = ``madvise``, as on the shared test host), the
first touch of a fresh 240 MB array took 1-5 s on a busy machine, and 0.1 s in plain pages. The
readers' large one-off arrays (a wide table's float block, the copy the fills write into) are
taken here: an anonymous memory map, freed with the array.
"""

from __future__ import annotations

import mmap

import numpy as np

__all__ = ["empty_plain"]


def empty_plain(shape: tuple, dtype=np.float64) -> np.ndarray:
    """``np.empty(shape, dtype)`` (C order, writable), in plain pages when it is large."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if nbytes < 1 << 22:
        return np.empty(shape, dtype=dtype)
    return np.frombuffer(mmap.mmap(-1, nbytes), dtype=dtype).reshape(shape)
