"""Two small NumPy losses, for the `symdiff` command line.

examples/generated/models_grad.py is written from this file by

    python cli.py examples/models.py -o examples/generated/models_grad.py

and needs only NumPy to run. Rerun that command after changing this file
(tests/test_cli.py fails while the committed module is stale).
"""
import numpy as np

import symdiff


@symdiff.grad(wrt=("w", "b"))
def logistic_loss(w, b, x, y):
    """Mean logistic loss of a linear classifier, plus a small L2 penalty."""
    z = x @ w + b
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.01 * np.sum(w ** 2)


@symdiff.grad
def leaky_square(x):
    """A leaky, squared ramp: the branch not taken gets no gradient."""
    h = np.where(x > 0, x ** 2, 0.1 * x)
    return np.sum(h + np.tanh(x))
