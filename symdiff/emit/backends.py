"""Generated code for arrays of other libraries: the array API standard's
spelling, and what each library spells its own way (docs/backends.md).

A gradient specialised for Dask, JAX, CuPy, PyTorch or array-api-strict
arrays is the NumPy one written with the standard's names (``np.concat``,
``np.permute_dims``, ``np.sum(x, axis=0)`` for ``x.sum(axis=0)``); the
loader binds ``np`` to the library's array API namespace
(runtime/namespaces.py). What the standard does not have is spelled per
library here, or refused at compile time with the library named: never a
silent fallback to NumPy.
"""
from __future__ import annotations

import ast

from .layout import wrap

# The array API standard's functions and constants (2023.12), as
# array-api-strict has them.
STANDARD = frozenset("""
abs acos acosh add all any arange argmax argmin argsort asarray asin asinh astype atan atan2
atanh bitwise_and bitwise_invert bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor
bool broadcast_arrays broadcast_shapes broadcast_to can_cast ceil clip complex128 complex64
concat conj copysign cos cosh count_nonzero cumulative_prod cumulative_sum diff divide e empty
empty_like equal exp expand_dims expm1 eye finfo flip float32 float64 floor floor_divide full
full_like greater greater_equal hypot iinfo imag inf int16 int32 int64 int8 isdtype isfinite
isin isinf isnan less less_equal linspace log log10 log1p log2 logaddexp logical_and
logical_not logical_or logical_xor matmul matrix_transpose max maximum mean meshgrid min
minimum moveaxis multiply nan negative newaxis nextafter nonzero not_equal ones ones_like
permute_dims pi positive pow prod real reciprocal remainder repeat reshape result_type roll
round searchsorted sign signbit sin sinh sort sqrt square squeeze stack std subtract sum take
take_along_axis tan tanh tensordot tile tril triu trunc uint16 uint32 uint64 uint8 unstack var
vecdot where zeros zeros_like linalg
""".split())
LINALG = frozenset("cholesky det inv slogdet eigh qr svd solve matrix_norm vector_norm".split())

# NumPy's name -> the standard's, for the same function.
RENAMES = {"concatenate": "concat", "transpose": "permute_dims", "power": "pow",
           "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arctan2": "atan2",
           "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "absolute": "abs",
           "invert": "bitwise_invert", "cumsum": "cumulative_sum", "cumprod": "cumulative_prod",
           "array": "asarray"}

# Array methods NumPy code calls -> the standard's function (x.sum() is np.sum(x)).
METHODS = {"sum": "sum", "prod": "prod", "max": "max", "min": "min", "mean": "mean",
           "std": "std", "var": "var", "any": "any", "all": "all", "reshape": "reshape",
           "astype": "astype", "clip": "clip", "cumsum": "cumulative_sum",
           "cumprod": "cumulative_prod", "argmax": "argmax", "argmin": "argmin"}

# Runtime helpers whose NumPy-only calls (np.shape, np.ndim) are reached only
# for Python numbers and lists, never for arrays: they run on any library.
# (Any other helper is read for the names it calls: see pipeline._for_backend.)
CHECKS = frozenset({"_require_scalar", "_require_float", "_scalar_predicate"})
# Helpers read for the paths specialised code takes: a loop's gradients of
# ``W @ h`` gathered as one product of stacked vectors (np.stack, .T, @); the
# helpers they fall back to for other ranks are NumPy's (they raise there).
REVIEWED = CHECKS | {"_matmul_adjoint_a_sum", "_matmul_adjoint_b_sum", "_gathered",
                     "_stacked_sum"}

# NumPy's creation functions make float64 by default; the standard's make
# the library's default float (float32 in PyTorch and JAX): say it.
_DEFAULT_FLOAT = ("zeros", "ones", "empty", "eye", "linspace")
# Arrays made from nothing, on the library's default device unless told.
_CREATED = _DEFAULT_FLOAT + ("full", "arange", "asarray")


