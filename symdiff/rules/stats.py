"""Densities and distribution functions of scipy.stats: one record per method
of a distribution (``norm.logpdf``, ``gamma.cdf``, ``poisson.logpmf``).

Generated code calls SciPy for the value (``scipy.stats.norm.logpdf(x, mu,
s)``: its checks of the support, its care in the tails) and differentiates
the density's formula: each record is a `Formula` over the method's operands,
the quantile ``x`` first, then the shape parameters, ``loc`` and ``scale``
(SciPy's order, so the call reads as the user wrote it). A loc-scale family
is given by its standardised log-density ``L(z)``, ``z = (x - loc) / scale``;
SymPy differentiates logpdf and pdf, and every other method's partials follow
from L: the cdf's slope is the pdf, the quantile's is 1 / pdf at the quantile.
A shape parameter in which a cdf has no closed-form derivative (t's df,
gamma's a, beta's a and b) is refused where a gradient reaches it; so are
the integer arguments of the discrete distributions (k, n, loc).
"""
from __future__ import annotations

import re

from ..ir.primitive import ELEMENTWISE, Formula, define
from .special import normal_ratio

Z = "((x - loc) / scale)"             # the standardised quantile
Q = "((out - loc) / scale)"           # ... of a quantile function's value


def _at(text, z):
    return re.sub(r"\bz\b", z, text)


def method(dist, name, operands, formula, partials=(), safe=()):
    """The record of ``scipy.stats.<dist>.<name>``."""
    return define(f"{dist}_{name}({', '.join(operands)})",
                  ("module", "scipy.stats", f"{dist}.{name}"), ELEMENTWISE,
                  formula=Formula(formula, tuple(partials), tuple(safe)))


def loc_scale(dist, shapes, log_density, cdf, ppf="", log_partials=(), cdf_shapes=None,
              logcdf=None, logsf=None, ppf_shapes=None, safe=None):
    """The methods of a loc-scale family: logpdf, pdf, cdf, sf, logcdf, logsf,
    ppf and isf. ``log_density`` is L(z) (text over z and the shapes);
    ``cdf_shapes`` the cdf's partials in the shapes, where they have a closed
    form (None each: refused), ``ppf_shapes`` the quantile's (over its value
    ``out``); ``log_partials`` logpdf's, where SymPy's
    derivative is not the best form; ``logcdf``/``logsf`` the slopes in x of
    those (times scale), where exp(L - out) is not the best form."""
    operands = ("x",) + shapes + ("loc", "scale")
    names = shapes + ("loc", "scale")
    safe = safe or (None,) + (1.0,) * len(shapes) + (None, 1.0)
    logpdf = f"{_at(log_density, Z)} - log(scale)"
    density = f"exp({_at(log_density, Z)}) / scale"   # the pdf, as a partial
    cdf_shapes = cdf_shapes or (None,) * len(shapes)

    method(dist, "logpdf", operands, logpdf, log_partials, safe)
    method(dist, "pdf", operands, f"exp({logpdf})",
           [f"out * ({p})" for p in log_partials] if log_partials else
           [f"out * diff({logpdf}, {n})" for n in operands], safe)
    cdf_partials = [density] + list(cdf_shapes) + [f"-{density}", f"-{Z} * {density}"]
    method(dist, "cdf", operands, _at(cdf, Z), cdf_partials, safe)
    method(dist, "sf", operands, f"1 - {_at(cdf, Z)}", [_negated(p) for p in cdf_partials],
           safe)
    # d log F = dF / F = dF exp(-out); the slope in x written apart where it is better
    log_cdf = [f"({p}) * exp(-out)" if p else None for p in cdf_partials]
    if logcdf is not None:
        log_cdf = _slope_form(logcdf, len(shapes), log_cdf)
    method(dist, "logcdf", operands, f"log({_at(cdf, Z)})", log_cdf, safe)
    log_sf = [f"-({p}) * exp(-out)" if p else None for p in cdf_partials]
    if logsf is not None:
        log_sf = _slope_form(logsf, len(shapes), log_sf)
    method(dist, "logsf", operands, f"log(1 - {_at(cdf, Z)})", log_sf, safe)
    # the quantile: dx/dq = 1 / pdf(x) = scale exp(-L(z)) at z = (out - loc) / scale
    slope = f"scale * exp(-({_at(log_density, Q)}))"
    quantile = ("q",) + shapes + ("loc", "scale")
    rest = list(ppf_shapes or (None,) * len(shapes)) + ["1", Q]
    q_safe = (0.5,) + safe[1:]
    method(dist, "ppf", quantile, ppf or f"{dist}_ppf(q, {', '.join(names)})",
           [slope] + rest, q_safe)
    method(dist, "isf", quantile, f"{dist}_isf(q, {', '.join(names)})",
           [f"-{slope}"] + rest, q_safe)


