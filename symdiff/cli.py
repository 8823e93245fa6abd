"""The `symdiff` command (placeholder until the CLI issue lands)."""
import sys


def main(argv=None):
    print("symdiff: the command line is not available yet", file=sys.stderr)
    return 2
