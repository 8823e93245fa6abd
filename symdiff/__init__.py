"""symdiff: gradients of NumPy functions, as readable Python source."""
from .api import (grad, hessian, jacobian, jvp, show_ir, source,  # noqa: E402
                  specialised, value_and_grad, vjp)
from .controls import (backward_as, cond, custom_gradient,  # noqa: E402
                       gradient_override, register_gradient, stop_gradient,
                       straight_through)
from .containers import flatten  # noqa: E402
from .errors import SymdiffError  # noqa: E402
from .version import __version__  # noqa: E402
from .log import configure_from_environment as _configure_logging  # noqa: E402

_configure_logging()

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "source", "show_ir",
           "specialised",
           "stop_gradient", "straight_through", "backward_as", "cond", "register_gradient",
           "gradient_override", "custom_gradient", "flatten", "SymdiffError", "__version__"]
