"""Peak memory of a 1,000-step tanh recurrence: symdiff's gradient against a
hand-written backward loop (tracemalloc, which sees NumPy's allocations).

Run: python benchmarks/memory.py
"""
import os
import sys
import tracemalloc

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import symdiff  # noqa: E402
from cases.rnn import rnn, rnn_hand  # noqa: E402


def peak(fn, *args):
    fn(*args)  # warm up
    tracemalloc.start()
    fn(*args)
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def main(hidden=32, inputs=8, steps=1000):
    rng = np.random.default_rng(0)
    W = rng.normal(size=(hidden, hidden)) * 0.3
    U = rng.normal(size=(hidden, inputs))
    b = rng.normal(size=hidden)
    xs = rng.normal(size=(steps, inputs))
    target = rng.normal(size=hidden)
    df = symdiff.grad(rnn, wrt=(0, 1, 2))
    args = (W, U, b, xs, target)
    ours, hand = peak(df, *args), peak(rnn_hand, *args)
    state = hidden * 8
    print(f"{steps} steps, hidden {hidden}: symdiff peak {ours / 1024:.0f} KiB, "
          f"hand-written {hand / 1024:.0f} KiB, ratio {ours / hand:.2f}; "
          f"per step {ours / steps / state:.1f} vs {hand / steps / state:.1f} states")
    return ours, hand


if __name__ == "__main__":
    main()
