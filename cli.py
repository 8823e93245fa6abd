"""`python cli.py ...` is the same program as the `symdiff` command."""
import sys

from symdiff.cli import main

if __name__ == "__main__":
    sys.exit(main())
