"""What generated code calls at run time (helpers, input checks), and loading it."""
