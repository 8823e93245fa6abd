"""Derivative formulas: from SymPy to a plain tree, and from the tree to IR.

`to_tree` (needs SymPy) writes a SymPy expression as nested lists that say
how a person would write it: a product with a numerator and a denominator,
a sum with signs, ``sqrt`` rather than ``** 0.5``. The tree is what the
derivative cache stores, so building code from it (`build`, no SymPy) is all
a compile needs once a derivative has been derived.
"""
from __future__ import annotations

import math

from ..ir.nodes import Const
from ..ir.primitive import TABLE

# SymPy's functions and the primitives that compute them (NumPy's, or SciPy's
# scipy.special functions: the derivative of gammaln is digamma).
_FUNCTIONS = {"exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan",
              "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh",
              "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh",
              "atanh": "arctanh", "sign": "sign", "Abs": "abs", "atan2": "arctan2",
              "floor": "floor", "loggamma": "gammaln", "gamma": "gamma", "erf": "erf",
              "erfc": "erfc", "erfinv": "erfinv", "Max": "maximum", "Min": "minimum"}
# SymPy functions with an integer order first, and the primitives of the orders
# SciPy names apart: polygamma(0, x) is digamma(x), besseli(1, x) is i1(x).
_ORDERED = {"polygamma": ("polygamma", {0: "digamma"}),
            "besseli": ("iv", {0: "i0", 1: "i1"})}


# ---- SymPy -> tree ------------------------------------------------------------------------
def to_tree(e, seed):
    """The tree for SymPy expression ``e``; factors holding ``seed`` go last."""
    import sympy as sp
    return _Tree(sp, seed).visit(e)


class _Tree:
    def __init__(self, sp, seed):
        self.sp, self.seed = sp, seed

    def visit(self, e):
        if e.is_Symbol:
            return ["sym", e.name]
        if e.is_Number or e.is_NumberSymbol or (e.is_number and not e.free_symbols):
            return ["num", float(_python_number(e))]
        if e.is_Add:
            terms = sorted(e.as_ordered_terms(), key=lambda t: t.could_extract_minus_sign())
            return ["add", [[t.could_extract_minus_sign(),
                             self.visit(-t if t.could_extract_minus_sign() else t)]
                            for t in terms]]
        if e.is_Mul:
            return self.mul(e)
        if e.is_Pow:
            return self.pow(e.base, e.exp)
        name = type(e).__name__
        if name in _FUNCTIONS:
            return ["fn", _FUNCTIONS[name], [self.visit(a) for a in e.args]]
        if name in _ORDERED:
            return self.ordered(name, *e.args)
        if isinstance(e, self.sp.core.function.AppliedUndef) and name in TABLE:
            # a primitive named in a record's partials: ``expit(-a)``, ``erfcx(x)``;
            # its orders written as ints (``spherical_jn(1, z)``)
            partials = TABLE[name].formula.partials if TABLE[name].formula else ()
            return ["fn", name, [["int", int(a)] if a.is_Integer and i < len(partials)
                                 and partials[i] is None else self.visit(a)
                                 for i, a in enumerate(e.args)]]
        raise NotImplementedError(f"cannot write the SymPy expression {e} ({name}) as NumPy")

    def ordered(self, name, order, x):
        general, named = _ORDERED[name]
        if order.is_Integer and int(order) in named:
            return ["fn", named[int(order)], [self.visit(x)]]
        order = ["int", int(order)] if order.is_Integer else self.visit(order)
        return ["fn", general, [order, self.visit(x)]]

    def mul(self, e):
        coeff, factors = e.as_coeff_mul()
        numer, denom = [], []
        for f in sorted(factors, key=lambda f: f.has(self.seed)):
            if f.is_Pow and f.exp.is_Number and f.exp < 0:
                denom.append(self.pow(f.base, -f.exp))
            else:
                numer.append(self.visit(f))
        negative, coeff = bool(coeff < 0), abs(coeff)
        if coeff != 1 and coeff.is_Rational and coeff.p == 1 and denom:
            denom.insert(0, ["num", float(coeff.q)])  # 1/2 * x / y -> x / (2 * y)
        elif coeff != 1 or not numer:
            numer.insert(0, ["num", float(_python_number(coeff))])
        return ["mul", negative, numer, denom]

    def pow(self, base, exp):
        sp = self.sp
        if exp == sp.Rational(1, 2):
            return ["fn", "sqrt", [self.visit(base)]]
        if exp == -1:
            return ["recip", self.visit(base)]
        if exp.is_Number and exp < 0:
            return ["recip", self.pow(base, -exp)]
        if base == sp.S.Exp1:
            return ["fn", "exp", [self.visit(exp)]]
        power = ["int" if exp.is_Integer else "num", _python_number(exp)] if exp.is_Number \
            else self.visit(exp)
        return ["pow", self.visit(base), power]


def _python_number(e):
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return float(e)
    if e == math.pi:
        return math.pi
    return float(e.evalf(17))


# ---- tree -> IR -----------------------------------------------------------------------------
def build(tree, env, b):
    """Make the operations for ``tree`` with builder ``b``; ``env`` maps the
    tree's symbol names to atoms."""
    kind = tree[0]
    if kind == "sym":
        return env[tree[1]]
    if kind == "num":
        return Const(float(tree[1]))
    if kind == "int":
        return Const(int(tree[1]))
    if kind == "add":
        result = None
        for negative, term in tree[1]:
            atom = build(term, env, b)
            if result is None:
                result = b.neg(atom) if negative else atom
            else:
                result = b.sub(result, atom) if negative else b.add(result, atom)
        return result
    if kind == "mul":
        _, negative, numer, denom = tree
        # (1/2 * 1/x is written 1 / (2 * x): no factor left above the line)
        result = _product([build(t, env, b) for t in numer], b) if numer else Const(1.0)
        if denom:
            result = b.div(result, _product([build(t, env, b) for t in denom], b))
        return b.neg(result) if negative else result
    if kind == "recip":
        return b.div(Const(1), build(tree[1], env, b))
    if kind == "pow":
        base, exponent = build(tree[1], env, b), build(tree[2], env, b)
        if _number(base) and _number(exponent):  # scale ** 2 with scale=1.0 given
            return Const(base.value ** exponent.value)
        return b.op("power", base, exponent)
    if kind == "fn":
        return b.op(tree[1], *[build(t, env, b) for t in tree[2]])
    raise ValueError(f"unknown formula node {kind!r}")


def _number(atom):
    return isinstance(atom, Const) and isinstance(atom.value, (int, float)) \
        and not isinstance(atom.value, bool)


def _product(atoms, b):
    result = atoms[0]
    for atom in atoms[1:]:
        result = b.mul(result, atom)
    return result
