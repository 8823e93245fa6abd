"""Every error a user can cause: its class, its location, its message and hint.

The offending line of each example carries a marker comment ``# E:<name>``;
expected line numbers and columns are computed from those markers, never
written down, so the file can be edited freely.
"""
import functools
import math
import os
import pickle
import re

import numpy as np
import pytest

import symdiff
from symdiff import errors
from symdiff.errors import (ArrayPredicateError, InPlaceWriteError, NoDerivativeRuleError,
                            NonFloatArgumentError, NonScalarOutputError,
                            SourceUnavailableError, SymdiffError, UnknownNameError,
                            UnsupportedSyntaxError, WrtError)

HERE = os.path.abspath(__file__)
with open(HERE, encoding="utf-8") as _f:
    LINES = _f.read().splitlines()
DOCS = os.path.join(os.path.dirname(HERE), os.pardir, "docs", "errors.md")

X = np.array([0.5, -1.0, 2.0])


def where(marker, snippet):
    """(lineno, col_offset) of ``snippet`` on the line marked ``# E:<marker>``."""
    tag = re.compile(rf"# E:{re.escape(marker)}(\s|$)")
    rows = [i for i, line in enumerate(LINES) if tag.search(line)]
    assert len(rows) == 1, f"marker {marker!r} is on {len(rows)} lines"
    line = LINES[rows[0]]
    assert snippet in line, f"{snippet!r} is not on the line of {marker!r}"
    return rows[0] + 1, line.index(snippet)


def check(err, cls, marker, snippet, *words):
    """``err`` is exactly ``cls``, located at ``snippet`` on the ``marker`` line of
    this file, its message names ``words``, and str(err) shows the line, a caret
    under ``snippet`` and a hint."""
    lineno, col = where(marker, snippet)
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert os.path.abspath(err.filename) == HERE
    assert (err.lineno, err.col_offset) == (lineno, col), str(err)
    for word in words:
        assert word in err.message, f"{word!r} not in {err.message!r}"
    assert err.hint
    text = str(err).splitlines()
    assert text[0] == f"{err.filename}:{lineno}:{col + 1}: {err.message}"
    source = LINES[lineno - 1]
    indent = len(source) - len(source.lstrip())
    assert text[1] == "    " + source.strip()
    assert text[2] == "    " + " " * (col - indent) + "^"
    assert text[3:] == f"hint: {err.hint}".splitlines()  # (a hint may show code)


def raised(fn, *args, **grad_kwargs):
    """The SymdiffError from differentiating ``fn`` (and calling the gradient on args)."""
    with pytest.raises(SymdiffError) as info:
        df = symdiff.grad(fn, **grad_kwargs)
        df(*args)
    return info.value


# -- functions with no source ----------------------------------------------------------
def _exec_def():
    namespace = {"np": np}
    exec("def typed(x):\n    return np.sum(x * x)\n", namespace)
    return namespace["typed"]


def _prompt_def():
    namespace = {"np": np}
    exec(compile("def at_prompt(x):\n    return np.sum(x)\n", "<stdin>", "exec"), namespace)
    return namespace["at_prompt"]


def _objective(x, scale):
    return np.sum(x * scale)


class Model:
    def loss(self, x):
        return np.sum(x * x)


NO_SOURCE = {
    "exec-def": (_exec_def, ["typed", "<string>"], "exec()"),
    "prompt-def": (_prompt_def, ["at_prompt", "<stdin>"], "interactive prompt"),
    "eval-lambda": (lambda: eval("lambda x: x * 2"), ["<lambda>"], "exec()"),
    "np.sin": (lambda: np.sin, ["np.sin", "ufunc"], "np.sum(np.sin(x))"),
    "len": (lambda: len, ["`len`", "built-in"], "function of your own"),
    "math.factorial": (lambda: math.factorial, ["math.factorial"], "function of your own"),
    "np.sum": (lambda: np.sum, ["np.sum", "library function"], "np.sum(x)"),
    "partial": (lambda: functools.partial(_objective, scale=2.0), ["functools.partial"],
                "`def`"),
    "class": (lambda: Model, ["class `Model`"], "`def`"),
}


@pytest.mark.parametrize("case", sorted(NO_SOURCE))
def test_function_without_source_is_reported_at_the_grad_call(case):
    make, words, hint = NO_SOURCE[case]
    fn = make()
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(fn)  # E:no-source-call
    check(info.value, SourceUnavailableError, "no-source-call", "symdiff.grad(", *words)
    assert hint in info.value.hint


@pytest.mark.parametrize("thing", [
    42,
    "loss",
    X,
], ids=["int", "str", "array"])
def test_not_a_function_is_reported_at_the_grad_call(thing):
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(thing)  # E:not-a-function
    check(info.value, SourceUnavailableError, "not-a-function", "symdiff.grad(",
          "not a Python function")


def test_a_bound_method_is_differentiated_with_its_object():
    np.testing.assert_allclose(symdiff.grad(Model().loss)(X), 2 * X)  # (test_containers.py)


typed_helper = _exec_def()


