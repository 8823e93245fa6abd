"""Gradients of functions of containers: specialised where they are called.

A function whose arguments are dicts, lists, tuples, dataclasses or objects
of arrays (``grad(loss, wrt="params")(params, X)``, a bound method's
``self``, ``*args``) is compiled once per structure of its arguments
(ir/trees.py): the gradient `grad` returns then is a dispatcher that finds
the structure of the arguments it is called with, compiles for it the first
time it sees it, and calls that. Calls with arrays only go to the gradient
compiled for arrays, when there is one.

`flatten` and `unflatten` turn a container of arrays into one vector and
back, for optimizers that take vectors (``scipy.optimize.minimize``).
"""
from __future__ import annotations

import functools
import inspect
import threading

import numpy as np

from .log import StageTimer
from .specialise import load_gradient
from .ir.patterns import signature_of
from .ir.trees import Leaf, Node, is_container, leaf, leaves, paths, rebuild, structure


_MAX_KEYS = 512  # argument shapes remembered per gradient (then the table starts again)


def specialising(f, wrt, mode, compile_for, plain=None):
    """A gradient that compiles ``f`` for the structure of its arguments and
    the signature of their leaves. ``compile_for(trees, signature)``
    compiles and loads for ``trees`` (parameter name -> structure) and
    ``signature`` (`ArgSig` of each parameter, and of each leaf, keyed
    ``(parameter, path)``; None: generic in shapes); ``plain`` is the
    gradient for arrays only, if there is one."""
    bound = getattr(f, "__self__", None) if inspect.ismethod(f) else None
    signature = inspect.signature(f.__func__ if bound is not None else f)
    made, by_trees, lock, last = {}, {}, threading.RLock(), []
    extra = _tangent_count(wrt) if mode == "jvp" else 1 if mode == "vjp" else 0

    def specialised(trees, leaf_signature=None):
        """The gradient compiled for arguments of structure ``trees`` (and,
        given, of that signature)."""
        key = (tuple(sorted(trees.items(), key=lambda kv: kv[0])),
               None if leaf_signature is None else tuple(sorted(
                   leaf_signature.items(), key=lambda kv: repr(kv[0]))))
        with lock:
            if key not in by_trees:
                by_trees[key] = compile_for(trees, leaf_signature)
                if leaf_signature is None:
                    gradient.__symdiff_source__ = by_trees[key].__symdiff_source__
            return by_trees[key]

    def function_for(own, kwargs):
        """The gradient for these arguments (compiled the first time)."""
        key = _call_key(own, kwargs)
        fn = made.get(key)
        if fn is None:
            if plain is not None and bound is None and not any(
                    map(is_container, own)) and not any(map(is_container, kwargs.values())):
                fn = plain
            else:
                trees = _trees(signature, own, kwargs)
                fn = specialised(trees, _leaf_signature(signature, own, kwargs, trees))
                last[:] = [trees]
            with lock:
                if len(made) >= _MAX_KEYS:
                    made.clear()
                made[key] = fn
        return fn

    def gradient(*args, **kwargs):
        given = ((bound,) if bound is not None else ()) + args
        own = given[:len(given) - extra] if extra else given
        fn = function_for(own, kwargs)
        if fn is plain:
            return plain(*args, **kwargs)
        if mode == "jvp":
            given = own + tuple(t for tangent in given[len(own):]
                                for t in _flat_tangent(tangent))
        return fn(*given, **kwargs)

    functools.update_wrapper(gradient, f)
    gradient.__wrapped__ = f
    if plain is not None:
        gradient.__symdiff_source__ = plain.__symdiff_source__
    gradient.__symdiff_plain__ = plain
    gradient.__symdiff_for__ = specialised
    gradient.__symdiff_structure_source__ = lambda: specialised(
        last[0]).__symdiff_source__ if last else None
    gradient.__symdiff_specialise__ = lambda *a, **k: _function_for(
        gradient, function_for, bound, a, k).__symdiff_source__
    gradient.__symdiff_function_for__ = lambda *a, **k: _function_for(
        gradient, function_for, bound, a, k)
    return gradient


def plain_target(f):
    """What to compile for arguments that are all arrays: ``f`` itself, or
    for a gradient that is specialised where it is called, the gradient it
    has for arrays (None: it has none)."""
    if hasattr(f, "__symdiff_for__"):
        return f.__symdiff_plain__
    return f


def specialised_target(f, trees, signature=None):
    """What to compile for arguments of structure ``trees`` (and signature)."""
    return f.__symdiff_for__(trees, signature) if hasattr(f, "__symdiff_for__") else f


def is_specialising(f):
    return hasattr(f, "__symdiff_for__") or inspect.ismethod(f)


def _call_key(own, kwargs):
    """What a call's gradient depends on: each argument's structure, and the
    shape, dtype and type of each array at its leaves (`structure` itself
    costs microseconds: this is the dispatcher's key, computed every call)."""
    return (tuple(map(_key, own)), tuple(sorted((k, _key(v)) for k, v in kwargs.items())))


