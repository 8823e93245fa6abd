"""The primitives by which users change how gradients flow: stop_gradient,
straight_through, backward_as and custom_gradient calls. At run time each is
its first operand (generated code spells it as that value); their meaning is
in their derivatives. Overrides by registered rules are applied in ad/."""
from __future__ import annotations

from ..ir.primitive import ELEMENTWISE, NEW, define, like
from .derive import refused, second_tangent


def straight_through_rule(r, op, g):
    return [None, r.unbroadcast(g, op.args[1])]   # the value's, the other's derivative


def backward_as_rule(r, op, g):
    return [None, r.unbroadcast(g, op.args[1])]   # downstream saw `clean`: so does this


def custom_value_rule(r, op, g):
    """A custom_gradient call: its ``backward(g)``, lowered by the frontend
    where this builds (`Builder.customs` holds it)."""
    backward = r.b.customs[op.target]
    with r.b.noting(backward.note):
        grads = backward(g)
        return [None] + [r.unbroadcast(grad, x) if grad is not None and r.wants(x) else None
                         for x, grad in zip(op.args[1:], grads)]


define("stop_gradient(a)", ("identity",), ELEMENTWISE, zero=True)
define("straight_through(fwd, bwd)", ("identity",), like(0), reverse=straight_through_rule,
       forward=second_tangent)
define("backward_as(value, clean)", ("identity",), like(0), reverse=backward_as_rule,
       forward=second_tangent)
define("custom_value(value, *inputs; rule='')", ("identity",), like(0),
       reverse=custom_value_rule,
       forward=refused("a custom_gradient function defines only its reverse derivative "
                       "(its backward), so forward mode (jvp) cannot go through it",
                       "use symdiff.grad, vjp, jacobian or hessian, which use the backward"))
# a gradient passed on unchanged, kept as its own line to carry its comment
define("pass_gradient(a)", ("identity",), like(0), passes=True)
# a registered rule called on a gradient (an override)
define("apply_rule(rule, g, *inputs)", ("helper", "_apply_rule"), NEW,
       read_back_as="a call of the rule (frontend/gradient_calls.py)")
