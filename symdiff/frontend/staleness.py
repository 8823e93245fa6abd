"""Is the source read still the code Python runs?

A module whose file was edited but not reloaded runs the old code while
inspect reads the new text; differentiating the text would silently give the
gradient of another function. The source read is compiled again the way
Python compiled the function, and must give the same bytecode.
"""
from __future__ import annotations

import __future__
import ast
import dis
import inspect
import types

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def is_stale(node, code):
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
    """``node`` compiled where ``code`` was: at module level (a recursive call
    is a global there), or inside a function giving it ``code``'s free variables."""
    at = {"lineno": node.lineno, "col_offset": 0, "end_lineno": node.lineno,
          "end_col_offset": 0}
    inner = node if isinstance(node, ast.FunctionDef) else ast.Expr(node, **at)
    if not code.co_flags & inspect.CO_NESTED:
        top = compile(ast.Module([inner], []), code.co_filename, "exec",
                      flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
        return _find_code(top, code.co_name)
    cells = [ast.Assign([ast.Name(name, ast.Store(), **at)], ast.Constant(None, **at), **at)
             for name in code.co_freevars]
    probe = ast.FunctionDef("_symdiff_probe", ast.arguments([], [], None, [], [], None, []),
                            cells + [inner], [], None, None, **at)
    top = compile(ast.Module([probe], []), code.co_filename, "exec",
                  flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    return _find_code(top, code.co_name)


def _find_code(top, name):
    """The code object of the function ``name`` compiled in ``top``."""
    todo = list(top.co_consts)
    while todo:
        const = todo.pop(0)
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_name != "_symdiff_probe":
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
