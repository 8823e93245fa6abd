"""Stage 1, source to IR: read the function (``source.py``), reject what is
outside the language in one place with a located error (``fence.py``), and
lower the syntax tree to IR (``lower.py``, with calls, branches, loops,
subscripts, inlined helpers and symdiff's own functions each in a module).
"""