def _negated(partial):
    return f"-({partial})" if partial else None


def _slope_form(slope_in_z, count, general):
    """Partials of a log cdf from its slope in z (x: slope / scale; loc: minus
    that; scale: minus z times that); the shapes' as in ``general``."""
    x = f"({_at(slope_in_z, Z)}) / scale"
    return [x] + general[1:1 + count] + [f"-{x}", f"-{Z} * {x}"]


# ---- continuous ------------------------------------------------------------------------
# normal: log cdf and log sf through the normal ratio pdf/cdf (erfcx: finite in the tails)
loc_scale("norm", (), "-z ** 2 / 2 - log(2 * pi) / 2", "(1 + erf(z / sqrt(2))) / 2",
          ppf="loc + scale * sqrt(2) * erfinv(2 * q - 1)",
          log_partials=("-(x - loc) / scale ** 2", "(x - loc) / scale ** 2",
                        "((x - loc) ** 2 / scale ** 2 - 1) / scale"),
          logcdf=normal_ratio("z"), logsf=f"-{normal_ratio('-z')}")
loc_scale("cauchy", (), "-log(pi) - log(1 + z ** 2)", "1 / 2 + atan(z) / pi",
          ppf="loc + scale * tan(pi * (q - 1 / 2))")
# the half-normal and half-Cauchy (scales' priors): 0 below loc, SciPy's value says so
loc_scale("halfnorm", (), "-z ** 2 / 2 + log(2 / pi) / 2", "erf(z / sqrt(2))",
          ppf="loc + scale * sqrt(2) * erfinv(q)",
          log_partials=("-(x - loc) / scale ** 2", "(x - loc) / scale ** 2",
                        "((x - loc) ** 2 / scale ** 2 - 1) / scale"))
loc_scale("halfcauchy", (), "log(2 / pi) - log(1 + z ** 2)", "2 * atan(z) / pi",
          ppf="loc + scale * tan(pi * q / 2)")
loc_scale("laplace", (), "-Abs(z) - log(2)",
          "Piecewise((exp(z) / 2, z < 0), (1 - exp(-z) / 2, True))")
# logistic: tanh(z / 2), not through exp(-z), which overflows far below loc
loc_scale("logistic", (), "-z - 2 * logaddexp(0, -z)", "1 / (1 + exp(-z))",
          ppf="loc + scale * log(q / (1 - q))",
          log_partials=(f"-tanh({Z} / 2) / scale", f"tanh({Z} / 2) / scale",
                        f"({Z} * tanh({Z} / 2) - 1) / scale"),
          logcdf="expit(-z)", logsf="-expit(z)")
# exponential: log cdf's slope 1 / expm1(z), exact near loc
loc_scale("expon", (), "-z", "1 - exp(-z)", ppf="loc - scale * log(1 - q)",
          logcdf="1 / expm1(z)", logsf="-1")
loc_scale("t", ("df",),
          "loggamma((df + 1) / 2) - loggamma(df / 2) - log(pi * df) / 2"
          " - (df + 1) / 2 * log(1 + z ** 2 / df)", "t_cdf(z, df)")
loc_scale("gamma", ("a",), "(a - 1) * log(z) - z - loggamma(a)",
          "lowergamma(a, z) / gamma(a)", safe=(1.0, 1.0, None, 1.0))
