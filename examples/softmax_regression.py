"""Are symdiff's gradients exact, and how do they compare with numerical ones?

Softmax regression on an MNIST-like problem, made here (nothing is downloaded):
ten 16x16 "digits" drawn from seven-segment strokes, randomly shifted by up
to a pixel each way, with random stroke intensity and Gaussian pixel noise. The model is trained by
plain gradient descent with the gradient symdiff generates. Then one gradient
is compared with

- the textbook closed form, (softmax - onehot) / n, which symdiff matches to
  rounding (~1e-16: it is exact, not an approximation), and
- central finite differences for several step sizes, whose error is never
  below ~1e-10 (truncation error for large steps, cancellation for small ones),

and the time of one symdiff gradient is compared with one finite-difference
gradient (2 loss evaluations per parameter).

Run: python examples/softmax_regression.py      (about 10 s)
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import symdiff  # noqa: E402

# ---------------------------------------------------------------------- the data
SIDE = 16
# seven strokes, 2 pixels wide, on a 16x16 grid: (rows, cols) covered by each
SEGMENTS = {
    "top": (slice(2, 4), slice(4, 12)), "middle": (slice(7, 9), slice(4, 12)),
    "bottom": (slice(12, 14), slice(4, 12)),
    "upper_left": (slice(2, 9), slice(4, 6)), "upper_right": (slice(2, 9), slice(10, 12)),
    "lower_left": (slice(7, 14), slice(4, 6)), "lower_right": (slice(7, 14), slice(10, 12)),
}
DIGITS = {
    0: "top upper_left upper_right lower_left lower_right bottom",
    1: "upper_right lower_right",
    2: "top upper_right middle lower_left bottom",
    3: "top upper_right middle lower_right bottom",
    4: "upper_left upper_right middle lower_right",
    5: "top upper_left middle lower_right bottom",
    6: "top upper_left middle lower_left lower_right bottom",
    7: "top upper_right lower_right",
    8: "top upper_left upper_right middle lower_left lower_right bottom",
    9: "top upper_left upper_right middle lower_right bottom",
}


def templates():
    out = np.zeros((10, SIDE, SIDE))
    for digit, names in DIGITS.items():
        for name in names.split():
            out[digit][SEGMENTS[name]] = 1.0
    return out


def shifted(img, dy, dx):
    """img moved by (dy, dx) pixels, zeros shifted in (no wrap-around)."""
    out = np.zeros_like(img)
    n = img.shape[0]
    out[max(dy, 0):n + min(dy, 0), max(dx, 0):n + min(dx, 0)] = \
        img[max(-dy, 0):n + min(-dy, 0), max(-dx, 0):n + min(-dx, 0)]
    return out


def make_data(n, rng, noise=0.4):
    """n digit images (flattened) and their one-hot labels: a template with random
    intensity, moved by up to a pixel each way, plus Gaussian pixel noise."""
    base = templates()
    labels = rng.integers(0, 10, n)
    images = np.zeros((n, SIDE, SIDE))
    for i, digit in enumerate(labels):
        dy, dx = rng.integers(-1, 2, 2)
        images[i] = shifted(base[digit] * rng.uniform(0.6, 1.2), dy, dx)
    images += noise * rng.standard_normal(images.shape)
    return images.reshape(n, -1), np.eye(10)[labels]


# --------------------------------------------------------------------- the model
def loss(W, b, X, Y, lam):
    """Mean softmax cross-entropy of a linear classifier, plus an L2 penalty."""
    logits = X @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0] + 0.5 * lam * np.sum(W ** 2)


grad_loss = symdiff.grad(loss, wrt=("W", "b"))


def closed_form(W, b, X, Y, lam):
    """The textbook gradient, derived by hand: (softmax - Y) / n (one-hot Y)."""
    logits = X @ W + b
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    d = (p - Y) / X.shape[0]
    return X.T @ d + lam * W, d.sum(axis=0)


def finite_differences(W, b, X, Y, lam, eps):
    """Central differences, one parameter at a time (2 loss evaluations each)."""
    gW, gb = np.zeros_like(W), np.zeros_like(b)
    for param, out in ((W, gW), (b, gb)):
        for i in np.ndindex(param.shape):
            old = param[i]
            param[i] = old + eps
            up = loss(W, b, X, Y, lam)
            param[i] = old - eps
            down = loss(W, b, X, Y, lam)
            param[i] = old
            out[i] = (up - down) / (2 * eps)
    return gW, gb


def accuracy(W, b, X, Y):
    return float(np.mean(np.argmax(X @ W + b, axis=1) == np.argmax(Y, axis=1)))


def max_rel_error(got, ref):
    scale = max(np.max(np.abs(r)) for r in ref)
    return max(np.max(np.abs(g - r)) for g, r in zip(got, ref)) / scale


def main():
    rng = np.random.default_rng(0)
    X_train, Y_train = make_data(4000, rng)
    X_test, Y_test = make_data(1000, rng)
    lam = 3e-3
    print("symdiff's gradient of the loss:\n")
    print(symdiff.source(grad_loss))

    # ---- train by plain gradient descent
    W, b = np.zeros((SIDE * SIDE, 10)), np.zeros(10)
    lr, steps = 0.5, 200
    start = time.perf_counter()
    for step in range(steps + 1):
        if step % 50 == 0:
            print(f"step {step:4d}  loss {loss(W, b, X_train, Y_train, lam):.4f}  "
                  f"train acc {accuracy(W, b, X_train, Y_train):.3f}")
        if step < steps:
            gW, gb = grad_loss(W, b, X_train, Y_train, lam)
            W -= lr * gW
            b -= lr * gb
    print(f"{steps} steps of gradient descent in {time.perf_counter() - start:.2f} s")
    print(f"train accuracy {accuracy(W, b, X_train, Y_train):.3f}, "
          f"test accuracy {accuracy(W, b, X_test, Y_test):.3f}\n")

    # ---- one gradient, three ways (at the trained point, where gradients are small)
    X, Y = X_train[:200], Y_train[:200]
    exact = grad_loss(W, b, X, Y, lam)
    print(f"symdiff vs closed form (softmax - Y) / n: max relative error "
          f"{max_rel_error(exact, closed_form(W, b, X, Y, lam)):.1e}")
    print("central finite differences vs symdiff, by step size:")
    for eps in (1e-2, 1e-4, 1e-6, 1e-8):
        fd = finite_differences(W, b, X, Y, lam, eps)
        print(f"  eps = {eps:.0e}: max relative error {max_rel_error(fd, exact):.1e}")

    # ---- speed: one symdiff gradient vs one finite-difference gradient
    t = time.perf_counter()
    reps = 200
    for _ in range(reps):
        grad_loss(W, b, X, Y, lam)
    t_symdiff = (time.perf_counter() - t) / reps
    t = time.perf_counter()
    finite_differences(W, b, X, Y, lam, 1e-6)
    t_fd = time.perf_counter() - t
    n_params = W.size + b.size
    print(f"\none gradient ({n_params} parameters, batch {X.shape[0]}): symdiff "
          f"{t_symdiff * 1e3:.2f} ms, finite differences {t_fd * 1e3:.0f} ms "
          f"({2 * n_params} loss evaluations): symdiff is {t_fd / t_symdiff:.0f}x faster")


if __name__ == "__main__":
    main()
