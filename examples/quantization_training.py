"""Can I train through quantisation? (TensorFlow's gradient_override_map({"Floor": "Identity"}))

A tiny regression model whose weights are rounded to a grid of 1/4 in the
forward pass. The plain gradient of floor is zero, so plain gradient descent
never moves; overriding floor's gradient with the identity (a straight-through
estimator) trains it.

Run: python examples/quantization_training.py
"""
import numpy as np

import symdiff

rng = np.random.default_rng(1)
X = rng.normal(size=(64, 3))
w_true = np.array([0.75, -1.25, 0.5])
y = X @ w_true


def loss(w):
    w_q = np.floor(w * 4.0 + 0.5) / 4.0     # round to the nearest quarter
    return np.mean((X @ w_q - y) ** 2)


def train(df, steps=200, lr=0.05):
    w = np.array([0.1, 0.1, 0.1])
    for _ in range(steps):
        w = w - lr * df(w)
    return w


if __name__ == "__main__":
    plain = symdiff.grad(loss)
    ste = symdiff.grad(loss, overrides={"floor": "identity"})
    for name, df in (("plain gradient", plain), ("floor -> identity", ste)):
        w = train(df)
        print(f"{name:18s} loss {loss(w):.4f}  weights {np.floor(w * 4 + 0.5) / 4}")
    print()
    print(symdiff.source(ste))
