"""Can symdiff's gradient drive scipy.optimize.minimize, and what does it buy over
SciPy's own finite differences?

The softmax-regression loss of examples/softmax_regression.py (same synthetic
16x16 digits), on one flat parameter vector, minimised with L-BFGS-B three ways:

- `jac=grad_fn`: symdiff's gradient function,
- `jac=True`: symdiff.value_and_grad, so loss and gradient come from one call
  (the forward pass is not repeated),
- no `jac`: SciPy estimates the gradient by forward differences, one extra loss
  evaluation per parameter per gradient.

For each: loss evaluations, gradient evaluations, iterations, time, final loss,
test accuracy and how well the optimum is reached (gradient norm there).

Run: python examples/scipy_minimize.py      (about 15 s; needs SciPy)
"""
import os
import sys
import time

import numpy as np
from scipy.optimize import approx_fprime, minimize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import symdiff  # noqa: E402
from softmax_regression import accuracy, loss, make_data  # noqa: E402


def flat_loss(theta, X, Y, lam):
    """`loss` of the weights and bias packed in one vector, as SciPy wants them."""
    n_in, n_out = X.shape[1], Y.shape[1]
    W = theta[:n_in * n_out].reshape((n_in, n_out))
    b = theta[n_in * n_out:]
    return loss(W, b, X, Y, lam)


grad_fn = symdiff.grad(flat_loss)                 # d flat_loss / d theta
value_and_grad_fn = symdiff.value_and_grad(flat_loss)


class Counted:
    """Wrap a function to count its calls."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


def main():
    rng = np.random.default_rng(0)
    X, Y = make_data(1000, rng)
    X_test, Y_test = make_data(1000, rng)
    lam = 3e-3
    n_in, n_out = X.shape[1], Y.shape[1]
    theta0 = np.zeros(n_in * n_out + n_out)
    args = (X, Y, lam)
    print(f"{theta0.size} parameters, {X.shape[0]} training images\n")

    runs = {}
    f, g = Counted(flat_loss), Counted(grad_fn)
    runs["jac=symdiff.grad"] = (lambda: minimize(f, theta0, args=args, jac=g,
                                                 method="L-BFGS-B"), f, g)
    vg = Counted(value_and_grad_fn)
    runs["jac=True, value_and_grad"] = (lambda: minimize(vg, theta0, args=args, jac=True,
                                                         method="L-BFGS-B"), vg, vg)
    f_fd = Counted(flat_loss)
    # SciPy's own fallback; its budget is cut to 3000 evaluations to keep the
    # example short (the default, 15000, runs out after 5 iterations anyway).
    runs["no jac (finite differences)"] = (lambda: minimize(
        f_fd, theta0, args=args, method="L-BFGS-B", options={"maxfun": 3000}), f_fd, None)

    print(f"{'L-BFGS-B with':28s} {'loss calls':>10s} {'grad calls':>10s} {'iters':>6s} "
          f"{'time':>8s} {'final loss':>16s} {'|grad| at end':>14s} {'test acc':>9s}  status")
    results = {}
    for name, (run, fcount, gcount) in runs.items():
        start = time.perf_counter()
        res = run()
        elapsed = time.perf_counter() - start
        results[name] = (res, elapsed)
        W, b = res.x[:n_in * n_out].reshape(n_in, n_out), res.x[n_in * n_out:]
        true_grad = np.linalg.norm(grad_fn(res.x, *args))
        grads = "—" if gcount is None else str(gcount.calls)
        calls = fcount.calls if gcount is not fcount else f"{fcount.calls} (both)"
        print(f"{name:28s} {calls!s:>10s} {grads:>10s} {res.nit:>6d} {elapsed:>7.2f}s "
              f"{res.fun:>16.12f} {true_grad:>14.1e} {accuracy(W, b, X_test, Y_test):>9.3f}"
              f"  {res.message}")
    # what the finite-difference run would need to do the symdiff run's work
    nit = results["jac=symdiff.grad"][0].nit
    per_eval = results["no jac (finite differences)"][1] / runs[
        "no jac (finite differences)"][1].calls
    print(f"\nWithout jac, every gradient costs {theta0.size + 1} loss evaluations "
          f"(forward differences), so a budget of 3000 evaluations runs out "
          f"after {results['no jac (finite differences)'][0].nit} iterations; the "
          f"{nit} iterations symdiff's runs took would need ~{nit * (theta0.size + 1):,} "
          f"evaluations, ~{nit * (theta0.size + 1) * per_eval:.0f} s.")
    theta = results["jac=symdiff.grad"][0].x
    fd = approx_fprime(theta, flat_loss, np.sqrt(np.finfo(float).eps), *args)
    exact = grad_fn(theta, *args)
    err = np.max(np.abs(fd - exact))
    print(f"At that optimum SciPy's forward-difference gradient is off by {err:.1e} (max "
          f"abs), {err / np.max(np.abs(exact)):.0e} of the largest entry; symdiff's is "
          "exact up to rounding.")


if __name__ == "__main__":
    main()
