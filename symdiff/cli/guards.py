"""The check a module written for given shapes (``--shapes``) starts with.

A gradient specialised for a signature is right only for arguments of that
signature (which axes have length one decides where it sums a broadcast
gradient). In-process, the dispatcher sees to that; a written module checks
it itself, in plain Python, and raises for other arguments rather than
return a wrong gradient.
"""
from __future__ import annotations

import textwrap

from ..ir.trees import path_text


def signature_check(source, name, signature, np_alias="np"):
    """``source`` with, after its docstring, an ``if not (...): raise``
    checking each argument of ``signature`` (name -> ArgSig)."""
    tests, described = [], []
    for param, sig in signature.items():
        param = path_text(*param) if isinstance(param, tuple) else param  # a leaf
        parts = _tests(param, sig, np_alias)
        if parts:
            tests += parts
            described.append(f"{param}: {sig!r}")
    if not tests:
        return source
    condition = textwrap.wrap(" and ".join(tests), 79 - 12, break_long_words=False)
    leaves, plain = (any(isinstance(p, tuple) == want for p in signature) for want in (1, 0))
    flags = " and ".join(f for f, given in (("--shapes", plain), ("--like", leaves)) if given)
    remedy = "write it without --shapes" if not leaves else \
        f"write it again with {flags} for arguments like them"  # (containers need --like)
    message = f"{name} was written for {', '.join(described)} (symdiff {flags}): " \
        f"for other arguments {remedy}"
    lines = ["    if not (" + condition[0]] + ["            " + c for c in condition[1:]]
    lines[-1] += "):"
    lines += ["        raise TypeError("] + [
        f"            {chunk!r}" for chunk in textwrap.wrap(message, 62, drop_whitespace=False)]
    lines[-1] += ")"
    head, end = _after_docstring(source)
    return head + "\n".join(lines) + "\n" + end


def _tests(param, sig, np):
    if sig.kind in ("float", "int", "bool"):
        return [f"type({param}) is {sig.kind}"]
    if sig.kind != "array":
        return []
    pattern = sig.pattern
    if not pattern:
        return [f"{np}.ndim({param}) == 0",
                f"getattr({param}, 'dtype', None) == {np}.{sig.dtype}"]
    out = [f"type({param}) is {np}.ndarray", f"{param}.ndim == {len(pattern)}",
           f"{param}.dtype == {np}.{sig.dtype}"]
    for axis, entry in enumerate(pattern):
        out.append(f"{param}.shape[{axis}] {'==' if entry == 1 else '!='} 1")
    return out


def _after_docstring(source):
    """``source`` split after the line that closes its docstring."""
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip().endswith('"""') and (i > 1 or line.count('"""') == 2):
            return "".join(lines[:i + 1]), "".join(lines[i + 1:])
    return lines[0], "".join(lines[1:])
