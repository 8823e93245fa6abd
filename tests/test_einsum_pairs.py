"""An einsum of known ranks in specialised code: its contractions pair by pair,
``X @ A`` and ``g[:, None] * Z`` where the pair is one, never a loop over
every label at once (optimize/einsum_pairs.py)."""
import importlib.util
import re

import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import assert_grad

SHAPES = {
    "ij,jk->ik": [(3, 4), (4, 5)], "ij,jk->ki": [(3, 4), (4, 5)], "i,i->": [(4,), (4,)],
    "ij,j->i": [(3, 4), (4,)], "ij,ik->jk": [(3, 4), (3, 5)],
    "ni,ij,nj->n": [(6, 3), (3, 3), (6, 3)], "ij,jk,kl->il": [(2, 3), (3, 4), (4, 5)],
    "bij,bjk->bik": [(2, 3, 4), (2, 4, 5)], "i,j->ij": [(3,), (4,)],
    "ijk,jk->i": [(2, 3, 4), (3, 4)], "ij,ij->i": [(3, 4), (3, 4)],
    "ij,jk,ki->": [(3, 4), (4, 5), (5, 3)], "ij,kj->ik": [(3, 4), (5, 4)],
    "i,ij,j->": [(3,), (3, 4), (4,)], "ijk,k->ij": [(2, 3, 4), (4,)],
    "ab,bc,cd,da->": [(2, 3), (3, 4), (4, 5), (5, 2)], "ij,jk->": [(3, 4), (4, 5)],
    "nkd,nk->kd": [(6, 3, 2), (6, 3)], "nkd,nke->kde": [(6, 3, 2), (6, 3, 4)],
    "nab,nb->ba": [(5, 2, 3), (5, 3)], "nkd,nk,k->dk": [(6, 3, 2), (6, 3), (3,)],
}


def _function(subscripts, count, folder):
    """f(a0, a1, ...) = sum(sin(einsum(subscripts, a0, a1, ...))), from a file
    (symdiff reads its source)."""
    names = ", ".join(f"a{i}" for i in range(count))
    path = folder / "einsum_case.py"
    path.write_text("import numpy as np\n\n\n"
                    f"def f({names}):\n"
                    f"    return np.sum(np.sin(np.einsum({subscripts!r}, {names})))\n")
    spec = importlib.util.spec_from_file_location(f"einsum_case_{abs(hash(subscripts))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@pytest.mark.parametrize("subscripts", sorted(SHAPES))
def test_specialised_einsum_gradients_are_exact(subscripts, tmp_path):
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(shape) for shape in SHAPES[subscripts]]
    f = _function(subscripts, len(args), tmp_path)
    wrt = tuple(range(len(args)))
    df = symdiff.grad(f, wrt=wrt)
    assert_grad(f, df, args, wrt=wrt)
    text = symdiff.source(df, *args)
    # no einsum of three operands or more, in the forward pass or the gradient's
    code = "\n".join(line.split("#")[0] for line in text.splitlines())  # (not comments)
    for call in re.findall(r"np\.einsum\('([^']*)'", code):
        assert call.count(",") <= 1, text


def test_three_operand_einsum_reads_as_matrix_products():
    def bilinear(A, X, Z, t):
        s = np.einsum("ni,ij,nj->n", X, A, Z)
        return 0.5 * np.sum((s - t) ** 2)

    rng = np.random.default_rng(0)
    args = (rng.standard_normal((3, 3)), rng.standard_normal((8, 3)),
            rng.standard_normal((8, 3)), rng.standard_normal(8))
    df = symdiff.grad(bilinear)
    text = symdiff.source(df, *args)
    assert "X @ A" in text and "[:, None] * X).T @ Z" in text, text
    assert "optimize" not in text, text
    assert_grad(bilinear, df, args)


@pytest.mark.parametrize("subscripts", ["nkd,nk->kd", "nkd,nke->kde", "nab,nb->ba"])
def test_a_sum_over_the_leading_label_is_a_stack_of_matrix_products(subscripts, tmp_path):
    # k kept by both: K products over n (0.2 ms at 20000 x 8 x 4, 0.56 as an einsum)
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(shape) for shape in SHAPES[subscripts]]
    f = _function(subscripts, len(args), tmp_path)
    text = symdiff.source(symdiff.grad(f, wrt=(0, 1)), *args)
    code = "\n".join(line.split("#")[0] for line in text.splitlines())  # (not comments)
    assert " @ np.transpose(" in code and "[()]" not in code, text
    assert f"np.einsum({subscripts!r}" not in code, text  # (the adjoints' einsums may stay)


def test_einsum_that_broadcasts_a_length_one_axis_is_kept(tmp_path):
    # einsum broadcasts j of length 1 against j of length 2; `@` would raise
    f = _function("ij,jk->ik", 2, tmp_path)
    a, b = np.linspace(0.1, 0.3, 3).reshape(3, 1), np.linspace(-1.0, 1.0, 8).reshape(2, 4)
    df = symdiff.grad(f)
    assert_grad(f, df, (a, b))
    code = symdiff.source(df, a, b).split("# L5")[1]
    assert "np.einsum('ij,jk->ik', a0, a1)" in code, code


def test_the_other_operand_s_gradient_is_the_same_along_a_broadcast_label(tmp_path):
    # out[i, k] = sum_j a[i, 0] * b[j, k]: b's gradient is one row repeated
    # over j, and a's is summed over j (it was b's shape (1, 4), not (2, 4))
    f = _function("ij,jk->ik", 2, tmp_path)
    a, b = np.linspace(0.1, 0.3, 3).reshape(3, 1), np.linspace(-1.0, 1.0, 8).reshape(2, 4)
    for wrt in (0, 1):
        check_grads(f, (a, b), wrt=(wrt,))
    g_b = symdiff.grad(f, wrt=1)(a, b)
    assert g_b.shape == b.shape and np.all(g_b[0] == g_b[1])
