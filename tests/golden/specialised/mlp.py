def grad_mlp(W1, b1, W2, b2, X, Y):
    """Gradient of mlp(W1, b1, W2, b2, X, Y) with respect to W1, b1, W2, b2,
    for W1: float64[a, b], b1: float64[b], W2: float64[b, c], b2: float64[c],
    X: float64[d, a], Y: float64[d, c]."""
    h = np.tanh(X @ W1 + b1)  # golden_functions.py:22
    logits = h @ W2 + b2  # golden_functions.py:23
    # golden_functions.py:24
    logits = logits - logits.max(axis=1, keepdims=True)
    exp_logits = np.exp(logits)  # golden_functions.py:25
    # golden_functions.py:25
    sum_exp_logits = exp_logits.sum(axis=1, keepdims=True)
    # L26: return -np.sum(Y * log_probs) / X.shape[0]
    log_probs_bar = Y * (-1.0 / X.shape[0])
    # L25: log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdi...
    sum_log_probs_bar = log_probs_bar.sum(axis=1, keepdims=True)
    t = exp_logits * (sum_log_probs_bar / sum_exp_logits)
    # L24: logits = logits - np.max(logits, axis=1, keepdims=True)
    # np.max(...) gets no gradient: the result does not change with it
    logits_bar = log_probs_bar - t
    # L23: logits = h @ W2 + b2
    b2_bar = logits_bar.sum(axis=0)
    W2_bar = h.T @ logits_bar
    # L22: h = np.tanh(X @ W1 + b1)
    t_bar = (1.0 - h ** 2) * (logits_bar @ W2.T)
    b1_bar = t_bar.sum(axis=0)
    W1_bar = X.T @ t_bar
    return W1_bar, b1_bar, W2_bar, b2_bar
