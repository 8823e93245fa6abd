"""Finding a function's source and turning AST positions into `Loc`s."""
from __future__ import annotations

import __future__
import ast
import dis
import functools
import inspect
import io
import linecache
import os
import re
import sys
import textwrap
import tokenize
import types
from dataclasses import dataclass

import numpy as np

from . import errors
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


def read_source(fn, loc=None):
    """The parsed source of ``fn``: raises SourceUnavailableError without it.

    ``loc`` is where an error about ``fn`` itself should point (the call that
    uses it); by default the user's line that called into symdiff.
    """
    if _is_library_function(fn):
        raise SourceUnavailableError(
            f"{_describe_object(fn)} is a library function; symdiff differentiates "
            "your own functions, which may call it", loc or caller_loc(), _no_code_hint(fn))
    try:
        fn = inspect.unwrap(fn)
    except ValueError:  # a cycle of __wrapped__
        pass
    if inspect.ismethod(fn):
        raise UnsupportedSyntaxError(
            f"`{_describe(fn)}` is a bound method; symdiff differentiates plain "
            "functions of arrays, not methods of objects",
            loc or caller_loc(),
            "write the computation as a module-level `def` that takes the arrays "
            "it needs as arguments, and differentiate that")
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code is None:
        raise SourceUnavailableError(
            f"{_describe_object(fn)} is not a Python function, so symdiff has no "
            "source to read", loc or caller_loc(), _no_code_hint(fn))
    try:
        all_lines, _ = inspect.findsource(fn)
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError, IndexError) as exc:
        raise SourceUnavailableError(
            f"cannot read the source of `{_describe(fn)}` (defined in "
            f"{code.co_filename}): {exc}", loc or caller_loc(),
            "define the function in a file or notebook cell; functions typed at an "
            "interactive prompt or made by exec() or eval() have no source") from None
    text = "".join(lines)
    if code.co_name == "<lambda>":
        node = _find_lambda(text, code, start, all_lines)
        indent = 0
    else:
        dedented = textwrap.dedent(text)
        indent = len(lines[0]) - len(lines[0].lstrip()) if text != dedented else 0
        node = _find_node(_parse(dedented, code, start, all_lines), code, start, all_lines)
        ast.increment_lineno(node, start - 1)
    if _stale(node, code):
        raise SourceUnavailableError(
            f"the source of `{_describe(fn)}` in {code.co_filename} is not the code "
            "Python is running: the file changed after it was imported",
            _line_loc(code.co_filename, start, all_lines),
            "reload the module (importlib.reload, or %autoreload / restart the kernel "
            "in a notebook) so the code and the file agree")
    _remember_file(code.co_filename)
    return FunctionSource(fn, node, code.co_filename, all_lines, indent,
                          fn.__globals__, _closure(fn))


# -- is the source still the code? --------------------------------------------------------
# A module whose file was edited but not reloaded runs the old code while
# inspect reads the new text; differentiating the text would silently give the
# gradient of another function. The source read is compiled again the way
# Python compiled the function, and must give the same bytecode.
_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _stale(node, code):
    """Whether ``node`` (the source read for ``code``) compiles to other code.

    False whenever this cannot be told (the check must never reject a function
    whose source is right).
    """
    for n in ast.walk(node):
        if isinstance(n, ast.Assert):
            return False  # pytest rewrites asserts in test modules
        if isinstance(n, ast.Name) and n.id.startswith("__") and not n.id.endswith("__"):
            return False  # names mangled in a class body: compiled alone they differ
    try:
        fresh = _compile_alone(node, code)
        return fresh is not None and not _same_code(fresh, code)
    except Exception:  # noqa: BLE001 - a check that cannot run proves nothing
        return False