class Backend:
    """What the code for one library needs: its name in messages, whether its
    arrays are immutable (JAX: ``x.at[i].set(v)``), whether ``x.size`` is a
    method (PyTorch), and the names it has beyond the standard, with the
    same meaning as NumPy's."""

    def __init__(self, name, module, immutable=False, size_method=False, devices=False,
                 extra=()):
        self.name, self.module = name, module
        self.immutable, self.size_method = immutable, size_method
        self.devices = devices  # arrays made from nothing need device= (GPUs)
        self.names = STANDARD | frozenset(extra)


BACKENDS = {
    "array_api_strict": Backend("array-api-strict", "array_api_strict"),
    "dask": Backend("Dask", "array_api_compat.dask.array"),
    "jax": Backend("JAX", "jax.numpy", immutable=True, extra=("pad",)),  # (_padded)
    "torch": Backend("PyTorch", "array_api_compat.torch", size_method=True, devices=True),
    "cupy": Backend("CuPy", "array_api_compat.cupy", devices=True),
}


def _np(alias, name):
    return ast.Attribute(ast.Name(alias, ast.Load()), name, ast.Load())


class Respell(ast.NodeTransformer):
    """An expression in NumPy's spelling -> the standard's, for ``backend``."""

    def __init__(self, backend, alias, device=None):
        self.backend, self.alias = backend, alias
        self.device = device  # an argument whose device new arrays are made on

    def _is_np(self, node):
        return isinstance(node, ast.Name) and node.id == self.alias

    def _is_module(self, node):
        """``math`` of ``math.prod``, ``np.linalg`` (not an array's methods)."""
        return isinstance(node, ast.Name) and node.id == "math" or \
            isinstance(node, ast.Attribute) and self._is_np(node.value)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in METHODS and \
                not self._is_np(func.value) and not self._is_module(func.value):
            args = node.args
            if func.attr == "reshape" and len(args) > 1:  # x.reshape(3, 4)
                args = [ast.Tuple(args, ast.Load())]
            keywords = [ast.keyword("correction", k.value) if k.arg == "ddof" else k
                        for k in node.keywords]
            return ast.Call(_np(self.alias, METHODS[func.attr]), [func.value] + args,
                            keywords)
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args:
            return ast.Call(_np(self.alias, "asarray"), [func.value],
                            [ast.keyword("copy", ast.Constant(True))])
        if isinstance(func, ast.Attribute) and func.attr == "copy" and \
                self._is_np(func.value) and len(node.args) == 1 and not node.keywords:
            return ast.Call(_np(self.alias, "asarray"), node.args,  # np.copy(x)
                            [ast.keyword("copy", ast.Constant(True))])
        if isinstance(func, ast.Attribute) and self._is_np(func.value):
            if func.attr == "fmax" and len(node.args) == 2 and not node.keywords:
                return self._fmax(*node.args)
            if func.attr == "heaviside" and len(node.args) == 2 and not node.keywords:
                return self._heaviside(*node.args)
            if func.attr in _DEFAULT_FLOAT and not any(k.arg == "dtype" for k in node.keywords):
                node.keywords.append(ast.keyword("dtype", _np(self.alias, "float64")))
            if func.attr in _CREATED and self.backend.devices and self.device and \
                    not any(k.arg == "device" for k in node.keywords):
                device = ast.Attribute(ast.Name(self.device, ast.Load()), "device", ast.Load())
                node.keywords.append(ast.keyword("device", device))
        return node

    def _fmax(self, a, b):
        """np.fmax(a, b): the larger, and not a NaN where the other is not."""
        larger = ast.Compare(a, [ast.Gt()], [b])
        if not isinstance(b, ast.Constant):
            nan_b = ast.Call(_np(self.alias, "isnan"), [b], [])
            larger = ast.BinOp(larger, ast.BitOr(), nan_b)
        return ast.Call(_np(self.alias, "where"), [larger, a, b], [])

    def _heaviside(self, x, h):
        """np.heaviside(x, h) (not in the array API): ``0.5 + 0.5 * sign(x)``
        where h is 1/2, NaN where x is NaN."""
        half = ast.BinOp(ast.Constant(0.5), ast.Add(), ast.BinOp(
            ast.Constant(0.5), ast.Mult(), ast.Call(_np(self.alias, "sign"), [x], [])))
        if isinstance(h, ast.Constant) and h.value == 0.5:
            return half
        at_zero = ast.Compare(x, [ast.Eq()], [ast.Constant(0)])
        return ast.Call(_np(self.alias, "where"), [at_zero, h, half], [])

    def visit_Subscript(self, node):
        """``np.s_[a, 1:]``, an index as a value: the tuple ``(a, slice(1, None))``."""
        self.generic_visit(node)
        if isinstance(node.value, ast.Attribute) and node.value.attr == "s_" and \
                self._is_np(node.value.value):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            parts = [ast.Call(ast.Name("slice", ast.Load()),
                              [p.lower or ast.Constant(None), p.upper or ast.Constant(None)]
                              + ([p.step] if p.step else []), [])
                     if isinstance(p, ast.Slice) else p for p in parts]
            return ast.Tuple(parts, ast.Load()) if isinstance(node.slice, ast.Tuple) \
                else parts[0]
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if self._is_np(node.value) and node.attr in RENAMES:
            return _np(self.alias, RENAMES[node.attr])
        if node.attr == "size" and self.backend.size_method and not self._is_np(node.value) \
                and isinstance(node.ctx, ast.Load):  # a tensor's size() is a method
            shape = ast.Attribute(node.value, "shape", ast.Load())
            return ast.Call(ast.Attribute(ast.Name("math", ast.Load()), "prod", ast.Load()),
                            [shape], [])
        return node


