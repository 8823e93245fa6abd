def grad_relu_layer(x, W):
    """Gradient of relu_layer(x, W) with respect to W, for x: float64[a], W:
    float64[b, a]."""
    # L46: return np.sum(np.maximum(W @ x, 0.0))
    # kink policy: ties split the gradient evenly
    W_bar = np.heaviside(W @ x, 0.5)[:, None] * x
    return W_bar