def _compile_alone(node, code):
    """``node`` compiled inside a function giving it ``code``'s free variables."""
    at = {"lineno": node.lineno, "col_offset": 0, "end_lineno": node.lineno,
          "end_col_offset": 0}
    inner = node if isinstance(node, ast.FunctionDef) else ast.Expr(node, **at)
    cells = [ast.Assign([ast.Name(name, ast.Store(), **at)], ast.Constant(None, **at), **at)
             for name in code.co_freevars]
    probe = ast.FunctionDef("_symdiff_probe", ast.arguments([], [], None, [], [], None, []),
                            cells + [inner], [], None, None, **at)
    top = compile(ast.Module([probe], []), code.co_filename, "exec",
                  flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    todo = list(top.co_consts)
    while todo:
        const = todo.pop(0)
        if isinstance(const, types.CodeType):
            if const.co_name == code.co_name and const.co_name != "_symdiff_probe":
                return const
            todo.extend(const.co_consts)
    return None


def _same_code(a, b):
    if (a.co_names, a.co_varnames, a.co_freevars, a.co_argcount, a.co_kwonlyargcount) \
            != (b.co_names, b.co_varnames, b.co_freevars, b.co_argcount, b.co_kwonlyargcount):
        return False
    if _instructions(a) != _instructions(b) or len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not _same_code(x, y):
                return False
        elif type(x) is not type(y) or _const(x) != _const(y):
            return False
    return True


def _const(value):
    """A constant as compared; a qualified name (``f.<locals>.K``) depends on where
    the function was compiled, and does not count."""
    if isinstance(value, str) and "<locals>" in value:
        return "<qualname>"
    return repr(value)


# How a method is loaded depends on the module around the function (CPython
# 3.11 loads attributes of imported modules differently), so those variants,
# and bookkeeping instructions, do not count; jumps count without targets.
_SAME_OP = {"LOAD_METHOD": "LOAD_ATTR", "CALL_METHOD": "CALL"}
_SKIP_OPS = {"CACHE", "PUSH_NULL", "PRECALL", "NOP", "RESUME", "EXTENDED_ARG",
             "COPY_FREE_VARS", "MAKE_CELL", "KW_NAMES"}


def _instructions(code):
    out = []
    for ins in dis.get_instructions(code):
        if ins.opname in _SKIP_OPS:
            continue
        op = _SAME_OP.get(ins.opname, ins.opname)
        jump = ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs
        arg = None if jump or isinstance(ins.argval, types.CodeType) else _const(ins.argval)
        out.append((op, arg))
    return out


# -- locations of errors found while a gradient runs ------------------------------------
# Generated code names places as ``file.py:LINE:COL`` (no directories, so it does
# not depend on where the checkout lives); the files symdiff has read map those
# short names back to paths, for the error's filename and source line.
_FILES = {}
_WHERE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+)(?:: ?(?P<text>.*))?$",
                    re.DOTALL)


def _remember_file(filename):
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


def _line_loc(filename, lineno, all_lines, col=0):
    """A `Loc` for a whole line of ``filename`` (when no syntax node is at hand)."""
    line = all_lines[lineno - 1].rstrip("\n") if 0 < lineno <= len(all_lines) else ""
    if col == 0:
        col = len(line) - len(line.lstrip())
    return Loc(filename, lineno, col, line)


def _by_position(found, code, start, all_lines):
    """Of several same-looking lambdas, the one whose code starts where ``code``
    does (Python records the column of each instruction)."""
    positions = getattr(code, "co_positions", None)  # Python 3.11 and later
    if positions is None:
        return None
    spots = [(line, col) for line, _, col, end in positions()
             if line is not None and col is not None and end is not None and end > col]
    if not spots:
        return None
    first = min(spots)
    before = [f for f in found
              if (start + f[0], _byte_col(all_lines, start + f[0], f[1])) <= first]
    return [max(before, key=lambda f: (f[0], f[1]))] if before else None


def _find_lambda(text, code, start, all_lines):
    """The lambda expression for ``code`` inside ``text`` (the lines from ``start``).

    Each `lambda` keyword (found with the tokenizer, so never one in a string or
    comment) is parsed as far as it goes; the one whose parameters match
    ``code`` is it. Its nodes are moved to their place in the file.
    """
    params = _parameter_names(code)
    found = []
    for row, col in _lambda_keywords(text):
        node = _longest_lambda(text, row, col)
        if node is not None and _lambda_parameters(node) == params:
            found.append((row, col, node))
    if len(found) > 1:
        found = _by_position(found, code, start, all_lines) or found
    if len(found) != 1:
        first_row, first_col = (found[0][:2] if found else (0, 0))
        line = start + first_row
        described = f"{len(found)} lambdas" if found else "no lambda"
        raise SourceUnavailableError(
            f"symdiff cannot tell which lambda is the one to differentiate: "
            f"{described} on line {line} take the parameters "
            f"({', '.join(params)})",
            _line_loc(code.co_filename, line, all_lines, _byte_col(all_lines, line, first_col)),
            "give each lambda a line of its own, or write it as a `def`")
    row, col, node = found[0]
    first_line = start + row
    byte_col = _byte_col(all_lines, first_line, col)
    for sub in ast.walk(node):
        if hasattr(sub, "lineno"):
            if sub.lineno == 1:
                sub.col_offset += byte_col - 1  # minus the "(" added for parsing
            if getattr(sub, "end_lineno", None) == 1:
                sub.end_col_offset += byte_col - 1
            sub.lineno += first_line - 1
            if getattr(sub, "end_lineno", None) is not None:
                sub.end_lineno += first_line - 1
    return node