def respell(node, backend, alias, device=None):
    """``node`` (an expression) as ``backend``'s code reads it; arrays it
    makes from nothing go on the device of the argument named ``device``."""
    return Respell(backend, alias, device).visit(node)


def unsupported(text, backend, alias, rewritten=True):
    """The first name in ``text`` (generated code; ``rewritten=False``: a
    runtime helper's, which `in_place` does not rewrite) that ``backend``'s
    namespace does not have with NumPy's meaning, as ``(line, words)``; or
    None."""
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Attribute):
            continue
        inner = node.value
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and \
                inner.value.id == alias:  # np.linalg.inv, np.add.at, np.random.rand
            if inner.attr == "linalg" and node.attr in LINALG:
                continue
            if inner.attr == "add" and node.attr == "at" and backend.immutable and rewritten:
                continue  # x = x.at[i].add(g): see in_place()
            return node.lineno, f"`{alias}.{inner.attr}.{node.attr}`"
        if isinstance(inner, ast.Name) and inner.id == alias and node.attr not in backend.names:
            return node.lineno, f"`{alias}.{node.attr}`"
    return None


def in_place(text, alias):
    """JAX's arrays are immutable: ``x[i] = v`` is ``x = x.at[i].set(v)``,
    ``x[i] += v`` and ``np.add.at(x, i, v)`` are ``x = x.at[i].add(v)``."""
    lines = text.split("\n")
    edits = []
    for node in ast.walk(ast.parse(text)):
        target = index = value = None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            spot = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(spot, ast.Subscript) and isinstance(spot.value, ast.Name):
                target, index, value = spot.value.id, spot.slice, node.value
                how = "set" if isinstance(node, ast.Assign) else "add"
                if isinstance(node, ast.AugAssign) and not isinstance(node.op, ast.Add):
                    continue  # (generated code adds only)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                ast.unparse(node.value.func) == f"{alias}.add.at":
            target_node, index, value = node.value.args
            target, how = ast.unparse(target_node), "add"
        if target is None:
            continue
        new = f"{target} = {target}.at[{ast.unparse(index)}].{how}({ast.unparse(value)})"
        edits.append((node.lineno, node.end_lineno, node.col_offset, node.end_col_offset, new))
    for first, last, col, end, new in sorted(edits, reverse=True):
        head, tail = lines[first - 1][:col], lines[last - 1][end:]
        lines[first - 1:last] = wrap(head + new + tail) if not tail else [head + new + tail]
    return "\n".join(lines)
