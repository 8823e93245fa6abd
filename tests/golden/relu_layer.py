def grad_relu_layer(x, W):
    """Gradient of relu_layer(x, W) with respect to W."""
    _require_float(W, message='golden_functions.py:45:19: argument `W`')
    # L46: return np.sum(np.maximum(W @ x, 0.0))
    # kink policy: ties split the gradient evenly
    W_bar = _matmul_adjoint_a(np.heaviside(W @ x, 0.5), W, x)
    return W_bar
