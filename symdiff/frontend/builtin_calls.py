"""Python builtins a differentiated function may call, and what calling each means."""
import builtins

from ..ir.primitive import primitive
from .arguments import prim_call
from .effects import no_gradient
from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const
from .compile_time import Dict, Static, Tup, is_atom
from .containers import ShapeUse, container_use
from .lists import length, runtime_list, stacked
from .opaque_calls import opaque_call


BUILTIN_NAMES = {name: getattr(builtins, name) for name in
                 ("abs", "len", "float", "max", "min", "round", "range", "print",
                  "int", "bool", "tuple", "list", "zip", "enumerate", "sum",
                  "isinstance", "None", "True", "False", "str", "repr", "format",
                  "slice", "breakpoint", "reversed", "dict", "pow")
                 if hasattr(builtins, name)}


def _builtin_prim(name):
    def lower(lw, args, kwargs, node):
        return prim_call(lw, primitive(name), args, kwargs, node)
    return lower


def _builtin_len(lw, args, kwargs, node):
    """len(x): of a list, tuple or dict known when compiling, a constant."""
    if len(args) == 1 and not kwargs and isinstance(args[0], (Tup, Dict)):
        return Const(len(args[0].items))
    if len(args) == 1 and not kwargs and runtime_list(args[0]):
        return length(lw, args[0])
    return prim_call(lw, primitive("len"), args, kwargs, node)


def _builtin_minmax(name, prim_name):
    def lower(lw, args, kwargs, node):
        if len(args) == 1 and not kwargs and is_atom(args[0]):
            return _of_vector(lw, name, args[0], node)
        if len(args) < 2 or kwargs:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{name}()` is differentiated only as {name}(a, b, ...) of numbers",
                           f"use np.{name}(x) to reduce an array")
        result = lw.atom(args[0], node)
        for arg in args[1:]:
            result = lw.b.op(prim_name, result, lw.atom(arg, node))
        return result
    return lower


def _of_vector(lw, name, x, node):
    """max(x) / min(x) of a vector: Python compares each entry with the best
    so far, so a NaN first entry stays (nothing compares greater) and a later
    NaN is passed over: np.nanmax(x), or x[0] where it is NaN. Ties share the
    gradient, as np.max's. Of a matrix it compares rows, which NumPy refuses."""
    error = lw.error(UnsupportedSyntaxError, node,
                     f"`{name}(x)` is differentiated for a vector `x` only (of a matrix "
                     "it compares rows, which NumPy refuses; of a number it raises)",
                     f"use np.{name}(x) to reduce an array")
    if not lw.b.facts.signature:
        raise ShapeUse(name, error)  # (a vector's rank is known where it is called)
    if lw.b.facts.rank(x) != 1:
        raise error
    first = lw.b.op("getitem", x, Const(0))
    return lw.b.op("where", lw.b.op("isnan", first), first, lw.b.op("nan" + name, x))


def _builtin_sum(lw, args, kwargs, node):
    """sum(items, start=0): a chain of additions; sum(array) adds up its rows."""
    if not 1 <= len(args) <= 2 or set(kwargs) - {"start"}:
        raise lw.error(UnsupportedSyntaxError, node, "`sum()` takes items and a start value",
                       "write sum(items) or sum(items, start), or use np.sum")
    items, start = args[0], (args[1:] or [kwargs.get("start", Const(0))])[0]
    if runtime_list(items):  # a list a loop filled: its rows added up
        terms = [lw.b.op("sum", stacked(lw, items, node), axis=0)]
    elif isinstance(items, Tup):
        terms = [lw.atom(item, node) for item in items.items]
    elif is_atom(items):
        terms = [lw.b.op("sum", items, axis=0)]
    else:
        raise lw.error(UnsupportedSyntaxError, node, "`sum()` of this value is not supported",
                       "sum a list or tuple of values, or use np.sum")
    if not (isinstance(start, Const) and start.value == 0) or not terms:
        terms.insert(0, lw.atom(start, node))
    result = terms[0]
    for term in terms[1:]:
        result = lw.b.op("add", result, term)
    return result


def _builtin_text(name):
    """str(x), repr(x), format(x, spec): text for print or logging, no gradient."""
    def lower(lw, args, kwargs, node):
        if kwargs:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{name}()` takes no keyword arguments here",
                           f"pass the arguments by position: {name}(value)")
        atoms = [no_gradient(lw, lw.atom(a, node)) for a in args]
        return lw.b.op("pure_call", *atoms, callee=name, hint="text")
    return lower


