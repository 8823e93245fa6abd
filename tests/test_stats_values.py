"""scipy.stats' derivatives against autograd's, in the tails, and as user code
spells the calls (the rows, rows_stats.py, check every mode against central
differences)."""
import autograd
import autograd.numpy as anp
import autograd.scipy.stats as ast_
import mpmath
import numpy as np
import pytest
from scipy import stats
from scipy.stats import dirichlet, multivariate_normal, norm

import symdiff
from symdiff.errors import NoDerivativeRuleError


X = np.array([-1.3, 0.2, 0.9, 2.4])
POSITIVE = np.array([0.4, 1.1, 2.3, 3.7])
UNIT = np.array([0.15, 0.4, 0.6, 0.85])


def parameter_gradients(ours, theirs, args):
    """symdiff's and autograd's gradients of sum(f) in every argument."""
    wrt = tuple(range(len(args)))
    if len(args) == 2:
        mine = symdiff.grad(lambda a, b: np.sum(ours(a, b)), wrt=wrt)(*args)
    elif len(args) == 3:
        mine = symdiff.grad(lambda a, b, c: np.sum(ours(a, b, c)), wrt=wrt)(*args)
    else:
        mine = symdiff.grad(lambda a, b, c, d: np.sum(ours(a, b, c, d)), wrt=wrt)(*args)
    other = autograd.grad(lambda *a: anp.sum(theirs(*a)), argnum=wrt)(*args)
    return mine, other


CASES = [
    ("norm.logpdf", norm.logpdf, ast_.norm.logpdf, (X, 0.3, 1.7)),
    ("norm.pdf", norm.pdf, ast_.norm.pdf, (X, 0.3, 1.7)),
    ("norm.cdf", norm.cdf, ast_.norm.cdf, (X, 0.3, 1.7)),
    ("norm.logcdf", norm.logcdf, ast_.norm.logcdf, (X, 0.3, 1.7)),
    ("norm.sf", norm.sf, ast_.norm.sf, (X, 0.3, 1.7)),
    ("norm.logsf", norm.logsf, ast_.norm.logsf, (X, 0.3, 1.7)),
    ("t.logpdf", stats.t.logpdf, ast_.t.logpdf, (X, 3.5, 0.3, 1.7)),
    ("t.pdf", stats.t.pdf, ast_.t.pdf, (X, 3.5, 0.3, 1.7)),
    # (autograd's gamma has no derivative in loc and scale)
    ("gamma.logpdf", stats.gamma.logpdf, ast_.gamma.logpdf, (POSITIVE, 2.5)),
    ("gamma.pdf", stats.gamma.pdf, ast_.gamma.pdf, (POSITIVE, 2.5)),
]


@pytest.mark.parametrize("name, ours, theirs, args", CASES, ids=[c[0] for c in CASES])
def test_as_autograd(name, ours, theirs, args):
    mine, other = parameter_gradients(ours, theirs, args)
    for m, o in zip(mine, other):
        np.testing.assert_allclose(m, o, rtol=1e-10, atol=1e-14)


def test_beta_and_poisson_as_autograd():
    mine = symdiff.grad(lambda x, a, b: np.sum(stats.beta.logpdf(x, a, b)),
                        wrt=(0, 1, 2))(UNIT, 2.5, 1.5)
    other = autograd.grad(lambda x, a, b: anp.sum(ast_.beta.logpdf(x, a, b)),
                          argnum=(0, 1, 2))(UNIT, 2.5, 1.5)
    for m, o in zip(mine, other):
        np.testing.assert_allclose(m, o, rtol=1e-10)
    k = np.array([0, 1, 4, 9])
    mine = symdiff.grad(lambda mu: np.sum(stats.poisson.logpmf(k, mu)))(3.2)
    other = autograd.grad(lambda mu: anp.sum(ast_.poisson.logpmf(k, mu)))(3.2)
    assert mine == pytest.approx(other, rel=1e-12)


def test_multivariate_normal_as_autograd():
    rng = np.random.default_rng(5)
    x, mean = rng.normal(size=(6, 3)), rng.normal(size=3)
    factor = rng.normal(size=(3, 3))
    cov = factor @ factor.T + np.eye(3)
    mine = symdiff.grad(lambda x, m, c: np.sum(multivariate_normal.logpdf(x, m, c)),
                        wrt=(0, 1, 2))(x, mean, cov)
    other = autograd.grad(lambda x, m, c: anp.sum(ast_.multivariate_normal.logpdf(x, m, c)),
                          argnum=(0, 1, 2))(x, mean, cov)
    for m, o in zip(mine, other):  # (the covariance's gradient: symmetric in both)
        np.testing.assert_allclose(m, o, rtol=1e-10, atol=1e-12)


def test_dirichlet_gradient_in_x_and_alpha():
    x = np.array([[0.2, 0.3], [0.5, 0.1], [0.3, 0.6]])
    alpha = np.array([1.5, 2.0, 0.7])
    gx, ga = symdiff.grad(lambda x, a: np.sum(dirichlet.logpdf(x, a)), wrt=(0, 1))(x, alpha)
    np.testing.assert_allclose(gx, (alpha[:, None] - 1) / x)
    # (autograd's dirichlet takes one sample)
    other = sum(autograd.grad(lambda a: ast_.dirichlet.logpdf(x[:, n], a))(alpha)
                for n in range(2))
    np.testing.assert_allclose(ga, other, rtol=1e-12)
    one = symdiff.grad(lambda x: dirichlet.logpdf(x, alpha))(x[:, 0])
    np.testing.assert_allclose(one, (alpha - 1) / x[:, 0])


