"""symdiff's own functions that may appear inside a differentiated function.

At run time each is cheap and plain (``stop_gradient(x)`` returns ``x``); the
compiler recognises them and gives them their special derivatives.
"""
from __future__ import annotations

import ast

from .. import controls
from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, FreeVar, If
from .compile_time import Closure, Static, Tup
from .inline import inline_function


def handles(obj):
    try:
        return obj in _LOWERINGS or hasattr(obj, "__symdiff_custom__")
    except TypeError:  # an unhashable callable object
        return False


def lower(lw, obj, args, kwargs, node):
    if hasattr(obj, "__symdiff_custom__"):
        return _lower_custom_call(lw, obj.__symdiff_custom__, args, kwargs, node)
    return _LOWERINGS[obj](lw, args, kwargs, node)


def _two(lw, args, kwargs, node, name):
    if len(args) != 2 or kwargs:
        raise lw.error(UnsupportedSyntaxError, node, f"{name} takes two arguments",
                       f"write symdiff.{name}(value, other)")
    return [lw.atom(a, node) for a in args]


def _lower_straight_through(lw, args, kwargs, node):
    return lw.b.op("straight_through", *_two(lw, args, kwargs, node, "straight_through"),
                   hint="st")


def _lower_backward_as(lw, args, kwargs, node):
    return lw.b.op("backward_as", *_two(lw, args, kwargs, node, "backward_as"))


def _lower_custom_call(lw, fn, args, kwargs, node):
    """A call of a @custom_gradient function: its value as the function computes
    it, its derivative from the ``backward`` it returns."""
    result = inline_function(lw, fn, args, kwargs, node)
    if not (isinstance(result, Tup) and len(result.items) == 2):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"@custom_gradient function `{fn.__name__}` must return "
                       "(value, backward)", "end it with `return value, backward`")
    value, backward = result.items
    inputs = [lw.atom(a, node) for a in args]
    out = lw.b.op("custom_value", lw.atom(value, node), *inputs,
                  rule=f"{fn.__name__}:{len(lw.b.customs)}")
    lw.b.customs[out] = _backward_of(lw, backward, node, fn.__name__, len(inputs))
    return out


def _backward_of(lw, backward, node, name, count):
    """``backward(g)`` of a custom_gradient call, for the reverse pass to call
    with the upstream gradient: the backward function inlined where the reverse
    pass builds, one atom per input (None: no gradient)."""
    def lower_backward(g):
        result = lw.call(backward, [g], {}, node)
        grads = list(result.items) if isinstance(result, Tup) else [result]
        if len(grads) != count:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"backward() of {name} returns {len(grads)} gradients for "
                           f"{count} inputs", "return one gradient per input")
        return [None if isinstance(grad, Const) and grad.value is None
                else lw.atom(grad, node) for grad in grads]
    lower_backward.note = f"custom gradient of {name}(), from its backward()"
    return lower_backward


def lower_registered_rule(lw, args, node):
    """``_apply_rule(rule, g, *inputs)`` in generated code read back: the
    registered rule called inline, so that it is differentiated in turn; a
    None gradient is zeros, as at run time."""
    if len(args) < 3:
        raise lw.error(UnsupportedSyntaxError, node,
                       "`_apply_rule` calls a gradient rule on a gradient and the inputs",
                       "call it as `_apply_rule(rule, g, x, ...)`")
    rule, g, *inputs = args
    result = lw.call(_callable(lw, rule, node), [g, *inputs], {}, node)
    grads = list(result.items) if isinstance(result, Tup) else [result]
    if len(grads) != len(inputs):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"the gradient rule returns {len(grads)} gradients for "
                       f"{len(inputs)} inputs", "return one gradient per input")
    return Tup(tuple(lw.b.op("zeros_like", lw.atom(x, node)) if isinstance(grad, Const)
                     and grad.value is None else grad for x, grad in zip(inputs, grads)))


def _lower_stop_gradient(lw, args, kwargs, node):
    if len(args) != 1 or kwargs:
        raise lw.error(UnsupportedSyntaxError, node, "stop_gradient takes one argument",
                       "write symdiff.stop_gradient(value), one call for each value")
    return lw.b.op("stop_gradient", lw.atom(args[0], node))


def _lower_cond(lw, args, kwargs, node):
    if len(args) < 3 or kwargs:
        raise lw.error(UnsupportedSyntaxError, node,
                       "cond takes (pred, true_fn, false_fn, *operands)",
                       "write symdiff.cond(x > 0, f, g, x), with f and g taking the "
                       "operands")
    pred, true_fn, false_fn, *operands = args
    cond_atom = lw.atom(pred, node)
    if not lw.b.facts.is_scalar(cond_atom):
        cond_atom = lw.b.op("scalar_predicate", cond_atom, hint="cond",
                            message=_where(lw, node))
    with lw.b.block() as then:
        a = lw.call(_callable(lw, true_fn, node), operands, {}, node)
    with lw.b.block() as orelse:
        b = lw.call(_callable(lw, false_fn, node), operands, {}, node)
    stmt = If(cond_atom, then, orelse, [], lw.src.loc(node))
    result = lw.merge(stmt, a, b, "t", node)
    lw.b.append(stmt)
    return result


def _callable(lw, value, node):
    if isinstance(value, (Closure, Static)):
        return value
    raise lw.error(UnsupportedSyntaxError, node, "cond's branches must be functions",
                   "pass a lambda or a def")


def _where(lw, node):
    return lw.src.loc(node).short()


def lower_with(lw, node):
    """``with symdiff.gradient_override({...}):`` overrides the ops made inside."""
    mapping = _override_mapping(lw, node)
    saved = lw.b.overrides
    lw.b.overrides = {**saved, **controls.validate(mapping, lw.src.loc(node))}
    try:
        for stmt in node.body:
            if isinstance(stmt, ast.Return):
                raise lw.error(UnsupportedSyntaxError, stmt,
                               "`return` inside a gradient_override block",
                               "assign the value inside the block and return it after")
            with lw.b.at(lw.src.loc(stmt)):
                if isinstance(stmt, ast.If):
                    lw.if_stmt(stmt, [])
                else:
                    lw.stmt(stmt)
    finally:
        lw.b.overrides = saved


def _override_mapping(lw, node):
    item = node.items[0] if len(node.items) == 1 else None
    call = item.context_expr if item is not None else None
    if not isinstance(call, ast.Call) or item.optional_vars is not None or \
            getattr(lw.expr(call.func), "obj", None) is not controls.gradient_override:
        raise lw.error(UnsupportedSyntaxError, node, "`with` blocks are not supported here",
                       "only `with symdiff.gradient_override({...}):` may appear in a "
                       "differentiated function")
    if len(call.args) != 1 or call.keywords:
        raise lw.error(UnsupportedSyntaxError, call, "gradient_override takes one dict",
                       'write `with symdiff.gradient_override({"floor": "identity"}):`')
    arg = call.args[0]
    if isinstance(arg, ast.Dict):
        try:
            return ast.literal_eval(arg)
        except ValueError:
            pass
    value = lw.expr(arg)
    if isinstance(value, FreeVar) and isinstance(value.value, dict):
        return value.value
    raise lw.error(UnsupportedSyntaxError, arg, "the overrides must be known when compiling",
                   "write a dict literal like {'floor': 'identity'}, or a module-level dict")


_LOWERINGS = {controls.stop_gradient: _lower_stop_gradient, controls.cond: _lower_cond,
              controls.straight_through: _lower_straight_through,
              controls.backward_as: _lower_backward_as}
