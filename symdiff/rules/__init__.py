"""The primitives and their derivative rules: one record each.

Each family module defines its records (`symdiff.ir.primitive.define`) with
the rules next to them; importing this package fills the table. `derive.py`
turns a record into its reverse and forward rules.
"""
from . import (containers, elementwise, gradient_flow, joins, kinks,  # noqa: F401 (records)
               linalg, multivariate, opaque, ordering, outputs, positions, python_values,
               randomness, reductions, shapes, special, statistics, stats)
from . import (cholesky_inverse, contractions, convolutions, decompositions,  # noqa: F401
               determinants, einsum, lists, matrix_functions, norms, solves, writes)
from .derive import NoRule, forward_rule, reverse_rule  # noqa: F401
