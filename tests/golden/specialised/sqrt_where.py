def grad_sqrt_where(x):
    """Gradient of sqrt_where(x) with respect to x, for x: float64[a]."""
    x_positive = x > 0  # golden_functions.py:35
    # a select without np.where's branch per element
    # golden_functions.py:35
    x_safe = np.fmax(x, 0.0) + np.logical_not(x_positive)
    # L35: return np.sum(np.where(x > 0, np.sqrt(x), 0.0))
    x_bar = 0.5 / np.sqrt(x_safe) * x_positive
    return x_bar
