"""Turning generated source into a live function that tools can read.

The source is compiled under a stable pseudo-filename registered in
`linecache`, so `inspect.getsource`, tracebacks and pdb all show it.
"""
from __future__ import annotations

import hashlib
import linecache

import numpy as np

from . import helpers as runtime


def load(source, name, origin, free, np_alias="np"):
    """Compile ``source`` and return the function ``name`` it defines."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    filename = f"<symdiff:{name}:{digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np, np_alias: np, "__name__": "symdiff.generated"}
    namespace.update(runtime.HELPERS)
    namespace.update(free)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    fn.__symdiff_source__ = source
    return fn