def _builtin_slice(lw, args, kwargs, node):
    """slice(stop), slice(start, stop[, step]): a constant when its bounds are
    (as ``x[1:]`` makes), else the slice primitive (generated code writes
    ``slice(n - 2, None, None)`` for bounds computed at run time)."""
    if kwargs or not 1 <= len(args) <= 3:
        raise lw.error(UnsupportedSyntaxError, node, "`slice()` takes 1 to 3 bounds",
                       "write slice(start, stop, step), or x[start:stop]")
    bounds = [lw.atom(a, node) for a in ([Const(None)] + args if len(args) == 1 else args)]
    bounds += [Const(None)] * (3 - len(bounds))
    if all(isinstance(b, Const) for b in bounds):
        return Const(slice(*(b.value for b in bounds)))
    return lw.b.op("slice", *bounds, hint="s")


def _builtin_reversed(lw, args, kwargs, node):
    """reversed(x): of a tuple known when compiling, its items in reverse; of
    an array (or a list a loop filled), its rows in reverse, ``x[::-1]``."""
    if len(args) != 1 or kwargs:
        raise lw.error(UnsupportedSyntaxError, node, "`reversed()` takes one value",
                       "write reversed(xs)")
    if isinstance(args[0], Tup):
        return Tup(args[0].items[::-1])
    return lw.b.op("getitem", lw.atom(args[0], node), Const(slice(None, None, -1)))


def _builtin_sequence(kind):
    """list(x), tuple(x): of a tuple known when compiling, the same items; of
    a list a loop filled, that list."""
    def lower(lw, args, kwargs, node):
        if len(args) == 1 and not kwargs and isinstance(args[0], Tup):
            return Tup(args[0].items, is_list=kind is list)
        if len(args) == 1 and not kwargs and runtime_list(args[0]) and kind is list:
            return args[0]
        return _not_a_sequence(lw, node)
    return lower


def _builtin_dict(lw, args, kwargs, node):
    """dict(d): a new dict of the same items (a shallow copy: ``q = dict(p);
    q["w"] = v`` leaves ``p["w"]``)."""
    if len(args) == 1 and not kwargs and is_atom(args[0]):
        container_use(lw, args[0], definite=True)  # an argument: known where called
    if len(args) == 1 and not kwargs and isinstance(args[0], Dict):
        return Dict(args[0].keys, args[0].items)
    pairs = args[0].items if len(args) == 1 and not kwargs and isinstance(args[0], Tup) else ()
    if pairs and all(isinstance(p, Tup) and len(p.items) == 2 and isinstance(p.items[0], Const)
                     and isinstance(p.items[0].value, (str, int))
                     for p in pairs):  # dict(zip(names, values)): keys known when compiling
        found = {}
        for key, value in (p.items for p in pairs):
            found[key.value] = value
        return Dict(tuple(found), tuple(found.values()))
    raise lw.error(UnsupportedSyntaxError, node, "`dict()` is supported as a copy of a "
                   "dict, `dict(d)`, or of pairs known when compiling, `dict(zip(names, "
                   "values))`", "write a dict literal: `{\"w\": w, \"b\": b}`")


def _builtin_pow(lw, args, kwargs, node):
    """pow(a, b) is a ** b; pow(a, b, mod) is of integers, refused."""
    if len(args) != 2 or kwargs:
        raise lw.error(UnsupportedSyntaxError, node, "`pow()` is differentiated as pow(a, "
                       "b), a ** b (with a modulus it is of integers)", "write a ** b")
    return lw.binop("power", args[0], args[1], node)


def _builtin_range(lw, args, kwargs, node):
    """range(...) of numbers written in the code, as a value: its numbers
    (``list(range(3))``); with bounds known only at run time, what a loop runs
    over (loops.py), not a value."""
    if not kwargs and 1 <= len(args) <= 3 and all(
            isinstance(a, Const) and type(a.value) is int for a in args):
        return Tup(tuple(Const(k) for k in range(*(a.value for a in args))))
    raise lw.error(UnsupportedSyntaxError, node,
                   "range() with bounds known only when the function runs is read as "
                   "what a loop runs over (`for t in range(n):`, `for t in "
                   "reversed(range(n)):`), not as a value",
                   "loop over the range itself, or use np.arange(n) for an array")


