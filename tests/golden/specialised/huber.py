def grad_huber(r):
    """Gradient of huber(r) with respect to r, for r: float64[a]."""
    # L30: a = np.abs(r)
    r_bar = np.clip(r, -1.0, 1.0)
    return r_bar
