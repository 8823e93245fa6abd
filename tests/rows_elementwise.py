"""Rows of NumPy's elementwise functions added with the catalogue (see
primitive_rows.py): angles, remainders, signs, powers, nan_to_num."""
import math

import numpy as np

from row_inputs import between, own_draws, pos, u

with own_draws(1414):
    ROWS = [
        ("rad2deg", lambda a: np.degrees(a), (u(3),)),
        ("deg2rad", lambda a: np.radians(a), (u(3) * 90.0,)),
        ("mod", lambda a: a % 0.7, (pos(3),)),
        ("mod", lambda a, b: np.remainder(a, b), (between(4) * 0.9, pos(4, lo=0.6, hi=0.8))),
        ("mod", lambda a, b: np.mod(a, b), (between(4), -pos(4, lo=1.1, hi=1.2))),
        ("fmod", lambda a, b: np.fmod(a, b), (between(4) * 0.9, pos(4, lo=0.6, hi=0.8))),
        ("positive", lambda a: np.positive(a), (u(3),)),
        ("copysign", lambda a, b: np.copysign(a, b), (u(4), u(4))),
        ("copysign", lambda a, b: math.copysign(a, b) * a, (0.7, -0.4)),
        ("log", lambda a, b: math.log(a, b), (2.5, 1.7)),  # log(a) / log(b)
        ("power", lambda a, b: pow(a, b), (pos(3), u(3))),  # a ** b
        ("float_power", lambda a, b: np.float_power(a, b), (pos(3), u(3))),
        ("float_power", lambda a: np.float_power(a, 3), (u(3),)),
        ("nan_to_num", lambda a: np.nan_to_num(a), (u(4),)),
        ("nan_to_num", lambda a: np.nan_to_num(a * np.array([1.0, np.inf, -np.inf, np.nan]),
                                               posinf=3.0), (pos(4),)),
    ]
