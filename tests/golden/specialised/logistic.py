def grad_logistic(w, X, y, lam):
    """Gradient of logistic(w, X, y, lam) with respect to w, for w: float64[a],
    X: float64[b, a], y: float64[b], lam: float."""
    z = X @ w  # golden_functions.py:16
    # L17: loss = np.mean(np.logaddexp(0.0, z) - y * z)
    z_bar = (0.5 * (1.0 - np.tanh(-0.5 * z)) - y) / y.size
    # L16: z = X @ w
    w_bar = w * (2.0 * lam) + z_bar @ X
    return w_bar
