"""The pipeline, end to end: source -> IR -> gradient IR -> Python source."""
from __future__ import annotations

import ast
import builtins
import inspect
import os
import sys
from dataclasses import dataclass, field

from .version import __version__
from .optimize.folds import FOLDS
from .runtime import helpers as runtime
from .ir.builder import NUMBERS, Builder
from .ir.dtypes import spelled_math
from .ir.reinfer import reinfer
from .ir.shapes import Facts
from .emit.emitter import Emitter, free_variables, module_roots
from .emit.signature import with_defaults
from .emit.unchecked import drop_checks
from .errors import UnsupportedBackendError, UnsupportedSyntaxError
from .emit.backends import BACKENDS, REVIEWED, in_place, unsupported
from .runtime.namespaces import helper_text
from .frontend.containers import ContainerUse, ShapeUse
from .frontend.function import lower_function
from .ir.trees import is_container, path_text, structure
from .ad.wrt import regroup, resolve_wrt
from .ad.forward import jvp_function
from .ir.nodes import Const, Op, walk
from .ad.reverse import differentiate
from .optimize import optimize
from .optimize.invariants import hoist_invariants
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
    modules: tuple = ()  # other libraries' modules it calls into ("scipy.special")
    containers: tuple = ()  # arguments it may have been given as containers
    library: str | None = None  # the array library it runs on (None: NumPy)
    numbers: str = "none"  # NumPy's functions of Python numbers with math: "safe", "unsafe"
    timer: StageTimer = field(default_factory=StageTimer, compare=False, repr=False)


STAGES = ("lowered", "gradient", "optimized")


def compile_gradient(fn, wrt, mode="grad", overrides=None, timer=None, observe=None,
                     trees=None, signature=None, checks=True, numbers=False, defer=False):
    """`Compiled` source of the derivative of ``fn``. ``observe(stage, fn)``,
    if given, sees the IR after each of `STAGES` (and may print it: the next
    stage changes it in place); ``timer`` times the stages (log.py).
    ``trees``: the parameters that are containers -> their structure
    (ir/trees.py); a bound method's object is its first parameter's.
    ``signature`` (parameter name -> `ArgSig`) specialises it for arguments
    like those: their number of axes, which have length one, their dtype.
    ``checks=False``: no runtime checks (emit/unchecked.py). ``numbers``:
    NumPy's functions of values known to be Python numbers are written with
    `math` (specialise.py runs the gradient without them where math raises);
    ``Compiled.numbers`` says whether any was. ``defer``: a function whose
    meaning depends on its arguments' shapes raises `ShapeUse` (it is compiled
    where it is called), else the error it would be without them."""
    timer = timer or StageTimer()
    offset = 0
    if hasattr(fn, "__symdiff_for__"):  # a gradient compiled where it is called
        fn = fn.__symdiff_for__(trees) if trees else fn.__symdiff_plain__
        if fn is None:
            raise ContainerUse("its arguments")
    if inspect.ismethod(fn) and not hasattr(fn, "__symdiff_source__"):
        fn, obj, offset = fn.__func__, fn.__self__, 1  # self: a container
        first = next(iter(inspect.signature(fn).parameters), None)
        if first is not None and is_container(obj):
            trees = {first: structure(obj), **(trees or {})}
    with timer("read"):
        src = read_source(fn)
    limit = sys.getrecursionlimit()
    try:
        # Lowering recurses once per nesting level of an expression; a chain of
        # hundreds of nested operations is fine Python, so allow for it.
        sys.setrecursionlimit(max(limit, 20_000))
        compiled = _compile(src, wrt, mode, overrides, timer, observe or _unobserved, trees,
                            offset, signature, checks, numbers)
        compiled.timer = timer  # the caller logs it, with the times of its own stages
        return compiled
    except ShapeUse as use:
        if defer:
            raise
        raise use.error from None
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


def _unobserved(stage, fn):
    pass


