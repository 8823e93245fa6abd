def grad_rnn(W, U, b, xs, target):
    """Gradient of rnn(W, U, b, xs, target) with respect to W, U, b, for W:
    float64[a, a], U: float64[a, b], b: float64[a], xs: float64[c, b], target:
    float64[a]."""
    h = np.zeros(W.shape[0])  # golden_functions.py:65
    shape0 = xs.shape[0]  # golden_functions.py:66
    hs = np.zeros((shape0 + 1, W.shape[0]))  # golden_functions.py:66
    for t in range(shape0):  # golden_functions.py:66
        h = np.tanh(W @ h + U @ xs[t] + b)  # golden_functions.py:67
        hs[t + 1] = h  # golden_functions.py:67
    h_bar = h - target  # golden_functions.py:68
    # L66: for t in range(xs.shape[0]):
    t_bars = np.empty((shape0, W.shape[0]))
    for t_1 in range(shape0 - 1, -1, -1):
        # L67: h = np.tanh(W @ h + U @ xs[t] + b)
        t_bar = (1.0 - hs[t_1 + 1] ** 2) * h_bar
        h_bar = t_bar @ W
        t_bars[t_1] = t_bar
    b_bar = t_bars.sum(axis=0)
    U_bar = t_bars.T @ xs
    W_bar = t_bars.T @ hs[:-1]
    return W_bar, U_bar, b_bar