def calls_helper_without_source(x):
    return typed_helper(x) * 2.0  # E:helper-no-source


def test_helper_without_source_is_an_error():
    err = raised(calls_helper_without_source, X)
    assert type(err) is SourceUnavailableError
    assert "typed" in err.message and err.hint and err.filename


def test_helper_without_source_is_reported_at_its_call():
    check(raised(calls_helper_without_source, X), SourceUnavailableError,
          "helper-no-source", "typed_helper(", "typed")


two_lambdas = [lambda x: x * 2, lambda x: x * 3]  # E:two-lambdas


def test_two_lambdas_on_one_line_are_told_apart_by_column():
    # Python records each instruction's column, so same-looking lambdas on one
    # line are not ambiguous after all.
    assert symdiff.grad(two_lambdas[0])(1.0) == 2.0
    assert symdiff.grad(two_lambdas[1])(1.0) == 3.0


class _NoColumns:
    """A code object as Python 3.10 has it: no co_positions."""

    def __init__(self, code):
        self._code = code

    def __getattr__(self, name):
        if name == "co_positions":
            raise AttributeError(name)
        return getattr(self._code, name)


def test_two_lambdas_on_one_line_without_columns_is_a_clear_error():
    import inspect
    from symdiff.frontend.lambdas import find_lambda
    code = two_lambdas[1].__code__
    all_lines, _ = inspect.findsource(two_lambdas[1])
    lines, start = inspect.getsourcelines(two_lambdas[1])
    with pytest.raises(SourceUnavailableError) as info:
        find_lambda("".join(lines), _NoColumns(code), start, all_lines)
    check(info.value, SourceUnavailableError, "two-lambdas", "lambda x: x * 2", "2 lambdas")


# -- syntax outside the supported subset -----------------------------------------------
def uses_try(x):
    try:  # E:try
        y = x * 2
    except ValueError:
        y = x
    return np.sum(y)


SCALE = 2.0


def uses_global(x):
    global SCALE  # E:global  # noqa: F824
    return np.sum(x) * SCALE


def uses_yield(x):
    yield np.sum(x)  # E:yield


def uses_fstring(x):
    label = f"value {x}"  # E:fstring  # noqa: F841
    return np.sum(x)


def uses_walrus(x):
    return np.sum(y := x * 2) + np.sum(y)  # E:walrus


def uses_del(x):
    y = x * 2
    del y  # E:del
    return np.sum(x)


def uses_kwargs(x, **options):  # E:kwargs
    return np.sum(x)


def uses_raise(x):
    raise ValueError("no")  # E:raise


def uses_import(x):
    import os.path  # E:import  # noqa: F401
    return np.sum(x)


def uses_set(x):
    seen = {1, 2}  # E:set  # noqa: F841
    return np.sum(x)


def uses_class(x):
    class Local:  # E:classdef
        pass
    return np.sum(x)


def uses_nonlocal(x):
    total = x

    def bump():
        nonlocal total  # E:nonlocal
        total = total + 1
    return np.sum(total)


def uses_match(x):
    match x.ndim:  # E:match
        case 1:
            return np.sum(x)
    return np.sum(x)


def uses_complex(x):
    return np.sum(x * 2j)  # E:complex


async def uses_async(x):  # E:async
    return np.sum(x)


def first_of_two(x):
    y = x + 1.0  # noqa: F841
    try:  # E:first-of-two
        pass
    except ValueError:
        pass
    return np.sum(x)


SYNTAX = [
    # function, marker, where the caret goes, words the message must contain
    (uses_try, "try", "try", ["`try` statement"]),
    (uses_global, "global", "global", ["`global` statement"]),
    (uses_yield, "yield", "yield", ["`yield`"]),
    (uses_fstring, "fstring", 'f"', ["f-string"]),
    (uses_walrus, "walrus", "y :=", ["`:=`"]),
    (uses_del, "del", "del", ["`del` statement"]),
    (uses_kwargs, "kwargs", "options", ["`**options`"]),
    (uses_raise, "raise", "raise", ["`raise` statement"]),
    (uses_import, "import", "import", ["`import` statement"]),
    (uses_set, "set", "{", ["set literal"]),
    (uses_class, "classdef", "class", ["class definition"]),
    (uses_nonlocal, "nonlocal", "nonlocal", ["`nonlocal` statement"]),
    (uses_match, "match", "match", ["`match` statement"]),
    (uses_complex, "complex", "2j", ["complex number", "2j"]),
    (uses_async, "async", "async", ["`async def`"]),
    (first_of_two, "first-of-two", "try", ["`try` statement"]),
]


@pytest.mark.parametrize("fn, marker, snippet, words", SYNTAX,
                         ids=[case[1] for case in SYNTAX])
def test_unsupported_syntax_names_the_construct(fn, marker, snippet, words):
    err = raised(fn, X)
    check(err, UnsupportedSyntaxError, marker, snippet, *words)


def test_syntax_inside_a_called_helper_is_located_in_the_helper():
    def outer(x):
        return uses_yield(x) * 2
    check(raised(outer, X), UnsupportedSyntaxError, "yield", "yield", "`yield`")


