"""Stage 3, optimisation: passes on a derivative's IR, in the order `optimize`
runs them.

Each pass is ``pass(fn, builder) -> fn``: it rewrites ``fn`` (a
`symdiff.ir.nodes.Function`) into something that computes the same values,
and keeps its state in itself, never in a module. Algebra that needs no pass
(``x * 1``, ``a + -b``, ``where(c, k * p, k * q)``) is done as operations are
built: see `folds.py`, which the pipeline hands to the builder.
"""
from __future__ import annotations

from .common_subexpressions import eliminate_common_subexpressions, merge_forward_values
from .dead_code import eliminate_dead_code
from .carried_shapes import carried_shapes
from .scalar_tapes import scalar_tapes
from .tape_arrays import tape_arrays
from .algebra import simplify_regions
from .direct_forms import direct_forms, fresh_results
from .transposes import transposed_products
from .reused_inverses import reuse_inverses
from .joined_branches import join_branches
from .gradient_only import decomposition_parts, library_forms
from .mask_positions import mask_positions
from .scatter_sums import scatter_sums
from .sums_in_place import sums_in_place
from .fused_forms import fused_forms
from .selects import branch_free_selects
from .shape_origins import shape_origins
from .branch_sums import branch_sums
from .shape_sources import shape_sources
from .spread_shapes import spread_shapes
from .summed_products import summed_products
from .merged_sums import merged_sums
from .line_order import group_by_line
from .implicit_axes import implicit_leading_axes
from .shared_factors import shared_factors
from .sinking import sink_into_branches
from .writes_in_place import writes_in_place
from .copied_writes import copied_writes

PASSES = (
    mask_positions,                  # x[m] of a one-axis mask m -> x[m.nonzero()[0]]
    shape_origins,                   # K.shape of a K loops write into -> of the K they began with
    direct_forms,                    # helpers the signature decides -> what they do
    transposed_products,             # (Q.T @ g).T -> g.T @ Q: fewer transposes
    merge_forward_values,            # x[:-1] written twice is one value: x * x a square
    implicit_leading_axes,           # x - mu[None] -> x - mu: broadcasting adds the axis
    summed_products,                 # (a * b[:, None]).sum(0) -> b @ a: a contraction
    merged_sums,                     # x.sum() + y.sum() -> (x + y).sum(): one region
    simplify_regions,                # elementwise regions in normal form (poly.py)
    branch_free_selects,             # np.where against a constant without a branch
    eliminate_common_subexpressions,  # computed twice -> once; pass-throughs -> names
    shared_factors,                  # a @ c + b @ c -> (a + b) @ c: one product
    join_branches,                   # two ifs in a row on one condition -> one
    carried_shapes,                  # an array a loop writes into, read for its shape: not saved
    eliminate_dead_code,             # what the result does not need, and loop tapes
    reuse_inverses,                  # a solve with A the gradient reads -> inv(A) @ b
    library_forms,                   # scipy's logsumexp the gradient reads -> NumPy's
    decomposition_parts,             # eigvalsh(a) beside the rule's eigh(a) -> its w
    shape_sources,                   # zeros_like(t) of a t nothing else reads -> of scores
    spread_shapes,                   # full_like(t, c) of a t nothing else reads -> np.full
    fresh_results,                   # a gradient that is an argument array -> a copy
    scalar_tapes,                    # a loop over numbers saves one, not a tuple
    tape_arrays,                     # a loop of known trip count saves into arrays
    fused_forms,                     # JAX: a slice's gradient as a pad, not writes
    scatter_sums,                    # t + (u1 + u2), u placed -> t + u1 + u2: one buffer
    branch_sums,                     # a placed value one side of an if adds: added there
    sums_in_place,                   # _unindex(a + b, ...) -> _unindex_sum(a, b, ...)
    sink_into_branches,              # what one side of an `if` needs, on that side
    group_by_line,                   # a line's backward statements together: # Lnn once
    writes_in_place,                 # setitem -> `a[i] = v` where nothing reads the old a
    copied_writes,                   # the other setitems -> `t = a.copy(); t[i] = v`
)


def optimize(fn, builder):
    """``fn`` after every pass of `PASSES`, in order."""
    for run in PASSES:
        fn = run(fn, builder)
    return fn


def simplify(fn):
    """The clean-up at the heart of `optimize`: shared work merged, dead code
    dropped (for IR made by hand, as in tests)."""
    return eliminate_dead_code(eliminate_common_subexpressions(fn))