def _builtin_zip(lw, args, kwargs, node):
    """zip(xs, ys) of lists, tuples and dicts known when compiling: their
    items' tuples, as Python pairs them (as long as the shortest). Of arrays,
    zip is what a loop runs over (loops.py), not a value."""
    for a in args:  # (an argument zipped so is a list: compiled for its items)
        container_use(lw, a, definite=True)
    seqs = [Tup(tuple(Const(k) for k in a.keys)) if isinstance(a, Dict) else a for a in args]
    if args and not kwargs and all(isinstance(a, Tup) for a in seqs):
        return Tup(tuple(Tup(items) for items in zip(*(a.items for a in seqs))))
    raise lw.error(UnsupportedSyntaxError, node,
                   "zip() of arrays is read as what a loop runs over "
                   "(`for a, b in zip(x, y):`), not as a value",
                   "loop over zip(...) itself, or zip lists known when compiling")


def _builtin_enumerate(lw, args, kwargs, node):
    """enumerate(xs) of a list or tuple known when compiling: its items
    numbered (from ``start``); of arrays, what a loop runs over."""
    start = kwargs.get("start", args[1] if len(args) == 2 else Const(0))
    if args:
        container_use(lw, args[0], definite=True)
    if len(args) in (1, 2) and set(kwargs) <= {"start"} and isinstance(args[0], Tup) \
            and isinstance(start, Const) and isinstance(start.value, int):
        return Tup(tuple(Tup((Const(start.value + k), item))
                         for k, item in enumerate(args[0].items)))
    raise lw.error(UnsupportedSyntaxError, node,
                   "enumerate() of arrays is read as what a loop runs over "
                   "(`for i, x in enumerate(xs):`), not as a value",
                   "loop over enumerate(...) itself, or number a list known when compiling")


def _not_a_sequence(lw, node):
    raise lw.error(UnsupportedSyntaxError, node,
                   "`list()`/`tuple()` of this value is not supported",
                   "make a list of values known when compiling, or use np.stack")


def _builtin_breakpoint(lw, args, kwargs, node):
    raise lw.error(UnsupportedSyntaxError, node,
                   "`breakpoint()` cannot stop a gradient: symdiff runs code it "
                   "generates from this function, not the function itself",
                   "step through the generated gradient instead: `import pdb; "
                   "pdb.runcall(df, *args)`, or call breakpoint() before calling it")


def _builtin_hasattr(lw, args, kwargs, node):
    """``hasattr(np, "trapezoid")`` of a module or object known when compiling:
    a constant, so that an `if` on it lowers only the side it picks (the other
    may name what this NumPy lacks: ``np.trapz``); otherwise called as it is."""
    if len(args) == 2 and not kwargs and isinstance(args[0], Static) and \
            isinstance(args[1], Const) and isinstance(args[1].value, str):
        return Const(hasattr(args[0].obj, args[1].value))
    return opaque_call(lw, builtins.hasattr, args, kwargs, node)


BUILTIN_CALLS = {
    builtins.abs: _builtin_prim("abs"), builtins.len: _builtin_len,
    builtins.float: _builtin_prim("float"), builtins.round: _builtin_prim("round"),
    builtins.int: _builtin_prim("int"),
    builtins.max: _builtin_minmax("max", "maximum"),
    builtins.min: _builtin_minmax("min", "minimum"),
    builtins.sum: _builtin_sum, builtins.str: _builtin_text("str"),
    builtins.repr: _builtin_text("repr"), builtins.format: _builtin_text("format"),
    builtins.slice: _builtin_slice, builtins.breakpoint: _builtin_breakpoint,
    builtins.reversed: _builtin_reversed, builtins.list: _builtin_sequence(list),
    builtins.tuple: _builtin_sequence(tuple), builtins.dict: _builtin_dict,
    builtins.pow: _builtin_pow, builtins.hasattr: _builtin_hasattr,
    builtins.zip: _builtin_zip, builtins.enumerate: _builtin_enumerate,
    builtins.range: _builtin_range,
}
