"""The checks generated gradients make of their inputs and outputs.

Runtime helpers like those of helpers.py (which imports them, so they are
helpers too): the command line copies their source into the modules it
writes, so each is plain NumPy and names only other helpers.
"""
import numpy as np


def _require_scalar(value, *more, message=""):
    """``value`` if it and ``more`` are scalars; an error at the function
    otherwise. They are the function's output, or the values whose shapes
    decide its shape (it broadcasts them): all scalars, or not a scalar.

    ``message`` is where the function is defined, ``"file.py:LINE:COL"``.
    """
    try:  # the common cases cheaply: floats, 0-d arrays and NumPy scalars
        if type(value) is float or value.ndim == 0:
            if not more:
                return value
            for other in more:
                if type(other) is not float and other.ndim != 0:
                    break
            else:
                return value
    except AttributeError:  # no ndim: an int, a bool, a list...
        pass
    values = (value,) + more
    shapes = [tuple(v.shape) if hasattr(v, "shape") else np.shape(v) for v in values]
    if any(shapes):
        _fail("NonScalarOutputError",
              f"{message}: grad needs a scalar output, but the function "
              f"returns an array of shape {_broadcast_shape(shapes)}",
              "use symdiff.jacobian for a vector output, or reduce it to a "
              "scalar (np.sum, np.mean)")
    return value


def _broadcast_shape(shapes):
    """The shape arrays of ``shapes`` broadcast to (an output's, from the
    shapes of the values it broadcasts)."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:  # not broadcast together after all: the largest
        return max(shapes, key=len)


def _require_float(value, *more, message="", messages=()):
    """``value`` if it and ``more`` are floating point; an error naming the
    first that is not otherwise.

    ``messages`` has one entry per value (``message`` is that of a lone
    value): where the argument is declared, then words naming it,
    ``"file.py:LINE:COL: argument `x`"``.
    """
    try:  # the common cases cheaply: floats, floating-point arrays
        if type(value) is float or value.dtype.kind == "f":
            if not more:
                return value
            for other in more:
                if type(other) is not float and other.dtype.kind != "f":
                    break
            else:
                return value
    except AttributeError:  # no dtype: an int, a bool, a list...
        pass
    values = (value,) + more
    for item, where in zip(values, messages or (message,) * len(values)):
        dtype = getattr(item, "dtype", None)
        if getattr(dtype, "kind", "") == "f":
            continue
        library = type(item).__module__.partition(".")[0]
        if dtype is not None and library != "numpy":
            # another library's array (torch.float32, array_api_strict.int64)
            name = str(dtype).rsplit(".", 1)[-1]
            if not name.startswith(("float", "bfloat")):
                _fail("NonFloatArgumentError",
                      f"{where} has dtype {name}; only floating-point "
                      "arguments can be differentiated",
                      "pass floating-point values: `x.astype(float)`")
            continue
        if dtype is None and not isinstance(item, (int, float, complex)):
            # a list would be added to itself, not elementwise: a wrong answer
            hint = "pass a NumPy array: `np.asarray(x, dtype=float)`"
            if isinstance(item, (list, tuple, dict)):
                hint = ("this function reads it as an array (x + y, x[0]); "
                        "a list, tuple or dict of arrays is differentiated "
                        "where the function reads its items (`params[\"W\"]`, "
                        "`for W, b in params:`). For an array: " + hint[5:])
            _fail("NonFloatArgumentError",
                  f"{where} is a {type(item).__name__}, not an array or a "
                  "number", hint)
        dtype = np.result_type(item)
        if dtype.kind != "f":
            _fail("NonFloatArgumentError",
                  f"{where} has dtype {dtype}; only floating-point "
                  "arguments can be differentiated",
                  "pass floating-point values: `x.astype(float)`, or `3.0` "
                  "instead of `3`")
    return value


def _scalar_predicate(value, message=""):
    """``value`` if it is a scalar truth value; an error at the condition.

    ``message`` is where the condition is, ``"file.py:LINE:COL"``.
    """
    # (a bool or a 0-d array cheaply; np.ndim only for what has no ndim)
    if type(value) is not bool and getattr(value, "ndim", None) != 0 \
            and (value.ndim if hasattr(value, "ndim") else np.ndim(value)) != 0:
        shape = tuple(value.shape) if hasattr(value, "shape") else np.shape(value)
        _fail("ArrayPredicateError",
              f"{message}: this condition is an array of shape "
              f"{shape}, but a branch (`if`, `a if c else b`, "
              "symdiff.cond) needs a single True or False",
              "use np.where(condition, a, b) for elementwise choices, or "
              "reduce the condition with np.all / np.any")
    return value


def _fail(kind, message, hint):
    """Raise the error a check found: ``kind`` names its class in
    symdiff.errors and ``message`` is ``"file.py:LINE:COL: text"``. (Written
    modules get a standalone version that raises their own classes of the
    same names and built-in bases.)"""
    try:  # inside symdiff: its own error class, located, with the source line
        from ..locations import located_error
    except ImportError:  # symdiff absent: still say where and how to fix it
        raise ValueError(f"{message}\nhint: {hint}") from None
    raise located_error(kind, message, hint)