# -- in-place writes ---------------------------------------------------------------------
class Box:
    count = 0


box = Box()


def writes_item(x):
    x[0] = 1.0  # E:setitem
    return np.sum(x)


def writes_slice(x):
    x[1:] += 1  # E:augslice
    return np.sum(x)


def writes_attr(x):
    box.attr = x  # E:setattr
    return np.sum(x)


def writes_attr_aug(x):
    box.count += 1  # E:augattr
    return np.sum(x)


def writes_in_tuple_target(x):
    y, x[0] = x, 2.0  # E:tuple-target
    return np.sum(y)


def adds_into_argument(x):
    x += 1.0  # E:aug-arg
    return np.sum(x)


def adds_into_alias(x):
    y = x * 2.0
    z = y
    z += 1.0  # E:aug-alias
    return np.sum(y)


IN_PLACE = [
    (adds_into_argument, "aug-arg", "x += 1.0", ["`x`", "argument", "caller's array"]),
    (adds_into_alias, "aug-alias", "z += 1.0", ["`z`", "another name for `y`"]),
    (writes_item, "setitem", "x[0]", ["`x[0]`", "in place", "argument `x`", "caller's"]),
    (writes_slice, "augslice", "x[1:]", ["`x[1:]`", "in place", "argument `x`"]),
    (writes_attr, "setattr", "box.attr", ["`box.attr`", "attribute"]),
    (writes_attr_aug, "augattr", "box.count", ["`box.count`", "attribute"]),
    (writes_in_tuple_target, "tuple-target", "x[0]", ["`x[0]`"]),
]


@pytest.mark.parametrize("fn, marker, snippet, words", IN_PLACE,
                         ids=[case[1] for case in IN_PLACE])
def test_in_place_write(fn, marker, snippet, words):
    err = raised(fn, X.copy())
    check(err, InPlaceWriteError, marker, snippet, *words)
    assert isinstance(err, UnsupportedSyntaxError)  # a kind of unsupported syntax


# -- calls without a derivative rule -----------------------------------------------------
class Scaler:
    def scale(self, x):
        return x * 3.0


scaler = Scaler()
scale_bound = scaler.scale


def calls_fft(x):
    return np.sum(np.abs(np.fft.fft(x)))  # E:fft


def calls_factorial(x):
    return math.factorial(x)  # E:factorial


def calls_object_method(x):
    return np.sum(scaler.scale(x))  # E:object-method


def calls_bound_method(x):
    return np.sum(scale_bound(x))  # E:bound-method


NO_RULE = [
    (calls_fft, "fft", "np.fft.fft", ["np.fft.fft"]),
    (calls_factorial, "factorial", "math.factorial", ["math.factorial"]),
    (calls_object_method, "object-method", "scaler.scale", ["scale"]),
    (calls_bound_method, "bound-method", "scale_bound", ["scale_bound"]),
]


@pytest.mark.parametrize("fn, marker, snippet, words", NO_RULE,
                         ids=[case[1] for case in NO_RULE])
def test_call_without_derivative_rule(fn, marker, snippet, words):
    err = raised(fn, X)
    check(err, NoDerivativeRuleError, marker, snippet, *words)


def test_object_method_hint_does_not_suggest_a_numpy_function():
    err = raised(calls_object_method, X)
    assert "array method" not in err.message
    assert "np.scale" not in err.hint
    assert "`Scaler`" in err.message and "def scale(" in err.hint


def test_bound_method_is_named_as_a_method():
    err = raised(calls_bound_method, X)
    assert "method `scale`" in err.message and "`Scaler`" in err.message
    assert "np.scale" not in err.hint


def calls_array_method_without_rule(x):
    return np.sum(x.searchsorted(0.0) * x)  # E:searchsorted


def calls_missing_array_method(x):
    return np.sum(x.predict())  # E:no-method


def test_array_method_without_rule_suggests_the_numpy_function():
    check(raised(calls_array_method_without_rule, X), NoDerivativeRuleError, "searchsorted",
          "x.searchsorted", ".searchsorted()")
    assert "np.searchsorted(" in raised(calls_array_method_without_rule, X).hint


def test_method_arrays_do_not_have_is_not_sent_to_numpy():
    err = raised(calls_missing_array_method, X)
    check(err, UnsupportedSyntaxError, "no-method", "x.predict", "x.predict", "array")
    assert "np.predict" not in err.hint and ".sum()" in err.hint


def calls_unwrap(x):
    return np.unwrap(x) * 2.0  # E:unwrap


def test_no_rule_found_by_the_reverse_pass():
    err = raised(calls_unwrap, X)
    lineno, _ = where("unwrap", "np.unwrap")
    assert type(err) is NoDerivativeRuleError
    assert (os.path.abspath(err.filename), err.lineno) == (HERE, lineno)
    assert "unwrap" in err.message and err.hint
    assert "    " + LINES[lineno - 1].strip() in str(err)


def test_no_rule_found_by_the_reverse_pass_points_at_the_call():
    check(raised(calls_unwrap, X), NoDerivativeRuleError, "unwrap", "np.unwrap", "unwrap")


