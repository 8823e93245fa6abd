"""Forms for a library whose compiler fuses the whole gradient (JAX's XLA).

NumPy runs one operation at a time, so the NumPy gradient avoids work an
operation at a time: the gradient of ``x[:-1]`` and ``x[1:]`` is one buffer
written twice (``x_bar[:-1] = a``, ``x_bar[1:] += b``), and a select against
a constant is written without ``np.where`` (selects.py). Under ``jax.jit``
those writes are scatters into a zeroed array (``x_bar.at[1:].add(b)``),
which XLA does not fuse with the arithmetic that makes ``a`` and ``b``, and
the select without a select is more work than the select. So for such a
library the gradient of a slice of step 1 is a pad (``_padded(b, x,
slice(1, None))``: ``b`` with zeros around it, as ``jax.grad`` writes it),
which XLA fuses into the sum that reads it; selects.py leaves its selects
alone. The values are the same; NumPy's code is not changed.
"""
from __future__ import annotations

from ..ir.nodes import Const, Op, walk


def fused_forms(fn, builder):
    """``fn`` with the gradients of slices written as pads, for a fusing library."""
    facts = builder.facts
    if not facts.signature or not facts.fuses():
        return fn
    for op in walk(fn.body):
        if isinstance(op, Op) and op.prim == "unindex" \
                and _slices(op.args[2:], facts, op.args[1]):
            op.prim = "padded"
    return fn


def _slices(index, facts, like):
    """Slices of step 1, at most one per axis of the floating point ``like``."""
    rank = facts.rank(like)
    return index and rank is not None and len(index) <= rank and facts.is_float(like) and \
        all(isinstance(part, Const) and isinstance(part.value, slice)
            and part.value.step in (None, 1) for part in index)
