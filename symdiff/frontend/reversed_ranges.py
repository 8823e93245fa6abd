"""``for t in reversed(range(a, b, s))`` (or ``range(a, b, s)[::-1]``): the
loop over the range that counts down through the same numbers,
``range(last, a - s, -s)``, which loops
lower as any other range (the backward loop of a discounted return or of
generalized advantage estimation is written so)."""
from __future__ import annotations

import ast
import copy

from ..errors import UnsupportedSyntaxError
from .compile_time import Static


def counted_down(lw, node):
    """The `for` node ``node`` with ``reversed(range(...))`` or
    ``range(...)[::-1]`` written as the range counting down; ``node`` itself
    for any other loop."""
    call = node.iter
    if _call_of(lw, call, reversed) and len(call.args) == 1 and _call_of(lw, call.args[0], range):
        bounds = call.args[0].args
    elif isinstance(call, ast.Subscript) and _call_of(lw, call.value, range) \
            and _reversing(call.slice):  # range(n)[::-1]
        bounds = call.value.args
    else:
        return node
    if not 1 <= len(bounds) <= 3 or any(isinstance(b, ast.Starred) for b in bounds):
        return node  # (range's own error, where the loop lowers it)
    start, stop = (ast.Constant(0), bounds[0]) if len(bounds) == 1 else bounds[:2]
    step = _constant_int(bounds[2]) if len(bounds) == 3 else 1
    if not step:
        raise lw.error(UnsupportedSyntaxError, call,
                       "reversed(range(start, stop, step)) needs a step that is a "
                       "nonzero integer written in the code here",
                       "count down with a range of your own: "
                       "`for t in range(last, start - step, -step):`")
    sign = 1 if step > 0 else -1
    if isinstance(start, ast.Constant) and type(start.value) is int:
        first = start.value  # (numbers written as numbers: range(n - 1, -1, -1))
        last = f"STOP - {first + 1}" if step == 1 else \
            f"{first} + (STOP - {first + sign}) // {step} * {step}"
        text = f"range({last}, {first - step}, {-step})"
    else:  # the last of the numbers: start + (stop - start - sign) // step * step
        last = "STOP - 1" if step == 1 else f"START + (STOP - START - {sign}) // {step} * {step}"
        text = f"range({last}, START - {step}, {-step})"
    down = ast.parse(text, mode="eval").body
    for made in ast.walk(down):
        ast.copy_location(made, call)
    down = _Bounds({"START": start, "STOP": stop}).visit(down)
    loop = copy.copy(node)
    loop.iter = down
    return loop


def _call_of(lw, node, function):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and not node.keywords and _is(lw.expr(node.func), function)


def _reversing(index):
    """Whether ``index`` is the slice ``::-1``."""
    return isinstance(index, ast.Slice) and index.lower is None and index.upper is None \
        and index.step is not None and _constant_int(index.step) == -1


def _is(value, function):
    return isinstance(value, Static) and value.obj is function


def _constant_int(node):
    """The integer a literal (or its negation) writes, else None."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Bounds(ast.NodeTransformer):
    """The template's START and STOP as (copies of) the user's expressions,
    with their places in the source."""

    def __init__(self, bounds):
        self.bounds = bounds

    def visit_Name(self, node):
        if node.id in self.bounds:
            return copy.deepcopy(self.bounds[node.id])
        return node
