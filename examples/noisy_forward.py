"""How do I use one expression in the forward pass and another in the backward pass?

Multiplicative noise u sits inside z = sqrt(y * u). We want the gradient of the
clean model, z = sqrt(y), while the forward value stays noisy. Three ways:

1. the stop_gradient trick, `stop_gradient(noisy - clean) + clean`;
2. `symdiff.straight_through(noisy, clean)`: the local derivative of `clean`;
3. `symdiff.backward_as(noisy, clean)`: the whole backward pass, from here on
   downstream, computed as if `clean` stood here.

With loss = sum(z) they agree. With loss = sum(3 z^2), only backward_as gives
the clean gradient 6 x: the others still multiply by the noisy z downstream.

Run: python examples/noisy_forward.py
"""
import numpy as np

import symdiff

u = np.random.default_rng(0).uniform(0.9, 1.1, size=3)   # the noise
x = np.array([-2.0, -1.0, 1.0])


def with_trick(x):
    y = x ** 2
    clean = np.sqrt(y)
    z = symdiff.stop_gradient(np.sqrt(y * u) - clean) + clean
    return np.sum(3 * z ** 2)


def with_straight_through(x):
    y = x ** 2
    z = symdiff.straight_through(np.sqrt(y * u), np.sqrt(y))
    return np.sum(3 * z ** 2)


def with_backward_as(x):
    y = x ** 2
    z = symdiff.backward_as(np.sqrt(y * u), np.sqrt(y))
    return np.sum(3 * z ** 2)


if __name__ == "__main__":
    print("x                    =", x)
    print("clean gradient 6 x   =", 6 * x)
    for f in (with_trick, with_straight_through, with_backward_as):
        value, grad = symdiff.value_and_grad(f)(x)
        print(f"{f.__name__:22s} value {value:.6f} (noisy), gradient {grad}")
    print()
    print(symdiff.source(symdiff.grad(with_backward_as)))
    print(symdiff.source(symdiff.grad(with_trick)))
