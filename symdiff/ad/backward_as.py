"""The clean copy of the forward pass that `backward_as` asks for.

``z = backward_as(value, clean)`` keeps ``value`` as the forward result, but
every derivative from ``z`` downstream must be computed as if ``clean`` stood
there. `add_shadows` copies each forward operation that depends on such a
``z``, right after the original, with ``clean`` (and the copies) in place of
the originals; the reverse pass evaluates rules on the copies.
"""
from __future__ import annotations

from dataclasses import replace

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Carry, If, Loop, Merge, Op, Var, walk


def add_shadows(fn, builder):
    """Insert the shadow operations into ``fn``; return {original: shadow}."""
    shadow = {}
    fn.body = _block(fn.body, builder, shadow)
    return shadow


def _block(stmts, builder, shadow):
    out = []
    for stmt in stmts:
        out.append(stmt)
        if isinstance(stmt, Op):
            if stmt.prim == "backward_as":
                shadow[stmt.target] = stmt.args[1]
            elif any(_sub(a, shadow) is not a for a in stmt.args):
                copy = replace(stmt, target=Var(stmt.target.hint + "_clean"),
                               args=tuple(_sub(a, shadow) for a in stmt.args))
                builder.facts.record(copy)
                shadow[stmt.target] = copy.target
                out.append(copy)
        elif isinstance(stmt, Loop) and (shadow or _makes_shadows(stmt.body)):
            _shadow_loop(stmt, builder, shadow)
        elif isinstance(stmt, If):
            stmt.then = _block(stmt.then, builder, shadow)
            stmt.orelse = _block(stmt.orelse, builder, shadow)
            for m in list(stmt.merges):
                if _sub(m.then, shadow) is not m.then or _sub(m.orelse, shadow) is not m.orelse:
                    target = Var(m.target.hint + "_clean")
                    stmt.merges.append(Merge(target, _sub(m.then, shadow),
                                             _sub(m.orelse, shadow)))
                    builder.facts.shape[target] = builder.facts.key(m.target)
                    shadow[m.target] = target
    return out


def _shadow_loop(loop, builder, shadow):
    """A carried value downstream of a backward_as gets a clean copy that the
    loop carries beside it (found by fixpoint: carried values feed back)."""
    if loop.reads or loop.writes:
        raise UnsupportedSyntaxError("backward_as before a loop over a tape", loop.loc,
                                     "apply backward_as inside the loop that writes it")
    clean = {id(c): Var(c.param.hint + "_clean") for c in loop.carried}
    chosen = {id(c) for c in loop.carried if _sub(c.init, shadow) is not c.init}
    while True:
        dirty = set(shadow) | {c.param for c in loop.carried if id(c) in chosen}
        reached = _downstream(loop.body, dirty)
        more = {id(c) for c in loop.carried if c.update in reached} - chosen
        if not more:
            break
        chosen |= more
    carries = [c for c in loop.carried if id(c) in chosen]
    outer = dict(shadow)
    for c in carries:
        shadow[c.param] = clean[id(c)]
        builder.facts.shape[clean[id(c)]] = builder.facts.key(c.param)
    loop.body = _block(loop.body, builder, shadow)
    for c in carries:
        copy = Carry(clean[id(c)], _sub(c.init, outer), _sub(c.update, shadow),
                     Var(c.out.hint + "_clean"))
        builder.facts.shape[copy.out] = builder.facts.key(c.out)
        loop.carried.append(copy)
        shadow[c.out] = copy.out


def _makes_shadows(stmts):
    return any(isinstance(s, Op) and s.prim == "backward_as" for s in walk(stmts))


def _downstream(stmts, dirty):
    """The vars of ``stmts`` computed from ``dirty`` (nested blocks: wholesale)."""
    reached = set(dirty)
    for stmt in stmts:
        if isinstance(stmt, Op):
            if any(a in reached for a in stmt.args if isinstance(a, Var)) \
                    or stmt.prim == "backward_as":
                reached.add(stmt.target)
        elif isinstance(stmt, If):
            inner = _downstream(stmt.then + stmt.orelse, reached)
            if inner - reached or stmt.cond in reached:
                reached |= inner | {m.target for m in stmt.merges}
            reached |= {m.target for m in stmt.merges
                        if m.then in reached or m.orelse in reached}
        elif isinstance(stmt, Loop):
            inner = _downstream(stmt.body, reached | {c.param for c in stmt.carried})
            reached |= {c.out for c in stmt.carried} if inner - reached else set()
    return reached


def _sub(atom, shadow):
    return shadow.get(atom, atom) if isinstance(atom, Var) else atom