def _compile(src, wrt, mode, overrides, timer, observe, trees=None, offset=0,
             signature=None, checks=True, numbers=False):
    builder = Builder(facts=Facts(signature), folds=FOLDS)
    builder.overrides = dict(overrides or {})
    builder.numbers = NUMBERS if numbers else False
    with timer("lower"):
        ir_fn = lower_function(src, builder, trees)
        reinfer(ir_fn, builder.facts)  # a specialised gradient: patterns through loops
        ir_fn = hoist_invariants(ir_fn, builder.facts if builder.facts.signature else None)
    observe("lowered", ir_fn)
    builder.modules = module_roots(ir_fn.body)
    choice = resolve_wrt(ir_fn, wrt, src, builder, trees, offset)
    wrt_vars, wrt_names = choice.vars, choice.names
    with timer("differentiate"):
        if mode == "jvp":
            grad_fn = jvp_function(ir_fn, builder, wrt_vars)
        else:
            grad_fn = differentiate(ir_fn, builder, wrt_vars, mode,
                                    many=choice.flat_many)
            regroup(grad_fn, choice, mode)
    if ir_fn.trees is not None and mode != "grad":  # a container returned (a dict...)
        grad_fn.trees = (ir_fn.trees, ir_fn.trees if mode == "jvp" else
                         grad_fn.trees[1] if isinstance(grad_fn.trees, tuple) else None)
    observe("gradient", grad_fn)
    grad_fn.varargs = builder.varargs
    with timer("optimize"):
        grad_fn = optimize(grad_fn, builder)
    observe("optimized", grad_fn)
    with timer("emit"):
        if not checks:
            drop_checks(grad_fn)
        return _emit(src, mode, ir_fn, grad_fn, builder, wrt_names, checks)


def _emit(src, mode, ir_fn, grad_fn, builder, wrt_names, checks=True):
    name = f"{mode}_{src.name}" if src.name.isidentifier() else mode
    _rename_clashing_globals(grad_fn, {name} | set(runtime.HELPERS) | _BUILTINS |
                             module_roots(grad_fn.body))
    alias = _numpy_alias(grad_fn)
    gradients = grad_fn.result if mode == "grad" else grad_fn.result[1]
    emitter = Emitter(grad_fn, np_alias=alias, facts=builder.facts if builder.facts.signature
                      else None, unwrap=returned_arrays(grad_fn, gradients, builder.facts))
    emitter.plain = not checks
    library = _library(builder.facts.signature, src)
    emitter.backend = BACKENDS[library] if library else None
    emitter.device_of = next((name for name, sig in (builder.facts.signature or {}).items()
                              if sig.kind == "array" and sig.library == library), None)
    params = ", ".join(p.hint for p in ir_fn.params)
    known = [(p.hint, builder.facts.signature.get(p.hint)) for p in ir_fn.params]
    known = [item for name, sig in known for item in [(name, sig)] + [  # and its leaves
        (path_text(*key), leaf) for key, leaf in builder.facts.signature.items()
        if isinstance(key, tuple) and key[0] == name]]
    known = [f"{name}: {sig!r}" for name, sig in known if sig is not None and sig.kind != "other"]
    doc = f"{_WHAT[mode]} of {src.name}({params}) with respect to {_join(wrt_names)}"
    doc += f", for {', '.join(known)}." if known else "."  # (specialised for those)
    if library:
        doc += f" {BACKENDS[library].name} arrays: `{alias}` is {BACKENDS[library].module}."
    if mode == "vjp":
        doc += f"\n\n    Returns the value and {grad_fn.params[-1].hint}^T J.\n    "
    if mode == "jvp":
        dots = ", ".join(p.hint for p in grad_fn.params[len(ir_fn.params):])
        doc += f"\n\n    Returns the value and J ({dots}), in one forward pass.\n    "
    text = emitter.function(name, doc)
    if library:
        text = _for_backend(text, BACKENDS[library], alias, src, emitter.modules,
                            {h for h in emitter.helpers if h in runtime.HELPERS})
    origin = f"{os.path.basename(src.filename)}:{src.node.lineno} ({src.name})"
    free = {v.hint: v.value for v in _free(grad_fn)}
    free.update(_callee_globals(grad_fn, builder))
    free.update({alias: getattr(builtins, b) for b, alias in emitter.builtins.items()})
    if mode in ("grad", "value_and_grad"):
        taken = set(runtime.HELPERS) | {alias, "np"} | _BUILTINS
        text = with_defaults(text, name, src, free, taken)
    helpers = {h for h in emitter.helpers if h in runtime.HELPERS}
    deps = {(id(scope), name): (scope, name, value) for scope, name, value in builder.deps}
    return Compiled(name, text, helpers, free, origin, wrt_names, alias,
                    tuple(deps.values()), tuple(sorted(emitter.modules)),
                    tuple(sorted(builder.container_uses)), library=library,
                    numbers=_wrote_numbers(grad_fn, builder.facts))


