"""What a benchmark case is: one function written several ways, one hand-written gradient.

A `Case` is a family: the same mathematical function written in several
`Spelling`s (what different users would write), the best gradient of it we
could write by hand in NumPy, the arguments at each size, and the names of the
arguments to differentiate with respect to.

Arguments are passed by name. A size's factory returns a dict of every
argument any spelling or the hand-written gradient might read; each callable is
called with the entries its signature names, in its own order. So a spelling
that writes a constant as a literal (`np.where(a <= 1.0, ...)`) and one that
takes it as a parameter (`np.where(a <= delta, ...)`) share one set of
arguments (`delta=1.0`) and one reference gradient.
"""
from __future__ import annotations

import importlib.util
import inspect
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Spelling:
    label: str                      # short, unique within the case: "param delta"
    fn: Callable                    # what a user writes and symdiff differentiates
    overrides: dict | None = None   # symdiff.grad(..., overrides=...)
    needs: tuple = ()               # importable modules it needs (e.g. "scipy")
    note: str = ""                  # what is special about this spelling


@dataclass
class Case:
    name: str
    wrt: tuple                      # argument names, in the order gradients are returned
    hand: Callable                  # returns an array (one wrt) or a tuple (several)
    sizes: dict                     # label -> make_args(rng) -> {name: value}; first is small
    spellings: list
    fd_ref: Callable | None = None  # fd_ref(args) -> function to finite-difference
    needs: tuple = ()               # modules the hand-written gradient needs
    why: dict = field(default_factory=dict)  # spelling label -> why symdiff is slow there

    def __post_init__(self):
        labels = [s.label for s in self.spellings]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{self.name}: spelling labels repeat: {labels}")
        for s in self.spellings:
            params = inspect.signature(s.fn).parameters
            missing = [n for n in self.wrt if n not in params]
            if missing:
                raise ValueError(f"{self.name} / {s.label}: no parameter {missing}")

    @property
    def many(self):
        """Whether gradients come back as a tuple (several wrt arguments)."""
        return len(self.wrt) > 1

    @property
    def symdiff_wrt(self):
        return self.wrt if self.many else self.wrt[0]

    def missing_modules(self, spelling=None):
        wanted = self.needs + (spelling.needs if spelling else ())
        return [m for m in wanted if importlib.util.find_spec(m) is None]


def positional(fn, args):
    """The arguments `fn` declares, taken from the dict `args`, in fn's order.

    Parameters with defaults that `args` lacks are left to their defaults."""
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        if name in args:
            out.append(args[name])
        elif p.default is inspect.Parameter.empty:
            raise TypeError(f"{fn.__name__} needs `{name}`, which the size does not make")
        else:
            break
    return tuple(out)


def wrt_positions(fn, wrt):
    params = list(inspect.signature(fn).parameters)
    return tuple(params.index(n) for n in wrt)


def as_tuple(g, case):
    return tuple(g) if case.many else (g,)
