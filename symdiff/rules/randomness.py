"""Random draws: ``np.random.normal(size=3)``, ``rng.standard_normal((n, 2))``,
``np.random.default_rng(seed)``.

A draw is a constant of the forward pass: it runs once, where the function
runs it, and gets no gradient. The record says so to every stage: it is an
effect (never merged with another draw, never dropped, never inlined into an
expression that would change the order of draws), and the reverse pass of a
loop saves its values instead of drawing again (ad/loops.py). Its operands
(sizes, a generator, a seed, a location) get no gradient: where one depends
on a differentiated value, the gradient would be silently zero, so the rules
refuse it and name the reparameterization that is differentiable.
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir.primitive import NEW, define

_HINT = ("draw standard numbers and transform them, which is differentiable: "
         "`mu + sigma * rng.standard_normal(size)`, `lo + (hi - lo) * rng.random(size)`; "
         "or wrap the parameter in symdiff.stop_gradient(...) if it should get no gradient")


def draw_refused(r, op, g):
    raise NoDerivativeRuleError(
        f"`{_spelled(op)}` draws random numbers with a parameter that depends on a "
        "differentiated value; a draw is a constant of the forward pass and gets no "
        "gradient", op.loc, _HINT)


def draw_tangent(b, op, dargs):
    if any(d is not None for d in dargs):
        draw_refused(None, op, None)
    return None


def _spelled(op):
    source = op.param("source")
    return f"np.random.{op.param('method')}(...)" if source == "module" \
        else f".{op.param('method')}(...)"


# ``source``: "module" (np.random.METHOD(*args)) or "object" (args[0].METHOD(*args[1:]),
# a Generator or RandomState); ``keywords``: the names of the last operands, passed
# by keyword (``size=x.shape``).
define("draw(*args; source='module', method='', keywords=())", ("draw",), NEW,
       reverse=draw_refused, forward=draw_tangent, effect=True)
