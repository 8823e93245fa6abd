def grad_huber(r):
    """Gradient of huber(r) with respect to r."""
    _require_float(r, message='golden_functions.py:29:11: argument `r`')
    # L30: a = np.abs(r)
    r_bar = np.clip(r, -1.0, 1.0)
    return r_bar
