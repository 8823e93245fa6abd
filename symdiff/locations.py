"""Places in the user's code: the line that called into symdiff, and the
locations of errors found while a gradient runs.

Generated code names places as ``file.py:LINE:COL`` (no directories, so it does
not depend on where the checkout lives); the files symdiff has read map those
short names back to paths, for the error's filename and source line.
"""
from __future__ import annotations

import inspect
import linecache
import os
import re
import sys

from . import errors
from .ir.nodes import Loc

_FILES = {}
_WHERE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+)(?:: ?(?P<text>.*))?$",
                    re.DOTALL)


def remember_file(filename):
    _FILES.setdefault(os.path.basename(filename), set()).add(filename)


def located_error(kind, message, hint):
    """The `SymdiffError` subclass ``kind`` for a check that failed in generated code.

    ``message`` is ``"file.py:LINE:COL: text"`` (see runtime.py's ``_require_*``).
    """
    cls = getattr(errors, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, errors.SymdiffError)):
        cls = errors.SymdiffError
    match = _WHERE.match(message)
    if match is None:  # no location was given
        return cls(message.lstrip(": ") or "this check failed", None, hint)
    filename = _resolve_file(match["file"])
    lineno = int(match["line"])
    line = linecache.getline(filename, lineno).rstrip("\n")
    loc = Loc(filename, lineno, int(match["col"]) - 1, line)
    return cls(match["text"] or "this check failed", loc, hint)


def _resolve_file(short):
    """The full path of ``short`` (a file's base name), when it is known and unique."""
    if os.path.isabs(short):
        return short
    known = _FILES.get(os.path.basename(short), set())
    if len(known) == 1:
        return next(iter(known))
    candidates = {os.path.abspath(f) for f in (getattr(m, "__file__", None)
                                               for m in list(sys.modules.values()))
                  if isinstance(f, str) and os.path.basename(f) == short}
    if len(known) > 1:
        candidates &= known
    return next(iter(candidates)) if len(candidates) == 1 else short


def caller_loc():
    """The `Loc` of the user's line that called into symdiff (e.g. ``grad(f)``).

    Used for errors about a function that has no source of its own to point at.
    """
    frame = sys._getframe(1)
    while frame is not None and _inside_symdiff(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    line = linecache.getline(filename, lineno).rstrip("\n")
    col = len(line) - len(line.lstrip())  # the start of the line, unless Python knows better
    positions = getattr(inspect.getframeinfo(frame, context=0), "positions", None)
    if positions is not None and positions.col_offset is not None \
            and positions.lineno == lineno:
        col = positions.col_offset
    return Loc(filename, lineno, col, line, frame.f_code.co_name)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _inside_symdiff(filename):
    return os.path.dirname(os.path.abspath(filename)) == _PACKAGE_DIR \
        or os.path.dirname(os.path.dirname(os.path.abspath(filename))) == _PACKAGE_DIR


def line_loc(filename, lineno, all_lines, col=0):
    """A `Loc` for a whole line of ``filename`` (when no syntax node is at hand)."""
    line = all_lines[lineno - 1].rstrip("\n") if 0 < lineno <= len(all_lines) else ""
    if col == 0:
        col = len(line) - len(line.lstrip())
    return Loc(filename, lineno, col, line)
