"""The intermediate representation: what every stage reads and writes.

``nodes.py`` (statements and atoms, each statement with its source place),
``primitive.py`` (the record of each primitive and the table of them; the
records themselves are written in ``symdiff/rules/``), ``builder.py`` (makes
operations, applying the folds it is given), ``shapes.py`` (which values
provably share a shape), ``clone.py`` and ``printer.py`` (`symdiff.show_ir`).
Imports nothing of symdiff but errors and locations.
"""
