def grad_huber(r):
    """Gradient of huber(r) with respect to r."""
    _require_float(r, message='golden_functions.py:29:1: argument `r`')
    a = np.abs(r)
    # L30: a = np.abs(r)
    r_bar = np.where(a <= 1.0, r, np.sign(r))[()]
    return r_bar
