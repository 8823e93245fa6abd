"""Random draws inside a loop's branches: saved, never drawn again.

The reverse loop recomputes the statements nested in a forward iteration
(ifs, inner loops) from the values the iteration saved (loops.py). A random
draw must not be recomputed: drawing again gives other numbers. So a draw in
a branch of the loop's body is made visible after its `if` (a `Merge`: the
draw where the branch was taken, None elsewhere), saved on the tape with the
other values, and the recomputed branch reads the saved numbers instead. A
draw in a loop nested in the body is refused: it would need a tape per inner
loop, and drawing the numbers before the loops is as easy to write.
"""
from __future__ import annotations

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, If, Loop, Merge, Op, Var, walk


def is_draw(stmt):
    return isinstance(stmt, Op) and stmt.prim == "draw"


def export_draws(stmt, facts):
    """The draws nested in ``stmt`` (a statement of a loop's body), each with
    the var that holds its value after ``stmt``: ``[(draw op, var)]``."""
    if isinstance(stmt, Loop):
        refuse_nested(stmt)
        return []
    if not isinstance(stmt, If):
        return []
    found = []
    for side in ("then", "orelse"):
        for inner in getattr(stmt, side):
            if is_draw(inner):
                pairs = [(inner, inner.target)]
            else:
                pairs = export_draws(inner, facts)
            for op, value in pairs:
                merged = Var(op.target.hint)
                none = Const(None)
                stmt.merges.append(Merge(merged, value if side == "then" else none,
                                         none if side == "then" else value))
                facts.shape[merged] = facts.key(op.target)
                found.append((op, merged))
    return found


def refuse_nested(loop):
    for stmt in walk(loop.body):
        if is_draw(stmt):
            raise UnsupportedSyntaxError(
                "a random draw inside a loop that is itself inside a loop: the gradient "
                "runs the inner loop again for the outer loop's reverse pass, which would "
                "draw other numbers", stmt.loc,
                "draw the numbers before the loops and index them: "
                "`noise = rng.standard_normal((n, m))`, then `noise[i, j]` inside")
