"""What the compiler knows about values: their defining op and shape class.

A shape class is ``SCALAR`` (a 0-d value), or a representative `Var` whose
shape is shared by every value in its class. Two values in the same class
provably have the same shape, so their adjoints need no broadcasting helper.
A reduction with ``keepdims=True`` has the class ``("kept", x's class, axis)``:
it broadcasts against x's class to x's shape, and a gradient of x's class
goes back to it by the same reduction (``np.sum(g, axis=1, keepdims=True)``).
"""
from __future__ import annotations

from .nodes import Const, Var
from .primitive import (ARRAY, ELEMENTWISE, FIRST, INDEX, OPERANDS, REDUCTION, SCALAR,
                        SIZED, TABLE)


def is_elementwise(prim):
    """Whether primitive ``prim`` works entry by entry (its operands broadcast)."""
    record = TABLE.get(prim)
    return record is not None and record.shape == ELEMENTWISE


class Facts:
    def __init__(self):
        self.defs = {}    # Var -> Op that defines it
        self.shape = {}   # Var -> SCALAR or representative Var

    def key(self, atom):
        if isinstance(atom, Const):
            value = atom.value
            return SCALAR if isinstance(value, (int, float, bool)) else atom
        return self.shape.get(atom, atom)

    def same_shape(self, a, b):
        return self.key(a) == self.key(b)

    def is_scalar(self, atom):
        return self.key(atom) == SCALAR

    def record(self, op):
        self.defs[op.target] = op
        self.shape[op.target] = self._infer(op)

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
            return SCALAR if axis is None else op.target
        if kind == SCALAR:
            return SCALAR
        if kind == INDEX:
            return self._index_key(op)
        if callable(kind):
            return kind(op, self)
        return op.target

    def _index_key(self, op):
        """x[1:] and x[:-1] have the same shape; so do x[0] and x[-1]."""
        base = self.producer(op.args[0])
        if base is not None and base.prim == "shape" and len(op.args) == 2 \
                and isinstance(op.args[1], Const) and isinstance(op.args[1].value, int):
            return SCALAR  # one entry of a shape: an int
        if all(isinstance(p, Const) and isinstance(p.value, tuple) and not p.value
               for p in op.args[1:]):
            return self.key(op.args[0])  # x[()]: x's shape
        parts = []
        for part in op.args[1:]:
            value = part.value if isinstance(part, Const) else part
            if isinstance(value, slice) and value.step is None \
                    and (value.start or 0) >= 0 and (value.stop or 0) <= 0:
                parts.append(("drop", (value.start or 0) - (value.stop or 0)))
            elif isinstance(value, int) and not isinstance(value, bool):
                parts.append(("int",))
            elif value is None or value is Ellipsis:
                parts.append((repr(value),))
            else:
                return op.target
        return ("index", self.key(op.args[0]), tuple(parts))

    def broadcast(self, target, *args):
        keys = {self.key(a) for a in args} - {SCALAR}
        keys -= {k for k in keys if _kept(k) and k[1] in keys}  # x - max(x, keepdims)
        if not keys:
            return SCALAR
        return keys.pop() if len(keys) == 1 else target

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


def is_numpy_value(atom, defs, sized=False, depth=12):
    """Whether ``atom`` is surely a NumPy array or scalar (never a Python number
    or list), so its methods (``.sum(axis=...)``) can be called. ``defs`` maps
    a Var to the Op defining it; a parameter may be a list: not known.
    ``sized``: the value has at least one axis (or the code fails anyway)."""
    op = defs.get(atom) if isinstance(atom, Var) else None
    record = TABLE.get(op.prim) if op is not None else None
    if record is None or depth == 0:
        return False
    if record.result == ARRAY or record.result == SIZED and sized:
        return True
    if record.result in (OPERANDS, FIRST):  # a NumPy value meets a number: a NumPy value
        operands = op.args if record.result == OPERANDS else op.args[:1]
        return any(is_numpy_value(a, defs, sized, depth - 1) for a in operands)
    return False


def _kept(key):
    return type(key) is tuple and key[0] == "kept"
