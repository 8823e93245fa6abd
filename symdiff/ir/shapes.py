"""What the compiler knows about values: their defining op and shape class.

A shape class is ``SCALAR`` (a 0-d value), or a representative `Var` whose
shape is shared by every value in its class. Two values in the same class
provably have the same shape, so their adjoints need no broadcasting helper.
A reduction with ``keepdims=True`` has the class ``("kept", x's class, axis)``:
it broadcasts against x's class to x's shape, and a gradient of x's class
goes back to it by the same reduction (``np.sum(g, axis=1, keepdims=True)``).
"""
from __future__ import annotations

import numpy as np

from . import patterns as pat
from .dtypes import PYTHON_NUMBERS, promoted, result_dtype, spelled_math
from .indexing import index_key, index_pattern, kept_again
from .nodes import Const, Var
from .primitive import (ARRAY, ELEMENTWISE, FIRST, INDEX, OPERANDS, REDUCTION, SCALAR,
                        SIZED, TABLE)


def is_elementwise(prim):
    """Whether primitive ``prim`` works entry by entry (its operands broadcast)."""
    record = TABLE.get(prim)
    return record is not None and record.shape == ELEMENTWISE


class Facts:
    """``signature``: parameter name -> `patterns.ArgSig`, the arguments a
    specialised gradient is compiled for (empty: the generic gradient)."""

    def __init__(self, signature=None):
        self.defs = {}    # Var -> Op that defines it
        self.shape = {}   # Var -> SCALAR or representative Var
        self.patterns = {SCALAR: ()}  # shape class -> its pattern (patterns.py), where known
        self.signature = dict(signature or {})
        self.kinds = {}   # parameter Var -> its ArgSig
        self.dtypes = {}  # Var -> its NumPy dtype, or float for a Python float

    def seed(self, params):
        """What the signature says of the function's parameters."""
        for param in params:
            self._seed(param, self.signature.get(param.hint))

    def seed_leaf(self, leaf, param, path):
        """What the signature says of the leaf at ``path`` of the container
        argument ``param`` (keyed ``(param, path)``: containers.py)."""
        self._seed(leaf, self.signature.get((param, path)))

    def _seed(self, var, sig):
        if sig is None:
            return
        self.kinds[var] = sig
        if sig.kind == "array":
            self.dtypes[var] = np.dtype(sig.dtype)
        elif sig.kind in ("float", "int", "bool"):
            self.dtypes[var] = {"float": float, "int": int, "bool": bool}[sig.kind]
        if sig.pattern == ():
            self.shape[var] = SCALAR
        elif sig.pattern is not None:
            self.patterns[self.key(var)] = sig.pattern

    def pattern(self, atom):
        """The shape pattern of ``atom`` (patterns.py), or None."""
        if isinstance(atom, Const):
            value = atom.value
            if isinstance(value, (int, float, bool)):
                return ()
            return pat.from_shape(value.shape) if isinstance(value, np.ndarray) else None
        return self.patterns.get(self.key(atom))

    def rank(self, atom):
        found = self.pattern(atom)
        return None if found is None else len(found)

    def floating(self, atom):
        """Whether ``atom`` is a parameter the signature says is floating point."""
        sig = self.kinds.get(atom)
        return sig is not None and sig.floating

    def fuses(self):
        """Whether the gradient is specialised for arrays of a library that
        fuses elementwise work and cannot write into arrays (patterns.FUSING)."""
        return any(sig.kind == "array" and sig.library in pat.FUSING
                   for sig in self.signature.values())

    def numpy_values(self):
        """The parameters the signature says are NumPy arrays or scalars."""
        return frozenset(v for v, sig in self.kinds.items() if sig.kind == "array")

    def key(self, atom):
        if isinstance(atom, Const):
            value = atom.value
            return SCALAR if isinstance(value, (int, float, bool)) else atom
        return self.shape.get(atom, atom)

    def same_shape(self, a, b):
        ka, kb = self.key(a), self.key(b)
        if ka == kb:
            return True
        # two classes whose patterns name every axis alike (x.sum(0) and
        # x.sum(1) of a square x): one shape, known from here on
        if isinstance(ka, Const) or isinstance(kb, Const):
            return False
        found = self.patterns.get(ka)
        if found and found == self.patterns.get(kb) and \
                all(n == 1 or pat.is_named(n) for n in found):
            self._unite(ka, kb)
            return True
        return False

    def spread_number(self, g):
        """c where ``g`` is the number c spread over an array (``np.full_like(t,
        c)``: np.sum's gradient, made by ``unreduce``), else None."""
        made = self.producer(g) if isinstance(g, Var) else None
        if made is not None and made.prim == "unreduce" and made.param("axis") is None \
                and self.is_scalar(made.args[0]):
            return made.args[0]
        return None

    def is_scalar(self, atom):
        key = self.key(atom)
        if key == SCALAR:
            return True
        try:
            return self.patterns.get(key) == ()
        except TypeError:  # a constant index (slices): not a number
            return False

    def result_dtype(self, op):
        """The dtype of ``op``'s result, where the operands' are known."""
        return result_dtype(op, self)

    def length(self, atom):
        """What the patterns say of the length ``atom`` holds (an entry of a
        pattern: 1, a name, N or None): ``x.shape[0]``, ``len(x)``, 5."""
        if isinstance(atom, Const):
            value = atom.value
            return None if not isinstance(value, int) or isinstance(value, bool) else \
                1 if value == 1 else pat.N
        op = self.producer(atom)
        if op is None:
            return None
        if op.prim == "len":
            found = self.pattern(op.args[0])
            return found[0] if found else None
        shaped = self.producer(op.args[0]) if op.prim == "getitem" and len(op.args) == 2 \
            else None
        if shaped is not None and shaped.prim in ("shape", "array_shape") \
                and isinstance(op.args[1], Const) and isinstance(op.args[1].value, int):
            found = self.pattern(shaped.args[0])
            i = op.args[1].value
            return found[i] if found is not None and -len(found) <= i < len(found) else None
        return None

    def record(self, op):
        self.defs[op.target] = op
        key = self._infer(op)
        found = self._infer_pattern(op) if self.signature else None
        if found == pat.CONFLICT:  # the operands do not broadcast: it raises, keep it
            op.effect, found = True, None
        if found == ():
            key = SCALAR
        elif found is not None and self.patterns.get(key) is None:
            self.patterns[key] = found
        self.shape[op.target] = key
        if self.signature:
            found = result_dtype(op, self)
            if found is not None:
                self.dtypes[op.target] = found

    def dtype(self, atom):
        """The dtype of ``atom`` (float, int or bool for a Python number),
        known in a specialised gradient from its arguments' dtypes; or None."""
        if isinstance(atom, Const):
            value = atom.value
            return type(value) if type(value) in PYTHON_NUMBERS else None
        return self.dtypes.get(atom)

    def is_float(self, atom):
        """Whether ``atom`` is surely floating point."""
        found = self.dtype(atom)
        return found is float or not isinstance(found, type) and found is not None \
            and found.kind == "f"

    def promoted(self, atoms):
        """The dtype of arithmetic on ``atoms`` (float for Python floats), or None."""
        return promoted(atoms, self)

    def same_dtype(self, atom, *atoms):
        """Whether NumPy's arithmetic on ``atom`` and ``atoms`` gives ``atom``'s dtype."""
        found = self.dtype(atom)
        made = promoted([atom, *atoms], self)
        return found is not None and made is not None and (
            made is found if isinstance(found, type) or isinstance(made, type)
            else made == found)

    def _infer_pattern(self, op):
        record = TABLE.get(op.prim)
        kind = record.shape if record is not None else None
        if record is not None and record.pattern is not None:
            return record.pattern(op, self)
        if kind == ELEMENTWISE:
            return pat.broadcast([self.pattern(a) for a in op.args])
        if type(kind) is tuple and kind[0] == "like":
            return self.pattern(op.args[kind[1]])
        if kind == REDUCTION:
            return pat.reduced(self.pattern(op.args[0]), op.param("axis"),
                               op.param("keepdims"))
        if kind == SCALAR:
            return ()
        if kind == INDEX:
            return index_pattern(self, op)
        return None

    def _infer(self, op):
        record = TABLE.get(op.prim)
        return self.infer(record.shape if record is not None else None, op)

    def infer(self, kind, op):
        """The shape class of ``op``'s result, for shape behaviour ``kind``."""
        if kind == ELEMENTWISE:
            return self.broadcast(op.target, *op.args)
        if type(kind) is tuple and kind[0] == "like":
            return self.key(op.args[kind[1]])
        if kind == REDUCTION:
            axis, keep = op.param("axis"), op.param("keepdims")
            if keep:
                return ("kept", self.key(op.args[0]), axis)
            if isinstance(axis, int) and not isinstance(axis, bool) and axis >= 0:
                return ("reduced", self.key(op.args[0]), axis)  # sum and max of one x
            return SCALAR if axis is None else op.target
        if kind == SCALAR:
            return SCALAR
        if kind == INDEX:
            return index_key(self, op)
        if callable(kind):
            return kind(op, self)
        return op.target

    def kept_again(self, value, index):
        """``m[:, None]`` of a value of the shape of ``np.max(x, axis=1)``: the
        shape class of ``np.max(x, axis=1, keepdims=True)`` (indexing.py)."""
        return kept_again(self, value, index)

    def broadcast(self, target, *args):
        keys = {self.key(a) for a in args} - {SCALAR}
        keys -= {k for k in keys if _kept(k) and k[1] in keys}  # x - max(x, keepdims)
        if not keys:
            return SCALAR
        if len(keys) == 1:
            return keys.pop()
        # the signature's patterns may show that operands have the result's shape
        result = pat.broadcast([self.pattern(a) for a in args])
        covering = [self.key(a) for a in args if pat.covers(self.pattern(a), result)]
        if not covering:
            return target
        for other in covering[1:]:  # (all of them: they have one shape)
            self._unite(covering[0], other)
        return self.key(args[[pat.covers(self.pattern(a), result) for a in args].index(True)])

    def _unite(self, key, other):
        """Values of class ``other`` have the shape of those of class ``key``."""
        if key == other or key == SCALAR or other == SCALAR:
            return
        for var, k in list(self.shape.items()):
            renamed = _renamed(k, other, key)
            if renamed is not k:
                self.shape[var] = renamed
        for k in list(self.patterns):
            renamed = _renamed(k, other, key)
            if renamed is not k and renamed not in self.patterns:
                self.patterns[renamed] = self.patterns[k]
        if isinstance(other, Var) and other not in self.shape:
            self.shape[other] = key

    def reduced_axis(self, value, like):
        """``(axis,)`` if ``like`` is a keepdims reduction of a value of
        ``value``'s class, so ``np.sum(value, axis, keepdims=True)`` has its shape."""
        key = self.key(like)
        return (key[2],) if _kept(key) and key[1] == self.key(value) else None

    def assume_scalar(self, atoms):
        """What a run-time check established: ``atoms`` are scalars, and so is
        every value provably of their shape (a keepdims reduction of one too)."""
        classes = {self.key(a) for a in atoms} - {SCALAR}
        for var, key in self.shape.items():
            if key in classes or _kept(key) and key[1] in classes:
                self.shape[var] = SCALAR
        self.shape.update((a, SCALAR) for a in atoms if isinstance(a, Var))

    def producer(self, atom):
        return self.defs.get(atom) if isinstance(atom, Var) else None

    def same_shaped(self, value, also=None, limit=16):
        """``value`` and the values it was computed from entry by entry, of its
        shape (operands of the elementwise operations that made it), first
        operands first: each gives its shape. The first without such operands
        ends the chain of first operands. ``also(a, b)``: operand ``a`` may
        stand for ``b`` (of the same dtype, say)."""
        found, stack = [], [value]
        while stack and len(found) < limit:
            current = stack.pop()
            if any(v is current for v in found):
                continue
            found.append(current)
            made = self.producer(current)
            if made is not None and is_elementwise(made.prim):
                stack += reversed([a for a in made.args if isinstance(a, Var) and self.same_shape(
                    a, current) and (also is None or also(a, current))])
        return found