# ---- the tails ------------------------------------------------------------------------------
def test_normal_log_cdf_and_log_sf_are_finite_far_in_the_tails():
    x = np.array([-1e4, -40.0, -5.0, 5.0, 40.0, 1e4])
    low = symdiff.grad(lambda x: np.sum(norm.logcdf(x, 0.0, 2.0)))(x)
    high = symdiff.grad(lambda x: np.sum(norm.logsf(x, 0.0, 2.0)))(x)
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))
    mpmath.mp.dps = 60
    exact = [float(mpmath.npdf(t / 2) / mpmath.ncdf(t / 2) / 2) for t in x]
    np.testing.assert_allclose(low, exact, rtol=1e-13, atol=1e-290)
    np.testing.assert_allclose(low, -high[::-1], rtol=1e-14)


def test_logistic_log_density_far_from_loc():
    x = np.array([-800.0, -30.0, 0.0, 30.0, 800.0])
    slope = symdiff.grad(lambda x: np.sum(stats.logistic.logpdf(x)))(x)
    np.testing.assert_allclose(slope, -np.tanh(x / 2))


# ---- spellings -------------------------------------------------------------------------------
PRIOR = norm(0.0, 2.0)


def spelled_every_way(x, mu, s):
    dist = norm(mu, s)
    return (np.sum(dist.logpdf(x)) + np.sum(stats.norm.logpdf(x, loc=mu, scale=s))
            + np.sum(norm(loc=mu, scale=s).logpdf(x)) + PRIOR.logpdf(mu))


def test_every_spelling_is_the_same_call():
    source = symdiff.source(symdiff.grad(spelled_every_way, wrt=(1, 2)))
    assert "scipy.stats.norm.logpdf(x, mu, s)" in source
    gm, gs = symdiff.grad(spelled_every_way, wrt=(1, 2))(X, 0.3, 1.7)
    z = (X - 0.3) / 1.7
    assert gm == pytest.approx(3 * np.sum(z / 1.7) - 0.3 / 4.0, rel=1e-12)
    assert gs == pytest.approx(3 * np.sum((z ** 2 - 1) / 1.7), rel=1e-12)


def t_cdf_in_df(x, df):
    return np.sum(stats.t.cdf(x, df))  # E:t-cdf


def test_a_shape_without_a_closed_form_derivative_is_refused():
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(t_cdf_in_df, wrt=1)(X, 3.0)
    assert "`df`" in info.value.message and info.value.hint
    assert info.value.lineno == t_cdf_in_df.__code__.co_firstlineno + 1
    slope = symdiff.grad(t_cdf_in_df)(X, 3.0)  # in x it is the density
    np.testing.assert_allclose(slope, stats.t.pdf(X, 3.0))


def entropy_scaled(s):
    return norm.entropy(0.0, s) * s  # E:entropy


def test_a_method_without_a_record_is_a_value():
    assert symdiff.grad(lambda s: s * norm.entropy(0.0, 1.0))(2.0) == pytest.approx(
        norm.entropy())
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(entropy_scaled)(2.0)
    assert "norm.entropy" in info.value.message and "@symdiff.custom_gradient" in info.value.hint


def test_compiling_scipy_functions_needs_no_sympy(tmp_path):
    """Their derivatives are in the shipped table (second ones too)."""
    import os
    import subprocess
    import sys
    code = (
        "import sys, numpy as np, symdiff\n"
        "from scipy import special, stats\n"
        "def f(x, mu, s):\n"
        "    return np.sum(stats.norm.logpdf(x, mu, s) + stats.gamma.logcdf(x, 2.0, mu)\n"
        "                  + special.gammaln(s * x) + np.sinc(x) + special.log_ndtr(x)\n"
        "                  + stats.t(3.0).logpdf(x) + special.polygamma(1, s))\n"
        "g = symdiff.grad(f, wrt=(0, 1, 2))\n"
        "h = symdiff.hessian(lambda x: f(x, 0.1, 1.5))(np.array([1.0, 2.0]))\n"
        "print('sympy' in sys.modules)\n")
    path = tmp_path / "no_sympy.py"
    path.write_text(code)
    env = dict(os.environ, SYMDIFF_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.strip() == "False"


def test_a_written_module_imports_scipy(tmp_path):
    import os
    import subprocess
    import sys
    source = tmp_path / "model.py"
    source.write_text("import numpy as np\nfrom scipy.stats import norm\n\n\n"
                      "def loss(mu, x):\n    return -np.sum(norm.logcdf(x, mu, 2.0))\n")
    out = tmp_path / "grads.py"
    cli = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "cli.py")
    subprocess.run([sys.executable, cli, f"{source}::loss", "-o", str(out)], check=True,
                   capture_output=True, cwd=tmp_path)
    text = out.read_text()
    assert "import scipy.special" in text and "import scipy.stats" in text
    assert "symdiff" not in text.split("Do not edit.")[1]
    namespace = {}
    exec(compile(text, str(out), "exec"), namespace)  # noqa: S102
    x = np.array([0.5, -3.0, 40.0])
    assert namespace["grad_loss"](0.2, x) == pytest.approx(
        -np.sum(stats.norm.pdf(x, 0.2, 2.0) / stats.norm.cdf(x, 0.2, 2.0)) * -1, rel=1e-12)
