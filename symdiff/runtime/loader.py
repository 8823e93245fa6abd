"""Turning generated source into a live function that tools can read.

The source is written to a file of its own, ``grad_loss-<digest>.py`` in
symdiff's cache directory (``$SYMDIFF_CACHE_DIR``, else
``~/.cache/symdiff``), under ``generated/``, and compiled under that name:
tracebacks show its lines on every Python (before 3.13 the default
traceback printer reads source files from disk and ignores `linecache`),
pdb can stop on them, and an editor can open the file. The text is also
registered in `linecache`, so `inspect` and tracebacks do not depend on the
file staying there. Where the cache directory cannot be written, the name is
a pseudo-file, ``<symdiff>/grad_loss-<digest>.py``, known to `linecache`
only (Python 3.13's tracebacks show it; earlier ones show no line).
"""
from __future__ import annotations

import hashlib
import importlib
import linecache
import math
import os
import tempfile

import numpy as np

from . import helpers as runtime
from . import namespaces

PSEUDO_DIR = "<symdiff>"


def load(source, name, origin, free, np_alias="np", modules=(), library=None):
    """Compile ``source`` and return the function ``name`` it defines;
    ``modules`` are the libraries it calls into (``scipy.special``);
    ``library``: the array library it runs on (None: NumPy), whose array
    API namespace ``np`` is then (namespaces.py)."""
    filename = source_file(name, source)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    if library is None:
        namespace = {"np": np, np_alias: np, "__name__": "symdiff.generated"}
        namespace.update(runtime.HELPERS)
    else:
        xp = namespaces.namespace(library)
        namespace = {"np": xp, np_alias: xp, "math": math, "__name__": "symdiff.generated"}
        namespace.update(namespaces.helpers(library, runtime.HELPERS))
    for module in modules:  # scipy.special.gammaln(x) needs `scipy`, with .special loaded
        importlib.import_module(module)
        root = module.split(".")[0]
        namespace[root] = importlib.import_module(root)
    namespace.update(free)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    fn.__symdiff_source__ = source
    return fn


def cache_dir():
    """symdiff's per-user cache: derivatives, generated sources."""
    return os.environ.get("SYMDIFF_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "symdiff")


def generated_dir():
    return os.path.join(cache_dir(), "generated")


def source_file(name, source):
    """The file ``source`` is compiled from: written once (same text, same
    name), atomically; a pseudo-file name if it cannot be written."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    base = f"{name}-{digest}.py"
    directory = generated_dir()
    path = os.path.join(directory, base)
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            if handle.read() == source:
                return path
    except (OSError, UnicodeDecodeError):
        pass
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(source)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return f"{PSEUDO_DIR}/{base}"
    return path


def is_generated(filename):
    """Whether ``filename`` holds a gradient symdiff generated."""
    directory = os.path.dirname(filename)
    return directory == PSEUDO_DIR or (
        os.path.basename(directory) == "generated" and filename.endswith(".py")
        and os.path.abspath(directory) == os.path.abspath(generated_dir()))
