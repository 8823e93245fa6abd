"""The catalogue: which functions of NumPy and SciPy symdiff differentiates,
counted from the records, against the table in docs/catalogue.md.

``python tests/test_catalogue_counts.py`` lists them, namespace by namespace. A
function counts when user code can call it by that name (an alias counts
once more, as it does in JAX's and autograd's lists) and its record has a
derivative rule; "nonzero" leaves out the piecewise-constant ones (floor,
comparisons), whose derivative is zero wherever it exists. Add a record and
this test tells you the new count to write in the table.
"""
import importlib
import os

import pytest

from symdiff import rules  # noqa: F401 (fills the table)
from symdiff.ir.primitive import module_functions
from symdiff.rules import NoRule, reverse_rule

NAMESPACES = ("numpy", "numpy.linalg", "scipy.special", "scipy.stats", "scipy.linalg")
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs",
                   "catalogue.md")


def _exists(namespace, name):
    """Whether ``namespace.name`` is a function of the library (not a name of
    symdiff's own): ``scipy.stats`` + ``norm.logpdf`` is stats.norm.logpdf."""
    obj = importlib.import_module(namespace)
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return callable(obj)


def catalogue():
    """{namespace: {"all": [names], "nonzero": [names]}}, from the records."""
    found = {}
    for namespace in NAMESPACES:
        names, nonzero = [], []
        for name, record in module_functions(namespace).items():
            try:
                rule = reverse_rule(record.name)
            except NoRule:
                continue  # in the table without a rule: refused where a gradient reaches it
            if _exists(namespace, name):
                names.append(name)
                if rule is not None:
                    nonzero.append(name)
        found[namespace] = {"all": names, "nonzero": nonzero}
    return found


def documented():
    """{namespace: (symdiff, symdiff nonzero)} as docs/catalogue.md's table has them."""
    rows = {}
    with open(DOC, encoding="utf-8") as handle:
        for line in handle:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 3 and cells[0].strip("`") in NAMESPACES:
                rows[cells[0].strip("`")] = (int(cells[1]), int(cells[2]))
    return rows


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_the_table_in_the_docs_counts_what_the_records_hold(namespace):
    counts = catalogue()[namespace]
    expected = (len(counts["all"]), len(counts["nonzero"]))
    assert documented().get(namespace) == expected, (
        f"docs/catalogue.md: write {expected[0]} and {expected[1]} in the row of "
        f"{namespace} (the records changed)")


def test_the_functions_of_the_issue_are_in_the_catalogue():
    found = catalogue()
    special = set(found["scipy.special"]["nonzero"])
    assert {"logsumexp", "gammaln", "digamma", "erf", "log_ndtr", "xlogy",
            "softmax", "log_softmax", "i0e", "multigammaln"} <= special
    stats = set(found["scipy.stats"]["nonzero"])
    assert {"norm.logpdf", "t.logpdf", "gamma.logpdf", "beta.logpdf", "poisson.logpmf",
            "binom.logpmf", "multivariate_normal.logpdf", "dirichlet.logpdf"} <= stats
    numpy = set(found["numpy"]["nonzero"])
    assert {"sinc", "mod", "remainder", "fmod", "nan_to_num", "copysign", "float_power",
            "positive", "degrees", "radians"} <= numpy


def _total(found, kind):
    return sum(len(v[kind]) for v in found.values())


if __name__ == "__main__":
    listing = catalogue()
    for space, kinds in listing.items():
        print(f"{space}: {len(kinds['all'])} ({len(kinds['nonzero'])} with a nonzero "
              "derivative)")
        flat = sorted(set(kinds["all"]) - set(kinds["nonzero"]))
        print("  " + ", ".join(kinds["nonzero"]))
        if flat:
            print("  zero derivative: " + ", ".join(flat))
    print(f"total: {_total(listing, 'all')} ({_total(listing, 'nonzero')} nonzero)")
