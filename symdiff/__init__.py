"""symdiff: gradients of NumPy functions, as readable Python source."""
__version__ = "0.1.0"

from .api import grad, source, value_and_grad  # noqa: E402
from .errors import SymdiffError  # noqa: E402
from .markers import cond, stop_gradient  # noqa: E402

__all__ = ["grad", "value_and_grad", "source", "stop_gradient", "cond", "SymdiffError",
           "__version__"]
