"""Readers of untrusted bytes in a child process with a memory limit.

A file reader written in C or Rust can take the whole process down on hostile bytes: scipy's
``loadmat`` has died by SIGSEGV on a damaged .mat file, calamine aborts when a 1.5 KB
workbook declares a cell at the sheet's far corner (it allocates the whole 16,384 x 1,048,576
range), and HDF5 can crash on a damaged file. On a server every session would go down with
it. :func:`run_isolated` runs such a reader in a child process whose data segment is limited
(``RLIMIT_DATA``: heap and anonymous memory, what an over-allocation takes), so a crash or an
allocation beyond the limit ends the child only and comes back here as :class:`ChildCrashed`,
which the loaders turn into a ``ValueError`` that names the file. Each read has a child of its
own, forked from a zygote that imported the readers' libraries once (a fresh Python when the
zygote is busy with another read).

The threat model is in docs/app.md ("Uploads and the server").
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import subprocess
import sys
import threading

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


#: the readers' libraries, imported once by the zygote (every child is a fork of it)
_PRELOAD = (
    "numpy",
    "pandas",
    "scipy.sparse",
    "scipy.io",
    "h5py",
    "python_calamine",
    "fsviz.data.formats.anndata",
    "fsviz.data.formats.matlab",
    "fsviz.data.formats.spreadsheet",
)

# A fresh child: one request on stdin, its answer on stdout.
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

# The zygote: imports the readers' libraries once, then forks one child per request. A request
# (from the parent, trusted) is (environment, working directory, memory limit), then the
# pickled (fn, args): the child takes the parent's environment and directory as they are now, sets its
# limit, reads, and writes its answer to a pipe; the zygote answers with the child's exit
# code, the tail of its stderr and its answer's bytes, unread (the parent unpickles them, with
# the safe unpickler). The zygote itself never reads the untrusted bytes.
_ZYGOTE = (
    "import os, pickle, resource, struct, sys, tempfile\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        __import__(name)\n"
    "    except Exception:\n"
    "        pass\n"
    "inp, out = sys.stdin.buffer, sys.stdout.buffer\n"
    "def exact(n):\n"
    "    b = inp.read(n)\n"
    "    if len(b) != n:\n"
    "        raise SystemExit(0)\n"
    "    return b\n"
    "while True:\n"
    "    env, cwd, limit = pickle.loads(exact(struct.unpack('>Q', exact(8))[0]))\n"
    "    request = exact(struct.unpack('>Q', exact(8))[0])\n"
    "    err = tempfile.TemporaryFile()\n"
    "    r, w = os.pipe()\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        code = 1\n"
    "        try:\n"
    "            os.close(r)\n"
    "            null = os.open(os.devnull, os.O_RDWR)\n"
    "            os.dup2(null, 0)\n"
    "            os.dup2(err.fileno(), 1)\n"
    "            os.dup2(err.fileno(), 2)\n"
    "            os.environ.clear()\n"
    "            os.environ.update(env)\n"
    "            os.chdir(cwd)\n"
    "            if limit:\n"
    "                resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))\n"
    "            fn, args = pickle.loads(request)\n"
    "            try:\n"
    "                res = ('ok', fn(*args))\n"
    "            except MemoryError:\n"
    "                res = ('memory', None)\n"
    "            except Exception as e:\n"
    "                res = ('error', e)\n"
    "            data = pickle.dumps(res, protocol=5)\n"
    "            with os.fdopen(w, 'wb') as f:\n"
    "                f.write(data)\n"
    "            code = 0\n"
    "        except MemoryError:\n"
    "            os.write(2, b'MemoryError')\n"
    "        except BaseException:\n"
    "            import traceback\n"
    "            traceback.print_exc()\n"
    "        finally:\n"
    "            os._exit(code)\n"
    "    del env, request  # a file's bytes stay in the child only\n"
    "    os.close(w)\n"
    "    with os.fdopen(r, 'rb') as f:\n"
    "        answer = f.read()\n"
    "    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])\n"
    "    size = err.seek(0, 2)\n"
    "    err.seek(max(0, size - 65536))\n"
    "    tail = err.read()\n"
    "    err.close()\n"
    "    out.write(struct.pack('>qQQ', code, len(tail), len(answer)))\n"
    "    out.write(tail)\n"
    "    out.write(answer)  # as it is: never concatenated into a second copy\n"
    "    out.flush()\n"
    "    del answer, tail  # sent: the zygote keeps nothing of a read until the next one\n"
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
    """``fn(*args)`` in a child process of its own (forked from this process's reader zygote, or
    a fresh Python when the zygote is busy).

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

    request = pickle.dumps((fn, args), protocol=5)
    answer = _ZYGOTE_HANDLE.run(request, int(memory_limit))
    code, stderr, stdout = answer if answer is not None else _fresh_child(request, int(memory_limit))
    if code != 0 or not stdout:
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        oom = b"memory allocation" in stderr or b"MemoryError" in stderr
        if oom and memory_limit:
            from fsviz.data.budget import format_bytes

            raise ChildCrashed(
                f"{who}: the reader needed more than its memory limit of {format_bytes(memory_limit)} "
                f"({how})."
            )
        raise ChildCrashed(f"{who}: the reader crashed ({how}).")
    status, value = _safe_unpickler()(io.BytesIO(stdout)).load()
    if status == "memory":
        from fsviz.data.budget import format_bytes

        raise ChildCrashed(
            f"{who}: the reader needed more than its memory limit of {format_bytes(memory_limit)}."
        )
    if status == "error":
        raise value
    return value


