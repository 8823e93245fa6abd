"""The primitives the IR is made of: one record each, in one table.

A `Primitive` holds everything about an operation: its NumPy signature, how
user code may spell it (aliases, array methods and attributes, `math`
functions) and how generated code spells it, how the shape of its result
follows from its operands' (`shape`), its reverse and forward derivative
rules, and its flags. The records are written in ``symdiff/rules/``, one
file per family of operations, with the rules next to them; the IR and
every stage read them from `TABLE`. Adding a primitive is one `define`.

The IR knows nothing of NumPy's mathematics: it only reads the records.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

# How the shape of a result follows from the operands' (read by ir/shapes.py).
ELEMENTWISE = "elementwise"  # the operands broadcast together
REDUCTION = "reduction"      # over ``axis`` (None: all), with ``keepdims``
SCALAR = "scalar"            # always a scalar (a number, a 0-d array)
INDEX = "index"              # x[index]: what the index keeps of x's shape
NEW = "new"                  # a shape of its own, not known from the operands


def like(position):
    """The result has the shape of operand ``position``."""
    return ("like", position)


# What the result is (read where generated code calls array methods on it).
ARRAY = "array"            # always a NumPy array or NumPy scalar
OPERANDS = "operands"      # a NumPy value when an operand is one (x + 1.0)
FIRST = "first"            # a NumPy value when its first operand is one (x[i])
SIZED = "sized"            # a NumPy array when it has at least one axis
OTHER = "other"            # a Python number, tuple, string...: not known
_RESULTS = {"np": ARRAY, "np.linalg": ARRAY, "attr": ARRAY, "binop": OPERANDS,
            "compare": OPERANDS, "unary": FIRST, "identity": FIRST, "subscript": FIRST}


@dataclass(frozen=True, eq=False)
class Formula:
    """An elementwise function as one SymPy formula over operands ``a`` (and
    ``b``); SymPy derives its partial derivatives unless ``partials`` gives
    them (over ``a``, ``b`` and the result ``out``) where a better form
    exists. ``safe`` is, per operand, a value inside the function's domain
    (None: every value is), which `where` puts in a branch not taken."""

    formula: str
    partials: tuple = ()
    safe: tuple = ()


@dataclass(frozen=True, eq=False)
class Primitive:
    name: str
    operands: tuple            # operand names; a leading "*" marks a sequence
    params: tuple              # ((name, default), ...): compile-time constants
    spelling: tuple            # how generated code writes it (emit/spelling.py)
    shape: object              # ELEMENTWISE, REDUCTION, ..., like(k), or op, facts -> key
    pattern: object = None     # op, facts -> the result's shape pattern (ir/patterns.py)
    reverse: object = None     # rule(r, op, g) -> [adjoint or None, per operand]
    forward: object = None     # rule(b, op, tangents) -> the result's tangent or None
    formula: Formula | None = None   # elementwise: derivatives from SymPy
    linear: tuple = ()         # operand positions it is jointly linear in (forward derived)
    multilinear: bool = False  # linear in each operand separately (a product)
    zero: bool = False         # derivative zero wherever it exists (floor, >)
    passes: bool = False       # its value and gradient are its first operand's
    moves: object = False      # each entry of the result is one of its first operand's,
    #                            each of those once (reshape, transpose, roll, flip);
    #                            "all": of one of its operands (concatenate, stack)
    masks: bool = False        # its first operand with some entries zero, in place (triu):
    #                            shaped like it, where its rank is known to be 2 or more
    effect: bool = False       # run for what it does (print, input checks)
    boolean: bool = False      # the result is boolean (a mask)
    result: str = OTHER        # ARRAY, OPERANDS, FIRST, SIZED or OTHER (see above)
    makes_arrays: bool = False  # a 0-d array even from Python scalars (np.where)
    aliases: tuple = ()        # other NumPy names (np.absolute for abs)
    methods: tuple = ()        # array methods that call it (x.sum())
    attribute: str = ""        # the array attribute that is it (x.T)
    math: tuple = ()           # names of the math module's functions that are it
    # A primitive with several results (np.linalg.eigh): the shape behaviour of
    # each; its value is a tuple, read by `output` operations (rules/outputs.py).
    outputs: tuple = ()
    output_names: tuple = ()   # their names as attributes of the result (NumPy 2's eigh)
    output_patterns: object = None  # op, facts -> the shape pattern of each result
    leading: tuple = ()        # parameters written before the operands (einsum's subscripts)
    paired: str = ""           # a parameter written with the first operand (cho_solve)
    # Generated code calls it, and reading such code back the frontend writes
    # it out as what it stands for (so it never reaches the AD stage): what.
    read_back_as: str = ""
    doc: str = field(default="", compare=False)


TABLE = {}          # name -> Primitive
_NAMES = {}         # name or alias -> name (the names overrides may use)
_FUNCTIONS = {}     # (module, function name or alias) -> name
_METHODS = {}       # array method -> name
_ATTRIBUTES = {}    # array attribute -> name
_MATH = {}          # math function -> name


# Spellings of functions of a module, and the module user code finds them in:
# ("np", "sum") is np.sum; ("module", "scipy.special", "gammaln") is
# scipy.special.gammaln (generated code imports scipy.special for it).
# An operator is a NumPy function too (np.add, np.negative, np.greater).
_SPELLED_MODULES = {"np": "numpy", "np.linalg": "numpy.linalg", "binop": "numpy",
                    "unary": "numpy", "compare": "numpy"}


def define(signature, spelling=None, shape=NEW, **fields):
    """Add the primitive ``signature`` (``"name(a, b; param=default, ...)"``:
    operands, then compile-time parameters) to the table; spelled
    ``np.name(...)`` unless ``spelling`` says otherwise. Returns the record."""
    name, operands, params = parse_signature(signature)
    if name in TABLE:
        raise ValueError(f"primitive {name!r} is defined twice")
    if spelling is None:
        spelling = ("np", name)
    fields.setdefault("result", ARRAY if spelling[0] == "module" else
                      _RESULTS.get(spelling[0], OTHER))
    prim = Primitive(name, operands, params, spelling, shape, **fields)
    TABLE[name] = prim
    _NAMES.setdefault(name, name)
    for alias in prim.aliases:
        _NAMES[alias] = name
    module = spelling[1] if spelling[0] == "module" else _SPELLED_MODULES.get(spelling[0])
    if module is not None:
        for spelled in (spelling[-1] if spelling[0] in ("np", "np.linalg", "module")
                        else name,) + prim.aliases:
            _FUNCTIONS[(module, spelled)] = name
    for method in prim.methods:
        _METHODS[method] = name
    if prim.attribute:
        _ATTRIBUTES[prim.attribute] = name
    for spelled in prim.math:
        _MATH[spelled] = name
    return prim


def parse_signature(signature):
    name, rest = signature.split("(", 1)
    ops_text, _, params_text = rest[:-1].partition(";")
    operands = tuple(o.strip() for o in ops_text.split(",") if o.strip())
    params = []
    for item in re.split(r",\s*(?=\w+=)", params_text):
        if item.strip():
            key, default = item.split("=", 1)
            params.append((key.strip(), ast.literal_eval(default.strip())))
    return name.strip(), operands, tuple(params)


def primitive(name):
    """The record of ``name`` (KeyError if there is none)."""
    return TABLE[name]


def named_primitive(name):
    """The primitive named (or aliased) ``name`` (``absolute`` is ``abs``), or None."""
    found = _NAMES.get(name)
    return TABLE[found] if found is not None else None


def function_primitive(module, name):
    """The primitive the function ``name`` of ``module`` is (``"numpy.linalg",
    "inv"``; ``"scipy.special", "gammaln"``), or None."""
    found = _FUNCTIONS.get((module, name))
    return TABLE[found] if found is not None else None


def function_modules():
    """The modules whose functions are primitives (``numpy``, ``scipy.special``...)."""
    return sorted({module for module, _ in _FUNCTIONS})


def module_functions(module):
    """The names of ``module``'s functions that are primitives (aliases too),
    each with its record: ``{"sum": <sum>, "norm.logpdf": <norm_logpdf>}``."""
    return {name: TABLE[prim] for (owner, name), prim in sorted(_FUNCTIONS.items())
            if owner == module}


def method_primitive(name):
    """The primitive the array method ``name`` calls, or None."""
    found = _METHODS.get(name)
    return TABLE[found] if found is not None else None


def attribute_primitive(name):
    found = _ATTRIBUTES.get(name)
    return TABLE[found] if found is not None else None


def math_primitive(name):
    found = _MATH.get(name)
    return TABLE[found] if found is not None else None


def method_names():
    return sorted(_METHODS)


def primitive_names():
    """Every name a primitive answers to (for messages and overrides)."""
    return sorted(_NAMES)


def is_effect(name):
    prim = TABLE.get(name)
    return prim is not None and prim.effect
