def grad_mlp(W1, b1, W2, b2, X, Y):
    """Gradient of mlp(W1, b1, W2, b2, X, Y) with respect to W1, b1, W2, b2."""
    _require_float(W1, b1, W2, b2, messages=(
        'golden_functions.py:21:9: argument `W1`',
        'golden_functions.py:21:13: argument `b1`',
        'golden_functions.py:21:17: argument `W2`',
        'golden_functions.py:21:21: argument `b2`'))
    X_W1 = X @ W1  # golden_functions.py:22
    h = np.tanh(X_W1 + b1)  # golden_functions.py:22
    h_W2 = h @ W2  # golden_functions.py:23
    logits = h_W2 + b2  # golden_functions.py:23
    # golden_functions.py:24
    logits = logits - logits.max(axis=1, keepdims=True)
    exp_logits = np.exp(logits)  # golden_functions.py:25
    # golden_functions.py:25
    sum_exp_logits = exp_logits.sum(axis=1, keepdims=True)
    log_probs = logits - np.log(sum_exp_logits)  # golden_functions.py:25
    # L26: return -np.sum(Y * log_probs) / X.shape[0]
    t_1 = Y * np.full_like(Y * log_probs, -1.0 / np.shape(X)[0])
    log_probs_bar = _sum_to(t_1, log_probs)
    # L25: log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdi...
    sum_log_probs_bar = log_probs_bar.sum(axis=1, keepdims=True)
    t_2 = exp_logits * (sum_log_probs_bar / sum_exp_logits)
    # L24: logits = logits - np.max(logits, axis=1, keepdims=True)
    # np.max(...) gets no gradient: the result does not change with it
    logits_bar = log_probs_bar - t_2
    # L23: logits = h @ W2 + b2
    h_W2_bar = _sum_to(logits_bar, h_W2)
    b2_bar = _sum_to(logits_bar, b2)
    W2_bar = _matmul_adjoint_b(h_W2_bar, h, W2)
    # L22: h = np.tanh(X @ W1 + b1)
    t_bar = (1.0 - h ** 2) * _matmul_adjoint_a(h_W2_bar, h, W2)
    b1_bar = _sum_to(t_bar, b1)
    W1_bar = _matmul_adjoint_b(_sum_to(t_bar, X_W1), X, W1)
    return W1_bar, b1_bar, W2_bar, b2_bar
