"""The primitive catalogue: every operation the IR knows, and how it is spelled.

One line a primitive: its NumPy signature (operands before ``;``, compile-time
parameters after it, ``*name`` for a sequence of operands) and how generated
code spells it. Derivatives live in ``rules/``; this module knows no calculus.
"""
from __future__ import annotations

import ast
import contextlib
import contextvars
import re
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Prim:
    name: str
    operands: tuple      # operand names; a leading "*" marks a sequence
    params: tuple        # ((name, default), ...) compile-time constants
    spelling: tuple      # how emit writes it, see emit.py


def _parse(sig):
    name, rest = sig.split("(", 1)
    rest = rest[:-1]
    ops_text, _, params_text = rest.partition(";")
    operands = tuple(o.strip() for o in ops_text.split(",") if o.strip())
    params = []
    for item in re.split(r",\s*(?=\w+=)", params_text):
        if item.strip():
            key, default = item.split("=")
            params.append((key.strip(), ast.literal_eval(default.strip())))
    return name.strip(), operands, tuple(params)


def _table(spelling, *sigs):
    out = {}
    for sig in sigs:
        name, operands, params = _parse(sig)
        form = spelling(name) if callable(spelling) else spelling
        out[name] = Prim(name, operands, params, form)
    return out


def _binop(op):
    return lambda name: ("binop", op)


PRIMS = {}
# ---- arithmetic operators -------------------------------------------------
for _sig, _op in [("add(a, b)", ast.Add), ("subtract(a, b)", ast.Sub),
                  ("multiply(a, b)", ast.Mult), ("divide(a, b)", ast.Div),
                  ("power(a, b)", ast.Pow), ("matmul(a, b)", ast.MatMult),
                  ("bitwise_and(a, b)", ast.BitAnd), ("bitwise_or(a, b)", ast.BitOr),
                  ("bitwise_xor(a, b)", ast.BitXor),
                  ("floor_divide(a, b)", ast.FloorDiv), ("mod(a, b)", ast.Mod)]:
    PRIMS.update(_table(("binop", _op), _sig))
PRIMS.update(_table(("unary", ast.USub), "negative(a)"))
PRIMS.update(_table(("unary", ast.Invert), "invert(a)"))
# ---- comparisons ----------------------------------------------------------
for _sig, _op in [("greater(a, b)", ast.Gt), ("greater_equal(a, b)", ast.GtE),
                  ("less(a, b)", ast.Lt), ("less_equal(a, b)", ast.LtE),
                  ("equal(a, b)", ast.Eq), ("not_equal(a, b)", ast.NotEq)]:
    PRIMS.update(_table(("compare", _op), _sig))
