def grad_piecewise(x, w):
    """Gradient of piecewise(x, w) with respect to x, w, for x: float64[a], w:
    float64[a]."""
    z = x * w  # golden_functions.py:6
    z_positive = z > 0  # golden_functions.py:7
    h = np.where(z_positive, z, 0.1 * z)  # golden_functions.py:7
    # L7: h = np.where(z > 0, z, 0.1 * z)
    z_bar = np.where(z_positive, 2.0 * h, 0.2 * h)
    # L6: z = x * w
    x_bar = w * z_bar
    w_bar = x * z_bar
    return x_bar, w_bar
