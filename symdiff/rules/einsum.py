"""np.einsum: its subscripts, read at compile time, and its adjoints, einsums too.

A call's subscripts are parsed once, when the function is lowered, into the
explicit form (``"ij,jk->ik"``; implicit outputs spelled out as NumPy
chooses them, ``...`` kept), which is what the record holds and generated
code writes. einsum is linear in each operand: the gradient of operand k is
the einsum of the output's gradient with the other operands, written to
operand k's subscripts, with the user's ``optimize`` (see `_optimize` for the
default). Three things make that more than a swap of
subscripts, each handled with another einsum operand or a broadcast:

- a label repeated in operand k (``ii->i``, a diagonal) cannot be an output
  label twice: the second occurrence gets a label of its own, tied to the
  first by an identity matrix (the gradient lands on the diagonal);
- a label of operand k that nothing else has (``ij->i``: summed inside the
  operand) is absent from the einsum's output and broadcast afterwards;
- ``...`` in operand k but nowhere else is read off ``np.ones_like``;

and, as NumPy broadcasts length-1 axes of operands, the result is summed
back to the operand's shape where it may differ.
"""
from __future__ import annotations

import string

from ..ir import patterns
from ..ir.nodes import Const
from ..ir.primitive import NEW, define

ELLIPSIS = "..."
_LETTERS = string.ascii_letters


class SubscriptError(ValueError):
    """Subscripts NumPy would reject: the message says why."""


def parse(subscripts, count):
    """``(inputs, output)``: per operand a tuple of labels (``...`` one
    label), and the output's, for ``count`` operands."""
    text = subscripts.replace(" ", "")
    if "->" in text:
        left, output = text.split("->", 1)
        explicit = True
    else:
        left, output, explicit = text, "", False
    terms = left.split(",")
    if len(terms) != count:
        raise SubscriptError(f"the subscripts name {len(terms)} operands and "
                             f"{count} are given")
    inputs = tuple(_labels(term) for term in terms)
    if explicit:
        out = _labels(output)
        if len(set(out)) != len(out):
            raise SubscriptError(f"the output subscripts {output!r} repeat a label")
        missing = [label for label in out if not any(label in term for term in inputs)]
        if missing:
            raise SubscriptError(f"the output label {missing[0]!r} is in no operand")
        return inputs, out
    every = [label for term in inputs for label in term if label != ELLIPSIS]
    once = sorted(label for label in set(every) if every.count(label) == 1)
    ellipsis = (ELLIPSIS,) if any(ELLIPSIS in term for term in inputs) else ()
    return inputs, ellipsis + tuple(once)


def _labels(term):
    labels, rest = [], term
    while rest:
        if rest.startswith(ELLIPSIS):
            labels.append(ELLIPSIS)
            rest = rest[3:]
        elif rest[0] in _LETTERS:
            labels.append(rest[0])
            rest = rest[1:]
        else:
            raise SubscriptError(f"{rest[0]!r} is not a subscript label (letters and ...)")
    if labels.count(ELLIPSIS) > 1:
        raise SubscriptError(f"{term!r} has more than one ...")
    return tuple(labels)


def spelled(inputs, output):
    return ",".join("".join(term) for term in inputs) + "->" + "".join(output)


def from_sublists(sublists, output=None):
    """The subscripts of the interleaved form ``einsum(a, [0, 1], b, [1], [0])``:
    the operands' sublists and the output's (None: implicit). Each int is a
    label, 0..25 'A'..'Z' and 26..51 'a'..'z', as NumPy reads them."""
    def term(sublist):
        out = []
        for item in sublist:
            if item is Ellipsis:
                out.append(ELLIPSIS)
            elif isinstance(item, int) and 0 <= item < 52:
                out.append(_LETTERS[26:][item] if item < 26 else _LETTERS[item - 26])
            else:
                raise SubscriptError(f"{item!r} is not a sublist label (0..51 or ...)")
        return "".join(out)
    text = ",".join(term(sublist) for sublist in sublists)
    return text + ("->" + term(output) if output is not None else "")


