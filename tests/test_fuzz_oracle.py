"""Random programs against an independent oracle (autograd): see fuzz_oracle.py.

The normal run checks the same ``SYMDIFF_ORACLE_QUICK`` (250) programs every
time; ``pytest -m fuzz -s`` checks ``SYMDIFF_ORACLE_EXAMPLES`` (3000) new
ones and prints (or writes to ``SYMDIFF_FUZZ_REPORT``) the counts and the
smallest program of each kind of failure. A failure is a wrong gradient, a
NaN where central differences are finite, or a crash; there must be none.
"""
import os
import random
import time

import numpy as np
import pytest

import fuzz_oracle


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("oracle"))


def _report(tally, seconds):
    text = f"{tally.summary()} ({seconds:.1f} s)\n"
    if tally.refusals:
        text += "refusals:\n" + "".join(f"  {n} x {kind}\n" for kind, n in sorted(
            tally.refusals.items(), key=lambda kv: -kv[1]))
    kinds = {}
    for kind, report in tally.failures:
        kinds.setdefault(kind, []).append(report)
    for kind, reports in kinds.items():  # the smallest program of each kind
        text += "\n" + "=" * 79 + f"\n{len(reports)} x {kind}\n" + min(reports, key=len) + "\n"
    return text


def test_random_programs_agree_with_the_oracle(workdir):
    count = int(os.environ.get("SYMDIFF_ORACLE_QUICK", "250"))
    start = time.perf_counter()
    tally = fuzz_oracle.run(range(count), workdir)
    report = _report(tally, time.perf_counter() - start)
    print(report)
    assert not tally.failures, report
    # The generator must keep drawing programs worth comparing, and ones where
    # the oracle is NaN in a branch not taken.
    compared = tally.counts["agreed"] + tally.counts["nan_free_wins"]
    assert compared >= 0.6 * tally.programs, report
    assert tally.counts["nan_free_wins"] >= 0.08 * tally.programs, report


# Programs of long runs that found defects (fixed): each seed draws its program.
FOUND = {
    581769221: "a loop's value took the name of a branch's value read after the loop",
    581770196: "a value moved into one side of an if that a later if's other side read",
}


@pytest.mark.parametrize("seed", sorted(FOUND))
def test_programs_that_found_defects(seed, workdir):
    tally = fuzz_oracle.run([seed], workdir)
    assert not tally.failures, FOUND[seed] + "\n" + _report(tally, 0.0)


@pytest.mark.fuzz
def test_random_programs_agree_with_the_oracle_long(workdir):
    count = int(os.environ.get("SYMDIFF_ORACLE_EXAMPLES", "3000"))
    first = random.SystemRandom().randrange(10 ** 6, 10 ** 9)
    start = time.perf_counter()
    tally = fuzz_oracle.run(range(first, first + count), workdir)
    report = f"seeds {first}..{first + count - 1}: " + _report(tally, time.perf_counter() - start)
    print(report)
    path = os.environ.get("SYMDIFF_FUZZ_REPORT")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(report)
    assert not tally.failures, report


# ---- the oracle itself ----------------------------------------------------------------
def test_the_oracle_sums_a_broadcast_branch_and_is_nan_where_jax_is():
    import autograd

    mask = np.array([[True, False, True], [False, True, True]])

    def f(x):
        return fuzz_oracle.ORACLE_NUMPY.sum(fuzz_oracle.ORACLE_NUMPY.where(mask, x * 2.0, 0.0))

    np.testing.assert_array_equal(autograd.grad(f)(np.array([0.5, 1.0, 2.0])), [2.0, 2.0, 4.0])

    def g(x):
        anp = fuzz_oracle.ORACLE_NUMPY
        return anp.sum(anp.where(x > 0, anp.sqrt(x), 0.0))

    with np.errstate(all="ignore"):
        got = autograd.grad(g)(np.array([-1.0, 4.0]))
    assert np.isnan(got[0]) and got[1] == 0.25


def test_a_failure_is_reported_with_its_program(workdir):
    """The harness can fail: a program whose gradient is wrong is caught."""
    text = ("import numpy as np\nfrom fuzzkit import R\n\n\ndef f(x0):\n"
            "    return np.sum(x0 * x0)\n\n\ndef f_sig(x0):\n    return np.sum(x0 * x0)\n")
    mod = fuzz_oracle.fuzzkit.load_module(workdir, text, stem="oraclecheck")
    oracle = fuzz_oracle.load_oracle(text.replace("x0 * x0", "x0 * x0 * x0"), mod.__name__)
    tally = fuzz_oracle.Tally()
    x = np.array([0.5, -1.5, 2.0])
    # the oracle (differentiating x ** 3) disagrees; differences side with symdiff
    assert fuzz_oracle.check_against_oracle(text, mod, oracle, [x], (1.0,), tally) \
        == "undecided"
    # and a gradient NaN where differences are finite is wrong
    assert fuzz_oracle._verdict(np.array([np.nan, 1.0, 1.0]), None, 2 * x, (3,), False) \
        == "wrong"
    assert fuzz_oracle._verdict(2 * x + 1.0, 3 * x ** 2, 2 * x, (3,), False) == "wrong"
