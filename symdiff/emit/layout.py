"""Breaking long generated lines the way PEP 8 shows: aligned with the
opening bracket, at commas first, at operators if there are none; and a
short two-way choice on one line."""
from __future__ import annotations

import ast

MAX_LINE = 79
_OPERATORS = (" + ", " - ", " * ", " / ", " @ ")


def wrap(line, limit=MAX_LINE):
    """``line`` as one or more lines of at most ``limit`` columns (if it can)."""
    if len(line) <= limit or line.lstrip().startswith("#"):
        return [line]
    tries = []  # at the outermost bracket with commas; else whichever fits best
    for opening in _brackets(line) + _brackets(line, depth=1):
        pieces = _split(line, opening + 1, ", ")
        if len(pieces) > 1:
            lines = _fill(line[:opening + 1], pieces, ", ", opening + 1, limit)
            if max(map(len, lines)) <= limit:
                return lines
            tries.append(lines)
            hanging = _hanging(line, opening, pieces, limit)
            if hanging:
                tries.append(hanging)
    if tries:
        return min(tries, key=lambda lines: max(map(len, lines)))
    eq = line.find(" = ")
    if eq > 0:
        head, expr = line[:eq + 3], line[eq + 3:]
        wrapped = head + "(" + expr + ")"
        pieces = _split(wrapped, len(head) + 1, _OPERATORS)
        if len(pieces) > 1:
            return _fill(wrapped[:len(head) + 1], pieces, "", len(head) + 1, limit)
    return [line]


def _brackets(line, depth=0):
    """Columns of the brackets opened at ``depth``, leftmost first."""
    wanted = depth
    depth, quote, found = 0, None, []
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            if depth == wanted:
                found.append(i)
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return found


def _split(line, start, separators):
    """The text after ``start`` cut at separators one bracket deep."""
    seps = (separators,) if isinstance(separators, str) else separators
    depth, quote, pieces, begin, i = 1, None, [], start, start
    while i < len(line):
        ch = line[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1:
            sep = next((s for s in seps if line.startswith(s, i)), None)
            if sep:
                cut = i + len(sep) if sep == ", " else i + 1
                pieces.append(line[begin:cut])
                begin = cut
                i = cut
                continue
        i += 1
    pieces.append(line[begin:])
    return pieces


def _hanging(line, opening, pieces, limit):
    """The line broken after the bracket at ``opening``, its items on the
    lines below, one indent deeper (PEP 8's hanging indent): for items too
    long to align with the bracket. None if that does not fit either."""
    column = len(line) - len(line.lstrip()) + 4
    lines = [line[:opening + 1]] + _fill(" " * column, pieces, ", ", column, limit)
    return lines if max(map(len, lines)) <= limit else None


def _fill(head, pieces, sep, column, limit):
    lines, current = [], head
    for piece in pieces:
        if current.strip() and len(current) + len(piece.rstrip()) > limit \
                and current != head:
            lines.append(current.rstrip())
            current = " " * column + piece.lstrip()
        else:
            current += piece
    lines.append(current)
    return lines


def fit_comment(line):
    """A comment line cut to fit, keeping its ``#``."""
    if len(line) <= MAX_LINE:
        return line
    head = line.index("#") + 2
    return line[:max(MAX_LINE - 3, head + 8)] + "..."


def strip_parens(text):
    return text[1:-1] if text.startswith("(") and text.endswith(")") and "," in text \
        and _balanced(text[1:-1]) else text


def _balanced(text):
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


def one_line_choice(sides, test, pad):
    """``x = a if test else b`` for the two sides of a derivative's ``if``
    that each assign ``x`` one expression (a kink's two cases), where it fits
    on a line; else None."""
    if any(len(body) != 1 or " = " not in body[0] for body in sides):
        return None
    (name, a), (other, b) = (body[0].strip().split(" = ", 1) for body in sides)
    if name != other or not name.isidentifier():
        return None
    try:
        values = [ast.parse(f"{name} = {v}").body[0].value for v in (a, b)]
    except SyntaxError:  # (an augmented or multi-target line: not one expression)
        return None
    if any(isinstance(v, (ast.IfExp, ast.Lambda, ast.NamedExpr)) for v in values):
        return None  # (a choice inside a choice reads wrongly without brackets)
    line = f"{pad}{name} = {a} if {test} else {b}"
    return line if len(line) <= MAX_LINE and "#" not in line else None
