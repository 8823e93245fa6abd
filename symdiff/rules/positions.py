"""Functions whose result is positions or counts (integers): their derivative
is zero, so an index computed from the values (``x[np.argmax(x)]``) is a
constant of the derivative in every mode, as ``argsort`` is."""
from __future__ import annotations

from ..ir.primitive import ARRAY, define

define("argmax(a; axis=None, keepdims=False)", zero=True, methods=("argmax",), result=ARRAY)
define("argmin(a; axis=None, keepdims=False)", zero=True, methods=("argmin",), result=ARRAY)
define("flatnonzero(a)", zero=True, result=ARRAY)
define("count_nonzero(a; axis=None, keepdims=False)", zero=True, result=ARRAY)
define("searchsorted(a, v; side='left', sorter=None)", zero=True, result=ARRAY)
define("digitize(x, bins; right=False)", zero=True, result=ARRAY)