def calls_unwrap_on_a_later_line(x):
    total = (np.sum(np.sin(x))  # E:statement-start
             + np.sum(np.unwrap(x) * x))  # E:unwrap-later
    return total * 2.0


def test_reverse_pass_error_in_a_multi_line_statement_points_at_its_line():
    check(raised(calls_unwrap_on_a_later_line, X), NoDerivativeRuleError, "unwrap-later",
          "np.unwrap", "unwrap")


def multi_line_statement(x):
    total = (np.sum(np.sin(x))  # E:multi-start
             + np.sum(np.exp(x) * x))
    return total * 2.0


def test_generated_comment_quotes_the_whole_statement_once():
    """Ops carry their own expression's place; the ``# Lnn:`` comment above their
    backward code still names the statement they belong to, once."""
    text = symdiff.source(symdiff.grad(multi_line_statement))
    lineno, _ = where("multi-start", "total")
    comments = [line.strip() for line in text.splitlines() if line.strip().startswith("# L")]
    assert comments == [f"# L{lineno}: total = (np.sum(np.sin(x))  # E:multi-start"]
    assert np.allclose(symdiff.grad(multi_line_statement)(X),
                       2.0 * (np.cos(X) + np.exp(X) * (X + 1.0)))


# -- wrt -----------------------------------------------------------------------------------
def two_args(w, b):  # E:wrt
    return np.sum(w * b)


WRT = [
    ("missing-name", "v", ["'v'", "two_args"], "['w', 'b']"),
    ("position-too-big", 2, ["wrt=2", "2 arguments"], "['w', 'b']"),
    ("position-too-small", -3, ["wrt=-3"], "['w', 'b']"),
    ("twice-by-name", ("w", "w"), ["twice"], "once"),
    ("twice-by-name-and-position", ("b", 1), ["twice"], "once"),
    ("not-a-name-or-position", 1.5, ["1.5"], "['w', 'b']"),
    ("missing-in-tuple", ("w", "c"), ["'c'"], "['w', 'b']"),
]


@pytest.mark.parametrize("wrt, words, hint", [case[1:] for case in WRT],
                         ids=[case[0] for case in WRT])
def test_wrt_names_an_argument_of_the_function(wrt, words, hint):
    """The mistake is in the call that gave ``wrt``: the error points there."""
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(two_args, wrt=wrt)  # E:wrt-call
    check(info.value, WrtError, "wrt-call", "symdiff.grad", *words)
    assert hint in info.value.hint
    lineno, _ = where("wrt", "def")
    assert f"(the parameters of the function at test_errors.py:{lineno})" in info.value.hint


def test_wrt_empty_tuple():
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(two_args, wrt=())  # E:wrt-empty
    check(info.value, WrtError, "wrt-empty", "symdiff.grad")


def test_a_bad_wrt_in_a_decorator_points_at_the_decorator():
    with pytest.raises(WrtError) as info:
        @symdiff.grad(wrt="nope")  # E:wrt-decorator
        def f(x):
            return x * 2.0
    lineno, _ = where("wrt-decorator", "symdiff.grad")
    assert info.value.lineno in (lineno, lineno + 1)  # the def's line on Python 3.10


# -- non-scalar output -------------------------------------------------------------------
def vector_valued(x):
    return x * 2  # E:vector


vector_lambda = lambda x: x * 2  # noqa: E731  # E:vector-lambda


@pytest.mark.parametrize("fn, marker, snippet, mode", [
    (vector_valued, "vector", "return", symdiff.grad),
    (vector_lambda, "vector-lambda", "x * 2", symdiff.grad),
    (vector_valued, "vector", "return", symdiff.value_and_grad),
], ids=["def", "lambda", "value_and_grad"])
def test_non_scalar_output_is_reported_when_the_gradient_runs(fn, marker, snippet, mode):
    df = mode(fn)  # compiling is fine: the shape is known only at run time
    with pytest.raises(SymdiffError) as info:
        df(X)
    check(info.value, NonScalarOutputError, marker, snippet, "scalar", "(3,)")
    assert "jacobian" in info.value.hint


def returns_in_two_places(x):  # E:two-returns
    if np.sum(x) > 0:
        return x
    return np.sum(x)


def test_non_scalar_output_with_several_returns_is_reported_at_the_def():
    """The check runs once, on the value either `return` gave: the def."""
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(returns_in_two_places)(X)
    check(info.value, NonScalarOutputError, "two-returns", "def", "scalar", "(3,)")


def test_scalar_output_of_the_same_function_is_fine():
    assert symdiff.grad(vector_valued)(1.5) == 2.0


def outer_product(u, v):
    return u * np.sin(v) + 1.0  # E:outer


