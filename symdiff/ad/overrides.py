"""Overrides: an operation whose gradient a registered rule replaces
(``overrides={"floor": "identity"}``, `symdiff.gradient_override`)."""
from __future__ import annotations

from ..controls import registered_rule
from ..ir.nodes import FreeVar


def override_rule(name):
    """The rule for an op whose gradient is overridden by registered rule ``name``."""
    if name == "identity":
        return _identity
    rule = registered_rule(name)

    def apply(r, op, g):
        fn = FreeVar(getattr(rule, "__name__", "rule"), rule)
        with r.b.noting(f"gradient of {op.prim} overridden by {name!r} "
                        f"({getattr(rule, '__qualname__', name)})"):
            grads = r.b.op("apply_rule", fn, g, *op.args, hint=op.prim + "_grads")
            return [r.b.op("getitem", grads, i) if r.wants(x) else None
                    for i, x in enumerate(op.args)]
    return apply


def _identity(r, op, g):
    with r.b.noting(f"gradient of {op.prim} overridden by 'identity'"):
        passed = r.b.op("pass_gradient", g, hint=op.args[0].hint + "_bar"
                        if hasattr(op.args[0], "hint") else None)
    return [r.unbroadcast(passed, op.args[0])] + [None] * (len(op.args) - 1)
