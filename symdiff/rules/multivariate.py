"""Densities of scipy.stats' multivariate distributions: multivariate_normal
and dirichlet, with array rules (a sample is a vector, not an entry).

multivariate_normal.logpdf(x, mean, cov): x is one sample (k,) or a stack
(..., k); with d = x - mean and P = inv(cov), logpdf = -(k log 2 pi +
log det cov + d P d) / 2. Its gradient in cov is the symmetric one,
-(P - P d d P) / 2 summed over samples, as JAX's and autograd's are: the
derivative along symmetric directions (SciPy reads one triangle of cov, so
along a direction that is not symmetric its difference quotient differs).
Written with inv and matmul (no solve or Cholesky factor among the
primitives yet): fine for the well-conditioned covariances of models.

dirichlet.logpdf(x, alpha): the components of x along its first axis, as
SciPy has them ((k,) or (k, n)); logpdf = sum((alpha - 1) log x) +
gammaln(sum alpha) - sum gammaln(alpha).
"""
from __future__ import annotations

from ..ir.nodes import Const
from ..ir.primitive import NEW, define


def _per_sample(b, g):
    """The gradient of each sample's logpdf, with an axis to broadcast against
    the sample's entries (``g`` has the result's shape: () or (n,))."""
    return b.op("expand_dims", g, axis=-1)


def _mvn_parts(b, op):
    """d = x - mean, and Y = d P (each sample's P d: P is symmetric)."""
    x, mean, cov = op.args
    precision = b.op("inv", cov, hint="precision")
    deviation = x if _absent(mean) else b.sub(x, mean, hint="deviation")
    return precision, b.op("matmul", deviation, precision, hint="scaled")


def _absent(mean):
    """mean=None: SciPy's zeros of the covariance's size."""
    return isinstance(mean, Const) and mean.value is None


def mvn_logpdf_rule(r, op, g):
    x, mean, cov = op.args
    precision, scaled = _mvn_parts(r.b, op)
    weighted = r.b.mul(_per_sample(r.b, g), scaled)
    grads = [None, None, None]
    if r.wants(x):
        grads[0] = r.unbroadcast(r.b.neg(weighted), x)
    if not _absent(mean) and r.wants(mean):
        grads[1] = r.unbroadcast(weighted, mean)
    if r.wants(cov):
        # (P d d P - P) / 2 per sample, weighted by g and summed over the samples
        outer = r.b.mul(r.b.op("expand_dims", weighted, axis=-1),
                        r.b.op("expand_dims", scaled, axis=-2))
        trace = r.b.mul(r.b.op("sum", g), precision)
        grads[2] = r.b.mul(Const(0.5), r.b.sub(r.unbroadcast(outer, cov), trace))
    return grads


def mvn_logpdf_tangent(b, op, dargs):
    dx, dmean, dcov = dargs
    precision, scaled = _mvn_parts(b, op)
    terms = []
    shift = b.total([dx, b.neg(dmean) if dmean is not None else None])
    if shift is not None:
        terms.append(b.neg(b.op("sum", b.mul(scaled, shift), axis=-1)))
    if dcov is not None:
        quadratic = b.op("sum", b.mul(b.op("matmul", scaled, dcov), scaled), axis=-1)
        trace = b.op("sum", b.mul(precision, dcov), axis=(-2, -1))
        terms.append(b.mul(Const(0.5), b.sub(quadratic, trace)))
    return b.total(terms)


define("multivariate_normal_logpdf(x, mean, cov)",
       ("module", "scipy.stats", "multivariate_normal.logpdf"), NEW,
       reverse=mvn_logpdf_rule, forward=mvn_logpdf_tangent)


def _samples(b, x):
    """x with its samples first and components last (x.T; a vector is itself)."""
    return b.op("T", x)


def dirichlet_logpdf_rule(r, op, g):
    x, alpha = op.args
    per_sample = _per_sample(r.b, g)
    grads = [None, None]
    if r.wants(x):
        slope = r.b.div(r.b.sub(alpha, Const(1.0)), _samples(r.b, x))
        grads[0] = r.b.op("T", r.b.mul(per_sample, slope))
    if r.wants(alpha):
        logs = r.unbroadcast(r.b.mul(per_sample, r.b.op("log", _samples(r.b, x))), alpha)
        grads[1] = r.b.add(logs, r.b.mul(r.b.op("sum", g), _normaliser_slope(r.b, alpha)))
    return grads


def _normaliser_slope(b, alpha):
    """d/d alpha of gammaln(sum alpha) - sum gammaln(alpha)."""
    return b.sub(b.op("digamma", b.op("sum", alpha)), b.op("digamma", alpha))


def dirichlet_logpdf_tangent(b, op, dargs):
    x, alpha = op.args
    dx, dalpha = dargs
    terms = []
    if dx is not None:
        slope = b.div(b.sub(alpha, Const(1.0)), _samples(b, x))
        terms.append(b.op("sum", b.mul(slope, _samples(b, dx)), axis=-1))
    if dalpha is not None:
        terms.append(b.op("sum", b.mul(b.op("log", _samples(b, x)), dalpha), axis=-1))
        terms.append(b.op("sum", b.mul(_normaliser_slope(b, alpha), dalpha)))
    return b.total(terms)


define("dirichlet_logpdf(x, alpha)", ("module", "scipy.stats", "dirichlet.logpdf"), NEW,
       reverse=dirichlet_logpdf_rule, forward=dirichlet_logpdf_tangent)
