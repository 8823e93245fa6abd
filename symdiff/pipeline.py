"""The pipeline, end to end: source -> IR -> gradient IR -> Python source."""
from __future__ import annotations

import ast
import builtins
import os
import sys
import unicodedata
from dataclasses import dataclass, field

from . import __version__
from .rules import primitives as prims
from .runtime import helpers as runtime
from .ir.builder import Builder
from .emit.emitter import Emitter
from .errors import UnsupportedSyntaxError, WrtError
from .frontend.lower import lower_function
from .ad.forward import jvp_function
from .optimize.in_place import sums_in_place
from .ir.nodes import Op, walk
from .ad.reverse import differentiate
from .optimize.selects import branch_free_selects
from .optimize.simplify import simplify
from .frontend.source import read_source
from .emit.scalar_results import returned_arrays
from .log import StageTimer


@dataclass
class Compiled:
    name: str          # of the generated function, e.g. grad_loss
    source: str        # the function's source, without imports
    helpers: set       # runtime helpers it calls
    free: dict         # globals it reads: name -> value
    origin: str        # "file.py:12 (loss)"
    wrt_names: tuple
    np_alias: str = "np"
    deps: tuple = ()   # (namespace, name, value) the compiled code relied on
    timer: StageTimer = field(default_factory=StageTimer, compare=False, repr=False)


def compile_gradient(fn, wrt, mode="grad", overrides=None, timer=None):
    timer = timer or StageTimer()
    with timer("read"):
        src = read_source(fn)
    limit = sys.getrecursionlimit()
    try:
        # Lowering recurses once per nesting level of an expression; a chain of
        # hundreds of nested operations is fine Python, so allow for it.
        sys.setrecursionlimit(max(limit, 20_000))
        with prims.call_scope():
            compiled = _compile(src, wrt, mode, overrides, timer)
        compiled.timer = timer  # the caller logs it, with the times of its own stages
        return compiled
    except RecursionError:
        node = _deepest(src.node)
        raise UnsupportedSyntaxError(
            "this is nested too deeply for symdiff (Python's recursion limit was "
            "reached while compiling it)", src.loc(node),
            "split the expression into several assignments, or flatten the nested "
            "branches or calls") from None
    finally:
        sys.setrecursionlimit(limit)


def _deepest(root):
    """The statement of ``root`` holding its most deeply nested node."""
    best, best_depth = root, -1
    stack = [(root, 0, root)]
    while stack:
        node, depth, stmt = stack.pop()
        if isinstance(node, ast.stmt):
            stmt = node
        if depth > best_depth:
            best, best_depth = stmt, depth
        stack.extend((child, depth + 1, stmt) for child in ast.iter_child_nodes(node))
    return best


def _compile(src, wrt, mode, overrides, timer):
    builder = Builder()
    builder.overrides = dict(overrides or {})
    with timer("lower"):
        ir_fn = lower_function(src, builder)
    wrt_vars, wrt_names = _resolve_wrt(ir_fn, wrt, src)
    with timer("differentiate"):
        if mode == "jvp":
            grad_fn = jvp_function(ir_fn, builder, wrt_vars)
        else:
            grad_fn = differentiate(ir_fn, builder, wrt_vars, mode,
                                    many=isinstance(wrt_names, tuple))
    with timer("optimize"):
        branch_free_selects(grad_fn, builder)
        grad_fn = simplify(grad_fn)
        sums_in_place(grad_fn)
    with timer("emit"):
        return _emit(src, mode, ir_fn, grad_fn, builder, wrt_names)


def _emit(src, mode, ir_fn, grad_fn, builder, wrt_names):
    name = f"{mode}_{src.name}" if src.name.isidentifier() else mode
    _rename_clashing_globals(grad_fn, {name} | set(runtime.HELPERS) | _BUILTINS)
    alias = _numpy_alias(grad_fn)
    gradients = grad_fn.result if mode == "grad" else grad_fn.result[1]
    emitter = Emitter(grad_fn, np_alias=alias, unwrap=returned_arrays(grad_fn, gradients))
    params = ", ".join(p.hint for p in ir_fn.params)
    doc = f"{_WHAT[mode]} of {src.name}({params}) with respect to {_join(wrt_names)}."
    if mode == "vjp":
        doc += f"\n\n    Returns the value and {grad_fn.params[-1].hint}^T J.\n    "
    if mode == "jvp":
        dots = ", ".join(p.hint for p in grad_fn.params[len(ir_fn.params):])
        doc += f"\n\n    Returns the value and J ({dots}), in one forward pass.\n    "
    text = emitter.function(name, doc)
    origin = f"{os.path.basename(src.filename)}:{src.node.lineno} ({src.name})"
    free = {v.hint: v.value for v in _free(grad_fn)}
    free.update(_callee_globals(grad_fn, builder))
    free.update({alias: getattr(builtins, b) for b, alias in emitter.builtins.items()})
    if mode in ("grad", "value_and_grad"):
        text = _with_defaults(text, name, src, alias, free)
    helpers = {h for h in emitter.helpers if h in runtime.HELPERS}
    deps = {(id(scope), name): (scope, name, value) for scope, name, value in builder.deps}
    return Compiled(name, text, helpers, free, origin, wrt_names, alias,
                    tuple(deps.values()))


# Builtins generated code or a written module's helpers may call; a global of
# that name would hide them there.
_BUILTINS = {name for name in dir(builtins) if not name.startswith("_")}


