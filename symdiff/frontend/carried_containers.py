"""Dicts and tuples a loop changes: each of their numbers and arrays carried.

    st = {"m": 0.0, "P": 1.0}
    for t in range(len(y)):
        st["m"] = phi * st["m"]            # or: state = (phi * state[0], ...)

A dict or tuple known when compiling holds the loop's values by key: the
loop carries each item (a `Carry` per number or array, named ``st_m``), the
body sees the container of those, and after the loop the name holds the
container of their last values. The loop must keep the container's shape
(its keys, its length) and its other items (functions, strings); a loop
that changes them is refused.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Carry, Const, Var
from .compile_time import Dict, Tup
from .tapes import TapeList
from .writes import scopes


@dataclass
class Held:
    name: str
    before: object   # the container before the loop
    inside: object   # the container of the carried values, as the body starts
    carries: list    # (key of the item's place, its Carry)


def carry_containers(lw, loop, before, assigned, used):
    """For each name in ``assigned`` holding a dict or tuple before the loop:
    its items carried (appended to ``loop.carried``), the name (and every
    other holding the same container) holding the container of those."""
    held = []
    for name in assigned:
        value = before.get(name)
        if isinstance(value, TapeList) and value.known:  # a list: changed in place
            value = Tup(tuple(value.prefix), is_list=True)
        if not isinstance(value, (Dict, Tup)) or not _leaves(value):
            continue
        carries = []
        for place, leaf in _leaves(value):
            hint = _unused(f"{name}_{'_'.join(map(str, place))}", before, used)
            used.add(hint)
            carry = Carry(Var(hint), leaf, None, Var(hint))
            carries.append((place, carry))
            loop.carried.append(carry)
            lw.carried_from[carry.param] = (leaf,)
        inside = _rebuilt(value, {p: c.param for p, c in carries})
        if isinstance(before[name], TapeList):
            lw.env[name] = _as_list(before[name], inside)
        else:
            _replace(lw, (value,), inside)
        held.append(Held(name, before[name], inside, carries))
    return held


def _as_list(tape, items):
    return TapeList(tape.var, tape.level, prefix=list(items.items))


def _contents(value):
    """A list known when compiling as the tuple of its items; None for one a loop fills."""
    if isinstance(value, TapeList):
        return Tup(tuple(value.prefix), is_list=True) if value.known else None
    return value


def container_updates(lw, node, held):
    """After the body: each carried item's value at the end of an iteration."""
    for h in held:
        now, was = _contents(lw.env.get(h.name)), _contents(h.before)
        leaves = dict(_leaves(now)) if _same_shape(now, was) else None
        if leaves is None or set(leaves) != {p for p, _ in h.carries} or \
                _others(now) != _others(was):
            raise lw.error(UnsupportedSyntaxError, node,
                           f"the loop changes what `{h.name}` holds beyond its numbers and "
                           "arrays (its keys, its length, or an item that is not an array)",
                           f"keep `{h.name}`'s keys and length in the loop, or carry the "
                           "values in names of their own")
        for place, carry in h.carries:
            lw.env[carry.param.hint] = leaves[place]
        if not isinstance(h.before, TapeList):
            h.inside = now
            for other, v in list(lw.env.items()):  # (another name for the dict: not
                if v is now and other != h.name:     # changed by a call, carried)
                    lw.env[other] = h.before


def containers_after(lw, held):
    """After the loop: the names hold the containers of the carried values' last ones."""
    for h in held:
        outs = {p: c.out for p, c in h.carries}
        if isinstance(h.before, TapeList):
            lw.env[h.name] = _as_list(h.before, _rebuilt(_contents(h.before), outs))
        else:
            _replace(lw, (h.before, h.inside), _rebuilt(h.before, outs))
        for _, carry in h.carries:
            lw.env.pop(carry.param.hint, None)


def _leaves(value, place=()):
    """(place, item) of the numbers and arrays in a dict or tuple, nested."""
    if isinstance(value, Dict):
        pairs = zip(value.keys, value.items)
    elif isinstance(value, Tup):
        pairs = enumerate(value.items)
    else:
        return [(place, value)] if _carried(value) else []
    return [leaf for key, item in pairs for leaf in _leaves(item, place + (key,))]


def _carried(value):
    return isinstance(value, Var) or isinstance(value, Const) and \
        isinstance(value.value, (int, float)) and not isinstance(value.value, bool)


def _others(value):
    """What a container holds besides its numbers and arrays."""
    if isinstance(value, Dict):
        return tuple((k, _others(v)) for k, v in zip(value.keys, value.items))
    if isinstance(value, Tup):
        return tuple(_others(v) for v in value.items)
    return None if _carried(value) else value


def _same_shape(a, b):
    if isinstance(b, Dict):
        return isinstance(a, Dict) and a.keys == b.keys and \
            all(_same_shape(x, y) for x, y in zip(a.items, b.items))
    if isinstance(b, Tup):
        return isinstance(a, Tup) and len(a.items) == len(b.items) and \
            all(_same_shape(x, y) for x, y in zip(a.items, b.items))
    return _carried(a) == _carried(b)


def _rebuilt(value, at, place=()):
    if isinstance(value, Dict):
        return Dict(value.keys, tuple(_rebuilt(v, at, place + (k,))
                                      for k, v in zip(value.keys, value.items)))
    if isinstance(value, Tup):
        return Tup(tuple(_rebuilt(v, at, place + (k,)) for k, v in enumerate(value.items)),
                   value.names, value.is_list)
    return at.get(place, value)


def _replace(lw, olds, new):
    """Every name, here and in the functions calling this one, that holds one
    of ``olds`` holds ``new`` (a dict changed in place is theirs too)."""
    for env in scopes(lw):
        for other, v in list(env.items()):
            if any(v is old for old in olds):
                env[other] = new


def _unused(name, before, used):
    name = re.sub(r"\W", "_", name)
    while name in before or name in used:
        name += "_"
    return name
