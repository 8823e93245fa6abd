def grad_uses_helper(x):
    """Gradient of uses_helper(x) with respect to x."""
    _require_float(x, message='golden_functions.py:53:1: argument `x`')
    logaddexp_x = np.logaddexp(0.0, x)
    exp_negative_x = np.exp(-x)
    # L54: y = _softplus(x) * np.exp(-x)
    negative_x_bar = exp_negative_x * logaddexp_x
    # L50: return np.logaddexp(0.0, t)
    x_bar = np.exp(x - logaddexp_x) * exp_negative_x
    x_bar = x_bar - negative_x_bar
    return x_bar