def _rename_clashing_globals(fn, taken):
    """A global the function reads that has the name of a runtime helper, of a
    builtin or of the generated function itself gets another name in generated
    code (the generated module defines those names, hiding the user's)."""
    hints = {v.hint for v in _free(fn)}
    for var in sorted(_free(fn), key=lambda v: v.hint):
        if var.hint in taken:
            base, n = var.hint, 1
            while f"{base}_{n}" in taken | hints:
                n += 1
            var.hint = f"{base}_{n}"
            hints.add(var.hint)


def _callee_globals(fn, builder):
    """The module-level names generated code calls through: ``log`` of
    ``log.info(...)``, ``logging`` of ``logging.warning(...)``."""
    out = {}
    for stmt in walk(fn.body):
        if isinstance(stmt, Op) and prims.is_call(stmt.prim):
            root = prims.PRIMS[stmt.prim].spelling[1].split(".")[0]
            if root in builder.free:
                out[root] = builder.free[root].value
    return out


# -- the user's defaults, kept in the gradient's signature ---------------------------------
def _with_defaults(text, name, src, np_alias, free):
    """``text`` with its ``def`` line carrying the defaults and keyword-only
    markers of the user's function, so the gradient is called like it."""
    args = src.node.args
    if not (args.defaults or args.kwonlyargs):
        return text
    positional = args.posonlyargs + args.args
    defaults = list(getattr(src.fn, "__defaults__", None) or ())
    kwdefaults = dict(getattr(src.fn, "__kwdefaults__", None) or {})
    written = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):],
                       args.defaults))
    written.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults)})
    first = len(positional) - len(defaults)
    parts = []
    for i, a in enumerate(positional):
        parts.append(a.arg if i < first else
                     f"{a.arg}={_default(a.arg, defaults[i - first], written.get(a.arg), src, np_alias, free)}")
    if args.kwonlyargs:
        parts.append("*")
        for a in args.kwonlyargs:
            parts.append(a.arg if a.arg not in kwdefaults else
                         f"{a.arg}={_default(a.arg, kwdefaults[a.arg], written.get(a.arg), src, np_alias, free)}")
    _, _, rest = text.partition("\n")
    return _wrap_def(f"def {name}(", parts) + "\n" + rest


def _default(param, value, node, src, np_alias, free):
    """How the ``def`` line writes a default: as a literal, as the user's
    module-level name for it, or as a name made for it."""
    try:
        text = repr(value)
        back = ast.literal_eval(text)
        if type(back) is type(value) and back == value:
            return text
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    taken = set(runtime.HELPERS) | {np_alias, "np"} | _BUILTINS
    if isinstance(node, ast.Name) and src.globals.get(node.id, _MISSING) is value \
            and node.id not in taken and free.get(node.id, value) is value:
        free[node.id] = value
        return node.id
    made = f"_default_{param}"
    free[made] = value
    return made


def _wrap_def(start, parts):
    """``def name(a, b=1, ...):`` on lines of at most 79 characters."""
    line = start + ", ".join(parts) + "):"
    if len(line) <= 79:
        return line
    pad = " " * len(start)
    lines, current = [], start
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 else "):")
        fresh = current in (start, pad)
        if not fresh and len(current) + 1 + len(piece) > 79:
            lines.append(current)
            current, fresh = pad, True
        current += piece if fresh else " " + piece
    lines.append(current)
    return "\n".join(lines)


_MISSING = object()

_WHAT = {"grad": "Gradient", "value_and_grad": "Value and gradient",
         "vjp": "Vector-Jacobian product", "jvp": "Jacobian-vector product"}


def _resolve_wrt(ir_fn, wrt, src):
    many = isinstance(wrt, (tuple, list))
    items = list(wrt) if many else [wrt]
    names = [p.hint for p in ir_fn.params]
    chosen = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool):
            if not -len(names) <= item < len(names):
                raise WrtError(f"wrt={item} but {src.name} has {len(names)} arguments",
                               src.loc(src.node), f"choose one of {names}")
            chosen.append(ir_fn.params[item])
        elif isinstance(item, str) and unicodedata.normalize("NFKC", item) in names:
            # Python reads identifiers in NFKC form: `def f(ℌ)` has a parameter "H"
            chosen.append(ir_fn.params[names.index(unicodedata.normalize("NFKC", item))])
        else:
            raise WrtError(f"wrt={item!r} is not an argument of {src.name}",
                           src.loc(src.node), f"choose one of {names}")
    if not chosen:
        raise WrtError("wrt=() names no argument to differentiate", src.loc(src.node),
                       f"choose one or more of {names}")
    if len(set(chosen)) != len(chosen):
        raise WrtError(f"wrt names an argument twice: {items}", src.loc(src.node),
                       "name each argument once")
    wrt_names = tuple(p.hint for p in chosen)
    return chosen, (wrt_names if many else wrt_names[0])


def _free(fn):
    from .emit.emitter import _free_vars
    return _free_vars(fn)


def _numpy_alias(fn):
    taken = {p.hint for p in fn.params} | {v.hint for v in _free(fn)}
    for alias in ("np", "numpy", "np_"):
        if alias not in taken:
            return alias
    return "_np"


def _join(names):
    return names if isinstance(names, str) else ", ".join(names)


def module_header(compiled):
    return (f"# Generated by symdiff {__version__} from {compiled.origin}, "
            f"d/d({_join(compiled.wrt_names)}). Do not edit.\n")
