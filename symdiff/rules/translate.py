"""SymPy expressions to IR operations, written the way a person would."""
from __future__ import annotations

import math

from ..ir import Const

_FUNCTIONS = {"exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan",
              "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh",
              "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh",
              "atanh": "arctanh", "sign": "sign", "Abs": "abs", "atan2": "arctan2"}


def to_ir(expr, env, b, seed=None):
    """Build ``expr`` with builder ``b``; ``env`` maps SymPy symbols to atoms.

    ``seed`` (the upstream-gradient symbol) is multiplied in last.
    """
    import sympy as sp
    return _Translator(sp, env, b, seed).visit(expr)


class _Translator:
    def __init__(self, sp, env, b, seed):
        self.sp, self.env, self.b, self.seed = sp, env, b, seed

    def visit(self, e):
        if e.is_Symbol:
            return self.env[e]
        if e.is_Number or e.is_NumberSymbol or (e.is_number and not e.free_symbols):
            return Const(float(_python_number(e)))
        if e.is_Add:
            return self.add(e)
        if e.is_Mul:
            return self.mul(e)
        if e.is_Pow:
            return self.pow(e.base, e.exp)
        name = type(e).__name__
        if name in _FUNCTIONS:
            return self.b.op(_FUNCTIONS[name], *[self.visit(a) for a in e.args])
        raise NotImplementedError(f"cannot write the SymPy expression {e} ({name}) as NumPy")

    def add(self, e):
        terms = sorted(e.as_ordered_terms(), key=lambda t: t.could_extract_minus_sign())
        result = None
        for term in terms:
            negative = term.could_extract_minus_sign()
            atom = self.visit(-term if negative else term)
            if result is None:
                result = self.b.neg(atom) if negative else atom
            else:
                result = self.b.sub(result, atom) if negative else self.b.add(result, atom)
        return result

    def mul(self, e):
        coeff, factors = e.as_coeff_mul()
        numer, denom = [], []
        # The upstream gradient goes last, so `2 * x * g` can fold with g's shape.
        factors = sorted(factors, key=lambda f: f.has(self.seed))
        for f in factors:
            if f.is_Pow and f.exp.is_Number and f.exp < 0:
                denom.append(self.pow(f.base, -f.exp))
            else:
                numer.append(self.visit(f))
        negative = coeff < 0
        coeff = abs(coeff)
        if coeff != 1 and coeff.is_Rational and coeff.p == 1 and denom:
            denom.insert(0, Const(float(coeff.q)))  # 1/2 * x / y -> x / (2 * y)
        elif coeff != 1 or not numer:
            numer.insert(0, Const(float(_python_number(coeff))))
        result = self.product(numer)
        if denom:
            result = self.b.div(result, self.product(denom))
        return self.b.neg(result) if negative else result

    def product(self, atoms):
        result = atoms[0]
        for atom in atoms[1:]:
            result = self.b.mul(result, atom)
        return result

    def pow(self, base, exp):
        sp = self.sp
        if exp == sp.Rational(1, 2):
            return self.b.op("sqrt", self.visit(base))
        if exp == -1:
            return self.b.div(Const(1), self.visit(base))
        if exp.is_Number and exp < 0:
            return self.b.div(Const(1), self.pow(base, -exp))
        if base == sp.S.Exp1:
            return self.b.op("exp", self.visit(exp))
        power = Const(_python_number(exp)) if exp.is_Number else self.visit(exp)
        return self.b.op("power", self.visit(base), power)


def _python_number(e):
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return float(e)
    if e == math.pi:
        return math.pi
    return float(e.evalf(17))
