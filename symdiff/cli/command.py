"""The `symdiff` command: argument parsing and reporting.

``symdiff FILE.py::FUNC`` and ``symdiff FILE.py`` write gradient modules
(writer.py) for functions found in the user's file (targets.py);
``--check`` compares one with finite differences (check.py).
"""
from __future__ import annotations

import argparse
import keyword
import os
import re
import sys

import numpy as np

from ..version import __version__
from ..api import show_ir
from .fd_check import parse_shapes, run_check
from ..errors import CommandLineError, SymdiffError, report
from ..containers import leaf_signature
from ..ir.trees import is_container, structure
from .targets import load_file, parse_spec
from .writer import compile_all, render, write_module

EXAMPLES = """\
examples:
  symdiff models.py::loss --wrt w,b          print the module for loss, d/d(w, b)
  symdiff models.py -o generated/grads.py    every @symdiff.grad function in models.py
  symdiff models.py::loss --check --shapes w=3 b= x=10,3

symdiff imports FILE.py to find its functions: its top-level code runs.
Each module defines grad_FUNC and value_and_grad_FUNC and needs only NumPy.
SYMDIFF_LOG=debug shows each compile's stages and times.
exit status: 0 done (check passed), 1 check failed, 2 error"""


def main(argv=None):
    """Run the command line; the exit status."""
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except SymdiffError as err:
        print(_report(err), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _report(err):
    """``file:line:col: message``, the source line and a hint; paths as typed."""
    if err.filename and os.path.isabs(err.filename):
        relative = os.path.relpath(err.filename)
        if not relative.startswith(os.pardir):
            err.filename = relative
    text = report(err)
    return text if err.location() else f"symdiff: {text}"


def _parser():
    parser = argparse.ArgumentParser(
        prog="symdiff", epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write the gradients of Python/NumPy functions as readable source:\n"
                    "a module that needs only NumPy.")
    parser.add_argument("target", metavar="FILE.py[::FUNC]",
                        help="the function FUNC in FILE.py, or without ::FUNC every "
                             "@symdiff.grad-decorated function in FILE.py (FILE.py is "
                             "imported: its top-level code runs)")
    parser.add_argument("--version", action="version", version=f"symdiff {__version__}")
    parser.add_argument("--wrt", metavar="NAME[,NAME...]",
                        help="the arguments to differentiate by, by name or position "
                             "(default: the decorator's, else the first)")
    parser.add_argument("-o", "--output", metavar="OUT.py",
                        help="write the module here, a name Python can import "
                             "('-' or none: standard output)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite OUT.py even if symdiff did not write it")
    parser.add_argument("--check", action="store_true",
                        help="compare FUNC's gradient with finite differences on random "
                             "inputs instead of printing it; with -o, write it if it passes")
    parser.add_argument("--shapes", nargs="+", metavar="NAME=DIMS", default=[],
                        help="x=3,4 (x= a float): a module for float64 arrays of these "
                             "shapes, plain NumPy; --check uses them")
    parser.add_argument("--tol", type=float, default=1e-5,
                        help="with --check: the largest error that passes (default 1e-5)")
    parser.add_argument("--like", action="append", metavar="NAME=EXPR", default=[],
                        help="an example of a container argument (EXPR in FILE.py)")
    parser.add_argument("--no-checks", dest="checks", action="store_false",
                        help="no runtime checks: plain code, e.g. for numba")
    parser.add_argument("--ir", action="store_true",
                        help="print FUNC's IR after each compiler stage instead of the module")
    return parser


def _run(args):
    path, func = parse_spec(args.target)
    _validate(args, func)
    shapes = parse_shapes(args.shapes)
    user = load_file(path)
    targets = user.targets(func, _parse_wrt(args.wrt))
    examples = {}
    if args.like:
        examples = _examples(args.like, user)
        targets[0].trees = {name: structure(value) for name, value in examples.items()}
    if shapes or examples:  # a module for arguments like these: no broadcasting helpers
        targets[0].signature = _signature(shapes, examples, targets[0].trees)
    if args.ir:
        target = targets[0]
        sys.stdout.write(show_ir(target.fn, "all", wrt=target.wrt,
                                 overrides=target.overrides or None))
        return 0
    compiled = compile_all(targets, checks=args.checks)
    text = render(compiled, user)
    if args.check:
        result = run_check(text, compiled[0], targets[0], user, shapes, args.tol)
        print(_check_report(result))
        if not result.passed:
            return 1
    if args.output in (None, "-"):
        if not args.check:
            sys.stdout.write(text)
        return 0
    written = write_module(args.output, text, args.force)
    names = ", ".join(c.name for c in compiled)
    state = "wrote" if written else "unchanged:"
    print(f"symdiff: {state} {args.output} ({names})", file=sys.stderr)
    return 0


def _examples(likes, user):
    """``--like NAME=EXPR``: each example container, EXPR evaluated in the
    user's module."""
    examples = {}
    for item in likes:
        name, sep, text = item.partition("=")
        if not sep or not name.isidentifier() or not text:
            raise CommandLineError(f"--like {item!r}: expected NAME=EXPR",
                                   hint="e.g. --like params=init_params()")
        try:
            value = eval(text, dict(vars(user.module)))  # noqa: S307 (the user's own file)
        except Exception as exc:  # the user's expression: any error it raises
            raise CommandLineError(f"--like {item!r}: evaluating {text!r} in "
                                   f"{user.path} failed: {type(exc).__name__}: {exc}",
                                   hint="write an expression of names your file defines")
        if not is_container(value):
            raise CommandLineError(f"--like {item!r}: {text!r} is not a container",
                                   hint="--like is for dicts, lists, tuples and objects "
                                        "of arrays; arrays need no example")
        examples[name] = value
    return examples


def _signature(shapes, examples, trees):
    """``--shapes``: float64 arrays of those shapes (a scalar: a Python float),
    and ``--like``: the leaves of the example containers, as a gradient
    specialised for such arguments sees them."""
    values = {n: np.zeros(shapes[n]) if shapes[n] else 0.0 for n in shapes}
    found = leaf_signature({**values, **examples}, trees)
    if found is None:
        raise CommandLineError("--like: a leaf of the example is an array of another "
                               "library than NumPy",
                               hint="give an example of NumPy arrays")
    return found


def _validate(args, func):
    if args.like and func is None:
        raise CommandLineError("--like needs one function: FILE.py::FUNC --like NAME=EXPR",
                               hint="in whole-file mode, name the function with ::FUNC")
    if args.wrt is not None and func is None:
        raise CommandLineError("--wrt needs one function: FILE.py::FUNC --wrt NAME",
                               hint="in whole-file mode each decorator's wrt is used")
    if args.check and (func is None or not args.shapes):
        raise CommandLineError("--check needs one function and its argument shapes",
                               hint="e.g. symdiff models.py::loss --check --shapes w=3 x=10,3")
    if args.ir and (func is None or args.check or args.output not in (None, "-")):
        raise CommandLineError("--ir prints the IR of one function",
                               hint="e.g. symdiff --ir models.py::loss [--wrt w]")
    if args.shapes and func is None:
        raise CommandLineError("--shapes is for one function: FILE.py::FUNC --shapes x=3,4",
                               hint="in whole-file mode, name the function with ::FUNC")
    if args.check and args.output == "-":
        raise CommandLineError("--check prints a report, not the module",
                               hint="give -o a file name to write the module if it passes")
    if args.output not in (None, "-"):
        _importable_output(args.output)


def _importable_output(path):
    """A written module is imported by its name: refuse one Python cannot import."""
    stem, ext = os.path.splitext(os.path.basename(path))
    if os.path.isdir(path) or not stem:
        return  # reported when writing: "is a directory"
    if ext != ".py" or not stem.isidentifier() or keyword.iskeyword(stem):
        fixed = re.sub(r"\W", "_", stem)
        fixed = ("_" if fixed[:1].isdigit() else "") + fixed
        fixed += "_" if keyword.iskeyword(fixed) else ""  # PEP 8's `class_`
        suggestion = os.path.join(os.path.dirname(path), fixed + ".py")
        why = "does not end in .py" if ext != ".py" else \
            f"{stem!r} is not a Python identifier" if not stem.isidentifier() else \
            f"{stem!r} is a Python keyword"
        raise CommandLineError(f"-o {path}: the module could not be imported: {why}",
                               hint=f"use a module name, e.g. -o {suggestion}")


def _parse_wrt(text):
    if text is None:
        return None
    items = [item.strip() for item in text.split(",")]
    items = [int(item) if item.lstrip("-").isdigit() else item for item in items if item]
    bad = [item for item in items if isinstance(item, str) and not item.isidentifier()]
    if not items or bad:
        raise CommandLineError(f"--wrt {text!r}: expected argument names or positions",
                               hint="e.g. --wrt w or --wrt w,b or --wrt 0")
    return tuple(items) if "," in text else items[0]


def _check_report(result):
    shapes = ", ".join(f"{n}: {s}" for n, s in result.shapes.items())
    lines = [f"symdiff --check {result.name} on random inputs ({shapes})"]
    lines += [f"  {label:<12} max error {err:.2e}" for label, err in result.errors.items()]
    verdict = "pass" if result.passed else "FAIL"
    lines.append(f"{verdict}: max error {max(result.errors.values()):.2e}, "
                 f"tolerance {result.tol:.0e}")
    return "\n".join(lines)
