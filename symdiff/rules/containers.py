"""Reading a container argument's leaves: ``params["W"]``, ``layers[0][1]``,
``self.W`` (frontend/containers.py makes one `field` operation per leaf, at
the top of the function). The container itself is never differentiated:
its leaves are, each one a value of its own."""
from __future__ import annotations

from ..ir.primitive import NEW, define

# ``path``: ``(("key", "W"),)``, ``(("index", 0), ("index", 1))``, ``(("attr", "W"),)``
define("field(obj; path=())", ("field",), NEW, zero=True)