def _parameter_names(code):
    count = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:count])
    if code.co_flags & inspect.CO_VARARGS:
        names.append("*" + code.co_varnames[count])
        count += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        names.append("**" + code.co_varnames[count])
    return names


def _lambda_parameters(node):
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg is not None:
        names.append("*" + args.vararg.arg)
    if args.kwarg is not None:
        names.append("**" + args.kwarg.arg)
    return names


def _lambda_keywords(text):
    """(row, column) of each `lambda` keyword in ``text``; rows from 0, columns in chars."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and tok.string == "lambda":
                out.append((tok.start[0] - 1, tok.start[1]))
    except (tokenize.TokenError, SyntaxError):
        pass  # the source ends inside a bracket: the keywords seen so far are enough
    return out


def _longest_lambda(text, row, col):
    """The longest lambda expression starting at (row, col) of ``text``."""
    lines = text.splitlines(True)
    rest = lines[row][col:] + "".join(lines[row + 1:])
    for end in range(len(rest), 0, -1):
        if rest[end - 1].isspace():
            continue
        try:
            tree = ast.parse("(" + rest[:end] + "\n)", mode="eval")
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Lambda):
            return tree.body
    return None


def _byte_col(all_lines, lineno, char_col):
    """``ast`` counts columns in UTF-8 bytes."""
    line = all_lines[lineno - 1] if 0 < lineno <= len(all_lines) else ""
    return len(line[:char_col].encode("utf-8"))


def _parse(text, code, start, all_lines):
    try:
        return ast.parse(text)
    except SyntaxError:
        raise SourceUnavailableError(
            f"the source of `{code.co_name}` in {code.co_filename} does not parse; "
            "the file may have changed since it was imported",
            _line_loc(code.co_filename, start, all_lines),
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
            _line_loc(code.co_filename, start, all_lines),
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


def _describe(fn):
    return getattr(fn, "__qualname__", None) or type(fn).__name__


_LIBRARIES = ("numpy", "scipy")  # not symdiff: grad(grad(f)) reads generated code
# Python's own modules (logging, functools...): never differentiated through.
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) - {"__main__"}


def _is_library_function(obj):
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str) or isinstance(obj, type):
        return False
    top = module.split(".")[0]
    return top in _LIBRARIES or top in _STDLIB and isinstance(obj, types.FunctionType)


def _describe_object(obj):
    """How to name ``obj`` (something that is not a Python function) in a message."""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    module = getattr(obj, "__module__", None) or ""
    if isinstance(obj, np.ufunc):
        return f"`np.{obj.__name__}` (a NumPy ufunc, written in C)"
    if _is_library_function(obj) and module.split(".")[0] in _STDLIB:
        return f"`{module}.{name}` (from Python's standard library)"
    if _is_library_function(obj):
        return f"`{_short_module(module)}.{name}`"
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        where = f"{module}." if module and module != "builtins" else ""
        return f"`{where}{name}` (a built-in function, written in C)"
    if isinstance(obj, type):
        return f"the class `{name}`"
    if isinstance(obj, functools.partial):
        return f"`functools.partial({_describe(obj.func)}, ...)`"
    if callable(obj):
        return f"the callable object of type `{type(obj).__qualname__}`"
    return f"`{obj!r:.40}` (of type `{type(obj).__qualname__}`)"


def _short_module(module):
    if module == "numpy" or module.startswith("numpy._") or module.startswith("numpy.core"):
        return "np"
    return module.replace("numpy.", "np.", 1) if module.startswith("numpy.") else module


def _no_code_hint(obj):
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] == "logging":
        return ("make the logger a module-level name, `log = logging.getLogger(__name__)`, "
                "and call `log.info(...)` in the function")
    if _is_library_function(obj) and module.split(".")[0] in _STDLIB:
        return ("compute it outside the differentiated function and pass the result in "
                "as an argument")
    if isinstance(obj, np.ufunc) or _is_library_function(obj):
        name = f"np.{obj.__name__}" if isinstance(obj, np.ufunc) else \
            f"{_short_module(obj.__module__)}.{getattr(obj, '__name__', 'f')}"
        call = f"{name}(x)" if name in ("np.sum", "numpy.sum") else f"np.sum({name}(x))"
        return (f"call it from a function of your own and differentiate that: "
                f"`def f(x): return {call}`, then `symdiff.grad(f)`")
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        return "call it from a function of your own that returns a scalar, and " \
               "differentiate that"
    if isinstance(obj, functools.partial):
        return "write a `def` that calls the function with the fixed arguments, and " \
               "differentiate that (choose the argument with `wrt=`)"
    return "pass a function defined with `def` (or a lambda) in a file or notebook cell"


def unsupported(src, node, what, hint):
    return UnsupportedSyntaxError(what, src.loc(node), hint)
