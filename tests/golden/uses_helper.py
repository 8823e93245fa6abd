def grad_uses_helper(x):
    """Gradient of uses_helper(x) with respect to x."""
    _require_float(x, message='golden_functions.py:53:17: argument `x`')
    t = np.exp(-x)  # golden_functions.py:54
    # L54: y = _softplus(x) * np.exp(-x)
    t_bar = t * np.logaddexp(0.0, x)
    # L50: return np.logaddexp(0.0, t)
    x_bar = (0.5 - 0.5 * np.tanh(-0.5 * x)) * t - t_bar
    return x_bar
