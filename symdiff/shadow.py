"""The clean copy of the forward pass that `backward_as` asks for.

``z = backward_as(value, clean)`` keeps ``value`` as the forward result, but
every derivative from ``z`` downstream must be computed as if ``clean`` stood
there. `add_shadows` copies each forward operation that depends on such a
``z``, right after the original, with ``clean`` (and the copies) in place of
the originals; the reverse pass evaluates rules on the copies.
"""
from __future__ import annotations

from dataclasses import replace

from .errors import UnsupportedSyntaxError
from .ir import If, Loop, Merge, Op, Var


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
        elif isinstance(stmt, Loop) and shadow:
            raise UnsupportedSyntaxError(
                "backward_as before a loop is not supported yet", stmt.loc,
                "apply backward_as after the loop, or inside its body")
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


def _sub(atom, shadow):
    return shadow.get(atom, atom) if isinstance(atom, Var) else atom
