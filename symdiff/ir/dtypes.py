"""What a specialised gradient knows of its values' dtypes (shapes.Facts).

From the arguments' dtypes (or Python types), by NumPy's own rules: a
ufunc's type resolution (Python numbers are weak, NumPy 2's promotion), a
reduction or a transpose keeps its operand's dtype, arithmetic promotes its
operands'. A dtype not known is None: then nothing relies on it.
"""
from __future__ import annotations

import numpy as np

from .indexing import index_tuple
from .nodes import Const
from .primitive import ARRAY, ELEMENTWISE, REDUCTION, TABLE


def promoted(atoms, facts, floating=False):
    """The dtype NumPy's arithmetic on values of ``atoms`` gives (Python
    numbers are weak), or None."""
    parts = []
    for atom in atoms:
        found = facts.dtype(atom)
        if found is None:
            return None
        parts.append(found(0) if isinstance(found, type) else found)
    if floating:
        parts.append(np.float16)  # a function that makes floats of integers (sqrt)
    if all(isinstance(p, (float, int, bool)) for p in parts):
        return type(sum(parts) + 0.0) if floating else type(sum(parts))
    try:
        return np.result_type(*parts)
    except TypeError:
        return None


def spelled_math(op, facts):
    """Whether generated code writes ``op`` with the `math` module: the user
    wrote it so (or it is part of the derivative of such a call: Op.math) and
    its operands are surely Python numbers. Never for a value that may be an
    array (``math.sin`` of an array raises where ``np.sin`` does not), nor for
    a NumPy scalar (whose type ``math.sin`` would change)."""
    return op.math and facts is not None and all(
        isinstance(found, type) and found in PYTHON_NUMBERS
        for found in map(facts.dtype, op.args))


# NumPy's functions that make an array of a dtype given by keyword (float64 if not)
_FILLED = frozenset({"zeros", "ones", "empty", "full", "eye", "identity", "tri"})
_SPACED = frozenset({"linspace", "logspace", "geomspace"})


