"""What the command line differentiates: a user's file, imported by path.

``FILE.py`` is imported under a unique module name with its directory on
``sys.path`` (so its own imports work); ``FILE.py::FUNC`` names one function
in it, and ``FILE.py`` alone means every ``@symdiff.grad``-decorated one.
Every failure a user can cause is a `CommandLineError`, located in the file
when it can be.
"""
from __future__ import annotations

import importlib.util
import inspect
import itertools
import os
import sys
import traceback
from dataclasses import dataclass, field

from ..errors import CommandLineError, SymdiffError
from ..ir.nodes import Loc

_counter = itertools.count()


@dataclass
class Target:
    """One function to differentiate, as the decorator (or --wrt) asked."""

    fn: object
    wrt: object = 0
    overrides: dict = field(default_factory=dict)
    trees: dict = field(default_factory=dict)  # container arguments -> structure (--like)
    signature: dict = field(default_factory=dict)  # argument -> ArgSig (--shapes)

    @property
    def name(self):
        return self.fn.__name__


@dataclass
class UserFile:
    """A user's file, imported: its module and the name it is imported by."""

    path: str
    module: object
    import_name: str    # e.g. "models" or "pkg.models", for written imports

    def targets(self, func=None, wrt=None):
        """The function ``func`` (with ``wrt``), or every decorated one."""
        if func is not None:
            return [self._named(func, wrt)]
        found = _decorated(self.module, self.path)
        if not found:
            raise CommandLineError(f"{self.path}: no @symdiff.grad-decorated functions",
                                   hint=f"name one: symdiff {self.path}::FUNC")
        return found

    def _named(self, func, wrt):
        obj = self.module
        for part in func.split("."):
            obj = getattr(obj, part, None)
        if obj is None or not callable(obj):
            raise CommandLineError(f"{self.path}: no function named {func!r}",
                                   hint=f"functions in {os.path.basename(self.path)}: "
                                   f"{', '.join(_functions(self.module)) or 'none'}")
        target = _as_target(obj) or Target(obj)
        if wrt is not None:
            target.wrt = wrt
        return target


def parse_spec(spec):
    """``FILE.py::FUNC`` -> (``FILE.py``, ``FUNC``); ``FILE.py`` -> (``FILE.py``, None)."""
    path, sep, func = spec.partition("::")
    if sep and not all(part.isidentifier() for part in func.split(".")):
        raise CommandLineError(f"{spec!r}: {func!r} is not a function name",
                               hint="write FILE.py::FUNC, e.g. models.py::loss")
    return path, (func if sep else None)


def load_file(path):
    """Import ``path`` under a unique module name; a `UserFile`."""
    if not os.path.isfile(path):
        what = "is a directory" if os.path.isdir(path) else "no such file"
        file, colon, func = path.rpartition(":")
        if colon and os.path.isfile(file) and func.isidentifier():
            raise CommandLineError(f"{path}: {what}",
                                   hint=f"a function is named with two colons: "
                                        f"symdiff {file}::{func}")
        raise CommandLineError(f"{path}: {what}",
                               hint="give a Python file, e.g. symdiff models.py::loss")
    root, import_name = _import_root(os.path.abspath(path))
    if root not in sys.path:
        sys.path.insert(0, root)
    unique = f"_symdiff_user_{next(_counter)}_{import_name.replace('.', '_')}"
    spec = importlib.util.spec_from_file_location(unique, path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = import_name.rpartition(".")[0]
    sys.modules[unique] = module
    try:
        spec.loader.exec_module(module)
    except SymdiffError:
        raise
    except SyntaxError as exc:
        raise _syntax_error(path, exc) from None
    except BaseException as exc:  # user code may raise anything, even SystemExit
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _import_error(path, exc) from None
    return UserFile(path, module, import_name)


def _import_root(path):
    """The directory to put on sys.path, and the dotted name the file has there."""
    directory, filename = os.path.split(path)
    parts = [os.path.splitext(filename)[0]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return directory, ".".join(parts)


def _decorated(module, path):
    """Every symdiff gradient made at top level of ``module`` from a function in ``path``."""
    found = {}
    for obj in vars(module).values():
        target = _as_target(obj)
        if target is None or not _defined_in(target.fn, path):
            continue
        previous = found.setdefault(target.name, target)
        if (previous.wrt, previous.overrides) != (target.wrt, target.overrides):
            raise CommandLineError(
                f"{target.name} has two gradients with different wrt or overrides",
                _file_loc(path, inspect.unwrap(target.fn).__code__.co_firstlineno),
                f"name the one to write: symdiff {path}::FUNC --wrt ...")
    return sorted(found.values(), key=lambda t: inspect.unwrap(t.fn).__code__.co_firstlineno)


def _as_target(obj):
    fn = getattr(obj, "__wrapped__", None)
    if fn is None or not hasattr(obj, "__symdiff_wrt__"):
        return None
    return Target(fn, obj.__symdiff_wrt__, dict(getattr(obj, "__symdiff_overrides__", {})))


def _defined_in(fn, path):
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return code is not None and os.path.realpath(code.co_filename) == os.path.realpath(path)


def _functions(module):
    names = [name for name, obj in vars(module).items()
             if inspect.isfunction(obj) or _as_target(obj) is not None]
    return [name for name in names if not name.startswith("_")]


def _file_loc(path, lineno=1, col=0):
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    line = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
    return Loc(path, lineno, col, line)


def _syntax_error(path, exc):
    loc = _file_loc(path, exc.lineno or 1, max((exc.offset or 1) - 1, 0))
    return CommandLineError(f"{path} is not valid Python: {exc.msg}", loc,
                            "fix the syntax error; symdiff imports the file to find its functions")


def _import_error(path, exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if os.path.realpath(f.filename) == os.path.realpath(path)]
    lineno = frames[-1].lineno if frames else 1
    col = getattr(frames[-1], "colno", None) if frames else None
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return CommandLineError(f"importing {path} failed: {what}", _file_loc(path, lineno, col or 0),
                            "symdiff imports (runs) the file to find its functions; "
                            "make `python " + path + "` work first")
