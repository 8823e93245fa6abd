def grad_sqrt_where(x):
    """Gradient of sqrt_where(x) with respect to x."""
    _require_float(x, message='golden_functions.py:34:16: argument `x`')
    x_positive = x > 0
    # L35: return np.sum(np.where(x > 0, np.sqrt(x), 0.0))
    x_safe_bar = 0.5 / np.sqrt(np.where(x_positive, x, 1.0))
    x_bar = np.where(x_positive, x_safe_bar, 0.0)[()]
    return x_bar
