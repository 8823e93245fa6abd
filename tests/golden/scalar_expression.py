def grad_scalar_expression(a, b, c):
    """Gradient of scalar_expression(a, b, c) with respect to a, b, c."""
    _require_float(a, b, c, messages=(
        'golden_functions.py:58:23: argument `a`',
        'golden_functions.py:58:26: argument `b`',
        'golden_functions.py:58:29: argument `c`'))
    add_power_a = 1.0 + a ** 2  # golden_functions.py:59
    t = np.sin(c) / add_power_a  # golden_functions.py:59
    d = a * b + t  # golden_functions.py:59
    power_d = d ** 2  # golden_functions.py:60
    sqrt_add_power_d = np.sqrt(power_d + 1.0)  # golden_functions.py:60
    exp_negative_b = np.exp(-b)  # golden_functions.py:60
    add_exp_negative_b = 1.0 + exp_negative_b  # golden_functions.py:60
    e = sqrt_add_power_d - np.log(add_exp_negative_b)  # golden_functions.py:60
    # golden_functions.py:61
    _require_scalar(a, b, c, message='golden_functions.py:61:5')
    # L60: e = np.sqrt(d ** 2 + 1.0) - np.log(1.0 + np.exp(-b))
    t_bar = -d
    add_exp_negative_b_bar = t_bar / add_exp_negative_b
    negative_b_bar = exp_negative_b * add_exp_negative_b_bar
    d_bar = e + power_d / sqrt_add_power_d
    # L59: d = a * b + np.sin(c) / (1.0 + a ** 2)
    sin_c_bar = d_bar / add_power_a
    a_bar = d_bar * (b - 2.0 * (a * t) / add_power_a)
    b_bar = a * d_bar - negative_b_bar
    c_bar = 3.0 * c ** 2 + np.cos(c) * sin_c_bar
    return a_bar, b_bar, c_bar