def result_dtype(op, facts):
    record = TABLE.get(op.prim)
    if record is None:
        return None
    if spelled_math(op, facts):  # a Python number, as math's functions return
        return int if op.prim in _MATH_INTS else float
    if record.boolean:
        return np.dtype(bool)
    ufunc = getattr(np, op.prim, None) if record.shape == ELEMENTWISE else None
    if isinstance(ufunc, np.ufunc) and ufunc.nin == len(op.args) and ufunc.nout == 1:
        return _ufunc_dtype(ufunc, op, record, facts)
    if op.prim in ("len", "size", "ndim", "int"):
        return int
    if op.prim == "getitem":
        shape = facts.producer(op.args[0])
        if shape is not None and shape.prim in ("shape", "array_shape"):
            return int if len(op.args) == 2 and isinstance(op.args[1].value if hasattr(
                op.args[1], "value") else None, int) else None
        if index_tuple(facts, op.args[0]) is not None and shape.param("func") != "meshgrid":
            return np.dtype(np.intp)  # (np.triu_indices(n)[0], np.nonzero(x)[1])
        if index_tuple(facts, op.args[0]) is not None:  # (np.meshgrid's: its operands')
            return _as_numpy(promoted(shape.args, facts))
    if op.prim == "where":  # (an array, even of Python numbers: never a Python float)
        return _as_numpy(promoted(op.args[1:], facts))
    if op.prim == "logsumexp":  # (scipy's: floats of the operands' precision)
        return promoted(op.args, facts, floating=True)
    if "_adjoint_" in op.prim:  # (a product's adjoint: of g and the other operand)
        return promoted(op.args, facts)
    if op.prim == "round":  # (of a Python float: builtins.round's int, or np.round's float)
        found = facts.dtype(op.args[0])
        return found if isinstance(found, np.dtype) else None
    if op.prim == "output" and op.param("index") == 0:  # (cho_factor's c, potri's inverse)
        made = facts.producer(op.args[0])
        if made is not None and made.prim == "cho_factor":
            return promoted(made.args, facts, floating=True)
        if made is not None and made.prim in _LAPACK_PRECISION:
            return np.dtype(_LAPACK_PRECISION[made.prim])
    if op.prim == "output" and facts.producer(op.args[0]) is not None and \
            facts.producer(op.args[0]).prim in _REAL_RESULTS:  # (slogdet, eigh: floats)
        found = promoted(facts.producer(op.args[0]).args, facts, floating=True)
        return found if getattr(found, "kind", "") == "f" else None
    if op.prim in _LINEAR_ALGEBRA:  # (floats of the operands' precision, as LAPACK's)
        return promoted(op.args, facts, floating=True)
    if op.prim == "step":  # (a share: 0, 1/2 or 1 in the operands' precision)
        return promoted(op.args, facts, floating=True)
    if op.prim in ("full_like", "zeros_like", "ones_like"):  # (a's dtype, as an array)
        return _as_numpy(facts.dtype(op.args[0]))
    if op.prim == "unreduce":  # (g spread over like's shape: where both agree, that)
        found, like = _as_numpy(promoted(op.args, facts)), _as_numpy(facts.dtype(op.args[1]))
        return found if isinstance(found, np.dtype) and isinstance(like, np.dtype) \
            and found == like else None
    if op.prim in ("array", "stack", "concatenate", "hstack", "vstack", "column_stack",
                   "dstack") and op.param("dtype") is None and op.args:
        found = {_as_numpy(facts.dtype(a)) if op.prim != "array" else _row_dtype(facts, a)
                 for a in op.args}  # (items of one dtype: it; np.array's rows too)
        return found.pop() if len(found) == 1 and None not in found else None
    if op.prim == "astype" and not isinstance(facts.dtype(op.args[0]), type):
        return _named_dtype(op.param("dtype"))  # (of an array: that dtype)
    if op.prim == "npcall" and op.param("func") == "arange":
        given = dict(op.param("kwargs")).get("dtype")
        return np.dtype(given) if given is not None else _as_numpy(promoted(op.args, facts))
    if op.prim == "npcall" and op.param("func") in _SPACED:  # (floats, unless told)
        return _named_dtype(dict(op.param("kwargs")).get("dtype", "float64"))
    if op.prim == "npcall" and op.param("func") in _FILLED:
        given = dict(op.param("kwargs")).get(
            "dtype", None if op.param("func") == "full" else float)
        fill = op.args[1] if op.param("func") == "full" and len(op.args) > 1 else None
        if given is None and isinstance(fill, Const) and type(fill.value) is float:
            given = float  # (np.full(n, 0.0): float64, as a Python float fills)
        return np.dtype(given) if given is not None else None
    if record.shape == REDUCTION or record.moves is True or op.prim in _KEEPS_FLOATS:
        found = facts.dtype(op.args[0])  # (of floats: the same dtype)
        return found if found is not None and not isinstance(found, type) \
            and found.kind == "f" else None
    if op.prim not in _SAME_DTYPE and type(record.shape) is tuple and \
            record.shape[0] == "like" and record.shape[1] and record.result == ARRAY:
        # (a gradient placed in zeros of like's shape, `_unindex(1.0, V, 0)`: an
        # array of the gradient's and like's dtypes, runtime's _gradient_dtype)
        return _as_numpy(promoted(op.args[:record.shape[1] + 1], facts, floating=True))
    if op.prim in _SAME_DTYPE or type(record.shape) is tuple and record.shape[0] == "like" \
            and op.prim not in _NOT_ARITHMETIC:
        return promoted(op.args[:1], facts)
    if op.prim in _ARITHMETIC:  # (NumPy's functions: NumPy values of Python numbers)
        found = promoted(op.args, facts)
        return found if op.prim in _PYTHON_OPERATORS else _as_numpy(found)
    if record.shape == ELEMENTWISE and record.formula is not None \
            and op.prim not in _NOT_ARITHMETIC:
        return promoted(op.args, facts, floating=True)
    return None


