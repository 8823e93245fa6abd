"""Containers of arrays in a function: arguments that are dicts, lists,
tuples, named tuples, dataclasses or objects (``self``), and dict literals.

A container argument is specialised on its structure (ir/trees.py, chosen
where the gradient is called: ../containers.py): when lowering, it is a
compile-time value (`Dict`, `Tup`, `Obj`) whose leaves are read from the
argument once, at the top of the function (``params_W = params["W"]``, a
`field` operation), and static leaves (ints, strings, functions) are
constants. So ``params["W"]``, ``for W, b in params:``, ``params.items()``,
``len(params)``, ``"b" in params``, ``self.W`` and ``self.forward(x)`` are
resolved when compiling, and generated code reads the arrays it needs.

Compiled with every argument taken as an array (before the call shows what
they are), a use only a container allows raises `ContainerUse`, and uses a
container may mean (iterating over an argument, unpacking it) are recorded:
then the gradient is specialised where it is called.
"""
from __future__ import annotations

import ast

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, Var
from ..ir.primitive import SCALAR
from ..ir.trees import Leaf
from .compile_time import Dict, Obj, Static, Tup, is_atom


class ContainerUse(Exception):
    """An argument is used as a container (``params["W"]``): the function is
    specialised on its arguments' structure where its gradient is called."""


class ShapeUse(ContainerUse):
    """What a statement does depends on the arguments' shapes (``t = y[j]``
    is a number, a copy, for a vector ``y`` and a view of a row for a
    matrix, which a later write into ``y`` changes): the function is
    specialised on their signature where its gradient is called. ``error``:
    the refusal without one."""

    def __init__(self, name, error):
        super().__init__(name)
        self.error = error


def bind(lw, var, tree, path=()):
    """The compile-time value of the argument ``var`` of structure ``tree``."""
    if isinstance(tree, Leaf):
        if tree.kind == "static":
            value = tree.value
            if value is None or isinstance(value, (bool, int, str, float)):
                return Const(value)
            return Static(value)
        leaf = _field(lw, var, path)
        if tree.value == "scalar":  # a number: no shape checks, no sums to its shape
            lw.b.facts.shape[leaf] = SCALAR
        return leaf
    items = []
    for k, child in enumerate(tree.children):
        if tree.kind == "dict":
            step = ("key", tree.keys[k])
        elif tree.kind in ("dataclass", "object", "namedtuple"):
            step = ("attr", tree.keys[k])
        else:
            step = ("index", k)
        items.append(bind(lw, var, child, path + (step,)))
    if tree.kind == "dict":
        return Dict(tree.keys, tuple(items))
    if tree.kind in ("dataclass", "object"):
        return Obj(tree.type, tree.keys, tuple(items), var.hint)
    names = tree.keys if tree.kind == "namedtuple" else ()
    return Tup(tuple(items), names)


def _field(lw, var, path):
    from ..ir.trees import hint
    leaf = lw.b.op("field", var, path=path, hint=hint(var.hint, path))
    lw.b.leaves[leaf] = (var, path)
    lw.b.facts.seed_leaf(leaf, var.hint, path)
    return leaf


