"""Rows of scipy.stats' primitives (see primitive_rows.py): every method of
every distribution with a record, on arguments inside its support; a shape
parameter a method has no derivative in is passed as an int (a constant).
A few rows spell the call the other ways users do: keywords, frozen."""
import numpy as np
from scipy import stats
from scipy.stats import norm

from row_inputs import own_draws, pos, u


def calling(method):
    """A function of the method's arguments calling it (one per arity: symdiff
    reads its source; the method is a global of it, via the closure)."""
    def one(a):
        return method(a)

    def two(a, b):
        return method(a, b)

    def three(a, b, c):
        return method(a, b, c)

    def four(a, b, c, d):
        return method(a, b, c, d)

    return {1: one, 2: two, 3: three, 4: four}


def row(dist, name, *args):
    method = getattr(getattr(stats, dist), name)
    if len(args) == 5 and isinstance(args[1], int):  # beta's a and b: constants
        x, a, b, loc, scale = args

        def shapes_fixed(x, loc, scale):
            return method(x, a, b, loc, scale)
        return (f"{dist}_{name}", shapes_fixed, (x, loc, scale))
    if len(args) == 5:  # beta's logpdf and pdf: a and b differentiated, scale fixed
        x, a, b, loc, scale = args

        def scale_fixed(x, a, b, loc):
            return method(x, a, b, loc, scale)
        return (f"{dist}_{name}", scale_fixed, (x, a, b, loc))
    return (f"{dist}_{name}", calling(method)[len(args)], args)


CONTINUOUS = ("logpdf", "pdf", "cdf", "sf", "logcdf", "logsf")
QUANTILES = ("ppf", "isf")


def keyword_loc(x, mu):
    return norm.logpdf(x, loc=mu)


def frozen(x, mu, s):
    dist = norm(mu, s)
    return dist.logcdf(x) + norm(scale=s).logsf(x)


def t_keywords(x, df, s):
    return stats.t.logpdf(x, df=df, scale=s)


with own_draws(1729):
    ROWS = []
    for _name in CONTINUOUS:
        _loc, _scale = u(3), pos(3)
        ROWS += [
            row("norm", _name, u(3) * 2.0, _loc, _scale),
            row("cauchy", _name, u(3) * 2.0, u(), pos()),
            row("halfnorm", _name, _loc + pos(3) * _scale, _loc, _scale),
            row("halfcauchy", _name, _loc + pos(3) * 2.0, _loc, _scale),
            row("laplace", _name, _loc + u(3) * _scale, _loc, _scale),
            row("logistic", _name, u(3) * 3.0, _loc, _scale),
            row("expon", _name, _loc + pos(3) * _scale, _loc, _scale),
            row("lognorm", _name, _loc + pos(3) * _scale, pos(3, lo=0.5, hi=1.5), _loc,
                _scale),
        ]
        _fixed = _name in ("logpdf", "pdf")  # their shapes are differentiated
        ROWS += [
            row("t", _name, u(3) * 2.0, pos(3, lo=2.0, hi=6.0) if _fixed else 4, _loc,
                _scale),
            row("gamma", _name, _loc + pos(3) * _scale, pos(3, lo=1.5, hi=3.0) if _fixed
                else 2, _loc, _scale),
            row("beta", _name, _loc + pos(3, lo=0.2, hi=0.8) * _scale,
                pos(3, lo=1.5, hi=3.0) if _fixed else 2, pos(lo=1.5, hi=3.0) if _fixed
                else 3, _loc, _scale),
        ]
    for _name in QUANTILES:
        _q = pos(3, lo=0.1, hi=0.9)
        ROWS += [row(d, _name, _q, u(3), pos(3))
                 for d in ("norm", "cauchy", "laplace", "logistic", "expon", "halfnorm",
                           "halfcauchy")]
        ROWS += [row("lognorm", _name, _q, pos(3, lo=0.5, hi=1.5), u(3), pos(3)),
                 row("t", _name, _q, 4, u(3), pos(3)),
                 row("gamma", _name, _q, 3, u(3), pos(3)),
                 row("beta", _name, _q, 2, 3, u(3), pos(3))]
    for _name in ("logpmf", "pmf", "cdf", "sf", "logcdf", "logsf"):
        ROWS += [
            row("poisson", _name, np.array([0, 2, 5]), pos(3, lo=1.0, hi=4.0)),
            row("binom", _name, np.array([0, 3, 5]), np.array([5, 8, 10]),
                pos(3, lo=0.2, hi=0.8)),
        ]
    for _name in ("logpmf", "pmf"):  # (a hunt's negative binomial regression)
        ROWS += [row("nbinom", _name, np.array([0, 2, 5]), pos(3, lo=1.0, hi=4.0),
                     pos(3, lo=0.2, hi=0.8))]
    ROWS += [
        ("poisson_logpmf", calling(stats.poisson.logpmf)[3],
         (np.array([2, 3, 7]), pos(3, lo=1.0, hi=4.0), np.array([1, 0, 2]))),
        ("norm_logpdf", keyword_loc, (u(4), u())),
        ("norm_logcdf", frozen, (u(4), u(), pos())),
        ("t_logpdf", t_keywords, (u(4), pos(lo=2.0, hi=5.0), pos())),
    ]


def gaussian(x, mean, factor):
    """A multivariate normal log-density with cov = A A^T + 3 I (symmetric:
    its gradient is the symmetric one, so directions in A are checked)."""
    cov = factor @ factor.T + 3.0 * np.eye(3)
    return stats.multivariate_normal.logpdf(x, mean, cov)


def gaussian_frozen(x, factor):
    return stats.multivariate_normal(cov=factor @ factor.T + np.eye(3)).logpdf(x)


DIRICHLET_X = np.array([[0.2, 0.3], [0.5, 0.1], [0.3, 0.6]])  # components along axis 0


def dirichlet_in_alpha(alpha):
    # (SciPy checks x lies on the simplex: differences in x leave it; see
    # test_stats_values.py for the gradient in x)
    return stats.dirichlet.logpdf(DIRICHLET_X, alpha)


def summed_gaussian(x, mean, factor):  # np.sum's gradient: one number for every sample
    return np.sum(gaussian(x, mean, factor))


def summed_one_component(x, mean, scale):  # a 1 x 1 covariance: a vector is n samples
    cov = np.reshape(scale ** 2 + 0.5, (1, 1))
    return np.sum(stats.multivariate_normal.logpdf(x, mean, cov))


with own_draws(1730):
    ROWS += [
        ("multivariate_normal_logpdf", gaussian, (u(4, 3), u(3), u(3, 3))),
        ("multivariate_normal_logpdf", gaussian, (u(3), u(3), u(3, 3))),
        ("multivariate_normal_logpdf", gaussian_frozen, (u(2, 3), u(3, 3))),
        ("dirichlet_logpdf", dirichlet_in_alpha, (pos(3, lo=0.5, hi=3.0),)),
    ]

with own_draws(1731):
    ROWS += [
        ("multivariate_normal_logpdf", summed_gaussian, (u(4, 3), u(3), u(3, 3))),
        ("multivariate_normal_logpdf", summed_gaussian, (u(1, 3), u(3), u(3, 3))),
        ("multivariate_normal_logpdf", summed_gaussian, (u(2, 4, 3), u(3), u(3, 3))),
        ("multivariate_normal_logpdf", summed_one_component, (u(5), u(1), u(1))),
    ]
