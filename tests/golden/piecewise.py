def grad_piecewise(x, w):
    """Gradient of piecewise(x, w) with respect to x, w."""
    _require_float(x, w, messages=('golden_functions.py:5:15: argument `x`',
                                   'golden_functions.py:5:18: argument `w`'))
    z = x * w  # golden_functions.py:6
    z_positive = z > 0  # golden_functions.py:7
    h = np.where(z_positive, z, 0.1 * z)  # golden_functions.py:7
    # L7: h = np.where(z > 0, z, 0.1 * z)
    z_bar = np.where(z_positive, 2.0 * h, 0.2 * h)
    # L6: z = x * w
    x_bar = _sum_to(w * z_bar, x)
    w_bar = _sum_to(x * z_bar, w)
    return x_bar, w_bar
