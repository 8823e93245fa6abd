"""Stage 2, differentiation: reverse mode (``reverse.py``, loops in
``loops.py``) and forward mode (``forward.py``) over the IR, asking each
primitive's record for its rules; ``where_guards.py`` keeps a `where`'s
branch not taken from leaking NaN, ``backward_as.py`` makes the clean copies
`backward_as` asks for, ``overrides.py`` applies registered rules."""