# ---- NumPy functions, spelled np.NAME(...) ---------------------------------
PRIMS.update(_table(lambda n: ("np", n),
    # elementwise, one operand
    "exp(a)", "exp2(a)", "expm1(a)", "log(a)", "log2(a)", "log10(a)",
    "log1p(a)", "sqrt(a)", "cbrt(a)", "square(a)", "reciprocal(a)", "abs(a)",
    "sin(a)", "cos(a)", "tan(a)", "arcsin(a)", "arccos(a)", "arctan(a)",
    "sinh(a)", "cosh(a)", "tanh(a)", "arcsinh(a)", "arccosh(a)", "arctanh(a)",
    "sinc(a)", "deg2rad(a)", "rad2deg(a)",
    # elementwise, two or three operands
    "arctan2(a, b)", "hypot(a, b)", "logaddexp(a, b)", "logaddexp2(a, b)",
    "maximum(a, b)", "minimum(a, b)", "fmax(a, b)", "fmin(a, b)",
    "clip(a, a_min, a_max)", "where(condition, a, b)",
    # zero derivative
    "sign(a)", "floor(a)", "ceil(a)", "trunc(a)", "rint(a)", "round(a; decimals=0)",
    "isnan(a)", "isinf(a)", "isfinite(a)", "heaviside(a, b)",
    "logical_and(a, b)", "logical_or(a, b)", "logical_xor(a, b)", "logical_not(a)",
    "zeros_like(a)", "ones_like(a)", "full_like(a, fill_value)",
    "shape(a)", "ndim(a)", "size(a)",
    # reductions
    "sum(a; axis=None, keepdims=False)", "mean(a; axis=None, keepdims=False)",
    "prod(a; axis=None, keepdims=False)", "max(a; axis=None, keepdims=False)",
    "min(a; axis=None, keepdims=False)",
    # linear algebra and shape
    "dot(a, b)", "outer(a, b)", "inner(a, b)", "vdot(a, b)", "transpose(a; axes=None)",
    "reshape(a, shape)", "ravel(a)", "expand_dims(a; axis=None)",
    "squeeze(a; axis=None)", "broadcast_to(a, shape)", "swapaxes(a; axis1=None, axis2=None)",
    "concatenate(*arrays; axis=0)", "stack(*arrays; axis=0)",
    "hstack(*arrays)", "vstack(*arrays)",
))
PRIMS.update(_table(("np.linalg", "norm"), "norm(x; ord=None, axis=None, keepdims=False)"))
# ---- Python builtins and syntax --------------------------------------------
PRIMS.update(_table(("attr", "T"), "T(a)"))
# np.shape(x) costs ~0.3 us, x.shape ~0.05 us: loops save shapes of arrays so
PRIMS.update(_table(("attr", "shape"), "array_shape(a)"))
PRIMS.update(_table(("call", "len"), "len(a)"))
PRIMS.update(_table(("call", "float"), "float(a)"))
PRIMS.update(_table(("subscript",), "getitem(a, *index)"))
PRIMS.update(_table(("slice",), "slice(start, stop, step)"))
PRIMS.update(_table(("tuple",), "tuple(*items)"))
PRIMS.update(_table(("np", "array"), "array(*items)"))
# any other NumPy function, for values that need no gradient (np.arange, ...)
PRIMS.update(_table(("npcall",), "npcall(*args; func='', kwargs=())"))
# ---- runtime helpers (symdiff/runtime.py), written into generated modules --
PRIMS.update(_table(lambda n: ("helper", "_" + n),
    "sum_to(a, like)", "unindex(g, like, *index)", "unindex_add(g, like, *index)",
    "unindex_sum(a, b, like, *index)",
    "matmul_adjoint_a(g, a, b)", "matmul_adjoint_b(g, a, b)",
    "matmul_adjoint_a_sum(parts, a)", "matmul_adjoint_b_sum(parts, b)",
    "dot_adjoint_a(g, a, b)", "dot_adjoint_b(g, a, b)",
    "unreduce(g, like; axis=None, keepdims=False)",
    "prod_adjoint(g, a; axis=None, keepdims=False)",
    "step(a, b)", "ties(hits, like; axis=None)",
    "require_scalar(a, *more; message='')",
    "require_float(a, *more; message='', messages=())",
    "scalar_predicate(a; message='')",
))
# values passed through unchanged at run time, with special derivatives
PRIMS.update(_table(("identity",), "stop_gradient(a)", "straight_through(fwd, bwd)",
                    "backward_as(value, clean)", "custom_value(value, *inputs; rule='')"))
PRIMS.update(_table(("helper", "_apply_rule"), "apply_rule(rule, g, *inputs)"))
# a gradient passed on unchanged, kept as its own line to carry its comment
PRIMS.update(_table(("identity",), "pass_gradient(a)"))

# NumPy spellings that name the same primitive.
ALIASES = {
    "absolute": "abs", "fabs": "abs", "true_divide": "divide", "amax": "max",
    "amin": "min", "around": "round", "round_": "round", "concat": "concatenate",
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "pow": "power",
    "permute_dims": "transpose", "conjugate": None,
}

