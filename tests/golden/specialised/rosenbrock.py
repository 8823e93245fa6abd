def grad_rosenbrock(x):
    """Gradient of rosenbrock(x) with respect to x, for x: float64[a]."""
    x_head = x[:-1]  # golden_functions.py:12
    t = x[1:] - x_head ** 2  # golden_functions.py:12
    # L12: return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1])...
    x_bar = np.empty_like(x)
    x_bar[-1:] = 0.0
    x_head_bar = x_bar[:-1]
    np.subtract(1.0, x_head, out=x_head_bar)
    x_head_bar *= -2.0
    x_head_bar -= 400.0 * (x_head * t)
    x_bar[1:] += 200.0 * t
    return x_bar
