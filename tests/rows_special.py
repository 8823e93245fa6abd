"""Rows of scipy.special's primitives (see primitive_rows.py)."""
import numpy as np
from scipy import special
from scipy.special import gammaln, logsumexp

from row_inputs import inside, own_draws, pos, u



def signed_logsumexp(a, b):
    """log|s| sign(s) for s = sum(b exp(a)) over the last axis."""
    value, sign = logsumexp(a, 1, b, return_sign=True)
    return value * sign


ROWS = [
    ("expit", lambda a: special.expit(a), (u(2, 3) * 4.0,)),
]

with own_draws(14):
    ROWS += [
        # ---- the logistic function -------------------------------------------------
        ("logit", lambda x: special.logit(x), (pos(2, 3, lo=0.1, hi=0.9),)),
        ("log_expit", lambda x: special.log_expit(x), (u(2, 3) * 6.0,)),
        # ---- gamma and friends: positive, and between the poles --------------------------
        ("gammaln", lambda x: gammaln(x), (pos(4, lo=0.05, hi=6.0),)),
        ("gammaln", lambda x: gammaln(x), (np.array([-0.5, -1.3, -2.6, -3.7]),)),
        ("gamma", lambda x: special.gamma(x), (pos(4, lo=0.3, hi=3.0),)),
        ("gamma", lambda x: special.gamma(x), (np.array([-0.5, -1.5, -2.5]),)),
        ("digamma", lambda x: special.digamma(x), (pos(4),)),
        ("digamma", lambda x: special.psi(x), (np.array([-0.4, -1.6]),)),
        ("polygamma", lambda x: special.polygamma(1, x), (pos(4),)),
        ("polygamma", lambda x: special.polygamma(3, x), (pos(4, lo=1.0, hi=3.0),)),
        ("polygamma", lambda x: special.polygamma(np.array([0, 1, 2]), x), (pos(3),)),
        ("betaln", lambda a, b: special.betaln(a, b), (pos(2, 3), pos(3))),
        ("multigammaln", lambda a: special.multigammaln(a, 3), (pos(lo=2.0, hi=4.0),)),
        ("multigammaln", lambda a: special.multigammaln(a, d=1), (pos(lo=0.5, hi=4.0),)),
        # ---- error functions and the normal distribution --------------------------------
        ("erf", lambda x: special.erf(x), (u(2, 3) * 2.0,)),
        ("erfc", lambda x: special.erfc(x), (u(2, 3) * 2.0,)),
        ("erfinv", lambda x: special.erfinv(x), (inside(4),)),
        ("erfcinv", lambda x: special.erfcinv(x), (pos(4, lo=0.2, hi=1.8),)),
        ("erfcx", lambda x: special.erfcx(x), (u(4) * 3.0,)),
        ("ndtr", lambda x: special.ndtr(x), (u(4) * 3.0,)),
        ("log_ndtr", lambda x: special.log_ndtr(x), (u(4) * 3.0,)),
        ("ndtri", lambda x: special.ndtri(x), (pos(4, lo=0.1, hi=0.9),)),
        # ---- x log y and the entropies ---------------------------------------------------
        ("xlogy", lambda x, y: special.xlogy(x, y), (u(2, 3), pos(3))),
        ("xlog1py", lambda x, y: special.xlog1py(x, y), (u(3), u(3) * 0.5)),
        ("entr", lambda x: special.entr(x), (pos(4),)),
        ("rel_entr", lambda x, y: special.rel_entr(x, y), (pos(4), pos(4))),
        ("kl_div", lambda x, y: special.kl_div(x, y), (pos(4), pos(4))),
        # ---- Bessel functions ------------------------------------------------------------
        ("i0", lambda x: special.i0(x), (u(4) * 3.0,)),
        ("i1", lambda x: special.i1(x), (u(4) * 3.0,)),
        ("iv", lambda x: special.iv(2, x), (u(4) * 3.0,)),
        ("iv", lambda x: special.iv(0, x), (u(4) * 3.0,)),
        ("i0e", lambda x: special.i0e(x), (u(4) * 3.0,)),
        ("i1e", lambda x: special.i1e(x), (u(4) * 3.0,)),
        ("ive", lambda x: special.ive(1, x), (u(4) * 3.0,)),
        ("spherical_jn", lambda x: special.spherical_jn(1, x), (u(4) * 3.0,)),
        ("spherical_jn", lambda x: special.spherical_jn(0, x), (u(4) * 3.0,)),
        ("sinc", lambda x: np.sinc(x), (u(5) * 2.0,)),
        ("sinc", lambda x: np.sinc(x), (np.array([0.0, 1e-9, -1e-5]),)),
        # ---- logsumexp and the softmaxes -------------------------------------------------
        ("logsumexp", lambda a: logsumexp(a), (u(2, 3) * 3.0,)),
        ("logsumexp", lambda a: logsumexp(a, axis=1), (u(2, 3) * 3.0,)),
        ("logsumexp", lambda a: logsumexp(a, axis=0, keepdims=True), (u(2, 3) * 3.0,)),
        ("logsumexp", lambda a, b: logsumexp(a, b=b, axis=-1), (u(2, 3), pos(2, 3))),
        ("logsumexp", lambda a, b: logsumexp(a, 1, b), (u(2, 3), pos(3))),
        ("logsumexp", lambda a: logsumexp(a, axis=(0, 2)), (u(2, 3, 2),)),
        # NumPy's spelling, np.logaddexp.reduce: axis 0 unless told
        ("logaddexp_reduce", lambda a: np.logaddexp.reduce(a), (u(2, 3) * 3.0,)),
        ("logaddexp_reduce", lambda a: np.logaddexp.reduce(a, axis=1), (u(2, 3) * 3.0,)),
        ("logaddexp_reduce", lambda a: np.logaddexp.reduce(a, axis=None), (u(2, 3),)),
        ("softmax", lambda x: special.softmax(x, axis=1), (u(2, 3) * 3.0,)),
        ("softmax", lambda x: special.softmax(x), (u(2, 3),)),
        ("log_softmax", lambda x: special.log_softmax(x, axis=0), (u(2, 3) * 3.0,)),
        ("log_softmax", lambda x: special.log_softmax(x), (u(4),)),
        # (log|s|, sign(s)) of s = sum(b exp(a)), some weights negative
        ("logsumexp_signed", signed_logsumexp, (u(2, 3), np.array([[1.0, -0.5, -2.0],
                                                                    [0.2, 3.0, 1.0]]))),
    ]
