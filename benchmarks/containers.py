"""Gradients of functions of containers of parameters, against the same
function of arrays and the hand-written gradient.

    python benchmarks/containers.py            # CONTAINERS.md
    python benchmarks/containers.py --quick    # small, prints only

The MLP of cases/mlp.py written as a user with a dict of parameters writes
it (``params["W1"]``...), with the gradient a dict, and as a list of layers
(``for W, b in layers:``). Both are compiled for the structure of the
argument and specialised for the shapes of its leaves (symdiff/containers.py),
so their code is the code of the array spelling; what they add is the
dispatch on the container (its structure and its leaves' shapes, every
call) and building the dict or list of the gradient. Ratios are to the
hand-written gradient (cases/mlp.py's, which returns a tuple), measured in
the same interleaved rounds (timing.py).
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import symdiff  # noqa: E402
from cases.mlp import _args, mlp, mlp_hand  # noqa: E402
from timing import interleaved_calls, paired_ratio, paired_spread  # noqa: E402


def mlp_dict(params, X, Y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


def mlp_layers(layers, X, Y):
    h = X
    for k, (W, b) in enumerate(layers):
        z = h @ W + b
        h = np.tanh(z) if k < len(layers) - 1 else z
    logits = h - np.max(h, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


SIZES = {"4:8-16-3": (4, 8, 16, 3), "128:784-256-10": (128, 784, 256, 10)}


def measure(label, dims, rounds):
    a = _args(*dims)(np.random.default_rng(0))
    arrays = (a["W1"], a["b1"], a["W2"], a["b2"], a["X"], a["Y"])
    params = {k: a[k] for k in ("W1", "b1", "W2", "b2")}
    layers = [(a["W1"], a["b1"]), (a["W2"], a["b2"])]
    by_dict = symdiff.grad(mlp_dict, wrt="params")
    by_layers = symdiff.grad(mlp_layers, wrt="layers")
    by_arrays = symdiff.grad(mlp, wrt=("W1", "b1", "W2", "b2"))
    expected = mlp_hand(*arrays)
    got = [tuple(by_dict(params, a["X"], a["Y"]).values()),
           tuple(x for layer in by_layers(layers, a["X"], a["Y"]) for x in layer),
           by_arrays(*arrays)]
    for gradient in got:  # the same numbers, up to rounding
        for g, e in zip(gradient, expected):
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)
    specialised = symdiff.specialised(by_dict, params, a["X"], a["Y"])
    calls = [(mlp_hand, arrays), (by_arrays, arrays), (by_dict, (params, a["X"], a["Y"])),
             (by_layers, (layers, a["X"], a["Y"])), (specialised, (params, a["X"], a["Y"]))]
    medians, rounds_ = interleaved_calls(calls, rounds=rounds)
    row = [label, f"{medians[0] * 1e6:.1f} us"]
    for k in range(1, len(calls)):
        low, high = paired_spread(rounds_[k], rounds_[0])
        row.append(f"{paired_ratio(rounds_[k], rounds_[0]):.2f} ({low:.2f}-{high:.2f})")
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join(HERE, "CONTAINERS.md"))
    args = parser.parse_args(argv)
    rounds = 5 if args.quick else 15
    sizes = dict(list(SIZES.items())[:1]) if args.quick else SIZES
    lines = ["| size | hand-written | symdiff, arrays | symdiff, dict | symdiff, list of "
             "layers | the dict's function, no dispatch |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(measure(label, dims, rounds)) + " |"
              for label, dims in sizes.items()]
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        with open(args.out, "w") as out:
            out.write("# Gradients of containers of parameters\n\n" + __doc__.split("\n\n", 1)[1]
                      + "\nsymdiff / hand-written, median over rounds (quartiles in brackets); "
                      "the last column is `symdiff.specialised(df, params, X, Y)`, the "
                      "generated function without the dispatcher.\n\n" + text + "\n")
        print(f"written to {args.out}")


if __name__ == "__main__":
    main()
