"""Finding a lambda's expression in its source line(s).

``inspect`` gives the lines a lambda is on, not the lambda: the line may hold
several, inside any other code. Each is found with the tokenizer and parsed
alone; its parameters, and on Python 3.11+ its columns, tell which it is.
"""
from __future__ import annotations

import ast
import inspect
import io
import tokenize

from ..errors import SourceUnavailableError
from ..locations import line_loc


def _by_position(found, code, start, all_lines):
    """Of several same-looking lambdas, the one whose code starts where ``code``
    does (Python records the column of each instruction)."""
    positions = getattr(code, "co_positions", None)  # Python 3.11 and later
    if positions is None:
        return None
    spots = [(line, col) for line, _, col, end in positions()
             if line is not None and col is not None and end is not None and end > col]
    if not spots:
        return None
    first = min(spots)
    before = [f for f in found
              if (start + f[0], _byte_col(all_lines, start + f[0], f[1])) <= first]
    return [max(before, key=lambda f: (f[0], f[1]))] if before else None


def find_lambda(text, code, start, all_lines):
    """The lambda expression for ``code`` inside ``text`` (the lines from ``start``).

    Each `lambda` keyword (found with the tokenizer, so never one in a string or
    comment) is parsed as far as it goes; the one whose parameters match
    ``code`` is it. Its nodes are moved to their place in the file.
    """
    params = _parameter_names(code)
    found = []
    for row, col in _lambda_keywords(text):
        node = _longest_lambda(text, row, col)
        if node is not None and _lambda_parameters(node) == params:
            found.append((row, col, node))
    if len(found) > 1:
        found = _by_position(found, code, start, all_lines) or found
    if len(found) != 1:
        first_row, first_col = (found[0][:2] if found else (0, 0))
        line = start + first_row
        described = f"{len(found)} lambdas" if found else "no lambda"
        raise SourceUnavailableError(
            f"symdiff cannot tell which lambda is the one to differentiate: "
            f"{described} on line {line} take the parameters "
            f"({', '.join(params)})",
            line_loc(code.co_filename, line, all_lines, _byte_col(all_lines, line, first_col)),
            "give each lambda a line of its own, or write it as a `def`")
    row, col, node = found[0]
    first_line = start + row
    byte_col = _byte_col(all_lines, first_line, col)
    for sub in ast.walk(node):
        if hasattr(sub, "lineno"):
            if sub.lineno == 1:
                sub.col_offset += byte_col - 1  # minus the "(" added for parsing
            if getattr(sub, "end_lineno", None) == 1:
                sub.end_col_offset += byte_col - 1
            sub.lineno += first_line - 1
            if getattr(sub, "end_lineno", None) is not None:
                sub.end_lineno += first_line - 1
    return node


def _parameter_names(code):
    count = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:count])
    if code.co_flags & inspect.CO_VARARGS:
        names.append("*" + code.co_varnames[count])
        count += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        names.append("**" + code.co_varnames[count])
    return names


def _lambda_parameters(node):
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg is not None:
        names.append("*" + args.vararg.arg)
    if args.kwarg is not None:
        names.append("**" + args.kwarg.arg)
    return names


def _lambda_keywords(text):
    """(row, column) of each `lambda` keyword in ``text``; rows from 0, columns in chars."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and tok.string == "lambda":
                out.append((tok.start[0] - 1, tok.start[1]))
    except (tokenize.TokenError, SyntaxError):
        pass  # the source ends inside a bracket: the keywords seen so far are enough
    return out


def _longest_lambda(text, row, col):
    """The longest lambda expression starting at (row, col) of ``text``."""
    lines = text.splitlines(True)
    rest = lines[row][col:] + "".join(lines[row + 1:])
    for end in range(len(rest), 0, -1):
        if rest[end - 1].isspace():
            continue
        try:
            tree = ast.parse("(" + rest[:end] + "\n)", mode="eval")
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Lambda):
            return tree.body
    return None


def _byte_col(all_lines, lineno, char_col):
    """``ast`` counts columns in UTF-8 bytes."""
    line = all_lines[lineno - 1] if 0 < lineno <= len(all_lines) else ""
    return len(line[:char_col].encode("utf-8"))
