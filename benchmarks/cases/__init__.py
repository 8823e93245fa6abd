"""Benchmark cases: each function written the ways users write it, one
hand-written NumPy gradient per function (see base.py for the data model).

The hand-written gradients are what a careful person writes: fused where NumPy
allows it, no needless temporaries, no work on zero gradients. `run.py` checks
each against central finite differences before it times anything, and checks
that every spelling computes the same value, so neither a wrong reference nor a
wrongly ported spelling can hide a wrong symdiff.

One module per family; the first spelling of each of the original eight is the
one earlier runs measured, so results stay comparable over time.
"""
from . import (bilinear, gmm, gp, huber, logistic, mlp, quantize, rnn, rosenbrock,
               scalar, scalar_loops, sqrt_where)
from .base import Case, Spelling, as_tuple, positional, wrt_positions  # noqa: F401
from .scalar import count_ops  # noqa: F401

__all__ = ["CASES", "Case", "Spelling", "as_tuple", "positional", "wrt_positions",
           "count_ops"]

CASES = [rosenbrock.CASE, logistic.CASE, mlp.CASE, huber.CASE, sqrt_where.CASE,
         scalar.CASE, rnn.CASE, quantize.CASE,
         gp.CASE, gmm.CASE, bilinear.CASE,  # the new workloads (issue 16)
         scalar_loops.HERON, scalar_loops.PENDULUM]  # loops over floats (issue 15)
