"""What a derivative is taken with respect to: ``wrt`` resolved to values.

An item of ``wrt`` is a parameter's position or name, or a dotted path into
a container parameter (``"self.W"``, ``"params.layer1"``). A parameter that
is a container (frontend/containers.py) stands for its floating-point
leaves: each is differentiated, and the gradient is returned as a container
of the same structure (`Rebuild`, which the emitter writes as a dict, list,
tuple, ``x._replace(...)`` or ``dataclasses.replace(x, ...)`` literal).
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ..errors import WrtError
from ..frontend.containers import ContainerUse
from ..ir.trees import Leaf, Rebuild, paths


@dataclass
class Choice:
    vars: list        # the values differentiated, flat
    names: object     # the wrt names, as the docstring and header say them
    groups: list      # per wrt item: None (one value) or a Rebuild (a container)
    many: bool        # a tuple of gradients (wrt was a tuple or list)

    @property
    def flat_many(self):
        return self.many or any(g is not None for g in self.groups)


def resolve_wrt(ir_fn, wrt, src, builder, trees=None, offset=0):
    many = isinstance(wrt, (tuple, list))
    items = list(wrt) if many else [wrt]
    params = ir_fn.params
    names = [p.hint for p in params]
    leaves = {(base, path): var for var, (base, path) in builder.leaves.items()}
    chosen, labels, groups = [], [], []
    for item in items:
        param, steps = _parameter(item, params, names, src, offset, builder.varargs)
        tree = (trees or {}).get(param.hint)
        label = ".".join((param.hint,) + steps)
        if tree is None:
            if steps and trees is None:  # taken as an array before the call shows it
                raise ContainerUse(param.hint)
            if steps:
                raise WrtError(f"wrt={item!r}: `{param.hint}` is an array here, not a "
                               "container", src.loc(src.node), f"choose one of {names}")
            chosen.append(param)
            groups.append(None)
        else:
            sub, path = _subtree(tree, steps, item, src)
            found = [leaves[(param, path + p)] for p, leaf in paths(sub)
                     if leaf.kind == "float"]
            if isinstance(sub, Leaf):
                if sub.kind != "float":
                    raise WrtError(f"wrt={item!r} names a value that is not floating point",
                                   src.loc(src.node), "choose arrays or floats")
                chosen.extend(found)
                groups.append(None)
            else:
                chosen.extend(found)
                groups.append(Rebuild(sub, param, path))
                builder.float_params.update(found)
        labels.append(label)
    if not items:
        raise WrtError("wrt=() names no argument to differentiate", src.loc(src.node),
                       f"choose one or more of {names}")
    if len(set(labels)) != len(labels):
        raise WrtError(f"wrt names an argument twice: {items}", src.loc(src.node),
                       "name each argument once")
    return Choice(chosen, tuple(labels) if many else labels[0], groups, many)


def _parameter(item, params, names, src, offset=0, varargs=None):
    """The parameter ``item`` names and the dotted steps into it. A position
    counts the arguments of a call (not a bound method's object); one taken
    by ``*args`` is an item of that tuple."""
    if isinstance(item, int) and not isinstance(item, bool):
        positional = names[offset:]
        if varargs is not None:
            at = params.index(varargs) - offset
            if item >= at:
                return varargs, (str(item - at),)
            positional = positional[:at]
        if not -len(positional) <= item < len(positional):
            raise WrtError(f"wrt={item} but {src.name} has {len(positional)} arguments",
                           src.loc(src.node), f"choose one of {positional}")
        return params[offset:][item], ()
    if isinstance(item, str):
        name, *steps = unicodedata.normalize("NFKC", item).split(".")
        # Python reads identifiers in NFKC form: `def f(ℌ)` has a parameter "H"
        if name in names:
            return params[names.index(name)], tuple(steps)
    raise WrtError(f"wrt={item!r} is not an argument of {src.name}",
                   src.loc(src.node), f"choose one of {names}")


def _subtree(tree, steps, item, src):
    """The part of ``tree`` dotted ``steps`` name, and its path (the steps
    resolved to keys, attributes or positions)."""
    path = ()
    for label in steps:
        if isinstance(tree, Leaf):
            raise WrtError(f"wrt={item!r}: `{label}` is inside a value with no parts",
                           src.loc(src.node), "name a part of a container")
        keys = [str(k) for k in tree.keys] if tree.keys else \
            [str(k) for k in range(len(tree.children))]
        if label not in keys:
            raise WrtError(f"wrt={item!r}: no part named `{label}`", src.loc(src.node),
                           f"choose one of {keys}")
        k = keys.index(label)
        step = "key" if tree.kind == "dict" else "attr" if tree.keys else "index"
        path += ((step, tree.keys[k] if tree.keys else k),)
        tree = tree.children[k]
    return tree, path


def regroup(fn, choice, mode):
    """The gradient function's result with its flat gradients grouped per
    ``wrt`` item, and ``fn.trees`` saying which to return as containers."""
    if not any(g is not None for g in choice.groups):
        return
    grads = fn.result if mode == "grad" else fn.result[1]
    grads = list(grads)
    grouped, trees = [], []
    for group in choice.groups:
        count = 1 if group is None else sum(1 for _, leaf in paths(group.tree)
                                            if leaf.kind == "float")
        part, grads = grads[:count], grads[count:]
        grouped.append(part[0] if group is None else tuple(part))
        trees.append(group)
    value, tree = (tuple(grouped), tuple(trees)) if choice.many else (grouped[0], trees[0])
    if mode == "grad":
        fn.result, fn.trees = value, tree
    else:
        fn.result, fn.trees = (fn.result[0], value), (None, tree)