def _key(value):
    kind = type(value)
    if kind is np.ndarray:
        return kind, value.shape, value.dtype
    if kind is float:
        return kind
    if kind is dict:
        return kind, tuple(value), tuple(map(_key, value.values()))
    if kind is list or kind is tuple:
        return kind, tuple(map(_key, value))
    if kind is int or kind is bool or kind is str or value is None:
        return kind, value  # a static leaf: its value is compiled in
    if is_container(value):  # named tuples, dataclasses, objects
        tree = structure(value)
        return tree, tuple(_key(v) for v in leaves(value, tree))
    return kind, getattr(value, "shape", None), getattr(value, "dtype", None), leaf(value)


def _leaf_signature(signature, args, kwargs, trees):
    """`leaf_signature` of a call's arguments (bound to ``signature``)."""
    bound = signature.bind_partial(*args, **kwargs)
    return leaf_signature({name: value for name, value in bound.arguments.items()
                           if signature.parameters[name].kind
                           is not inspect.Parameter.VAR_KEYWORD}, trees)


def leaf_signature(values, trees):
    """The `ArgSig` of each value of ``values`` (parameter name -> value)
    that is not a container and of each array or number at a leaf of one
    (keyed ``(parameter, path)``; ``trees``: the containers' structures),
    lengths named across all of them; None where one is another library's
    array (the generic gradient serves those)."""
    keys, found = [], []
    for name, value in values.items():
        tree = trees.get(name)
        if tree is None:
            keys.append(name)
            found.append(value)
            continue
        value = tuple(value) if isinstance(tree, Node) and tree.kind == "tuple" else value
        for (path, leaf_), item in zip(paths(tree), leaves(value, tree)):
            if leaf_.kind in ("float", "array"):
                keys.append((name, path))
                found.append(item)
    sigs = signature_of(found)
    if any(s.kind == "array" and s.library != "numpy" or s.kind == "other" and hasattr(
            v, "shape") and hasattr(v, "dtype") for s, v in zip(sigs, found)):
        return None
    return dict(zip(keys, sigs))


def _trees(signature, args, kwargs):
    """Parameter name -> structure, for the arguments that are containers."""
    bound = signature.bind_partial(*args, **kwargs)
    trees = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            trees[name] = structure(tuple(value))
        elif kind is not inspect.Parameter.VAR_KEYWORD and is_container(value):
            trees[name] = structure(value)
    return trees


def _tangent_count(wrt):
    return len(wrt) if isinstance(wrt, (tuple, list)) else 1


def _flat_tangent(tangent):
    """A jvp's tangent of a container argument, as the generated function
    takes it: one argument per floating-point leaf."""
    if not is_container(tangent):
        return [tangent]
    tree = structure(tangent)
    return [v for v, (_, leaf) in zip(leaves(tangent, tree), paths(tree))
            if leaf.kind == "float"]


def _function_for(gradient, function_for, bound, args, kwargs):
    """The generated function ``gradient(*args, **kwargs)`` runs."""
    gradient(*args, **kwargs)
    fn = function_for(((bound,) if bound is not None else ()) + args, kwargs)
    specialiser = getattr(fn, "__symdiff_specialiser__", None)
    if specialiser is not None:  # arrays only: the plain gradient, specialised for them
        fn = specialiser.function_for(*args, **kwargs)
    return fn


def loaded(compiled, f, wrt, mode, overrides, timer=None):
    with (timer or StageTimer())("load"):
        return load_gradient(compiled, f, wrt, mode, overrides)


class Deferred:
    """What the cache holds for a function compiled only where it is called."""

    def __init__(self, origin):
        self.origin, self.name, self.deps = origin, "gradient", ()
        self.timer = StageTimer()


# ---- vectors, for optimizers ------------------------------------------------------------------
def flatten(tree_value):
    """``(vector, unflatten)``: the floating-point leaves of a container (a
    dict, list, tuple, dataclass or object of arrays and floats, nested), in
    order, as one float64 vector, and the function that turns such a vector
    back into a container of that structure (other leaves kept as they were).

    For ``scipy.optimize.minimize``::

        x0, unflatten = symdiff.flatten(params)
        value_and_grad = symdiff.value_and_grad(loss, wrt="params")

        def fun(x):
            value, g = value_and_grad(unflatten(x), X)
            return value, symdiff.flatten(g)[0]

        result = scipy.optimize.minimize(fun, x0, jac=True)
        params = unflatten(result.x)

    A gradient has its argument's structure, with None where a leaf has no
    gradient: its vector lines up with the argument's.
    """
    tree = structure(tree_value)
    values = leaves(tree_value, tree)
    kinds = [leaf.kind for _, leaf in paths(tree)]
    floats = [v for v, k in zip(values, kinds) if k == "float"]
    shapes = [np.shape(v) for v in floats]
    scalar = [isinstance(v, float) for v in floats]
    vector = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in floats]) \
        if floats else np.zeros(0)

    def unflatten(vector):
        vector = np.asarray(vector, dtype=float)
        parts, start = [], 0
        for shape, is_float in zip(shapes, scalar):
            size = int(np.prod(shape))
            part = vector[start:start + size].reshape(shape)
            parts.append(float(part) if is_float else part)
            start += size
        if start != vector.size:
            raise ValueError(f"a vector of {vector.size} numbers for {start} leaves")
        out = iter(parts)
        filled = [next(out) if k == "float" else v for v, k in zip(values, kinds)]
        return rebuild(tree, filled, like=tree_value) if not isinstance(tree, Leaf) \
            else filled[0]
    return vector, unflatten
