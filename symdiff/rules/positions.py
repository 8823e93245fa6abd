"""Functions whose result is positions or counts (integers): their derivative
is zero, so an index computed from the values (``x[np.argmax(x)]``) is a
constant of the derivative in every mode, as ``argsort`` is."""
from __future__ import annotations

import numpy as np

from ..ir.indexing import index_tuple
from ..ir.nodes import Var
from ..ir.primitive import ARRAY, TABLE, define

define("argmax(a; axis=None, keepdims=False)", zero=True, methods=("argmax",), result=ARRAY)
define("argmin(a; axis=None, keepdims=False)", zero=True, methods=("argmin",), result=ARRAY)
define("flatnonzero(a)", zero=True, result=ARRAY)
define("count_nonzero(a; axis=None, keepdims=False)", zero=True, result=ARRAY)
define("searchsorted(a, v; side='left', sorter=None)", zero=True, result=ARRAY)
define("digitize(x, bins; right=False)", zero=True, result=ARRAY)
# the positions of a one-axis mask, m.nonzero()[0]: optimize/mask_positions.py
define("mask_positions(mask)", ("method_part", "nonzero", 0), zero=True, result=ARRAY,
       pattern=lambda op, facts: (None,))

_LOGIC = ("bitwise_and", "bitwise_or", "bitwise_xor", "invert")


def is_mask(facts, atom, depth=8):
    """Whether ``atom`` is surely a boolean array (a comparison, a logical
    operation, ``~`` or ``&`` of masks, or of a boolean dtype)."""
    if not isinstance(atom, Var) or facts.is_scalar(atom):
        return False
    dtype = facts.dtype(atom)
    if isinstance(dtype, np.dtype) and dtype == np.bool_:
        return True
    made = facts.producer(atom)
    if made is None or depth == 0:
        return False
    if TABLE[made.prim].boolean and made.prim not in ("any", "all"):
        return True
    return made.prim in _LOGIC and all(is_mask(facts, a, depth - 1) for a in made.args)


def is_index_array(facts, atom):
    """Whether an index part may name a position twice (an integer array)."""
    if not isinstance(atom, Var):
        value = atom.value
        return not (value is None or value is Ellipsis or isinstance(value, (slice, int)))
    made = facts.producer(atom)
    if made is not None and made.prim in ("mask_positions", "flatnonzero", "slice"):
        return False
    return not (facts.is_scalar(atom) or is_mask(facts, atom))


def unique_together(facts, arrays):
    """Whether the integer arrays ``arrays`` of one index name each position
    at most once: one is ``np.arange(...)`` and all have its shape (one axis),
    as in ``z[np.arange(n), labels]``; or they are the arrays of one
    ``np.triu_indices(n)`` (its pairs are distinct; likewise ``tril_indices``,
    ``nonzero``, and any one array of ``diag_indices``)."""
    made = [facts.producer(a) for a in arrays]
    counters = [a for a, m in zip(arrays, made) if m is not None and m.prim == "npcall"
                and m.param("func") == "arange" and facts.rank(a) == 1]
    if counters and all(facts.same_shape(a, counters[0]) for a in arrays):
        return True
    if any(m is None for m in made):
        return False
    if len(arrays) == 1 and index_tuple(facts, arrays[0]) is not None \
            and made[0].param("func") not in ("unravel_index", "meshgrid"):
        return True  # x[np.tril_indices(n)]: the tuple itself, distinct positions
    sources = {id(index_tuple(facts, m.args[0])) if m.prim == "getitem" else None
               for m in made}
    source = index_tuple(facts, made[0].args[0]) if made[0].prim == "getitem" else None
    if source is None or sources != {id(source)}:
        return False
    parts = {m.args[1].value for m in made if len(m.args) == 2 and hasattr(m.args[1], "value")}
    func = source.param("func")
    if func == "diag_indices":
        return True
    if func in ("triu_indices", "tril_indices"):
        return parts == {0, 1} and len(arrays) == 2
    if func in ("nonzero", "where") and source.args:
        return parts == set(range(facts.rank(source.args[0]) or -1)) and \
            len(arrays) == len(parts)
    return False