def test_non_scalar_output_from_several_sources_says_its_shape():
    """One check of the values the output broadcasts (u and v here): the error
    gives the output's shape, which neither source has."""
    df = symdiff.grad(outer_product, wrt=(0, 1))
    assert df.__symdiff_source__.count("_require_scalar(") == 1
    assert df(2.0, 3.0) == (np.sin(3.0), 2.0 * np.cos(3.0))
    with pytest.raises(SymdiffError) as info:
        df(np.ones((3, 1)), np.ones(4))
    check(info.value, NonScalarOutputError, "outer", "return", "scalar", "(3, 4)")
    with pytest.raises(NonScalarOutputError):
        df(1.0, np.ones(2))  # the second source alone


# -- non-float arguments -----------------------------------------------------------------
def summed(x):  # E:summed
    return np.sum(x * x)


@pytest.mark.parametrize("value", [np.array([1, 2, 3]), 3, np.array([True, False])],
                         ids=["int-array", "int", "bool-array"])
def test_non_float_argument_in_wrt(value):
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(summed)(value)
    err = info.value
    assert type(err) is NonFloatArgumentError
    assert (os.path.abspath(err.filename), err.lineno) == (HERE, where("summed", "def")[0])
    assert "x" in err.message and "dtype" in err.message and err.hint


def weighted(w, b, scale):  # E:weighted
    return np.sum(w * b) * scale


@pytest.mark.parametrize("position", [0, 1, 2])
def test_non_float_argument_among_several_is_the_one_named(position):
    """One check for all the arguments differentiated; its error points at the
    one that is not floating point."""
    df = symdiff.grad(weighted, wrt=(0, 1, 2))
    assert df.__symdiff_source__.count("_require_float(") == 1
    args = [np.ones(3), np.ones(3), 2.0]
    args[position] = np.arange(3) if position < 2 else 2
    with pytest.raises(SymdiffError) as info:
        df(*args)
    name = "w b scale".split()[position]
    check(info.value, NonFloatArgumentError, "weighted", name + ("," if position < 2 else ")"),
          f"argument `{name}`", "int")


@pytest.mark.parametrize("value", [[1.0, 2.0], (1.0,)], ids=["list", "tuple"])
def test_a_list_argument_in_wrt_is_refused_not_added_to_itself(value):
    """``x * x``'s gradient ``x + x`` would concatenate a list: a wrong answer."""
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(summed)(value)
    check(info.value, NonFloatArgumentError, "summed", "x", "argument `x`",
          type(value).__name__)
    assert "np.asarray" in info.value.hint


def test_non_float_argument_not_in_wrt_is_fine():
    assert np.allclose(symdiff.grad(two_args, wrt="w")(X, np.array([1, 2, 3])), [1, 2, 3])


def test_require_float_check_raises_a_located_error():
    """The run-time check generated code will call (runtime._require_float)."""
    from symdiff.runtime.helpers import _require_float
    lineno, col = where("summed", "x")
    message = f"{os.path.basename(HERE)}:{lineno}:{col + 1}: argument `x`"
    assert _require_float(X, message=message) is X
    with pytest.raises(SymdiffError) as info:
        _require_float(np.arange(3), message=message)
    check(info.value, NonFloatArgumentError, "summed", "x", "argument `x`", "int")
    # several values, one message each: the error names the one that is not float
    assert _require_float(X, 2.0, np.float32(1.0), messages=("a", "b", "c")) is X
    with pytest.raises(SymdiffError) as info:
        _require_float(X, np.arange(3), messages=("elsewhere", message))
    check(info.value, NonFloatArgumentError, "summed", "x", "argument `x`", "int")


# -- array predicates ------------------------------------------------------------------------
def if_on_array(x):
    if x > 0:  # E:if-array
        return np.sum(x)
    return -np.sum(x)


def elif_on_array(x):
    if np.sum(x) > 100:
        return 0.0
    elif x > 1:  # E:elif-array
        return np.sum(x)
    return np.sum(x * x)


def ifexp_on_array(x):
    return np.sum(x) if x > 0 else 0.0  # E:ifexp-array


def cond_on_array(x):
    return symdiff.cond(x > 0, np.sum, lambda v: 0.0, x)  # E:cond-array


@pytest.mark.parametrize("fn, marker, snippet", [
    (if_on_array, "if-array", "x > 0"),
    (elif_on_array, "elif-array", "x > 1"),
    (ifexp_on_array, "ifexp-array", "x > 0"),
    (cond_on_array, "cond-array", "symdiff.cond("),
], ids=["if", "elif", "ifexp", "cond"])
def test_array_predicate(fn, marker, snippet):
    err = raised(fn, X)
    check(err, ArrayPredicateError, marker, snippet, "array", "(3,)")
    assert "np.where" in err.hint


def test_scalar_predicate_of_the_same_function_is_fine():
    assert symdiff.grad(if_on_array)(2.0) == 1.0


# -- unknown names ---------------------------------------------------------------------------
def reads_unknown(x):
    return np.sum(x) * undefined_scale  # E:unknown  # noqa: F821


def helper_with_unknown(v):
    return v * not_defined_either  # E:unknown-in-helper  # noqa: F821


def calls_helper_with_unknown(x):
    return np.sum(helper_with_unknown(x))


multi_line_lambda = (lambda x:  # noqa: E731
                     np.sum(x) * missing_in_lambda)  # E:multi-line-lambda  # noqa: F821