def _wrote_numbers(fn, facts):
    """Whether generated code writes a NumPy function of the user's with `math`,
    and safely: a power of a Python float with an exponent not an integer is
    complex for a negative base, where NumPy's float64 gives NaN, and no
    exception would say so (then the gradient keeps NumPy's functions)."""
    ops = [s for s in walk(fn.body) if isinstance(s, Op)]
    if not any(op.math == NUMBERS and spelled_math(op, facts) for op in ops):
        return "none"
    if any(op.prim == "power" and facts.dtype(op.args[0]) is float and not (
            isinstance(op.args[1], Const) and isinstance(op.args[1].value, int))
           for op in ops):
        return "unsafe"
    return "safe"


def _library(signature, src):
    """The array library of a specialised gradient's arguments (None: NumPy)."""
    found = sorted({s.library for s in (signature or {}).values()
                    if s.kind == "array" and s.library != "numpy"})
    if len(found) > 1:
        raise UnsupportedBackendError(
            f"{src.name} is called with arrays of {' and '.join(found)}: one gradient "
            "runs on one array library", src.loc(src.node),
            "convert the arguments to one library's arrays")
    return found[0] if found else None


def _for_backend(text, backend, alias, src, modules, helpers):
    """The code for another array library, or an error naming what it lacks
    (a function of another module would make NumPy arrays of its arrays; a
    runtime helper is read for what it calls)."""
    missing = unsupported(text, backend, alias)
    if missing is None and modules:
        module = sorted(modules)[0]
        missing = next(n for n, line in enumerate(text.splitlines(), 1)
                       if module + "." in line), f"`{module}`"
    for name in sorted(_read_helpers(helpers)):
        if missing is not None:
            break
        found = unsupported(helper_text(name), backend, "np", rewritten=False)
        if found is not None:
            missing = next(n for n, line in enumerate(text.splitlines(), 1)
                           if name + "(" in line) if name in helpers else 1, \
                f"{found[1]} (in the runtime helper `{name}`)"
    if missing is not None:
        line = text.splitlines()[missing[0] - 1].strip()
        raise UnsupportedBackendError(
            f"the gradient of {src.name} needs {missing[1]}, which {backend.name} "
            f"arrays do not have (in the array API standard or {backend.module}): "
            f"`{line}`", src.loc(src.node),
            "call the gradient with NumPy arrays, or write this step with functions "
            "of the array API standard")
    return in_place(text, alias) if backend.immutable else text


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
        if isinstance(stmt, Op) and stmt.prim in ("effect_call", "pure_call"):
            root = stmt.param("callee").split(".")[0]
            if root in builder.free:
                out[root] = builder.free[root].value
    return out


_WHAT = {"grad": "Gradient", "value_and_grad": "Value and gradient",
         "vjp": "Vector-Jacobian product", "jvp": "Jacobian-vector product"}


def _free(fn):
    return free_variables(fn)


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


def _read_helpers(called):
    """The runtime helpers to read for what they call: those ``called`` and
    their callees, but not through a helper read for backends already."""
    found, todo = set(), list(called)
    while todo:
        name = todo.pop()
        if name not in found and name not in REVIEWED:
            found.add(name)
            todo.extend(runtime.uses(name))
    return found
