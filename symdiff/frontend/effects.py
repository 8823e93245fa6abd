"""Calls made for what they do: print, logging, warnings.

They are kept as they are in the forward pass (see rules/python_values.py); what they
read gets no gradient from them.
"""
from __future__ import annotations

import ast
import builtins
import logging
import types
import warnings

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, Var
from .compile_time import Closure, Static
from ..ir.nodes import FreeVar


_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception",
                          "critical", "log"})


def is_effect(obj):
    """Whether calling ``obj`` is done for its side effect: print, warnings.warn, the
    logging module's functions and the methods of a logger."""
    if obj is builtins.print or obj is warnings.warn:
        return True
    if getattr(obj, "__name__", None) not in _LOG_METHODS:
        return False
    if isinstance(obj, types.FunctionType):
        return getattr(obj, "__module__", None) == "logging"
    return isinstance(getattr(obj, "__self__", None), (logging.Logger, logging.LoggerAdapter))


def lower_assert(lw, node):
    """``assert test, message``: kept in the forward pass, where the function
    would check it (a test known true when compiling, for the arguments a
    gradient is specialised to, is left out)."""
    test = lw.atom(lw.expr(node.test), node.test)
    if isinstance(test, Const) and test.value is True or _same_shapes(lw.b.facts, test):
        return None
    message = [] if node.msg is None else [_text_operand(lw, node.msg, node)]
    return lw.b.op("effect_call", test, *message, callee="assert", hint="_")


def _same_shapes(facts, test):
    """``x.shape == w.shape`` of values the signature gives one shape."""
    made = facts.producer(test) if isinstance(test, Var) else None
    shapes = [facts.producer(a) if isinstance(a, Var) else None for a in made.args] \
        if made is not None and made.prim == "equal" else []
    return len(shapes) == 2 and all(s is not None and s.prim == "shape" for s in shapes) \
        and facts.same_shape(shapes[0].args[0], shapes[1].args[0])


def effect_call(lw, node):
    """``print(...)`` or ``log.info(...)``: kept as it is in the forward pass.

    The call runs where the user's function would run it, with the same values;
    it has no derivative, and what it reads gets no gradient from it.
    """
    spelled = _callee_spelling(lw, node.func, node)
    operands = [_text_operand(lw, a, node) for a in node.args]
    params = {}
    for keyword in node.keywords:
        if keyword.arg is None or keyword.arg in ("prim", "hint", "callee"):
            raise lw.error(UnsupportedSyntaxError, keyword.value,
                           f"`{ast.unparse(keyword)}` cannot be passed to "
                           f"`{ast.unparse(node.func)}` here",
                           "pass the arguments one by one")
        value = lw.expr(keyword.value)
        if not isinstance(value, Const):
            raise lw.error(UnsupportedSyntaxError, keyword.value,
                           f"the keyword argument `{keyword.arg}` of "
                           f"`{ast.unparse(node.func)}` must be a constant here",
                           "write it as a literal (e.g. end=\"\"), or log through a "
                           "module-level logger instead")
        params[keyword.arg] = value.value
    return lw.b.op("effect_call", *operands, callee=spelled, hint="_", **params)


def _callee_spelling(lw, func, node):
    """``print``, ``logging.info``, ``log.warning``: the callee as generated code
    names it. Its first name is made a global of the generated code."""
    attrs = []
    while isinstance(func, ast.Attribute):
        attrs.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node.func)}` is called on a value computed here",
                       "make the logger a module-level name, e.g. `log = "
                       "logging.getLogger(__name__)`, and call `log.info(...)`")
    return ".".join([_global_name(lw, func.id, func)] + attrs)


def _global_name(lw, name, node):
    """The name generated code uses for the object ``name`` stands for here."""
    if name in lw.env:
        value = lw.env[name]
        if isinstance(value, FreeVar):
            return value.hint
        if not isinstance(value, Static):
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{name}` is not a function, module or logger",
                           "call print, warnings.warn or a module-level logger "
                           "(`log = logging.getLogger(__name__)`)")
        return lw.b.free_var(FreeVar(name, value.obj)).hint
    for scope in (lw.src.closure, lw.src.globals):
        if name in scope:
            lw.b.deps.append((scope, name, scope[name]))
            return lw.b.free_var(FreeVar(name, scope[name])).hint
    return name  # a builtin: print


def _text_operand(lw, arg, node):
    """An argument of print or logging: a value (no gradient), a string, or an
    f-string (as ``'...{}...'.format(value)``)."""
    if isinstance(arg, ast.Starred):
        raise lw.error(UnsupportedSyntaxError, arg, "`*` unpacking is not supported",
                       "pass the items one by one")
    if isinstance(arg, ast.JoinedStr):
        template, values = _format_template(lw, arg)
        atoms = [_text_operand(lw, v, node) for v in values]
        return lw.b.op("pure_call", *atoms, callee=repr(template) + ".format", hint="text")
    value = lw.expr(arg)
    if isinstance(value, Static) and isinstance(arg, (ast.Name, ast.Attribute)):
        # a class passed along, e.g. warnings.warn(message, UserWarning)
        name = arg.id if isinstance(arg, ast.Name) else arg.attr
        return lw.b.free_var(FreeVar(name, value.obj))
    if isinstance(value, (Static, Closure)):
        raise lw.error(UnsupportedSyntaxError, arg,
                       f"`{ast.unparse(arg)}` cannot be printed or logged here",
                       "print or log array values, numbers and strings")
    return no_gradient(lw, lw.atom(value, arg))


def no_gradient(lw, atom):
    return lw.b.op("stop_gradient", atom) if isinstance(atom, Var) else atom


def _format_template(lw, node):
    """``f"a {x!r:>8} b"`` as ``("a {!r:>8} b", [x])`` for ``str.format``."""
    parts, values = [], []
    for part in node.values:
        if isinstance(part, ast.Constant):
            parts.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            continue
        conversion = "" if part.conversion == -1 else "!" + chr(part.conversion)
        spec = "" if part.format_spec is None else ":" + "".join(
            str(p.value) for p in part.format_spec.values)
        parts.append("{" + conversion + spec + "}")
        values.append(part.value)
    return "".join(parts), values