commented = lambda x: np.sum(x) * missing_c  # lambda x: x  # E:commented-lambda  # noqa: E731,F821


@pytest.mark.parametrize("fn, marker, snippet", [
    (reads_unknown, "unknown", "undefined_scale"),
    (calls_helper_with_unknown, "unknown-in-helper", "not_defined_either"),
    (multi_line_lambda, "multi-line-lambda", "missing_in_lambda"),
    (commented, "commented-lambda", "missing_c"),
], ids=["name", "in-helper", "multi-line-lambda", "lambda-in-comment"])
def test_unknown_name(fn, marker, snippet):
    err = raised(fn, X)
    check(err, UnknownNameError, marker, snippet, f"`{snippet}`")


def reads_missing_numpy_attribute(x):
    return np.sum(np.no_such_function(x))  # E:np-attr


def test_unknown_module_attribute():
    check(raised(reads_missing_numpy_attribute, X), UnknownNameError, "np-attr",
          "np.no_such_function", "np.no_such_function")


def reads_misspelt_numpy_function(x):
    return np.sum(np.linalg.nrm(x) * np.sinn(x))  # E:np-typo


def test_unknown_module_attribute_suggests_close_names():
    err = raised(reads_misspelt_numpy_function, X)
    check(err, UnknownNameError, "np-typo", "np.linalg.nrm", "np.linalg.nrm", "numpy.linalg")
    assert "`np.linalg.norm`" in err.hint


# -- functions that return None ---------------------------------------------------------------
def falls_off_the_end(x):  # E:no-return
    y = np.sum(x)  # noqa: F841


def bare_return(x):
    y = np.sum(x)  # noqa: F841
    return  # E:bare-return


def one_branch_falls_off(x):
    if np.sum(x) > 0:  # E:half-return
        return np.sum(x)
    else:
        y = x  # noqa: F841


@pytest.mark.parametrize("fn, marker, snippet, words", [
    (falls_off_the_end, "no-return", "def", ["does not return"]),
    (bare_return, "bare-return", "return", ["returns None"]),
    (one_branch_falls_off, "half-return", "if", ["falls off the end"]),
], ids=["no-return", "bare-return", "one-branch"])
def test_function_returning_none(fn, marker, snippet, words):
    check(raised(fn, X), NonScalarOutputError, marker, snippet, *words)


def returns_early_from_a_loop(x):
    for i in range(3):
        if x[i] > 1.0:  # E:loop-return
            return x[i] ** 2
    return np.sum(x)


def returns_early_from_an_unrolled_loop(x):
    for w in (x, 2 * x):
        if np.sum(w) > 1.0:  # E:unrolled-return
            return np.sum(w ** 2)
    return np.sum(x)


@pytest.mark.parametrize("fn, marker", [(returns_early_from_a_loop, "loop-return"),
                                        (returns_early_from_an_unrolled_loop, "unrolled-return")])
def test_an_early_return_from_a_loop_is_named_as_one(fn, marker):
    """A `return` inside an `if` in a loop, with a `return` after the loop, was
    refused as "one branch returns a value and the other falls off the end",
    whose hint (return on every path) the function already follows."""
    err = raised(fn, X)
    check(err, UnsupportedSyntaxError, marker, "if", "`return` inside a loop")
    assert "break" in err.hint


def returns_none_explicitly(x):
    y = np.sum(x)  # noqa: F841
    return None  # E:return-none


def test_return_none_explicitly():
    check(raised(returns_none_explicitly, X), NonScalarOutputError, "return-none",
          "return", "None")


# -- other mistakes the frontend finds ----------------------------------------------------------
def unpacks_wrong_count(x):
    a, b = x, x, x  # E:unpack  # noqa: F841
    return np.sum(a)


def indexes_tuple_out_of_range(x):
    pair = (x, x)
    return np.sum(pair[5])  # E:tuple-index


def indexes_tuple_by_variable(x, i):
    pair = (x, x)
    return np.sum(pair[i])  # E:tuple-var-index


def calls_with_too_many(x):
    return _objective(x, 1.0, 2.0)  # E:too-many


def calls_with_too_few(x):
    return _objective(x)  # E:too-few


def calls_with_unknown_keyword(x):
    return _objective(x, scale=1.0, bias=2.0)  # E:unknown-keyword


def assigns_starred(x):
    a, *rest = x * 1.0  # E:starred  # noqa: F841  (of an array: of a tuple, Python's)
    return np.sum(a)


def stop_gradient_two_args(x):
    return np.sum(symdiff.stop_gradient(x, x))  # E:stop-gradient-args


FRONTEND = [
    (unpacks_wrong_count, "unpack", "a, b", "unpack"),
    (indexes_tuple_out_of_range, "tuple-index", "pair[5]", "out of range"),
    (indexes_tuple_by_variable, "tuple-var-index", "pair[i]", "constant"),
    (calls_with_too_many, "too-many", "_objective(", "_objective"),
    (calls_with_too_few, "too-few", "_objective(", "`scale`"),
    (calls_with_unknown_keyword, "unknown-keyword", "_objective(", "bias"),
    (assigns_starred, "starred", "*rest", "*rest"),
    (stop_gradient_two_args, "stop-gradient-args", "symdiff.stop_gradient(", "stop_gradient"),
]


