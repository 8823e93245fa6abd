def grad_clip_norm(v, w):
    """Gradient of clip_norm(v, w) with respect to v, w, for v: float64[a], w:
    float64[a]."""
    n2 = (v ** 2).sum()  # golden_functions.py:39
    mask = n2 > 1  # golden_functions.py:40
    if mask:  # golden_functions.py:40
        sqrt_n2 = np.sqrt(n2)  # golden_functions.py:41
        v_1 = v / sqrt_n2  # golden_functions.py:41
    else:
        v_1 = np.copy(v)
    # L40: if n2 > 1:
    if mask:
        # L39: n2 = np.sum(v ** 2)
        v_bar = (w - v * (v_1 @ w / sqrt_n2)) / sqrt_n2
    else:
        v_bar = np.copy(w)
    return v_bar, v_1
