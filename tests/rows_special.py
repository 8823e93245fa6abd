"""Rows of scipy.special's primitives (see primitive_rows.py)."""
from scipy import special

from row_inputs import u

ROWS = [
    ("expit", lambda a: special.expit(a), (u(2, 3) * 4.0,)),
]
