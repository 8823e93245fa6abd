"""Every primitive in the table, its rules checked in every mode.

Each row of `primitive_rows.ROWS` is checked by `check_grads`: reverse mode,
forward mode, and second order both ways (forward over reverse, reverse over
reverse), against central differences. The closure test compiles each row's
derivatives of the first and second order and checks that every primitive in
them has rules of its own and a row here: a rule can emit no primitive that
could not be differentiated again (``prod_adjoint`` could not, once).
"""
import numpy as np
import pytest

import symdiff
from check_grads import _scalarized, check_grads
from primitive_rows import REFUSED, ROWS
from symdiff.errors import NoDerivativeRuleError
from symdiff.ir.nodes import Op, walk
from symdiff.ir.primitive import TABLE
from symdiff.pipeline import compile_gradient
from symdiff.rules import NoRule, forward_rule, reverse_rule

IDS = [f"{row[0]}-{i}" for i, row in enumerate(ROWS)]

# Made by a pass or the frontend, never by user code a row can spell, and read
# back as something else: ``x.shape`` of a value known to be an array.
NO_ROW = {"array_shape": "written for a saved shape; read back as np.shape",
          "mask_positions": "m.nonzero()[0], written for a one-axis mask in specialised "
                            "code (tested in test_mask_positions.py)",
          "matmul_adjoint_a_sum": "read back as a loop (tested in test_loop_derivatives.py)",
          "matmul_adjoint_b_sum": "read back as a loop (tested in test_loop_derivatives.py)",
          "assign": "`a[i] = v` in place: read back as setitem (tested in test_writes.py)",
          "add_into": "`a[i] += g` in place: read back as setitem (tested in test_writes.py)",
          "add_at": "np.add.at(a, i, g): read back as an add (tested in test_writes.py)",
          "snapshot": "x.copy() before a write in place: read back as copy",
          "field": "a container argument's leaf, params['W'] (tested in test_containers.py)",
          "spotri": "dpotri's rules; its float32 result is too coarse for central "
                    "differences of second order (tested in test_linalg_code.py)"}


# The function a refused row calls, where that is not the primitive's name.
SPELLED = {"npcall": "unwrap", "opaque_call": "zeta"}


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_row(row):
    name, f, args, *options = row
    assert name in TABLE
    options = dict(options[0]) if options else {}
    if "reference" in options:
        options["reference"] = options["reference"](*args)
    check_grads(f, args, **options)


@pytest.mark.parametrize("name, f, args", REFUSED, ids=[r[0] for r in REFUSED])
def test_primitives_without_rules_are_refused_where_a_gradient_reaches_them(name, f, args):
    scalar = _scalarized(f, len(args), 1.0)
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(scalar, wrt=0)(*args)
    assert info.value.lineno is not None and info.value.hint
    spelled = SPELLED.get(name, name)
    assert spelled in info.value.message


def test_every_primitive_has_a_row():
    covered = {row[0] for row in ROWS + REFUSED}
    missing = sorted(set(TABLE) - covered - set(NO_ROW))
    assert not missing, f"primitives without a row: {missing}"


def _emitted(f, wrt, mode):
    found = set()

    def collect(stage, fn):
        if stage == "gradient":
            found.update(s.prim for s in walk(fn.body) if isinstance(s, Op))
    compile_gradient(f, wrt, mode, observe=collect)
    return found


def test_every_primitive_a_rule_emits_has_rules_and_a_row():
    """Derivatives of every row, to the second order, contain only primitives
    with rules in both modes (or a zero derivative), each with a row."""
    emitted = {}
    for name, f, args, *options in ROWS:
        wrt = tuple(i for i, a in enumerate(args)
                    if isinstance(a, float) or getattr(a, "dtype", None) == float)
        refused = options and not options[0].get("forward", True)
        for mode in ("vjp",) if refused else ("vjp", "jvp"):
            for prim in _emitted(f, wrt, mode):
                emitted.setdefault(prim, name)
        weights = np.ones(np.shape(f(*args)))
        scalar = _scalarized(f, len(args), weights)
        gradient = symdiff.grad(scalar, wrt=wrt)
        for mode in ("vjp", "jvp"):
            for prim in _emitted(gradient, wrt, mode):
                emitted.setdefault(prim, name)
    covered = {row[0] for row in ROWS} | set(NO_ROW)
    without_rules = {row[0] for row in REFUSED}  # (tested to be refused)
    problems = []
    for prim, row in sorted(emitted.items()):
        record = TABLE[prim]
        if record.read_back_as or prim in without_rules:
            continue  # never reaches the AD stage: read back as what it stands for
        for mode, rule in (("reverse", reverse_rule), ("forward", forward_rule)):
            try:
                rule(prim)
            except NoRule:
                problems.append(f"{prim} (emitted for a {row} row) has no {mode} rule")
        if prim not in covered:
            problems.append(f"{prim} (emitted for a {row} row) has no row")
    assert not problems, "\n".join(problems)
