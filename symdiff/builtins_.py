"""Python builtins a differentiated function may call."""
import builtins

BUILTIN_NAMES = {name: getattr(builtins, name) for name in
                 ("abs", "len", "float", "max", "min", "round", "range", "print",
                  "int", "bool", "tuple", "list", "zip", "enumerate", "sum",
                  "isinstance", "None", "True", "False", "str", "repr", "format")
                 if hasattr(builtins, name)}
