"""Readers of untrusted bytes in a child process with a memory limit.

A file reader written in C or Rust can take the whole process down on hostile bytes: scipy's
``loadmat`` has died by SIGSEGV on a damaged .mat file, calamine aborts when a 1.5 KB
workbook declares a cell at the sheet's far corner (it allocates the whole 16,384 x 1,048,576
range), and HDF5 can crash on a damaged file. On a server every session would go down with
it. :func:`run_isolated` runs such a reader in a fresh Python process whose data segment is
limited (``RLIMIT_DATA``: heap and anonymous memory, what an over-allocation takes), so a crash
or an allocation beyond the limit ends the child only and comes back here as
:class:`ChildCrashed`, which the loaders turn into a ``ValueError`` that names the file.

The threat model is in docs/app.md ("Uploads and the server").
"""

from __future__ import annotations

__all__ = ["CHILD_BASE_BYTES", "ChildCrashed", "child_memory_limit", "run_isolated"]

#: memory a reader child needs before it reads anything (Python, numpy, pandas, h5py, pyarrow
#: imported: about 150 MiB of data segment, measured), with room to spare
CHILD_BASE_BYTES = 768 << 20
#: a reader may need a few times the data it returns (parsed cells, then the arrays, then the
#: pickle that carries them back)
_CHILD_DATA_FACTOR = 3


class ChildCrashed(RuntimeError):
    """The child process of :func:`run_isolated` died (by a signal, or out of its memory
    limit) instead of returning."""


_CHILD = (
    "import os, pickle, sys\n"
    "limit = int(sys.argv[1])\n"
    "if limit:\n"
    "    import resource\n"
    "    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))\n"
    "fn, args = pickle.load(sys.stdin.buffer)\n"
    "try:\n"
    "    out = ('ok', fn(*args))\n"
    "except MemoryError:\n"
    "    out = ('memory', None)\n"
    "except Exception as e:\n"
    "    out = ('error', e)\n"
    "sys.stdout.buffer.write(pickle.dumps(out, protocol=5))\n"
)


#: what a reader's result may be made of: arrays, sparse matrices, frames, plain values and
#: exceptions. The child parses hostile bytes; were it ever subverted, its answer must not be
#: able to name any other callable for this process to run while unpickling it
_SAFE_MODULES = ("numpy", "pandas", "scipy.sparse")
_UNSAFE_PARTS = ("io", "testing", "lib.npyio", "lib._npyio_impl", "_testing", "api", "plotting", "util")
_PYARROW = frozenset(
    {"_restore_array", "py_buffer", "type_for_alias", "dictionary", "list_", "struct", "field"}
)
_SAFE_BUILTINS = frozenset(
    {
        "slice",
        "range",
        "complex",
        "frozenset",
        "set",
        "bytearray",
        "object",
        "tuple",
        "list",
        "dict",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
    }
)


def _allowed(module: str, name: str) -> bool:
    if module == "builtins":
        import builtins

        obj = getattr(builtins, name, None)
        return name in _SAFE_BUILTINS or (isinstance(obj, type) and issubclass(obj, Exception))
    if module in ("fsviz.data.budget",) or module.startswith("fsviz.data.") and name.endswith("Error"):
        return True
    if module == "copyreg":
        return name == "_reconstructor"
    if module == "pyarrow.lib":  # pandas' text columns are Arrow arrays
        return name in _PYARROW
    if module in ("datetime", "zoneinfo"):
        return isinstance(getattr(__import__(module), name, None), type)
    if not any(module == m or module.startswith(m + ".") for m in _SAFE_MODULES):
        return False
    if any(f".{part}." in f".{module}." for part in _UNSAFE_PARTS):
        return False
    return not name.startswith("__") or name.startswith("__pyx_unpickle_")


def _safe_unpickler():
    import pickle

    class SafeUnpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if not _allowed(module, name):
                raise pickle.UnpicklingError(
                    f"a reader child answered with {module}.{name}, which is not data"
                )
            return super().find_class(module, name)

    return SafeUnpickler


def child_memory_limit(budget: int) -> int:
    """Bytes of data segment a reader child may take for a memory ``budget`` (0: no limit)."""
    return 0 if not budget else CHILD_BASE_BYTES + _CHILD_DATA_FACTOR * int(budget)


def run_isolated(fn, *args, who: str = "load_dataset", memory_limit: int = 0):
    """``fn(*args)`` in a fresh Python process.

    A crash there (SIGSEGV, abort) or an allocation beyond ``memory_limit`` bytes of data
    segment raises :class:`ChildCrashed` here instead of taking this process down; an
    exception raised by ``fn`` comes back as it is. ``fn`` must be importable (module level);
    arguments and result travel pickled through pipes (no ``__main__`` re-import, unlike
    multiprocessing).

    Parameters
    ----------
    fn : callable
    *args
        Its arguments (picklable).
    who : str
        Names the caller in the message.
    memory_limit : int, default=0
        ``RLIMIT_DATA`` of the child in bytes; 0: no limit.

    Raises
    ------
    ChildCrashed
        The child died or ran out of its memory.
    """
    import io
    import os
    import pickle
    import subprocess
    import sys

    env = {**os.environ, "RUST_BACKTRACE": "0", "PYTHONFAULTHANDLER": ""}
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(int(memory_limit))],
        input=pickle.dumps((fn, args), protocol=5),
        capture_output=True,
        check=False,
        env=env,
    )
    if proc.returncode != 0 or not proc.stdout:
        how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit code {proc.returncode}"
        oom = b"memory allocation" in proc.stderr or b"MemoryError" in proc.stderr
        if oom and memory_limit:
            from fsviz.data.budget import format_bytes

            raise ChildCrashed(
                f"{who}: the reader needed more than its memory limit of {format_bytes(memory_limit)} "
                f"({how})."
            )
        raise ChildCrashed(f"{who}: the reader crashed ({how}).")
    status, value = _safe_unpickler()(io.BytesIO(proc.stdout)).load()
    if status == "memory":
        from fsviz.data.budget import format_bytes

        raise ChildCrashed(
            f"{who}: the reader needed more than its memory limit of {format_bytes(memory_limit)}."
        )
    if status == "error":
        raise value
    return value