# ---- what a container does ------------------------------------------------------------------
def subscript(lw, base, index, node):
    """``params["W"]``: the item of a compile-time dict."""
    key = index[0].value if len(index) == 1 and isinstance(index[0], Const) else None
    if key is None:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"a dict can only be indexed by a constant key, not "
                       f"`{ast.unparse(node.slice)}`",
                       "write the key (`params[\"W\"]`), or loop over `params.items()`")
    if key not in base.keys:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node.value)}` has no key {key!r}",
                       f"its keys are {list(base.keys)}")
    return base.get(key)


def attribute(lw, base, node):
    """``self.W`` of an object argument, or its method ``self.forward``."""
    if node.attr in base.names:
        return base.items[base.names.index(node.attr)]
    found = getattr(base.type, node.attr, _MISSING)
    if found is _MISSING:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node.value)}` (a {base.type.__name__}) has no "
                       f"attribute `{node.attr}` symdiff can read",
                       "read attributes the object holds when the gradient is called")
    if callable(found) and hasattr(found, "__code__"):
        from .compile_time import BoundMethod
        return BoundMethod(found, base)
    if isinstance(found, property):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node)}` is a property, which symdiff does not read",
                       "compute it in the function, or make it an attribute")
    from .compile_time import from_python
    return lw.b.free_var(from_python(node.attr, found))


_MISSING = object()


def method(lw, base, name, args, node):
    """``params.items()``, ``.keys()``, ``.values()``, ``.get(key)`` of a dict."""
    if name == "items" and not args:
        return Tup(tuple(Tup((Const(k), v)) for k, v in zip(base.keys, base.items)))
    if name == "keys" and not args:
        return Tup(tuple(Const(k) for k in base.keys))
    if name == "values" and not args:
        return Tup(base.items)
    if name == "get" and 1 <= len(args) <= 2 and isinstance(args[0], Const):
        return base.get(args[0].value, args[1] if len(args) == 2 else Const(None))
    raise lw.error(UnsupportedSyntaxError, node,
                   f"`.{name}()` of a dict is not supported",
                   "use params[\"key\"], .items(), .keys(), .values() or .get(key)")


def replaced(lw, base, kwargs, node):
    """``pair._replace(W=v)`` of a named tuple, ``dataclasses.replace(obj,
    W=v)`` of a dataclass: the container with those items replaced."""
    unknown = sorted(set(kwargs) - set(base.names))
    if unknown:
        raise lw.error(UnsupportedSyntaxError, node, f"no fields {unknown} to replace",
                       f"its fields are {list(base.names)}")
    items = tuple(kwargs.get(n, v) for n, v in zip(base.names, base.items))
    if isinstance(base, Obj):
        return Obj(base.type, base.names, items, base.var)
    return Tup(items, base.names)


def length(value):
    """``len(value)`` of a compile-time container, else None."""
    if isinstance(value, (Tup, Dict)):
        return Const(len(value.items))
    return None


def contains(lw, item, container, node):
    """``"b" in params`` of a compile-time container with a constant item."""
    if not isinstance(item, Const):
        raise lw.error(UnsupportedSyntaxError, node, "`in` needs a constant on its left here",
                       "test a key known when compiling: `\"W\" in params`")
    if isinstance(container, Dict):
        return Const(item.value in container.keys)
    if not isinstance(container, Tup):
        raise lw.error(UnsupportedSyntaxError, node,
                       "`in` tests membership of a dict, list or tuple known when compiling",
                       "compare arrays with ==, np.isin or np.any")
    return Const(any(isinstance(v, Const) and v.value == item.value for v in container.items))


def items(lw, nodes):
    """The values of a tuple or list literal, ``*a`` of a tuple known when
    compiling spread out."""
    found = []
    for e in nodes:
        if isinstance(e, ast.Starred):
            value = lw.expr(e.value)
            if not isinstance(value, Tup):
                raise lw.error(UnsupportedSyntaxError, e, "`*` spreads a list or tuple "
                               "known when compiling here",
                               "write the items one by one, or np.concatenate; for a "
                               "shape, join tuples: `x.shape + (2,)`")
            found.extend(value.items)
        else:
            found.append(lw.expr(e))
    return tuple(found)


def literal(lw, node):
    """``{"W": w, "b": b}``: a compile-time dict (its keys constants)."""
    keys = []
    for key in node.keys:
        value = lw.expr(key) if key is not None else None
        if not isinstance(value, Const):
            raise lw.error(UnsupportedSyntaxError, key or node,
                           "a dict's keys must be constants here",
                           "write the keys as strings or numbers")
        keys.append(value.value)
    return Dict(tuple(keys), tuple(lw.expr(v) for v in node.values))


# ---- an argument taken as an array, used as a container -------------------------------------
def argument_of(lw, atom):
    """The argument ``atom`` is, or is an item of (``params[0][1]``), else None."""
    for _ in range(16):
        if not isinstance(atom, Var):
            return None
        if atom in lw.b.param_locs:
            return atom
        op = lw.b.facts.defs.get(atom)
        if op is None or op.prim != "getitem":
            return None
        atom = op.args[0]
    return None


def container_use(lw, atom, definite):
    """``atom`` is used as only a container allows (``definite``: a string key,
    ``.items()``) or as a container may be (iterated over, unpacked)."""
    if not is_atom(atom) or lw.trees is not None:
        return  # (specialised: an argument taken as an array is one)
    argument = argument_of(lw, atom)
    if argument is None:
        return
    lw.b.container_uses.add(argument.hint)
    if definite:
        raise ContainerUse(argument.hint)
