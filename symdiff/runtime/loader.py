"""Turning generated source into a live function that tools can read.

The source is compiled under a stable pseudo-filename registered in
`linecache`, so `inspect.getsource`, tracebacks and pdb all show it.
"""
from __future__ import annotations

import hashlib
import importlib
import linecache

import numpy as np

from . import helpers as runtime


def load(source, name, origin, free, np_alias="np", modules=()):
    """Compile ``source`` and return the function ``name`` it defines;
    ``modules`` are the libraries it calls into (``scipy.special``)."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    filename = f"<symdiff:{name}:{digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np, np_alias: np, "__name__": "symdiff.generated"}
    namespace.update(runtime.HELPERS)
    for module in modules:  # scipy.special.gammaln(x) needs `scipy`, with .special loaded
        importlib.import_module(module)
        root = module.split(".")[0]
        namespace[root] = importlib.import_module(root)
    namespace.update(free)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    fn.__symdiff_source__ = source
    return fn
