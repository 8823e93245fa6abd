"""Densities of scipy.stats' multivariate distributions: multivariate_normal
and dirichlet, with array rules (a sample is a vector, not an entry).

multivariate_normal.logpdf(x, mean, cov): x is one sample (k,) or a stack
(..., k) (with a 1 x 1 covariance, a vector is n samples: SciPy's reading);
the rules read it as a matrix of samples, one per row. With d = x - mean and
P = inv(cov), logpdf = -(k log 2 pi + log det cov + d P d) / 2. Its gradient
in cov is the symmetric one, -(P - P d d P) / 2 summed over samples (one
product ``Y^T Y`` of the rows Y = d P), as JAX's and autograd's are: the
derivative along symmetric directions (SciPy reads one triangle of cov, so
along a direction that is not symmetric its difference quotient differs).
P is NumPy's inverse, not a Cholesky factor's: SciPy accepts, by its
eigenvalues' tolerance, covariances a Cholesky factorisation would refuse.
The result's shape is SciPy's, its length-one axes squeezed (a pattern: in
a specialised gradient, np.sum's gradient is one number for every sample,
and the logpdf is not computed for its shape).

dirichlet.logpdf(x, alpha): the components of x along its first axis, as
SciPy has them ((k,) or (k, n)); logpdf = sum((alpha - 1) log x) +
gammaln(sum alpha) - sum gammaln(alpha).
"""
from __future__ import annotations

from ..ir import patterns
from ..ir.nodes import Const
from ..ir.primitive import NEW, define


def _per_sample(b, g):
    """The gradient of each sample's logpdf, with an axis to broadcast against
    the sample's entries (``g`` has the result's shape: () or (n,))."""
    return b.op("expand_dims", g, axis=-1)


def _mvn_parts(b, op):
    """(samples, precision, scaled): x as SciPy reads it, one sample per row
    ((n,) with a 1 x 1 covariance is n samples, (k,) one, (..., k) a stack;
    a matrix is itself), P = inv(cov), and each row's P d, d = x - mean (P
    is symmetric)."""
    x, mean, cov = op.args
    samples = x
    if b.facts.rank(x) != 2:
        k = b.op("getitem", b.op("shape", cov), Const(-1), hint="k")
        samples = b.op("reshape", x, b.op("tuple", Const(-1), k), hint="samples")
    precision = b.op("inv", cov, hint="precision")
    deviation = samples if _absent(mean) else b.sub(samples, mean, hint="deviation")
    return samples, precision, b.op("matmul", deviation, precision, hint="scaled")


def _absent(mean):
    """mean=None: SciPy's zeros of the covariance's size."""
    return isinstance(mean, Const) and mean.value is None


def _as_rows(r, value, samples):
    """A value of the result's shape (SciPy squeezes it) as one entry per row
    of ``samples``, with an axis to broadcast along the components."""
    if r.facts.rank(value) != 1 or r.facts.rank(samples) != 2:
        value = r.b.op("reshape", value, Const((-1,)))
    return r.b.op("expand_dims", value, axis=-1)


def mvn_logpdf_rule(r, op, g):
    x, mean, cov = op.args
    samples, precision, scaled = _mvn_parts(r.b, op)
    # (the gradient of a sum of logpdfs is one number for every sample: the
    # logpdf's value, which a spread would read for its shape, is not computed)
    each = r.facts.spread_number(g)
    weighted = r.b.mul(_as_rows(r, g, samples) if each is None else each, scaled)
    grads = [None, None, None]
    if r.wants(x):
        grads[0] = r.b.neg(weighted if samples is x else
                           r.b.op("reshape", weighted, r.b.op("shape", x)))
    if not _absent(mean) and r.wants(mean):
        grads[1] = r.unbroadcast(weighted, mean)
    if r.wants(cov):
        # (P d d P - P) / 2 per sample, weighted by g and summed over the samples
        count = r.b.op("getitem", r.b.op("shape", samples), Const(0))
        total = r.b.op("sum", g) if each is None else r.b.mul(each, count)
        outer = r.b.op("matmul", r.b.op("T", weighted), scaled)
        grads[2] = r.b.mul(Const(0.5), r.b.sub(outer, r.b.mul(total, precision)))
    return grads


def mvn_pattern(op, facts):
    """SciPy's logpdf has one value per sample, its length-one axes squeezed:
    x (n, k) gives (n,); one sample (k,) a number; with a 1 x 1 covariance, a
    vector x is n samples of one component."""
    x, cov = facts.pattern(op.args[0]), facts.pattern(op.args[2])
    if x is None or cov is None or len(cov) != 2 or not x or \
            not all(a == 1 or patterns.is_named(a) for a in x + cov):
        return None
    samples = x if len(x) == 1 and cov[-1] == 1 else x[:-1]
    return tuple(a for a in samples if a != 1)


def mvn_logpdf_tangent(b, op, dargs):
    dx, dmean, dcov = dargs
    samples, precision, scaled = _mvn_parts(b, op)
    terms = []
    if dx is not None and samples is not op.args[0]:
        dx = b.op("reshape", dx, b.op("shape", samples))
    shift = b.total([dx, b.neg(dmean) if dmean is not None else None])
    if shift is not None:
        terms.append(b.neg(b.op("sum", b.mul(scaled, shift), axis=-1)))
    if dcov is not None:
        quadratic = b.op("sum", b.mul(b.op("matmul", scaled, dcov), scaled), axis=-1)
        trace = b.op("sum", b.mul(precision, dcov), axis=(-2, -1))
        terms.append(b.mul(Const(0.5), b.sub(quadratic, trace)))
    total = b.total(terms)
    return None if total is None else b.op("reshape", total, b.op("shape", op.target))


define("multivariate_normal_logpdf(x, mean, cov)",
       ("module", "scipy.stats", "multivariate_normal.logpdf"), NEW,
       reverse=mvn_logpdf_rule, forward=mvn_logpdf_tangent, pattern=mvn_pattern)


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
