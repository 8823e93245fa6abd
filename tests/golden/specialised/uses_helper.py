def grad_uses_helper(x):
    """Gradient of uses_helper(x) with respect to x, for x: float64[a]."""
    # L50: return np.logaddexp(0.0, t)
    t = 0.5 * (1.0 - np.tanh(-0.5 * x)) - np.logaddexp(0.0, x)
    x_bar = np.exp(-x) * t
    return x_bar
