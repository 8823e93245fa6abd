def grad_rnn(W, U, b, xs, target):
    """Gradient of rnn(W, U, b, xs, target) with respect to W, U, b."""
    _require_float(W, U, b, messages=(
        'golden_functions.py:64:9: argument `W`',
        'golden_functions.py:64:12: argument `U`',
        'golden_functions.py:64:15: argument `b`'))
    h = np.zeros(np.shape(W)[0])  # golden_functions.py:65
    shape0 = np.shape(xs)[0]  # golden_functions.py:66
    tape = []
    for t in range(shape0):  # golden_functions.py:66
        W_h = W @ h  # golden_functions.py:67
        xs_part = xs[t]  # golden_functions.py:67
        U_xs_part = U @ xs_part  # golden_functions.py:67
        t_1 = W_h + U_xs_part  # golden_functions.py:67
        h_1 = np.tanh(t_1 + b)  # golden_functions.py:67
        W_h_shape = W_h.shape  # golden_functions.py:66
        U_xs_part_shape = U_xs_part.shape  # golden_functions.py:66
        t_shape = t_1.shape  # golden_functions.py:66
        tape.append((h, W_h_shape, xs_part, U_xs_part_shape, t_shape, h_1))
        h = h_1
    # L68: return 0.5 * np.sum((h - target) ** 2)
    h_bar = _sum_to(h - target, h)
    # L66: for t in range(xs.shape[0]):
    b_bar = np.zeros_like(b)[()]
    U_bar_parts = []
    W_bar_parts = []
    for (h, W_h_shape, xs_part, U_xs_part_shape, t_shape,
         h_1) in reversed(tape):
        # L67: h = np.tanh(W @ h + U @ xs[t] + b)
        t_bar = (1.0 - h_1 ** 2) * h_bar
        t_1_bar = _sum_to(t_bar, t_shape)
        W_h_bar = _sum_to(t_1_bar, W_h_shape)
        U_xs_part_bar = _sum_to(t_1_bar, U_xs_part_shape)
        h_bar = _matmul_adjoint_b(W_h_bar, W, h)
        b_bar += _sum_to(t_bar, b)
        U_bar_parts.append((U_xs_part_bar, xs_part))
        W_bar_parts.append((W_h_bar, h))
    U_bar = _matmul_adjoint_a_sum(U_bar_parts, U)
    W_bar = _matmul_adjoint_a_sum(W_bar_parts, W)
    return W_bar, U_bar, b_bar