# ---- the adjoint of one operand --------------------------------------------------------
def einsum_rule(r, op, g):
    inputs, output = parse(op.param("subscripts"), len(op.args))
    return [_adjoint(r, op, k, g, inputs, output) if r.wants(x) else None
            for k, x in enumerate(op.args)]


def _adjoint(r, op, k, g, inputs, output):
    b, operand, target = r.b, op.args[k], inputs[k]
    terms = [(g, output)] + [(x, inputs[j]) for j, x in enumerate(op.args) if j != k]
    fresh = iter(label for label in _LETTERS
                 if not any(label in labels for labels in inputs + (output,)))
    shape = b.op("shape", operand)
    wanted, seen = [], set()
    for position, label in enumerate(target):
        if label in seen:  # a diagonal: a label of its own, tied by an identity
            own = next(fresh)
            first = _axis(target, target.index(label))
            eye = b.op("npcall", b.op("getitem", shape, Const(first)), func="eye",
                       kwargs=(), hint="eye")
            terms.append((eye, (label, own)))
            label = own
        seen.add(label)
        wanted.append(label)
    available = {label for _, labels in terms for label in labels}
    extra = ELLIPSIS in available and ELLIPSIS not in wanted
    if ELLIPSIS in wanted and ELLIPSIS not in available or extra and \
            not available.issuperset(wanted):  # read the operand's own axes off ones
        terms.append((b.op("ones_like", operand), tuple(wanted)))
        available.update(wanted)
    missing = [i for i, label in enumerate(wanted) if label not in available]
    # NumPy needs `...` in the output when operands have it: the axes it
    # stands for and operand k lacks are leading, and summed by unbroadcast
    kept = ((ELLIPSIS,) if extra else ()) + tuple(x for x in wanted if x in available)
    if len(terms) == 1 and terms[0][1] == kept:
        grad = g
    else:
        labels = [labels for _, labels in terms]
        grad = b.op("einsum", *(x for x, _ in terms), subscripts=spelled(labels, kept),
                    optimize=_optimize(op.param("optimize"), labels, kept))
    if missing:  # summed inside the operand: the gradient is the same along them
        grad = b.op("expand_dims", grad, axis=tuple(_axis(wanted, i) for i in missing))
        grad = b.op("broadcast_to", grad, shape)
    return r.unbroadcast(grad, operand)


def _optimize(chosen, inputs, output):
    """The user's ``optimize``; where it is False (NumPy's default), True for
    an adjoint that contracts (a label summed over two operands) or has three
    operands or more: unoptimized, NumPy's einsum is a loop without BLAS (25
    ms against 4 for ``ik,jk->ij`` at 400 x 400), and finding the path costs
    a few microseconds. A product without a sum (``i,ij->ij``) stays as it is."""
    if chosen is not False:
        return chosen
    summed = {label for label in set().union(*inputs) - set(output)
              if sum(label in term for term in inputs) > 1}
    return len(inputs) > 2 or bool(summed)


def _axis(labels, i):
    """The axis of label ``i``: from the front before ``...``, else from the end."""
    if ELLIPSIS in labels and i > labels.index(ELLIPSIS):
        return i - len(labels)
    return i


def _einsum_pattern(op, facts):
    """The output's shape pattern (ir/patterns.py) from the operands', by label."""
    inputs, _, output = op.param("subscripts").partition("->")
    terms = inputs.split(",")
    if ELLIPSIS in op.param("subscripts") or len(terms) != len(op.args):
        return None
    entries = {}
    for term, operand in zip(terms, op.args):
        found = facts.pattern(operand)
        if found is None or len(found) != len(term):
            return None
        for label, entry in zip(term, found):
            entries.setdefault(label, []).append(entry)
    out = [patterns.broadcast([(e,) for e in entries[label]]) for label in output]
    return None if patterns.CONFLICT in out else tuple(e[0] for e in out)


define("einsum(*operands; subscripts='', optimize=False)", shape=NEW, reverse=einsum_rule,
       multilinear=True, leading=("subscripts",), pattern=_einsum_pattern)
