"""The array API namespaces generated code runs on for other array libraries.

A gradient specialised for Dask, JAX, CuPy, PyTorch or array-api-strict
arrays is loaded with ``np`` bound to the library's array API namespace
(through array-api-compat where the library is not compliant itself), and
with the runtime helpers compiled again in that namespace: the same helper
source, reading the library's functions. Nothing here is imported for NumPy
arrays.
"""
from __future__ import annotations

import importlib
import inspect
import math
import threading

MODULES = {"array_api_strict": "array_api_strict", "dask": "array_api_compat.dask.array",
           "jax": "jax.numpy", "torch": "array_api_compat.torch",
           "cupy": "array_api_compat.cupy"}

_lock = threading.Lock()
_helpers: dict = {}


def namespace(library):
    """The array API namespace of ``library`` (a key of `MODULES`)."""
    return importlib.import_module(MODULES[library])


def helpers(library, originals):
    """The runtime helpers ``originals`` (name -> function) compiled with ``np``
    bound to ``library``'s namespace (once per library)."""
    with _lock:
        found = _helpers.get(library)
        if found is None:
            xp = namespace(library)
            found = {"np": xp, "math": math, "__name__": "symdiff.generated",
                     "__package__": __package__}  # (checks import ..locations)
            for name, fn in originals.items():
                exec(compile(helper_text(name, fn), inspect.getsourcefile(fn), "exec"), found)
            found = _helpers[library] = {name: found[name] for name in originals}
        return found


def helper_text(name, fn=None):
    """The source of runtime helper ``name``."""
    if fn is None:
        from .helpers import HELPERS
        fn = HELPERS[name]
    return inspect.getsource(fn)
