"""Gradients returned in the structure of a container argument: a mixin of
the `Emitter` (emitter.py), which writes ``{"W": W_bar, ...}``, ``[(W_bar,
b_bar), ...]``, ``params._replace(W=W_bar)`` or ``dataclasses.replace(params,
W=W_bar)`` (importing dataclasses) where ad/wrt.py asks for one."""
from __future__ import annotations

import ast

from ..ir.trees import Leaf


class Containers:
    def container(self, rebuild, atoms):
        """``{"W": W_bar, ...}``, ``[(W_bar, b_bar), ...]``, ``params._replace(W=...)``,
        ``dataclasses.replace(params, W=...)``: gradients in the argument's structure."""
        def build(node, path):
            if isinstance(node, Leaf):
                return self.atom(atoms.pop(0)) if node.kind == "float" else ast.Constant(None)
            step = "key" if node.kind == "dict" else "index" if not node.keys else "attr"
            parts = [build(child, path + ((step, node.keys[k] if node.keys else k),))
                     for k, child in enumerate(node.children)]
            if node.kind in ("dict", "object"):
                return ast.Dict([ast.Constant(k) for k in node.keys], parts)
            if node.kind == "list":
                return ast.List(parts, ast.Load())
            if node.kind == "tuple":
                return ast.Tuple(parts, ast.Load())
            if rebuild.base is None:  # a returned value: its items
                return ast.Tuple(parts, ast.Load())
            original = self._path(rebuild.base, path)
            kept = [ast.keyword(k, p) for k, p, child in zip(node.keys, parts, node.children)
                    if not (isinstance(child, Leaf) and child.kind == "static")]
            if node.kind == "namedtuple":
                return ast.Call(ast.Attribute(original, "_replace", ast.Load()), [], kept)
            self.modules.add("dataclasses")
            return ast.Call(ast.Attribute(ast.Name("dataclasses", ast.Load()), "replace",
                                          ast.Load()), [original], kept)
        return build(rebuild.tree, rebuild.path)

    def _path(self, base, path):
        node = self.atom(base)
        for step, label in path:
            node = ast.Attribute(node, label, ast.Load()) if step == "attr" else \
                ast.Subscript(node, ast.Constant(label), ast.Load())
        return node
