def grad_scalar_expression(a, b, c):
    """Gradient of scalar_expression(a, b, c) with respect to a, b, c, for a:
    float, b: float, c: float."""
    t = 1.0 + a ** 2  # golden_functions.py:59
    t_1 = math.sin(c) / t  # golden_functions.py:59
    d = a * b + t_1  # golden_functions.py:59
    t_2 = d ** 2  # golden_functions.py:60
    t_3 = math.sqrt(t_2 + 1.0)  # golden_functions.py:60
    t_4 = math.exp(-b)  # golden_functions.py:60
    t_5 = 1.0 + t_4  # golden_functions.py:60
    e = t_3 - math.log(t_5)  # golden_functions.py:60
    # L60: e = np.sqrt(d ** 2 + 1.0) - np.log(1.0 + np.exp(-b))
    d_bar = e + t_2 / t_3
    # L59: d = a * b + np.sin(c) / (1.0 + a ** 2)
    a_bar = d_bar * (b - 2.0 * (a * t_1) / t)
    b_bar = t_4 * (d / t_5) + a * d_bar
    c_bar = 3.0 * c ** 2 + math.cos(c) * (d_bar / t)
    return a_bar, b_bar, c_bar
