"""Rows of the reductions, running products and differences, and statistics
(rules/reductions.py, statistics.py), see primitive_rows.py. Special points:
zeros (cumprod is exact there, to every order), ties and constant slices
(where the gradient jumps: first order only), NaN entries, empty arrays."""
import numpy as np

from row_inputs import pos, u
from symdiff.runtime.helpers import (_quantile_adjoint, _quantile_tangent, _recurrence,
                                     _running_adjoint, _running_tangent, _weights_along)

ZEROS = np.array([[0.5, 0.0, -1.2, 0.0, 0.8], [0.0, 1.1, 0.7, -0.9, 0.6]])
TIED = np.array([0.3, -0.5, 0.3, 0.9])  # two entries tie
CONSTANT = np.array([[0.7, 0.7, 0.7], [0.1, -0.4, 0.3]])  # a constant row
WITH_NAN = np.array([[0.3, np.nan, -0.8], [np.nan, np.nan, np.nan]])
NAN_ENTRIES = np.array([[0.3, np.nan, -0.8], [np.nan, 1.2, 0.4]])  # no slice all NaN
FIRST_ORDER = {"order": 1}  # at a kink the gradient itself jumps
WEIGHTS = np.array([0.5, 1.5, 1.0])

ROWS = [
    # ---- running products and differences ---------------------------------------------------
    ("cumprod", lambda a: np.cumprod(a), (u(2, 3),)),
    ("cumprod", lambda a: np.cumprod(a, axis=1), (u(2, 4),)),
    ("cumprod", lambda a: a.cumprod(axis=-2), (u(3, 2),)),
    ("cumprod", lambda a: np.cumprod(a, axis=1), (ZEROS,)),
    ("cumprod", lambda a: np.cumprod(a), (ZEROS,)),
    ("cumprod", lambda a: np.cumprod(a), (np.zeros(0),)),
    ("recurrence", lambda a, b: _recurrence(a, b), (u(2, 4), u(2, 4))),
    ("recurrence", lambda a, b: _recurrence(a, b, axis=0, reverse=True), (u(4, 2), u(4, 2))),
    ("recurrence", lambda a, b: _recurrence(a, b, reverse=True), (ZEROS, u(2, 5))),
    ("diff", lambda a: np.diff(a), (u(5),)),
    ("diff", lambda a: np.diff(a, 2, axis=0), (u(4, 2),)),
    ("diff", lambda a: np.diff(a, prepend=0.5, append=(1.0, 2.0)), (u(3),)),
    ("diff", lambda a: np.diff(a, n=2, axis=0, prepend=((0.0, 1.0),)), (u(3, 2),)),
    ("diff", lambda a: np.diff(a), (u(1),)),
    # ---- variance and friends ---------------------------------------------------------------
    ("var", lambda a: np.var(a), (u(2, 3),)),
    ("var", lambda a: np.var(a, axis=1, ddof=1), (u(2, 3),)),
    ("var", lambda a: a.var(axis=(0, 2), keepdims=True), (u(2, 3, 2),)),
    ("var", lambda a: np.var(a, 0, correction=1), (u(3, 2),)),
    ("var", lambda a: np.var(a, axis=1), (CONSTANT,)),
    ("std", lambda a: np.std(a), (u(2, 3),)),
    ("std", lambda a: np.std(a, axis=-1, ddof=1, keepdims=True), (u(2, 3),)),
    ("std", lambda a: a.std(axis=0), (u(3, 2),)),
    ("std", lambda a: np.std(a, axis=1), (CONSTANT,), FIRST_ORDER),
    ("ptp", lambda a: np.ptp(a), (u(2, 3),)),
    ("ptp", lambda a: np.ptp(a, axis=0, keepdims=True), (u(3, 2),)),
    ("max", lambda a: np.max(a), (TIED[[0, 2, 1]],), FIRST_ORDER),
    ("max", lambda a, b: np.max([a, b, -2.0 * a], axis=0), (u(3), u(3))),  # (a list's)
    ("maximum_reduce", lambda a: np.maximum.reduce(a), (u(3, 2),)),
    ("maximum_reduce", lambda a, b: np.maximum.reduce([a, b], axis=-1), (u(2), u(2))),
    ("maximum_reduce", lambda a: np.maximum.reduce(a, axis=None), (TIED,), FIRST_ORDER),
    ("minimum_reduce", lambda a, b: np.minimum.reduce((a, b, a * b)), (u(2, 3), u(2, 3))),
    ("minimum_reduce", lambda a: np.minimum.reduce(a, 1, keepdims=True), (u(2, 3),)),
    ("nansum", lambda a: np.nansum(a), (u(2, 3),)),
    ("nansum", lambda a: np.nansum(a, axis=1), (WITH_NAN,)),
    ("nanmean", lambda a: np.nanmean(a, axis=0), (u(3, 2),)),
    ("nanmean", lambda a: np.nanmean(a, axis=1, keepdims=True), (WITH_NAN[:1],)),
    ("nanmax", lambda a: np.nanmax(a), (u(2, 3),)),
    ("nanmax", lambda a: np.nanmax(a, axis=1), (NAN_ENTRIES,)),
    ("nanmax", lambda a: np.nanmax(a, axis=0, keepdims=True), (NAN_ENTRIES,)),
    ("nanmax", lambda a: np.nanmax(a), (np.append(TIED, np.nan),), FIRST_ORDER),
    ("nanmin", lambda a: np.nanmin(a, axis=-1), (u(3, 2),)),
    ("nanmin", lambda a: np.nanmin(a), (NAN_ENTRIES,)),
    ("nanmin", lambda a: np.nanmin(a, axis=0), (np.array([[0.3, -0.2], [0.3, np.nan]]),),
     FIRST_ORDER),
    # ---- running maxima and minima ----------------------------------------------------------
    ("maximum_accumulate", lambda a: np.maximum.accumulate(a), (u(6),)),
    ("maximum_accumulate", lambda a: np.maximum.accumulate(a, axis=1), (u(3, 4),)),
    ("maximum_accumulate", lambda a: np.maximum.accumulate(a), (TIED,), FIRST_ORDER),
    ("minimum_accumulate", lambda a: np.minimum.accumulate(a, axis=-2), (u(4, 3),)),
    ("minimum_accumulate", lambda a: np.minimum.accumulate(a ** 2), (u(2, 3),)),
    ("minimum_accumulate", lambda a: np.minimum.accumulate(a), (-TIED,), FIRST_ORDER),
    # ---- running log-sum-exp (a reversed one: a Cox model's log risk sets) -------------------
    ("logaddexp_accumulate", lambda a: np.logaddexp.accumulate(a), (u(6) * 3.0,)),
    ("logaddexp_accumulate", lambda a: np.logaddexp.accumulate(a[::-1])[::-1], (u(5),)),
    ("logaddexp_accumulate", lambda a: np.logaddexp.accumulate(a, axis=1), (u(3, 4) * 3.0,)),
    ("logaddexp_accumulate", lambda a: np.logaddexp.accumulate(a, axis=0), (u(3, 2),)),
    ("running_adjoint", lambda g, a: _running_adjoint(g, a, axis=1), (u(2, 4), u(2, 4))),
    ("running_tangent", lambda t, a: _running_tangent(t, a, minimum=True), (u(4, 2), u(4, 2))),
    # ---- order statistics -------------------------------------------------------------------
    ("median", lambda a: np.median(a), (u(5),)),
    ("median", lambda a: np.median(a, axis=1), (u(2, 4),)),
    ("median", lambda a: np.median(a, axis=(0, 2), keepdims=True), (u(2, 3, 2),)),
    ("median", lambda a: np.median(a), (TIED,), FIRST_ORDER),
    ("quantile", lambda a: np.quantile(a, 0.3), (u(6),)),
    ("quantile", lambda a: np.quantile(a, [0.25, 0.9], axis=0), (u(5, 2),)),
    ("quantile", lambda a: np.quantile(a, 0.4, axis=-1, method="lower", keepdims=True),
     (u(2, 5),)),
    ("quantile", lambda a: np.quantile(a, (0.3, 0.7), method="midpoint"), (u(6),)),
    ("quantile", lambda a: np.quantile(a, 0.6, method="nearest"), (u(6),)),
    ("percentile", lambda a: np.percentile(a, 30.0, axis=1), (u(2, 6),)),
    ("percentile", lambda a: np.percentile(a, [10, 95], method="higher"), (u(6),)),
    ("quantile_adjoint", lambda g, a: _quantile_adjoint(g, a, 0.3, axis=1), (u(2), u(2, 4))),
    ("quantile_tangent", lambda t, a: _quantile_tangent(t, a, (0.2, 0.5)), (u(4), u(4))),
    # ---- np.average (written with sums) -----------------------------------------------------
    ("mean", lambda a: np.average(a, axis=0), (u(3, 2),)),
    ("weights_along", lambda a, w: np.average(a, axis=1, weights=w), (u(2, 3), pos(3))),
    ("weights_along", lambda a, w: np.average(a, weights=w, keepdims=True),
     (u(2, 3), pos(2, 3))),
    ("weights_along", lambda w, a: _weights_along(w, a, axis=0), (pos(2), u(2, 3))),
    ("broadcast_to", lambda a, w: np.average(a, 1, w, returned=True)[1] * a[:, 0],
     (u(2, 3), pos(3))),
    ("size", lambda a: np.average(a, returned=True)[1] * a, (u(3),)),
]
