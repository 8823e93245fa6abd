"""The ``def`` line of a gradient: the user's defaults and keyword-only markers,
so the gradient is called as the function is, written as literals, as the
user's module-level names for them, or as names made for them."""
from __future__ import annotations

import ast


def with_defaults(text, name, src, free, taken):
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
        parts.append(a.arg if i < first else a.arg + "=" + _default(
            a.arg, defaults[i - first], written.get(a.arg), src, free, taken))
    if args.vararg is not None:
        parts.append("*" + args.vararg.arg)
    if args.kwonlyargs and args.vararg is None:
        parts.append("*")
    if args.kwonlyargs:
        for a in args.kwonlyargs:
            parts.append(a.arg if a.arg not in kwdefaults else a.arg + "=" + _default(
                a.arg, kwdefaults[a.arg], written.get(a.arg), src, free, taken))
    _, _, rest = text.partition("\n")
    return _wrap_def(f"def {name}(", parts) + "\n" + rest


def _default(param, value, node, src, free, taken):
    """How the ``def`` line writes a default: as a literal, as the user's
    module-level name for it, or as a name made for it."""
    try:
        text = repr(value)
        back = ast.literal_eval(text)
        if type(back) is type(value) and back == value:
            return text
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
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
