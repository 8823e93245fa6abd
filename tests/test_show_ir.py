"""show_ir and `symdiff --ir`: the IR after each stage, as text a person reads."""
import numpy as np
import pytest

import symdiff


def leaky(x, w):
    z = x * w
    h = np.where(z > 0, z, 0.1 * z)
    return np.sum(h ** 2)


def test_each_stage_is_shown():
    lowered = symdiff.show_ir(leaky, "lowered")
    assert lowered.splitlines()[0] == "leaky(x, w):"
    assert "z = multiply(x, w)" in lowered and f"# L{leaky.__code__.co_firstlineno + 1}" in lowered
    assert "# backward" not in lowered and lowered.rstrip().endswith("return leaky")
    gradient = symdiff.show_ir(leaky, "gradient")
    assert "# backward" in gradient and "x_bar" in gradient
    optimized = symdiff.show_ir(leaky, "optimized")
    # the optimisation merged the two masked gradients of the where into one select
    assert optimized.count("where(") < gradient.count("where(")
    assert "return x_bar" in optimized


def test_all_stages_and_a_gradient_made_by_grad():
    text = symdiff.show_ir(leaky, "all", wrt=("x", "w"))
    assert [line for line in text.splitlines() if line.startswith("# ")] == \
        ["# lowered", "# gradient", "# optimized"]
    df = symdiff.grad(leaky, wrt=1)
    assert symdiff.show_ir(df) == symdiff.show_ir(leaky, wrt=1)
    assert repr(symdiff.show_ir(df)) == str(symdiff.show_ir(df))  # shown as text


def test_loops_and_branches_are_indented_blocks():
    def f(x):
        for i in range(3):
            x = np.tanh(x) * 2.0
        if np.sum(x) > 0:
            x = x * x
        return np.sum(x)
    text = symdiff.show_ir(f, "optimized")
    assert "  for i in range(0, 3, 1):" in text and "\n    tanh_x = tanh(x_1)" in text
    assert "  if " in text and "\n  else:" in text
    assert "tape.append(" in text and "from reversed(tape)" in text


def test_an_unknown_stage_is_an_error():
    with pytest.raises(ValueError, match="lowered, gradient, optimized"):
        symdiff.show_ir(leaky, "parsed")


def test_the_command_line_prints_every_stage(tmp_path, capsys):
    from symdiff.cli import main
    path = tmp_path / "model.py"
    path.write_text("import numpy as np\n\ndef f(x):\n    return np.sum(np.sin(x))\n")
    assert main(["--ir", f"{path}::f"]) == 0
    out = capsys.readouterr().out
    assert "# lowered\nf(x):\n  sin_x = sin(x)" in out
    assert "# optimized" in out and "cos(x)" in out
    assert main(["--ir", str(path)]) == 2  # one function
    assert "--ir prints the IR of one function" in capsys.readouterr().err
