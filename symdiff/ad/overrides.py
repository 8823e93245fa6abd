"""Overrides: an operation whose gradient a registered rule replaces
(``overrides={"floor": "identity"}``, `symdiff.gradient_override`)."""
from __future__ import annotations

from ..controls import registered_rule
from ..ir.nodes import FreeVar
from ..rules.opaque import call_inputs


def override_rule(name):
    """The rule for an op whose gradient is overridden by registered rule ``name``."""
    if name == "identity":
        return _identity
    rule = registered_rule(name)

    def apply(r, op, g):
        fn = FreeVar(getattr(rule, "__name__", "rule"), rule)
        inputs = call_inputs(op)  # (an opaque call's function is no input)
        skipped = [None] * (len(op.args) - len(inputs))
        what = _named(op)
        with r.b.noting(f"gradient of {what} overridden by {name!r} "
                        f"({getattr(rule, '__qualname__', name)})"):
            grads = r.b.op("apply_rule", fn, g, *inputs, hint=what.split(".")[-1] + "_grads")
            return skipped + [r.b.op("getitem", grads, i) if r.wants(x) else None
                              for i, x in enumerate(inputs)]
    return apply


def _identity(r, op, g):
    inputs = call_inputs(op)
    skipped = [None] * (len(op.args) - len(inputs))
    with r.b.noting(f"gradient of {_named(op)} overridden by 'identity'"):
        passed = r.b.op("pass_gradient", g, hint=inputs[0].hint + "_bar"
                        if hasattr(inputs[0], "hint") else None)
    return skipped + [r.unbroadcast(passed, inputs[0])] + [None] * (len(inputs) - 1)


def _named(op):
    """The overridden function's name: the primitive's, or the function an
    opaque call calls."""
    return op.param("func") if op.prim == "opaque_call" else op.prim
