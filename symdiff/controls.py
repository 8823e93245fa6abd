"""Changing how gradients flow: the registry of named gradient rules, overrides,
and the functions users call (`register_gradient`, `gradient_override`,
`custom_gradient`, `straight_through`, `backward_as`).

At run time each is plain: the compiler recognises them and gives them their
meaning (see markers.py for the lowering).
"""
from __future__ import annotations

import contextvars
import difflib
import functools
import importlib
import sys
from typing import Any, Callable, Mapping, ParamSpec, TypeVar

from . import rules  # noqa: F401 (the table of primitives)
from .errors import RegistrationError
from .ir.primitive import (function_modules, function_primitive, named_primitive,
                           primitive_names)
from .locations import caller_loc


def _identity(g, *inputs):
    return (g,) + (None,) * (len(inputs) - 1)


_rules: dict[str, Callable[..., Any]] = {"identity": _identity}
_active: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar(
    "symdiff_overrides", default={})

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")
Rule = TypeVar("Rule", bound=Callable[..., Any])


def register_gradient(name: str, *, replace: bool = False) -> Callable[[Rule], Rule]:
    """Decorator: register ``rule(g, *inputs) -> gradient(s)`` under ``name``.

    The rule returns one gradient per input (a tuple for several; None for
    no gradient). Registering a name twice is an error unless ``replace=True``.
    """
    if not isinstance(name, str) or not name:
        raise RegistrationError(f"a gradient rule needs a name, got {name!r}", caller_loc(),
                                'write @symdiff.register_gradient("MyGrad")')

    def register(rule: Rule) -> Rule:
        if name in _rules and not replace and _rules[name] is not rule:
            raise RegistrationError(
                f"a gradient rule named {name!r} is already registered", caller_loc(),
                f"pick another name, or pass replace=True to "
                f"register_gradient({name!r}, replace=True)")
        _rules[name] = rule
        return rule
    return register


def registered_rule(name):
    return _rules[name]


def is_registered(fn):
    """Whether ``fn`` is a registered gradient rule (written modules copy them)."""
    return any(fn is rule for rule in _rules.values())


class gradient_override:  # noqa: N801 - used like a function, as in TensorFlow
    """Map ops to registered gradients, e.g. ``{"floor": "identity"}``.

    Use it around ``symdiff.grad(f)``, or inside ``f`` around the statements
    whose ops it should affect; the forward computation is unchanged.
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = validate(mapping, caller_loc())
        self._token: contextvars.Token[dict[str, str]] | None = None

    def __enter__(self) -> gradient_override:
        self._token = _active.set({**_active.get(), **self.mapping})
        return self

    def __exit__(self, *exc: object) -> bool:
        if self._token is not None:
            _active.reset(self._token)
        return False


def active_overrides():
    return dict(_active.get())


def validate(mapping, loc=None):
    """``mapping`` with op names normalised; unknown names raise, naming the
    closest valid ones."""
    if mapping == {}:
        return {}
    if not isinstance(mapping, dict):
        raise RegistrationError("overrides must be a dict like {'floor': 'identity'}", loc,
                                "pass a dict mapping op names to registered gradient names")
    out = {}
    for op, rule in mapping.items():
        key = _override_key(op, loc)
        if rule not in _rules:
            raise RegistrationError(f"no gradient rule registered as {rule!r}", loc,
                                    _closest(str(rule), sorted(_rules), "registered rule"))
        out[key] = rule
    return out


def _override_key(op, loc):
    """What an override names: a primitive (``"floor"``, ``np.floor``), or a
    function symdiff has no rule for, given itself or by its full dotted name
    (``scipy.special.zeta``, ``"scipy.integrate.odeint"``)."""
    if isinstance(op, str) and "." in op:
        op = _resolved(op, loc)
    if callable(op) and not isinstance(op, str):
        record = _callable_primitive(op)
        return record.name if record is not None else call_key(op)
    record = named_primitive(str(op).lower())
    if record is None or record.spelling[0] in _NOT_OPS:
        ops = [n for n in primitive_names() if named_primitive(n).spelling[0] not in _NOT_OPS]
        hint = _closest(str(op).lower(), ops, "op")
        raise RegistrationError(
            f"unknown op {op!r} in gradient overrides", loc,
            hint + (" A" if hint.endswith("?") else "; a") + " function symdiff has no "
            "rule for goes by itself or its dotted name: {scipy.special.zeta: ...}")
    return record.name


# print(...) and opaque calls are not ops an override names by a primitive's name
_NOT_OPS = ("call_callee", "call_operand")


def call_key(fn):
    """The override key of a function symdiff has no rule for (its calls are
    opaque: rules/opaque.py)."""
    return "call:" + str(getattr(fn, "__name__", type(fn).__name__))


def _callable_primitive(fn):
    """The primitive the function ``fn`` is (np.floor, scipy.special.gammaln), or None."""
    name = getattr(fn, "__name__", None)
    for module_name in function_modules():
        module = sys.modules.get(module_name)
        if isinstance(name, str) and module is not None and getattr(module, name, None) is fn:
            return function_primitive(module_name, name)
    return None


def _resolved(dotted, loc):
    """The function a full dotted name (``"scipy.integrate.odeint"``) names."""
    module_name, _, attr = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError):
        raise RegistrationError(f"unknown function {dotted!r} in gradient overrides", loc,
                                "name a function by its full dotted name, as "
                                "'scipy.integrate.odeint', or pass the function "
                                "itself") from None


def _closest(word, choices, kind):
    near = difflib.get_close_matches(word, choices, n=3, cutoff=0.5)
    if near:
        return f"did you mean {' or '.join(repr(n) for n in near)}?"
    return f"no {kind} is named like that; register it with @symdiff.register_gradient"


def custom_gradient(f: Callable[P, tuple[R, Callable[..., Any]]]) -> Callable[P, R]:
    """Decorator: ``f`` returns ``(value, backward)``; ``backward(g)`` returns the
    gradient(s) with respect to ``f``'s inputs. Called normally, the wrapper
    returns just the value; inside a differentiated function symdiff uses
    ``backward`` as the derivative of every call."""
    @functools.wraps(f)
    def value_only(*args: P.args, **kwargs: P.kwargs) -> R:
        value, _ = f(*args, **kwargs)
        return value
    setattr(value_only, "__symdiff_custom__", f)
    del value_only.__wrapped__  # symdiff reads f through __symdiff_custom__
    return value_only


def stop_gradient(x: T) -> T:
    """The value ``x``; no gradient flows through it."""
    return x


def cond(pred: Any, true_fn: Callable[..., R], false_fn: Callable[..., R],
         *operands: Any) -> R:
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``."""
    return true_fn(*operands) if pred else false_fn(*operands)


def straight_through(fwd: T, bwd: Any) -> T:
    """The value ``fwd``; its derivative is that of ``bwd`` (e.g. the straight-
    through estimator ``straight_through(np.floor(x * 4) / 4, x)``)."""
    return fwd


def backward_as(value: T, clean: Any) -> T:
    """The value ``value``; the whole backward pass, from here on downstream, is
    computed as if ``clean`` stood here."""
    return value
