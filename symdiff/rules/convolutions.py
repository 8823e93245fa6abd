"""One-dimensional convolution and correlation (np.convolve, np.correlate).

Both are bilinear. Written in the full convolution's length, the adjoints
are correlations in "valid" mode: for ``c = np.convolve(a, v)``,
``a_bar = np.correlate(c_bar, v, "valid")`` and ``v_bar = np.correlate(c_bar,
a, "valid")``; np.correlate(a, v) is np.convolve(a, v[::-1]), so its
adjoints are ``np.convolve(c_bar, v, "valid")`` and that correlation with
``a``, reversed. The "same" and "valid" modes return a part of the full
result whose place depends on the lengths (and NumPy swaps the operands when
``v`` is the longer): their gradient is first put in its place in the full
length (``_full_convolution``, a runtime helper whose adjoint,
``_cropped_convolution``, takes the part out again).
"""
from __future__ import annotations

from ..ir import patterns as pat
from ..ir.primitive import ARRAY, NEW, define


def convolve_rule(r, op, g):
    a, v = op.args
    full = _in_full_length(r, op, g, flipped=False)
    return [r.b.op("correlate", full, v, mode="valid") if r.wants(a) else None,
            r.b.op("correlate", full, a, mode="valid") if r.wants(v) else None]


def correlate_rule(r, op, g):
    a, v = op.args
    full = _in_full_length(r, op, g, flipped=True)
    return [r.b.op("convolve", full, v, mode="valid") if r.wants(a) else None,
            r.b.op("flip", r.b.op("correlate", full, a, mode="valid"))
            if r.wants(v) else None]


def _in_full_length(r, op, g, flipped):
    mode = _mode(op)
    if mode == "full":
        return g
    return r.b.op("full_convolution", g, *op.args, mode=mode, flipped=flipped)


def _mode(op):
    return op.param("mode", "full" if op.prim == "convolve" else "valid")


def full_convolution_rule(r, op, h):
    return [r.b.op("cropped_convolution", h, *op.args[1:], **_placing(op)), None, None]


def cropped_convolution_rule(r, op, g):
    return [r.b.op("full_convolution", g, *op.args[1:], **_placing(op)), None, None]


def _placing(op):
    return {"mode": op.param("mode", "full"), "flipped": op.param("flipped", False)}


def _pattern(op, facts):
    """A vector; of length one only where both operands are (in "valid"
    mode, also where their lengths are equal: not known)."""
    a, v = (facts.pattern(x) for x in op.args)
    if a is None or v is None or len(a) != 1 or len(v) != 1:
        return None
    if a == v == (1,):
        return (1,)
    if _mode(op) == "valid":
        return a if v == (1,) else v if a == (1,) else None
    return (pat.N,)


define("convolve(a, v; mode='full')", reverse=convolve_rule, multilinear=True, result=ARRAY,
       pattern=_pattern)
define("correlate(a, v; mode='valid')", reverse=correlate_rule, multilinear=True,
       result=ARRAY, pattern=_pattern)
define("full_convolution(g, a, v; mode='full', flipped=False)", ("helper", "_full_convolution"),
       NEW, reverse=full_convolution_rule, linear=(0,), result=ARRAY)
define("cropped_convolution(h, a, v; mode='full', flipped=False)",
       ("helper", "_cropped_convolution"), NEW, reverse=cropped_convolution_rule, linear=(0,),
       result=ARRAY)