def _row_dtype(facts, atom):
    """The dtype of an item of np.array([...]): a value's, or a row's (a tuple
    of numbers, ``(c, -s, 0.0)``) whose items share one."""
    value = getattr(atom, "value", None)
    made = facts.producer(atom) if not hasattr(atom, "value") else None
    items = value if isinstance(value, tuple) else made.args \
        if made is not None and made.prim == "tuple" else None
    if items is None:
        return _as_numpy(facts.dtype(atom))
    found = {_as_numpy(type(i) if isinstance(i, (int, float)) else facts.dtype(i))
             for i in items}
    return found.pop() if len(found) == 1 and None not in found else None


def _named_dtype(name):
    try:
        return np.dtype(name) if name is not None else None
    except TypeError:
        return None


def _as_numpy(found):
    """The dtype NumPy gives a value of ``found`` (a Python type: a number)."""
    if isinstance(found, type) and found in PYTHON_NUMBERS:
        return np.dtype({float: np.float64, int: np.int64, bool: np.bool_}[found])
    return found


def _ufunc_dtype(ufunc, op, record, facts):
    """What NumPy's type resolution gives (Python numbers are weak); an
    operator on Python numbers gives a Python number."""
    found = [facts.dtype(a) for a in op.args]
    if any(f is None for f in found):
        return None
    if all(isinstance(f, type) for f in found) and record.spelling[0] in _OPERATORS:
        try:
            return type(_python_result(op.prim, found))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return None
    try:
        return ufunc.resolve_dtypes(tuple(found) + (None,))[-1]
    except (TypeError, AttributeError, ValueError):  # (NumPy before 1.24: no resolve_dtypes)
        return None


def _python_result(prim, kinds):
    """The Python type of an operator on Python numbers of ``kinds``."""
    if prim in ("divide", "true_divide"):
        return 1.0
    samples = [k(1) for k in kinds]
    return {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
            "multiply": lambda a, b: a * b, "power": lambda a, b: a ** b,
            "mod": lambda a, b: a % b, "floor_divide": lambda a, b: a // b,
            "negative": lambda a: -a, "positive": lambda a: +a}.get(
                prim, lambda *a: 1.0)(*samples)


_OPERATORS = ("binop", "unary", "compare")
PYTHON_NUMBERS = (float, int, bool)
_MATH_INTS = frozenset({"floor", "ceil", "trunc"})  # math.floor(x) is an int
# what keeps the dtype of its (first) operand, what promotes the operands' dtypes
_SAME_DTYPE = frozenset({"getitem", "T", "transpose", "reshape", "expand_dims", "squeeze",
                         "stop_gradient", "ravel", "copy", "asarray", "flip", "roll",
                         "matrix_transpose", "sum_to", "negative", "abs", "max", "min",
                         "as_columns", "from_columns"})
# what makes floats of floats of the same precision (an integer cumsum widens)
_KEEPS_FLOATS = frozenset({"cumsum", "cumprod", "diff", "sort", "triu", "tril", "diag",
                           "diagonal", "trace", "tile", "repeat", "pad", "broadcast_to",
                           "take", "take_along_axis"})
_PYTHON_OPERATORS = frozenset({"add", "subtract", "multiply"})  # (+, -, * of numbers)
_LINEAR_ALGEBRA = frozenset({"solve", "solve_triangular", "cho_solve", "cholesky",
                             "scipy_cholesky", "inv", "pinv", "det", "expm", "eigvalsh",
                             "svdvals", "matrix_norm"})
_LAPACK_PRECISION = {"dpotri": "float64", "spotri": "float32"}  # (LAPACK casts to it)
_REAL_RESULTS = frozenset({"slogdet", "eigh", "svd", "qr"})  # (of real matrices)
_ARITHMETIC = frozenset({"add", "subtract", "multiply", "where", "maximum", "minimum",
                         "matmul", "dot", "clip", "fmax", "fmin", "einsum", "outer",
                         "inner", "vdot", "tensordot", "kron", "concatenate", "stack",
                         "convolve", "correlate", "cross", "matrix_power"})


# elementwise, but not arithmetic on floats (a float's sign bit, a test)
_NOT_ARITHMETIC = frozenset({"isnan", "isinf", "isfinite", "signbit", "floor_divide",
                             "require_scalar", "require_float", "unreduce", "full_like",
                             "zeros_like", "ones_like", "astype"})
