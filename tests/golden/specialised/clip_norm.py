def grad_clip_norm(v, w):
    """Gradient of clip_norm(v, w) with respect to v, w, for v: float64[a], w:
    float64[a]."""
    n2 = (v ** 2).sum()  # golden_functions.py:39
    mask = n2 > 1  # golden_functions.py:40
    if mask:  # golden_functions.py:40
        sqrt_n2 = np.sqrt(n2)  # golden_functions.py:41
        v_1 = v / sqrt_n2  # golden_functions.py:41
    else:
        v_1 = v
    # L42: return np.sum(v * w)
    t_bar = np.full_like(v_1 * w, 1.0)
    v_1_bar = w * t_bar
    w_bar = v_1 * t_bar
    # L40: if n2 > 1:
    if mask:
        # L41: v = v / np.sqrt(n2)
        sqrt_n2_bar = (v_1 * v_1_bar * (-1.0 / sqrt_n2)).sum()
        n2_bar = sqrt_n2_bar / (2.0 * sqrt_n2)
        # L39: n2 = np.sum(v ** 2)
        v_bar = v_1_bar / sqrt_n2 + v * (2.0 * n2_bar)
    else:
        v_bar = v_1_bar
    return v_bar, w_bar
