def grad_clip_norm(v, w):
    """Gradient of clip_norm(v, w) with respect to v, w."""
    _require_float(v, w, messages=('golden_functions.py:38:15: argument `v`',
                                   'golden_functions.py:38:18: argument `w`'))
    n2 = np.sum(v ** 2)  # golden_functions.py:39
    mask = n2 > 1  # golden_functions.py:40
    if mask:  # golden_functions.py:40
        sqrt_n2 = np.sqrt(n2)  # golden_functions.py:41
        v_1 = v / sqrt_n2  # golden_functions.py:41
    else:
        v_1 = v
    # L42: return np.sum(v * w)
    t_bar = np.full_like(v_1 * w, 1.0)
    v_1_bar = _sum_to(w * t_bar, v_1)
    w_bar = _sum_to(v_1 * t_bar, w)
    # L40: if n2 > 1:
    if mask:
        # L39: n2 = np.sum(v ** 2)
        t_1 = _sum_to(-(v_1 * v_1_bar / sqrt_n2), sqrt_n2) / sqrt_n2
        v_bar = _sum_to(v_1_bar / sqrt_n2, v) + v * t_1
    else:
        v_bar = v_1_bar
    return v_bar, w_bar