def is_numpy_value(atom, defs, sized=False, depth=12, facts=None):
    """Whether ``atom`` is surely a NumPy array or scalar (never a Python number
    or list), so its methods (``.sum(axis=...)``) can be called. ``defs`` maps
    a Var to the Op defining it; a parameter may be a list: not known (but
    ``facts`` of a specialised gradient know the dtypes of values).
    ``sized``: the value has at least one axis (or the code fails anyway)."""
    if facts is not None and isinstance(atom, Var) and \
            isinstance(facts.dtypes.get(atom), np.dtype) and \
            (not sized or (facts.rank(atom) or 0) > 0):
        return True
    op = defs.get(atom) if isinstance(atom, Var) else None
    record = TABLE.get(op.prim) if op is not None else None
    if record is None or depth == 0:
        return False
    if op.math and (facts is None or spelled_math(op, facts)):
        return False  # math.sin(x) may be a Python float
    if record.result == ARRAY or record.result == SIZED and sized:
        return True
    if record.result in (OPERANDS, FIRST):  # a NumPy value meets a number: a NumPy value
        operands = op.args if record.result == OPERANDS else op.args[:1]
        return any(is_numpy_value(a, defs, sized, depth - 1, facts) for a in operands)
    return False


def _renamed(k, old, new):
    """Shape class ``k`` with class ``old`` in it read as ``new`` (a keepdims
    reduction's class holds the class it reduces)."""
    if k == old:
        return new
    if type(k) is tuple:
        parts = tuple(_renamed(p, old, new) for p in k)
        return parts if any(a is not b for a, b in zip(parts, k)) else k
    return k


def _kept(key):
    return type(key) is tuple and key[0] == "kept"