@pytest.mark.parametrize("fn, marker, snippet, word", FRONTEND,
                         ids=[case[1] for case in FRONTEND])
def test_frontend_error_is_located(fn, marker, snippet, word):
    err = raised(fn, X, 1)
    lineno, col = where(marker, snippet)
    assert isinstance(err, UnsupportedSyntaxError)
    assert (os.path.abspath(err.filename), err.lineno, err.col_offset) == (HERE, lineno, col)
    assert word in err.message
    assert f"    {LINES[lineno - 1].strip()}\n    {' ' * (col - 4)}^" in str(err)


@pytest.mark.parametrize("fn, marker, snippet, word", FRONTEND,
                         ids=[case[1] for case in FRONTEND])
def test_frontend_error_has_a_hint(fn, marker, snippet, word):
    check(raised(fn, X, 1), type(raised(fn, X, 1)), marker, snippet, word)


FRONTEND_HINTS = {
    "unpack": "3 names", "tuple-index": "0 to 1", "tuple-var-index": "np.stack",
    "too-many": "_objective(x, scale)", "too-few": "pass `scale`",
    "unknown-keyword": "_objective(x, scale)", "starred": "plain names",
    "stop-gradient-args": "symdiff.stop_gradient(value)",
}


@pytest.mark.parametrize("fn, marker", [case[:2] for case in FRONTEND],
                         ids=[case[1] for case in FRONTEND])
def test_frontend_hint_says_what_to_write(fn, marker):
    assert FRONTEND_HINTS[marker] in raised(fn, X, 1).hint


def indexes_tuple_by_float(x):
    pair = (x, x)
    return np.sum(pair[1.5])  # E:tuple-float-index


def calls_with_misspelt_keyword(x):
    return _objective(x, scal=1.0)  # E:misspelt-keyword


def calls_with_argument_twice(x):
    return _objective(x, 2.0, scale=1.0)  # E:twice


@pytest.mark.parametrize("fn, marker, snippet, word, hint", [
    (indexes_tuple_by_float, "tuple-float-index", "pair[1.5]", "1.5", "integer"),
    (calls_with_misspelt_keyword, "misspelt-keyword", "_objective(", "scal",
     "did you mean `scale`?"),
    (calls_with_argument_twice, "twice", "_objective(", "`scale` twice", "pass it once"),
], ids=["tuple-float-index", "misspelt-keyword", "twice"])
def test_more_frontend_errors(fn, marker, snippet, word, hint):
    err = raised(fn, X)
    check(err, UnsupportedSyntaxError, marker, snippet, word)
    assert hint in err.hint


# -- gradient overrides and the command line --------------------------------------------------
def test_override_of_an_unknown_op():
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(summed, overrides={"no_such_op": "identity"})  # E:override
    check(info.value, errors.RegistrationError, "override", "symdiff.grad(", "no_such_op")


def test_override_naming_an_unknown_rule_in_a_with_block():
    with pytest.raises(SymdiffError) as info:
        symdiff.gradient_override({"floor": "identty"})  # E:override-with
    check(info.value, errors.RegistrationError, "override-with", "symdiff.gradient_override(",
          "identty")
    assert "'identity'" in info.value.hint


def test_rule_registered_twice():
    symdiff.register_gradient("test_errors_twice")(lambda g, x: g)
    with pytest.raises(SymdiffError) as info:
        symdiff.register_gradient("test_errors_twice")(lambda g, x: 2 * g)  # E:twice-rule
    check(info.value, errors.RegistrationError, "twice-rule", "symdiff.register_gradient(",
          "test_errors_twice", "already registered")


def test_command_line_errors_have_their_own_class(tmp_path):
    from symdiff.cli.targets import load_file
    with pytest.raises(SymdiffError) as info:
        load_file(str(tmp_path / "missing.py"))
    assert type(info.value) is errors.CommandLineError


def _command_line_mistakes(tmp_path):
    """One request of each kind the command line refuses, as a thunk."""
    from symdiff.cli import command as cli, fd_check as check, targets, writer
    broken = tmp_path / "broken.py"
    broken.write_text("def f(x):\n    return x +\n", encoding="utf-8")
    failing = tmp_path / "failing.py"
    failing.write_text("import numpy as np\nraise RuntimeError('no')\n", encoding="utf-8")
    plain = tmp_path / "plain.py"
    plain.write_text("def f(x):\n    return x * x\n", encoding="utf-8")
    mine = tmp_path / "mine.py"
    mine.write_text("# my own notes\n", encoding="utf-8")
    return {
        "bad-spec": lambda: targets.parse_spec("m.py::not a name"),
        "syntax": lambda: targets.load_file(str(broken)),
        "import": lambda: targets.load_file(str(failing)),
        "no-func": lambda: targets.load_file(str(plain)).targets("g"),
        "no-decorated": lambda: targets.load_file(str(plain)).targets(),
        "wrt-without-func": lambda: cli._validate(
            cli._parser().parse_args([str(plain), "--wrt", "x"]), None),
        "bad-wrt": lambda: cli._parse_wrt("w b"),
        "bad-shapes": lambda: check.parse_shapes(["x=3,a"]),
        "output-dir": lambda: writer.write_module(str(tmp_path), "x = 1\n", False),
        "not-generated": lambda: writer.write_module(str(mine), "x = 1\n", False),
    }


