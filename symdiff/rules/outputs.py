"""Primitives with several results (``sign, logdet = np.linalg.slogdet(a)``).

Their operation's value is the tuple of results; an ``output`` operation
reads one of them (generated code writes ``w, v = np.linalg.eigh(a)``, or
``np.linalg.slogdet(a)[1]``). The adjoint of an output is a part of the
tuple's adjoint: the record's reverse rule gets one adjoint per output (None
for one that has none), its forward rule gives one tangent per output.
"""
from __future__ import annotations

from ..ir.nodes import OutputPart
from ..ir.primitive import OTHER, TABLE, define


def output_rule(r, op, g):
    return [OutputPart(op.param("index"), g)]


def output_tangent(b, op, dargs):
    tangents = dargs[0]
    return tangents[op.param("index")] if tangents is not None else None


def _output_shape(op, facts):
    producer = facts.producer(op.args[0])
    kinds = TABLE[producer.prim].outputs if producer is not None else ()
    index = op.param("index")
    if index >= len(kinds):
        return op.target
    shape = facts.infer(kinds[index], producer)
    return op.target if shape is producer.target else shape


def _output_pattern(op, facts):
    producer = facts.producer(op.args[0])
    record = TABLE[producer.prim] if producer is not None else None
    if record is None or record.output_patterns is None:
        return None
    found = record.output_patterns(producer, facts)
    return None if found is None else found[op.param("index")]


define("output(results; index=0)", ("output",), _output_shape, reverse=output_rule,
       forward=output_tangent, result=OTHER, pattern=_output_pattern)