# Attributes of arrays that are primitives of one operand.
ARRAY_ATTRIBUTES = {"T": "T", "shape": "shape", "ndim": "ndim", "size": "size"}

# Array methods: method name -> primitive (the array is the first operand).
ARRAY_METHODS = {
    "sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "min": "min",
    "dot": "dot", "reshape": "reshape", "transpose": "transpose",
    "ravel": "ravel", "flatten": "ravel", "squeeze": "squeeze",
    "clip": "clip", "round": "round", "swapaxes": "swapaxes",
}

# Python's own functions that stand for a primitive.
BUILTINS = {"abs": "abs", "len": "len", "float": "float", "max": "maximum",
            "min": "minimum", "round": "round"}

# math.NAME -> primitive: the scalar functions of the math module.
MATH = {"sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos",
        "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
        "asinh", "acosh", "atanh", "hypot", "floor", "ceil", "trunc", "fabs"}


# ---- calls kept for what they do, not for a value -------------------------------
# ``print(...)``, ``logging.info(...)``, ``log.warning(...)``: made on demand, one
# primitive per spelling of the callee, so generated code calls exactly what the
# user called. They run in the forward pass only and have no derivative (their
# operands are stop_gradient values). ``str(x)`` and the ``'{}'.format(x)`` an
# f-string becomes are calls of the same kind that are pure. Their names start
# with "_call ": not ops a gradient override can name.
EFFECTS = set()   # names of the call primitives kept for their side effect
_CALL = "_call "
_calls_lock = threading.Lock()
_users = {}       # call primitive -> how many compiles now use it
_scope = contextvars.ContextVar("symdiff_call_scope", default=None)


@contextlib.contextmanager
def call_scope():
    """The call primitives made inside exist until the compile that made them
    ends: a name reserved for one function's generated code (``log`` of
    ``log.info``) must not be reserved for the next one's."""
    made = set()
    token = _scope.set(made)
    try:
        yield
    finally:
        _scope.reset(token)
        global PRIMS
        with _calls_lock:
            gone = set()
            for name in made:
                _users[name] -= 1
                if not _users[name]:
                    del _users[name]
                    gone.add(name)
            if gone:  # a new dict: code iterating over the old one is not disturbed
                PRIMS = {k: v for k, v in PRIMS.items() if k not in gone}
                EFFECTS.difference_update(gone)


def call_prim(spelled, effect):
    """The primitive calling ``spelled`` (e.g. ``"print"``, ``"log.info"``)."""
    name = _CALL + spelled
    root = spelled.split(".")[0]
    names = {name: Prim(name, ("*args",), (), ("helper", spelled))}
    if root.isidentifier():  # generated code must not use the callee's name
        names[_CALL + root] = Prim(_CALL + root, ("*args",), (), ("helper", root))
    made = _scope.get()
    global PRIMS
    with _calls_lock:
        new = {k: v for k, v in names.items() if k not in PRIMS}
        if new:
            PRIMS = {**PRIMS, **new}
        if effect:
            EFFECTS.add(name)
        if made is not None:
            for key in names:
                if key not in made:
                    made.add(key)
                    _users[key] = _users.get(key, 0) + 1
    return PRIMS[name]


# Checks of an input (the generated code raises a clear error): kept even when
# nothing reads their result, like the calls above.
CHECKS = frozenset({"require_float", "require_scalar"})


def is_effect(name):
    """Whether ``name`` is run for what it does, not for its value: a call kept
    for its side effect (print, logging) or a check of an input."""
    return name in EFFECTS or name in CHECKS


def is_call(name):
    """Whether ``name`` is a `call_prim` (its spelling is not a runtime helper)."""
    return name.startswith(_CALL)


def lookup(name):
    """The primitive NumPy calls ``name``, or None."""
    name = ALIASES.get(name, name)
    return PRIMS.get(name) if name else None
