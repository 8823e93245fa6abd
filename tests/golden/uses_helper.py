def grad_uses_helper(x):
    """Gradient of uses_helper(x) with respect to x."""
    _require_float(x, message='golden_functions.py:53:17: argument `x`')
    t = np.exp(-x)  # golden_functions.py:54
    # L50: return np.logaddexp(0.0, t)
    x_bar_1 = (0.5 - 0.5 * np.tanh(-0.5 * x)) * t
    x_bar = x_bar_1 - t * np.logaddexp(0.0, x)
    return x_bar
