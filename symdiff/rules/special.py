"""Special functions of scipy.special, elementwise: one formula each.

Generated code calls them as ``scipy.special.NAME(...)`` and imports
scipy.special only when the user's code uses one (symdiff itself does not
need SciPy).
"""
from __future__ import annotations

from ..ir.primitive import ELEMENTWISE, Formula, define


def special(signature, formula, partials=(), safe=(), **fields):
    """A differentiable elementwise function of scipy.special."""
    name = signature.split("(")[0]
    return define(signature, ("module", "scipy.special", name), ELEMENTWISE,
                  formula=Formula(formula, partials, safe), **fields)


# ---- the logistic function ----------------------------------------------------------
# out * (1 - out): the forward value reused, no exp computed again
special("expit(a)", "1 / (1 + exp(-a))", partials=("out * (1 - out)",))
