"""Calls symdiff cannot look into: a SciPy routine without a record
(``scipy.integrate.odeint``), a C extension, a callable object.

Such a call is computed as a value. It needs no derivative where no gradient
reaches it: inside a ``custom_gradient`` function's forward pass (whose
``backward`` gives the derivative), or on values that do not depend on what
is differentiated. A gradient that does reach it is a located error whose
hint shows the code that gives it one (`custom_gradient_hint`), unless an
override names the function (``overrides={scipy.special.zeta: "zeta_grad"}``).
"""
from __future__ import annotations

from ..ir.nodes import Const, FreeVar
from ..ir.primitive import NEW, define

# Operand 0 is the function itself (a global of the generated code), then the
# positional arguments, then the values of the keyword arguments ``keywords``
# names; ``func`` is the call as the user wrote its function, for messages.
define("opaque_call(function, *args; func='', keywords=())", ("call_operand",), NEW)


def call_inputs(op):
    """The operands of ``op`` a gradient rule is given: an opaque call's
    arguments, without the function."""
    return op.args[1:] if op.prim == "opaque_call" else op.args


def custom_gradient_hint(op, producer=lambda atom: None):
    """The code that gives the call ``op`` a gradient: a custom_gradient
    function around it, named after it, to call in its place (its inputs the
    call's values; constants and globals written as they are, tuples as
    tuples; ``producer(atom)`` is the op that made an atom)."""
    func = op.param("func") or op.prim
    if op.prim == "npcall":
        func = "np." + func
    elif op.prim != "opaque_call":
        func = f"np.{op.prim}"
    inputs = call_inputs(op)
    keywords = (op.param("keywords") or ()) if op.prim == "opaque_call" else ()
    names = []

    def spell(x, i):
        if isinstance(x, Const):
            return repr(x.value)
        if isinstance(x, FreeVar):
            return x.hint
        made = producer(x)
        if made is not None and made.prim == "tuple":
            items = [spell(item, f"{i}_{k}") for k, item in enumerate(made.args)]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        name = _name(x, i)
        name = name if name not in names else f"{name}_{i}"
        names.append(name)
        return name
    spelled = [spell(x, i) for i, x in enumerate(inputs)]
    positional = spelled[:len(spelled) - len(keywords)]
    call = ", ".join(positional + [f"{k}={v}" for k, v in
                                   zip(keywords, spelled[len(positional):])])
    return custom_gradient_snippet(func, names, call)


def custom_gradient_snippet(func, names, call, given=None):
    """The hint's code: ``func(call)`` in a custom_gradient function of
    ``names``, called with ``given`` (the call's own arguments, or ``names``)."""
    short = func.split(".")[-1]
    grads = ", ".join(f"g * d{short}_d{n}" for n in names) or "None"
    params = ", ".join(names)
    return (f"give it a gradient with @symdiff.custom_gradient, and call "
            f"{short}_with_gradient({params if given is None else given}) in its place:\n"
            f"    @symdiff.custom_gradient\n"
            f"    def {short}_with_gradient({params}):\n"
            f"        def backward(g):\n"
            f"            return {grads}  # your derivatives (None: no gradient)\n"
            f"        return {func}({call}), backward")


def _name(atom, index):
    hint = getattr(atom, "hint", None)
    return hint if isinstance(hint, str) and hint.isidentifier() else f"arg{index}"
