def grad_logistic(w, X, y, lam):
    """Gradient of logistic(w, X, y, lam) with respect to w."""
    _require_float(w, message='golden_functions.py:15:14: argument `w`')
    z = X @ w  # golden_functions.py:16
    logaddexp_z = np.logaddexp(0.0, z)  # golden_functions.py:17
    t = y * z  # golden_functions.py:17
    t_1 = logaddexp_z - t  # golden_functions.py:17
    # golden_functions.py:18
    _require_scalar(lam, message='golden_functions.py:18:5')
    # L17: loss = np.mean(np.logaddexp(0.0, z) - y * z)
    t_1_bar = np.full_like(t_1, 1.0 / t_1.size)
    z_bar_1 = _sum_to(y * _sum_to(-t_1_bar, t), z)
    t_2 = 0.5 - 0.5 * np.tanh(-0.5 * z)
    z_bar = z_bar_1 + t_2 * _sum_to(t_1_bar, logaddexp_z)
    # L16: z = X @ w
    w_bar = 2.0 * w * lam + _matmul_adjoint_b(z_bar, X, w)
    return w_bar