loc_scale("beta", ("a", "b"),
          "(a - 1) * log(z) + (b - 1) * log(1 - z) - loggamma(a) - loggamma(b)"
          " + loggamma(a + b)", "betainc_regularized(a, b, 0, z)",
          safe=(0.5, 1.0, 1.0, None, 1.0))
# log-normal: its cdf is ndtr(log(z) / s), differentiable in s too
_U = "(log(z) / s)"
loc_scale("lognorm", ("s",), "-log(s * z * sqrt(2 * pi)) - log(z) ** 2 / (2 * s ** 2)",
          f"(1 + erf({_U} / sqrt(2))) / 2",
          ppf="loc + scale * exp(s * sqrt(2) * erfinv(2 * q - 1))",
          cdf_shapes=(f"-exp(-{_at(_U, Z)} ** 2 / 2) / sqrt(2 * pi) * {_at(_U, Z)} / s",),
          ppf_shapes=(f"(out - loc) * {_at(_U, Q)}",), safe=(1.0, 1.0, None, 1.0))


# ---- discrete: differentiable in their continuous parameters ------------------------------
def discrete(dist, operands, logpmf, parameter_partials, step_partials):
    """logpmf, pmf, cdf, sf, logcdf, logsf of a discrete distribution; k, loc and
    the integer parameters have no derivative. ``step_partials``: the cdf's
    partials in the continuous parameters (-pmf of a neighbour, at floor(k))."""
    def full(partials):
        given = iter(partials)
        return [next(given) if n in parameter_partials else None for n in operands]
    method(dist, "logpmf", operands, logpmf, full(parameter_partials.values()))
    method(dist, "pmf", operands, f"exp({logpmf})",
           full(f"out * ({p})" for p in parameter_partials.values()))
    cdf = f"{dist}_cdf({', '.join(operands)})"
    method(dist, "cdf", operands, cdf, full(step_partials))
    method(dist, "sf", operands, f"1 - {cdf}", full(_negated(p) for p in step_partials))
    method(dist, "logcdf", operands, f"log({cdf})",
           full(f"({p}) * exp(-out)" for p in step_partials))
    method(dist, "logsf", operands, f"log(1 - {cdf})",
           full(f"-({p}) * exp(-out)" for p in step_partials))


_K = "(k - loc)"
_FLOOR = "floor(k - loc)"
discrete("poisson", ("k", "mu", "loc"),
         f"{_K} * log(mu) - mu - loggamma({_K} + 1)", {"mu": f"{_K} / mu - 1"},
         [f"-exp({_FLOOR} * log(mu) - mu - loggamma({_FLOOR} + 1))"])
# d/dp binom.cdf(k; n, p) = -n binom.pmf(k; n - 1, p)
discrete("binom", ("k", "n", "p", "loc"),
         f"loggamma(n + 1) - loggamma({_K} + 1) - loggamma(n - {_K} + 1)"
         f" + {_K} * log(p) + (n - {_K}) * log(1 - p)",
         {"p": f"{_K} / p - (n - {_K}) / (1 - p)"},
         [f"-n * exp(loggamma(n) - loggamma({_FLOOR} + 1) - loggamma(n - {_FLOOR})"
          f" + {_FLOOR} * log(p) + (n - 1 - {_FLOOR}) * log(1 - p))"])
# nbinom: k failures before the n-th success (n real, as SciPy's); logpmf and pmf
# only (the cdf's slope in n, of the regularised incomplete beta, has no closed form)
_NBINOM = (f"loggamma({_K} + n) - loggamma(n) - loggamma({_K} + 1)"
           f" + n * log(p) + {_K} * log(1 - p)")
_NBINOM_N = f"polygamma(0, {_K} + n) - polygamma(0, n) + log(p)"
_NBINOM_P = f"n / p - {_K} / (1 - p)"
method("nbinom", "logpmf", ("k", "n", "p", "loc"), _NBINOM, (None, _NBINOM_N, _NBINOM_P, None))
method("nbinom", "pmf", ("k", "n", "p", "loc"), f"exp({_NBINOM})",
       (None, f"out * ({_NBINOM_N})", f"out * ({_NBINOM_P})", None))
