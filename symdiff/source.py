"""Finding a function's source and turning AST positions into `Loc`s."""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

from .errors import SourceUnavailableError, UnsupportedSyntaxError
from .ir import Loc


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


def read_source(fn):
    """The parsed source of ``fn``: raises SourceUnavailableError without it."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceUnavailableError(
            f"{_describe(fn)} is not a Python function, so it has no source to read",
            hint="pass a function defined with `def` in a file or notebook cell")
    try:
        all_lines, _ = inspect.findsource(fn)
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"cannot read the source of {_describe(fn)} ({exc})",
            hint="define the function in a file or notebook cell; functions "
                 "typed at an interactive prompt or made by exec() have no source") from None
    text = "".join(lines)
    if code.co_name == "<lambda>":
        node, indent = _find_lambda(text, code)
    else:
        dedented = textwrap.dedent(text)
        indent = len(lines[0]) - len(lines[0].lstrip()) if text != dedented else 0
        node = _find_node(_parse(dedented, code.co_filename, start), fn, code)
    ast.increment_lineno(node, start - 1)
    return FunctionSource(fn, node, code.co_filename, all_lines, indent,
                          fn.__globals__, _closure(fn))


def _find_lambda(text, code):
    """The lambda expression for ``code`` inside ``text`` (a few source lines)."""
    params = list(code.co_varnames[:code.co_argcount])
    found = []
    for start in (i for i in range(len(text)) if text.startswith("lambda", i)):
        node = _longest_expression(text, start)
        if node is not None and [a.arg for a in node.args.args] == params:
            found.append((start, node))
    if len(found) != 1:
        raise SourceUnavailableError(
            f"cannot tell which lambda on {code.co_filename}:{code.co_firstlineno} "
            "is the one to differentiate",
            hint="give each lambda a line of its own, or write it as a `def`")
    start, node = found[0]
    line_start = text.rfind("\n", 0, start) + 1
    return node, (start - line_start) if "\n" not in text[line_start:start] else 0


def _longest_expression(text, start):
    for end in range(len(text), start, -1):
        try:
            tree = ast.parse(text[start:end], mode="eval")
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Lambda):
            return tree.body
    return None


def _parse(text, filename, start):
    try:
        return ast.parse(text)
    except SyntaxError:
        raise SourceUnavailableError(
            f"cannot parse the source of the function at {filename}:{start}",
            hint="write the function as a `def`") from None


def _find_node(tree, fn, code):
    found = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
             and n.name == code.co_name]
    if len(found) != 1:
        raise SourceUnavailableError(
            f"cannot tell which function on {code.co_filename}:{code.co_firstlineno} "
            f"is {code.co_name}",
            hint="give each lambda a line of its own, or write it as a `def`")
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


def _describe(fn):
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def unsupported(src, node, what, hint):
    return UnsupportedSyntaxError(what, src.loc(node), hint)
