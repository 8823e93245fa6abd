"""Every error a user can cause: one class each, all carrying a location.

Reporting (formatting for a terminal, the CLI's `file:line:col`) lives here
too, apart from the code that detects the errors.
"""
from __future__ import annotations


class SymdiffError(Exception):
    """Base of every error a user can cause.

    Carries ``filename``, ``lineno``, ``col_offset`` (0-based, like ``ast``),
    the offending ``source_line`` and a ``hint`` saying how to fix it.

    Each subclass also derives from the built-in exception Python or NumPy
    raises for the same kind of mistake, where there is one (a wrong shape is
    a ValueError, a wrong dtype a TypeError, an undefined name a NameError),
    so ordinary ``except`` clauses catch it. Modules written by the
    ``symdiff`` command raise classes of the same names and built-in bases.
    """

    message: str
    hint: str | None
    filename: str | None
    lineno: int | None
    col_offset: int | None
    source_line: str | None

    def __init__(self, message: str, loc: object = None, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        self.filename = getattr(loc, "filename", None)
        self.lineno = getattr(loc, "lineno", None)
        self.col_offset = getattr(loc, "col", None)
        self.source_line = getattr(loc, "line", None)
        super().__init__(message)

    def __str__(self) -> str:
        return self.format()

    def __reduce__(self):  # keep the location across pickling (multiprocessing)
        return (_rebuild, (type(self), self.__dict__.copy()))

    def location(self) -> str:
        if self.filename is None:
            return ""
        return f"{self.filename}:{self.lineno}:{(self.col_offset or 0) + 1}"

    def format(self) -> str:
        where = self.location()
        text = f"{where}: {self.message}" if where else self.message
        if self.source_line and self.source_line.strip():
            stripped = self.source_line.lstrip()
            indent = len(self.source_line) - len(stripped)
            caret = max(_char_column(self.source_line, self.col_offset or 0) - indent, 0)
            text += f"\n    {stripped.rstrip()}\n    {' ' * caret}^"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text


class SourceUnavailableError(SymdiffError):
    """The function has no Python source symdiff can read: a builtin or library
    function, a callable object, one made by exec() or typed at a prompt, or a
    lambda symdiff cannot tell from another on the same line."""


class UnsupportedSyntaxError(SymdiffError):
    """A construct outside the language symdiff differentiates."""


class InPlaceWriteError(UnsupportedSyntaxError):
    """An assignment into part of an array (``x[0] = ...``, ``x[1:] += 1``), to
    an attribute (``obj.attr = ...``), or ``x += ...`` where ``x`` may share its
    array with another name or the caller."""


class UnknownNameError(SymdiffError, NameError):
    """A name that is not defined where it is used."""


class NoDerivativeRuleError(SymdiffError, NotImplementedError):
    """A call whose derivative symdiff does not know."""


class UnsupportedBackendError(SymdiffError, NotImplementedError):
    """A gradient needs a function the arguments' array library lacks."""


class WrtError(SymdiffError, ValueError):
    """``wrt`` names an argument the function does not have, or one twice."""


class NonScalarOutputError(SymdiffError, ValueError):
    """``grad`` of a function whose value is not a scalar."""


class NonFloatArgumentError(SymdiffError, TypeError):
    """A differentiated argument that is not a floating-point value."""


class ArrayPredicateError(SymdiffError, ValueError):
    """A branch (``if``, ``a if c else b``, ``symdiff.cond``) whose condition is
    an array, not a scalar."""


class RegistrationError(SymdiffError, ValueError):
    """A gradient rule registered twice, or an unknown override."""


class CommandLineError(SymdiffError):
    """A request to the ``symdiff`` command it cannot carry out: bad options, a
    FILE that cannot be imported or lacks FUNC, an output it may not write."""


def _char_column(line, col):
    """``ast`` columns count UTF-8 bytes; the caret needs characters."""
    return len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))


def _rebuild(cls, state):
    error = cls.__new__(cls)
    Exception.__init__(error, state.get("message"))
    error.__dict__.update(state)
    return error


def report(error):
    """The text the CLI prints for ``error``: ``file:line:col: message``..."""
    return error.format()