@pytest.mark.parametrize("case", ["bad-spec", "syntax", "import", "no-func", "no-decorated",
                                  "wrt-without-func", "bad-wrt", "bad-shapes", "output-dir",
                                  "not-generated"])
def test_every_command_line_mistake_is_a_command_line_error(tmp_path, case):
    with pytest.raises(SymdiffError) as info:
        _command_line_mistakes(tmp_path)[case]()
    assert type(info.value) is errors.CommandLineError, str(info.value)
    assert info.value.hint


def _errors_without_hint(module):
    """`file:line` of each SymdiffError made in ``module`` with no hint argument."""
    import ast
    path = os.path.join(os.path.dirname(symdiff.__file__), module)
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = {cls.__name__ for cls in _error_classes()}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(k.arg == "hint" for k in node.keywords):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if (name == "error" and len(node.args) < 4) or (name in names and len(node.args) < 3):
            found.append(f"{module}:{node.lineno}")
    return found


_HINT_MODULES = sorted(name for name in os.listdir(os.path.dirname(symdiff.__file__))
                       if name.endswith(".py"))


@pytest.mark.parametrize("module", _HINT_MODULES)
def test_every_error_is_made_with_a_hint(module):
    assert not _errors_without_hint(module)


# -- the error objects themselves ---------------------------------------------------------------
def test_every_error_class_is_a_symdiff_error_exported_at_top_level():
    assert symdiff.SymdiffError is SymdiffError
    for cls in _error_classes():
        assert issubclass(cls, SymdiffError)


def test_errors_survive_pickling_with_their_location():
    err = raised(reads_unknown, X)
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is UnknownNameError
    assert str(copy) == str(err)
    assert (copy.filename, copy.lineno, copy.col_offset, copy.hint) == \
        (err.filename, err.lineno, err.col_offset, err.hint)


def test_caret_counts_characters_not_bytes():
    """``ast`` columns are UTF-8 byte offsets; the caret must still line up."""
    from symdiff.ir.nodes import Loc
    line = '    y = "π≈3" + nope'
    col = len(line[:line.index("nope")].encode("utf-8"))
    err = UnknownNameError("name `nope` is not defined", Loc("f.py", 3, col, line), "define it")
    shown = str(err).splitlines()
    assert shown[1].index("nope") == shown[2].index("^")


def test_error_without_location_formats_message_and_hint():
    err = SymdiffError("something is wrong", hint="fix it")
    assert str(err) == "something is wrong\nhint: fix it"
    assert err.location() == ""


def test_runtime_check_with_unknown_file_still_says_where():
    from symdiff.runtime.helpers import _require_scalar
    with pytest.raises(NonScalarOutputError) as info:
        _require_scalar(X, message="not_a_real_file_xyz.py:12:5")
    err = info.value
    assert (err.filename, err.lineno, err.col_offset) == ("not_a_real_file_xyz.py", 12, 4)
    assert str(err).startswith("not_a_real_file_xyz.py:12:5: grad needs a scalar output")


def _error_classes():
    return [obj for obj in vars(errors).values()
            if isinstance(obj, type) and issubclass(obj, Exception)]


def test_docs_catalogue_every_error_class():
    with open(DOCS, encoding="utf-8") as f:
        headings = {line[3:].strip().strip("`") for line in f if line.startswith("## ")}
    missing = {cls.__name__ for cls in _error_classes()} - headings
    assert not missing, f"docs/errors.md has no section for {sorted(missing)}"


# -- the built-in classes errors also are -------------------------------------------------
@pytest.mark.parametrize("cls, builtin", [
    (NonScalarOutputError, ValueError), (ArrayPredicateError, ValueError),
    (NonFloatArgumentError, TypeError), (WrtError, ValueError),
    (errors.RegistrationError, ValueError), (UnknownNameError, NameError),
    (NoDerivativeRuleError, NotImplementedError)])
def test_errors_are_also_the_builtin_python_raises_for_that_mistake(cls, builtin):
    assert issubclass(cls, SymdiffError) and issubclass(cls, builtin)


def test_ordinary_except_clauses_catch_bad_input():
    def vector(w):
        return w * 2

    with pytest.raises(ValueError, match="scalar output"):
        symdiff.grad(vector)(X)
    with pytest.raises(TypeError, match="dtype int"):
        symdiff.grad(lambda w: np.sum(w * w))(np.arange(3))
    err = raised(lambda w: np.sum(w) * undefined_name, X)  # noqa: F821
    assert isinstance(err, NameError)
    assert pickle.loads(pickle.dumps(err)).lineno == err.lineno
