"""The `symdiff` command."""
from .command import main  # noqa: F401
