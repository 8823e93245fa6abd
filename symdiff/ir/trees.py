"""Containers of arrays (what JAX calls pytrees): dicts, lists, tuples, named
tuples, dataclasses and plain objects, nested, of arrays and numbers.

`structure(value)` describes a container as a hashable `Node` of `Leaf`s:
what the compiler specialises a function on, and what a cache is keyed on.
A leaf is a floating-point array or number (``"float"``: it has a gradient),
another array (``"array"``: integers, booleans), a value known when
compiling (``"static"``: ints, bools, strings, None, functions: part of the
structure), or another object (``"object"``, passed through). Generated code
reads a leaf by its path (``params["W"]``, ``layers[0][1]``, ``self.W``) and
returns a gradient of the same structure (None where a leaf has none).
"""
from __future__ import annotations

import copy
import dataclasses
import numbers
from dataclasses import dataclass

import numpy as np

CONTAINERS = (dict, list, tuple)


@dataclass(frozen=True)
class Leaf:
    kind: str            # "float", "array", "static" or "object"
    value: object = None  # a static leaf's value; "scalar" for a 0-d float


@dataclass(frozen=True)
class Node:
    kind: str        # "dict", "list", "tuple", "namedtuple", "dataclass" or "object"
    keys: tuple      # a dict's keys, the fields' or attributes' names; () for sequences
    children: tuple
    type: object = None  # the class of a named tuple, dataclass or object


@dataclass(frozen=True)
class Rebuild:
    """A gradient returned as a container: ``tree`` (the container at ``path``
    of the argument ``base``, a Var) from a flat tuple of its float leaves'."""

    tree: object
    base: object
    path: tuple = ()


def is_container(value):
    """Whether ``value`` is a container symdiff reads leaf by leaf."""
    if isinstance(value, CONTAINERS):
        return True
    if _is_array(value) or _atomic(value):
        return False
    return dataclasses.is_dataclass(value) and not isinstance(value, type) \
        or _plain_object(value)


def structure(value, depth=0):
    """The `Node` (or `Leaf`) ``value`` is."""
    if depth > 32:
        raise ValueError("a container nested more than 32 deep (or holding itself)")
    if isinstance(value, dict):
        return Node("dict", tuple(value), tuple(structure(v, depth + 1)
                                                for v in value.values()))
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return Node("namedtuple", tuple(type(value)._fields),
                    tuple(structure(v, depth + 1) for v in value), type(value))
    if isinstance(value, (list, tuple)):
        return Node(type(value).__name__, (), tuple(structure(v, depth + 1) for v in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = tuple(f.name for f in dataclasses.fields(value))
        return Node("dataclass", names, tuple(structure(getattr(value, n), depth + 1)
                                              for n in names), type(value))
    if _plain_object(value):
        names = tuple(n for n in vars(value) if not n.startswith("__"))
        return Node("object", names, tuple(structure(getattr(value, n), depth + 1)
                                           for n in names), type(value))
    return leaf(value)


def leaf(value):
    if _is_array(value):
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        scalar = "scalar" if getattr(value, "ndim", None) == 0 else None
        return Leaf("float", scalar) if kind == "f" else Leaf("array")
    if isinstance(value, float):
        return Leaf("float", "scalar")
    if value is None or isinstance(value, (bool, int, str, numbers.Integral)):
        return Leaf("static", value)
    if callable(value):
        try:
            hash(value)
        except TypeError:
            return Leaf("object")
        return Leaf("static", value)
    return Leaf("object")


def _is_array(value):
    return isinstance(value, (np.ndarray, np.generic)) or (
        hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type))


def _atomic(value):
    return value is None or isinstance(value, (numbers.Number, str, bytes, type)) or callable(
        value) or isinstance(value, (np.random.Generator, np.random.RandomState))


def _plain_object(value):
    """An instance of a class of the user's, holding its values in ``__dict__``."""
    if isinstance(value, type) or not hasattr(value, "__dict__") or callable(value):
        return False
    module = getattr(type(value), "__module__", "") or ""
    return not module.startswith(("numpy", "builtins", "scipy", "symdiff"))


def leaves(value, tree):
    """The values at the leaves of ``tree`` in ``value``, in order."""
    if isinstance(tree, Leaf):
        return [value]
    return [x for child, sub in zip(children(value, tree), tree.children)
            for x in leaves(child, sub)]


def children(value, tree):
    if tree.kind == "dict":
        return [value[k] for k in tree.keys]
    if tree.kind in ("dataclass", "object"):
        return [getattr(value, k) for k in tree.keys]
    return list(value)


def rebuild(tree, values, like=None):
    """The container of ``tree`` with ``values`` at its leaves (in order);
    ``like``: a container of that structure whose static fields to keep."""
    items = iter(values)
    if isinstance(tree, Leaf):
        return next(items)

    def build(node, original):
        if isinstance(node, Leaf):
            return next(items)
        parts = children(original, node) if original is not None else [None] * len(
            node.children)
        made = [build(child, part) for child, part in zip(node.children, parts)]
        if node.kind == "dict":
            return dict(zip(node.keys, made))
        if node.kind == "namedtuple":
            return node.type(*made)
        if node.kind == "dataclass":
            if original is not None:
                return dataclasses.replace(original, **dict(zip(node.keys, made)))
            return node.type(**dict(zip(node.keys, made)))
        if node.kind == "object":
            if original is None:
                return dict(zip(node.keys, made))  # (a gradient: the attributes' own)
            rebuilt = copy.copy(original)
            for key, part in zip(node.keys, made):
                setattr(rebuilt, key, part)
            return rebuilt
        return list(made) if node.kind == "list" else tuple(made)
    return build(tree, like)


def paths(tree, path=()):
    """``(path, leaf)`` for each leaf of ``tree``: a path is a tuple of
    ``("key", k)``, ``("index", i)`` and ``("attr", name)`` steps."""
    if isinstance(tree, Leaf):
        return [(path, tree)]
    step = "key" if tree.kind == "dict" else "attr" if tree.kind in (
        "dataclass", "object", "namedtuple") else "index"
    found = []
    for k, child in enumerate(tree.children):
        label = tree.keys[k] if step != "index" else k
        found += paths(child, path + ((step, label),))
    return found


def hint(base, path):
    """A variable name for the leaf at ``path`` of ``base``: ``params_W``."""
    parts = [base] + [str(label) for _, label in path]
    name = "_".join(parts)
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return name if name.isidentifier() else "leaf"


def path_text(base, path):
    """``params['W'][0]``: how code reads the leaf at ``path`` of ``base``."""
    return base + "".join(f".{label}" if step == "attr" else f"[{label!r}]"
                          for step, label in path)


def float_paths(tree):
    return [p for p, leaf_ in paths(tree) if leaf_.kind == "float"]