def _child_env() -> dict:
    return {**os.environ, "RUST_BACKTRACE": "0", "PYTHONFAULTHANDLER": "", **_THREADS}


def _fresh_child(request: bytes, memory_limit: int) -> tuple[int, bytes, bytes]:
    """A new Python process answers ``request``: its exit code, stderr and stdout."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(memory_limit)],
        input=request,
        capture_output=True,
        check=False,
        env=_child_env(),
    )
    return proc.returncode, proc.stderr, proc.stdout


class _Zygote:
    """This process's zygote: a child that has imported the readers' libraries and forks a
    grandchild per request (``fork`` takes milliseconds; a fresh Python that imports pandas,
    h5py and scipy takes about 0.4 s of CPU, measured). Started on first use; one request at a
    time: a request that finds it busy, or a platform without ``fork``, takes a fresh child.
    A zygote that died or answered out of protocol is replaced on the next request (the request
    it failed goes to a fresh child), and it ends with this process (end of its stdin).
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.proc = None
        self.pid = 0  # the process that started it (a fork of this process starts its own)

    def run(self, request: bytes, memory_limit: int) -> tuple[int, bytes, bytes] | None:
        """The zygote's answer to ``request``, or None: take a fresh child."""
        if not hasattr(os, "fork") or not self.lock.acquire(blocking=False):
            return None
        try:
            proc = self._start()
            head = pickle.dumps((_child_env(), os.getcwd(), memory_limit), protocol=5)
            proc.stdin.write(struct.pack(">Q", len(head)) + head + struct.pack(">Q", len(request)))
            proc.stdin.write(request)  # as it is: a file's bytes are not copied again
            proc.stdin.flush()
            code, n_err, n_out = struct.unpack(">qQQ", _read_exact(proc.stdout, 24))
            return code, _read_exact(proc.stdout, n_err), _read_exact(proc.stdout, n_out)
        except (OSError, EOFError, ValueError, struct.error):
            self._stop()
            return None
        finally:
            self.lock.release()

    def _start(self):
        if self.proc is not None and self.pid == os.getpid() and self.proc.poll() is None:
            return self.proc
        if self.pid == os.getpid():
            self._stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _ZYGOTE, *_PRELOAD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_child_env(),
        )
        self.pid = os.getpid()
        return self.proc

    def _stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            proc.wait(timeout=5)


#: the readers need no BLAS threads (fewer threads to fork, less memory reserved per child)
_THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _read_exact(pipe, n: int) -> bytes:
    data = pipe.read(n)
    if len(data) != n:
        raise EOFError("the reader zygote ended")
    return data


_ZYGOTE_HANDLE = _Zygote()
