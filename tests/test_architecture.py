"""The tree shows the pipeline: imports run one way, from the API down.

Each module of the package belongs to a layer (its sub-package, or the
module itself at the top level). A module may import modules of its own
layer or of layers below it; never one above, and there is no import cycle
anywhere (lazy imports inside functions count too). Modules stay short.
"""
import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "symdiff")

# Bottom to top. The stages run frontend -> ad -> optimize -> emit; no stage
# imports a later one. `pipeline` runs them; `api` and `cli` are what users call.
LAYERS = [
    ("ir", "errors", "locations", "log", "runtime", "version"),
    ("rules",),
    ("controls",),
    ("frontend",),
    ("ad",),
    ("optimize",),
    ("emit",),
    ("pipeline",),
    ("specialise",),
    ("containers",),
    ("gradient_cache",),
    ("api",),
    ("cli", "__init__", "__main__"),
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
MAX_LINES = 400


def _modules():
    found = {}
    for base, _, files in os.walk(ROOT):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(base, name)
                dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                found[dotted] = path
    return found


MODULES = _modules()


def _layer(dotted):
    return dotted.split(".")[0]


def _imports(dotted, path):
    """The package's modules ``dotted`` imports (``a.b`` for ``from .a import b``
    when ``a.b`` is a module), wherever the import statement is."""
    package = dotted.split(".")[:-1] if not dotted.endswith("__init__") else \
        dotted.split(".")[:-1]
    found = set()
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("symdiff"):
                module = node.module[len("symdiff"):].lstrip(".")
            else:
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}" if module else alias.name
                found.add(sub if sub in MODULES or f"{sub}.__init__" in MODULES else module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("symdiff."):
                    found.add(alias.name[len("symdiff."):])
    return {m for m in found if m and m != dotted}


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_every_module_has_a_layer():
    assert {_layer(m) for m in MODULES} <= set(RANK)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_down_the_layers(module):
    upward = sorted(m for m in GRAPH[module] if RANK[_layer(m)] > RANK[_layer(module)])
    assert not upward, f"symdiff.{module} imports later stages: {upward}"


def test_no_import_cycle():
    graph = {m: {t.removesuffix(".__init__") for t in targets}
             for m, targets in GRAPH.items() if not m.endswith("__init__")}
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in graph.get(node, ()):
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_are_short(module):
    with open(MODULES[module], encoding="utf-8") as handle:
        lines = sum(1 for _ in handle)
    assert lines <= MAX_LINES, f"symdiff.{module} has {lines} lines"
