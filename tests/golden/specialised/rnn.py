def grad_rnn(W, U, b, xs, target):
    """Gradient of rnn(W, U, b, xs, target) with respect to W, U, b, for W:
    float64[a, a], U: float64[a, b], b: float64[a], xs: float64[c, b], target:
    float64[a]."""
    h = np.zeros(W.shape[0])  # golden_functions.py:65
    shape0 = xs.shape[0]  # golden_functions.py:66
    tape = []
    for t in range(shape0):  # golden_functions.py:66
        xs_part = xs[t]  # golden_functions.py:67
        h_1 = np.tanh(W @ h + U @ xs_part + b)  # golden_functions.py:67
        tape.append((h, xs_part, h_1))
        h = h_1
    h_bar = h - target  # golden_functions.py:68
    # L66: for t in range(xs.shape[0]):
    b_bar = np.zeros_like(b)
    t_bar_rows = []
    U_bar_columns = []
    W_bar_columns = []
    for h, xs_part, h_1 in reversed(tape):
        # L67: h = np.tanh(W @ h + U @ xs[t] + b)
        t_bar = (1.0 - h_1 ** 2) * h_bar
        h_bar = t_bar @ W
        b_bar += t_bar
        t_bar_rows.append(t_bar)
        U_bar_columns.append(xs_part)
        W_bar_columns.append(h)
    # L66: for t in range(xs.shape[0]):
    if t_bar_rows:
        t_bars_t = np.stack(t_bar_rows).T
        U_bar = t_bars_t @ np.stack(U_bar_columns)
        W_bar = t_bars_t @ np.stack(W_bar_columns)
    else:
        U_bar = np.zeros_like(U)
        W_bar = np.zeros_like(W)
    return W_bar, U_bar, b_bar
