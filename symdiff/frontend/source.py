"""Reading a function's source: its syntax tree, lines and names.

Finding a lambda on its line is in lambdas.py, the check that the file is
still the code Python runs in staleness.py, and places in the user's code
(`caller_loc`, errors found at run time) in symdiff/locations.py.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types
from dataclasses import dataclass

from .no_source import describe, describe_object, is_library_function, no_code_hint
from ..errors import SourceUnavailableError, UnsupportedSyntaxError
from ..ir.nodes import Loc
from .lambdas import find_lambda
from ..locations import caller_loc, line_loc, remember_file
from .staleness import is_stale


@dataclass
class FunctionSource:
    """A Python function's syntax tree and where its names come from."""

    fn: object
    node: ast.AST           # ast.FunctionDef or ast.Lambda
    filename: str
    lines: list             # the whole file's lines, for messages
    indent: int             # columns removed by dedent
    globals: dict
    closure: dict

    def loc(self, node):
        lineno = getattr(node, "lineno", self.node.lineno)
        col = getattr(node, "col_offset", 0) + self.indent
        line = self.lines[lineno - 1].rstrip("\n") if 0 < lineno <= len(self.lines) else ""
        return Loc(self.filename, lineno, col, line, self.name)

    @property
    def name(self):
        return getattr(self.node, "name", "<lambda>")


def read_source(fn, loc=None):
    """The parsed source of ``fn``: raises SourceUnavailableError without it.

    ``loc`` is where an error about ``fn`` itself should point (the call that
    uses it); by default the user's line that called into symdiff.
    """
    fn = getattr(fn, "__symdiff_generic__", fn)  # a gradient's dispatcher: its code
    if is_library_function(fn):
        raise SourceUnavailableError(
            f"{describe_object(fn)} is a library function; symdiff differentiates "
            "your own functions, which may call it", loc or caller_loc(), no_code_hint(fn))
    try:
        # through decorators made with functools.wraps, but not past a gradient
        # symdiff made: its own source is what is differentiated then
        fn = inspect.unwrap(fn, stop=lambda g: hasattr(g, "__symdiff_source__"))
    except ValueError:  # a cycle of __wrapped__
        pass
    if inspect.ismethod(fn):
        raise UnsupportedSyntaxError(
            f"`{describe(fn)}` is a bound method; symdiff differentiates plain "
            "functions of arrays, not methods of objects",
            loc or caller_loc(),
            "write the computation as a module-level `def` that takes the arrays "
            "it needs as arguments, and differentiate that")
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code is None:
        raise SourceUnavailableError(
            f"{describe_object(fn)} is not a Python function, so symdiff has no "
            "source to read", loc or caller_loc(), no_code_hint(fn))
    try:
        # (of the code: inspect.getsourcelines(fn) would follow fn.__wrapped__)
        all_lines, _ = inspect.findsource(code)
        lines, start = inspect.getsourcelines(code)
    except (OSError, TypeError, IndexError) as exc:
        raise SourceUnavailableError(
            f"cannot read the source of `{describe(fn)}` (defined in "
            f"{code.co_filename}): {exc}", loc or caller_loc(),
            "define the function in a file or notebook cell; functions typed at an "
            "interactive prompt or made by exec() or eval() have no source") from None
    text = "".join(lines)
    if code.co_name == "<lambda>":
        node = find_lambda(text, code, start, all_lines)
        indent = 0
    else:
        dedented = textwrap.dedent(text)
        indent = len(lines[0]) - len(lines[0].lstrip()) if text != dedented else 0
        node = _find_node(_parse(dedented, code, start, all_lines), code, start, all_lines)
        ast.increment_lineno(node, start - 1)
    if is_stale(node, code):
        raise SourceUnavailableError(
            f"the source of `{describe(fn)}` in {code.co_filename} is not the code "
            "Python is running: the file changed after it was imported",
            line_loc(code.co_filename, start, all_lines),
            "reload the module (importlib.reload, or %autoreload / restart the kernel "
            "in a notebook) so the code and the file agree")
    remember_file(code.co_filename)
    return FunctionSource(fn, node, code.co_filename, all_lines, indent,
                          fn.__globals__, _closure(fn))


def _parse(text, code, start, all_lines):
    try:
        return ast.parse(text)
    except SyntaxError:
        raise SourceUnavailableError(
            f"the source of `{code.co_name}` in {code.co_filename} does not parse; "
            "the file may have changed since it was imported",
            line_loc(code.co_filename, start, all_lines),
            "reload the module (or restart the kernel) so the code and the file agree; "
            "or write the function as a `def`") from None


def _find_node(tree, code, start, all_lines):
    """The function ``code`` was compiled from: the first statement of its source."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    if tree.body and isinstance(tree.body[0], kinds) and tree.body[0].name == code.co_name:
        return tree.body[0]
    found = [n for n in ast.walk(tree) if isinstance(n, kinds) and n.name == code.co_name]
    if len(found) != 1:
        raise SourceUnavailableError(
            f"cannot find the definition of `{code.co_name}` at "
            f"{code.co_filename}:{start}; the file may have changed since it was imported",
            line_loc(code.co_filename, start, all_lines),
            "reload the module (or restart the kernel) so the code and the file agree")
    return found[0]


def _closure(fn):
    cells = fn.__closure__ or ()
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, cells):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass  # a cell not yet filled: the name stays unknown
    return out
