"""Stage 4, IR to Python source: ``emitter.py`` writes statements (names from
``names.py``, expressions from ``spelling.py``, lines broken by ``layout.py``)
so that the result reads like a careful person's gradient."""
