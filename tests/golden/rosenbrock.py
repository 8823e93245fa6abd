def grad_rosenbrock(x):
    """Gradient of rosenbrock(x) with respect to x."""
    _require_float(x, message='golden_functions.py:11:16: argument `x`')
    x_head = x[:-1]  # golden_functions.py:12
    t = x[1:] - x_head ** 2  # golden_functions.py:12
    # L12: return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1])...
    x_head_bar = -2.0 * (1.0 - x_head)
    x_head_bar_1 = -400.0 * (x_head * t)
    x_bar = _unindex_sum(x_head_bar, x_head_bar_1, x, np.s_[:-1])
    x_bar[1:] += 200.0 * t
    return x_bar
