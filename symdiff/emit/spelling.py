"""How each IR operation is written as a Python expression (`ast` nodes).

A mixin of the `Emitter` (emitter.py), which supplies the display ``names``, the
NumPy alias ``np``, the ``builtins`` hidden by parameters, the values written
with ``[()]`` (``unwrap``), the operations folded into expressions
(``inlined``) and the defining operations (``_defs``); it collects the
runtime ``helpers`` the code calls.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from ..ir.nodes import IndexList, Var
from ..ir.primitive import REDUCTION, TABLE
from ..ir.dtypes import spelled_math
from ..ir.shapes import is_numpy_value
from .backends import respell

_NAMED_FLOATS = {math.pi: "pi", math.e: "e"}
_ATTRIBUTES = ("shape", "size", "ndim")  # np.shape(x) is x.shape for a NumPy value


class Spelling:
    plain = False  # code without checks, for compilers (unchecked.py)
    backend = None  # another array library's (backends.py): the standard's spelling
    device_of = None  # (then) the argument whose device new arrays go on

    def _backwards(self, tape):
        """A tape read last entry first (``tape[::-1]`` in plain code, which
        numba types)."""
        return f"{tape}[::-1]" if self.plain else f"{self._builtin('reversed')}({tape})"

    def atom(self, atom):
        if isinstance(atom, Var):
            if atom in self.inlined:
                return self.expr(self.inlined[atom])
            return ast.Name(self.names.get(atom, atom.hint), ast.Load())
        return self.const(atom.value)

    def const(self, value):
        if isinstance(value, float) and value in _NAMED_FLOATS:
            return ast.Attribute(ast.Name(self.np, ast.Load()), _NAMED_FLOATS[value], ast.Load())
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            name = ast.Attribute(ast.Name(self.np, ast.Load()),
                                 "nan" if math.isnan(value) else "inf", ast.Load())
            return ast.UnaryOp(ast.USub(), name) if value < 0 else name
        if isinstance(value, IndexList):  # x[[0, 2]]
            return ast.List([self.const(v) for v in value], ast.Load())
        if isinstance(value, tuple):
            return ast.Tuple([self.const(v) for v in value], ast.Load())
        if isinstance(value, slice):
            return ast.Call(ast.Name(self._builtin("slice"), ast.Load()),
                            [self.const(v) for v in (value.start, value.stop, value.step)], [])
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            # -2.0 ** 2 would read as -(2.0 ** 2): let unparse see the sign
            return ast.UnaryOp(ast.USub(), ast.Constant(-value))
        return ast.Constant(value)

    def expr(self, op):
        args = [self.atom(a) for a in op.args]
        spelling = TABLE[op.prim].spelling
        if spelled_math(op, self.facts):  # math.sin(x) of a Python float, as written
            spelling = ("module", "math", TABLE[op.prim].math[0])
        node = getattr(self, "_spell_" + spelling[0].replace(".", "_"))(op, spelling, args)
        if self.backend is not None:
            node = respell(node, self.backend, self.np, self.device_of)
        if op.target in self.unwrap:
            return ast.Subscript(node, ast.Tuple([], ast.Load()), ast.Load())
        return node

    def _spell_binop(self, op, spelling, args):
        if self.backend is not None and self.facts is not None:  # no bool + float there
            args = [self._as_float(a, node, op.args) for a, node in zip(op.args, args)]
        if spelling[1] is ast.Add:
            return plus(args[0], args[1])
        return ast.BinOp(args[0], spelling[1](), args[1])

    def _as_float(self, atom, node, operands):
        """A boolean operand of arithmetic with floats, as floats (the array
        API standard does not promote bool): ``np.astype(mask, np.float64)``."""
        dtypes = [self.facts.dtype(a) for a in operands]
        dtype = dtypes[operands.index(atom)]
        op = self._defs.get(atom) if isinstance(atom, Var) else None
        if not (isinstance(dtype, np.dtype) and dtype.kind == "b" or
                op is not None and TABLE[op.prim].boolean):
            return node
        floats = [d for d in dtypes if isinstance(d, np.dtype) and d.kind == "f"]
        name = floats[0].name if floats else "float64"
        return ast.Call(self._np_attr("astype"), [node, self._np_attr(name)], [])

    def _spell_unary(self, op, spelling, args):
        return ast.UnaryOp(spelling[1](), args[0])

    def _spell_compare(self, op, spelling, args):
        return ast.Compare(args[0], [spelling[1]()], [args[1]])

    def _spell_np(self, op, spelling, args):
        record = TABLE[op.prim]
        if op.prim in _ATTRIBUTES and self._numpy(op.args[0]):
            return ast.Attribute(args[0], op.prim, ast.Load())  # x.shape: a NumPy value's
        if record.shape == REDUCTION and op.prim in record.methods and \
                self._numpy(op.args[0], sized=op.param("axis") is not None) and \
                op.param("correction") is None:  # (which the methods do not take)
            # The same reduction as the array's method, which skips np.sum's
            # Python wrapper: that costs more than summing a small array.
            return ast.Call(ast.Attribute(args[0], op.prim, ast.Load()), [], self._keywords(op))
        if record.operands[0] in ("*arrays", "*items"):  # np.stack([a, b]), np.array([a, b])
            args = [ast.List(args, ast.Load())]
        return ast.Call(self._np_attr(spelling[1]), self._leading(op) + args, self._keywords(op))

    def _numpy(self, atom, sized=False):
        return is_numpy_value(atom, self._defs, sized=sized, facts=self.facts)

    def _spell_module(self, op, spelling, args):
        """``scipy.special.gammaln(x)``, ``scipy.stats.norm.logpdf(x, m, s)``: a
        function of another library, by its full name (generated code imports
        the module; see `modules`). An optional operand (``*b``, given or not)
        is passed by keyword: ``scipy.special.logsumexp(a, axis=1, b=w)``."""
        _, module, name = spelling
        parts = module.split(".") + name.split(".")
        func = ast.Name(parts[0], ast.Load())
        for part in parts[1:]:
            func = ast.Attribute(func, part, ast.Load())
        self.modules.add(module)
        paired = TABLE[op.prim].paired
        if paired:  # scipy.linalg.cho_solve((c, lower), b)
            pair = ast.Tuple([args[0], self.const(op.param(paired, False))], ast.Load())
            args = [pair] + args[1:]
        operands = TABLE[op.prim].operands
        optional = [ast.keyword(n[1:], a) for n, a in zip(operands, args) if n[0] == "*"]
        return ast.Call(func, args[:len(args) - len(optional)],
                        self._keywords(op) + optional)

    def _spell_np_linalg(self, op, spelling, args):
        func = ast.Attribute(self._np_attr("linalg"), spelling[1], ast.Load())
        if TABLE[op.prim].operands[0] == "*arrays":  # np.linalg.multi_dot([a, b, c])
            args = [ast.List(args, ast.Load())]
        return ast.Call(func, args, self._keywords(op))

    def _spell_helper(self, op, spelling, args):
        if op.prim == "unreduce" and op.param("axis") is None and not op.param("keepdims"):
            return ast.Call(self._np_attr("full_like"), [args[1], args[0]], [])
        operands = TABLE[op.prim].operands
        if "*index" in operands:  # _unindex(g, x, np.s_[1:, 0])
            at = operands.index("*index")
            args = args[:at] + [self._index(args[at:])]
        self.helpers.add(spelling[1])
        return ast.Call(ast.Name(spelling[1], ast.Load()), args, self._keywords(op))

    def _spell_npcall(self, op, spelling, args):
        func = self._np_attr("")
        for part in op.param("func").split("."):
            func = ast.Attribute(func, part, ast.Load()) if func.attr else self._np_attr(part)
        keywords = [ast.keyword(k, self.const(v)) for k, v in op.param("kwargs")]
        return ast.Call(func, args, keywords)

    def _spell_draw(self, op, spelling, args):
        """``np.random.normal(size=3)``, ``rng.standard_normal(x.shape)``: a
        random draw, as the user called it (rules/randomness.py)."""
        names = op.param("keywords")
        split = len(args) - len(names)
        positional = args[:split]
        keywords = [ast.keyword(k, v) for k, v in zip(names, args[split:])]
        if op.param("source") == "object":
            func = ast.Attribute(positional.pop(0), op.param("method"), ast.Load())
        else:
            func = ast.Attribute(self._np_attr("random"), op.param("method"), ast.Load())
        return ast.Call(func, positional, keywords)

    def _spell_call_callee(self, op, spelling, args):
        """``print(...)``, ``log.info(...)``, ``'{}'.format(...)``: as the user
        called it (see rules/python_values.py)."""
        callee = op.param("callee")
        if callee == "assert":  # (a statement: emitter.py writes what has no reader as is)
            return ast.Assert(args[0], args[1] if len(args) > 1 else None)
        keywords = [ast.keyword(k, self.const(v)) for k, v in op.params if k != "callee"]
        return ast.Call(ast.parse(callee, mode="eval").body, args, keywords)

    def _spell_stack_list(self, op, spelling, args):
        """``np.stack(xs)``, ``np.stack([x0, *xs])``: a list a loop filled."""
        before = op.param("before")
        if len(args) == 1:
            return ast.Call(self._np_attr("stack"), [args[0]], [])
        items = args[:before] + [ast.Starred(args[before], ast.Load())] + args[before + 1:]
        return ast.Call(self._np_attr("stack"), [ast.List(items, ast.Load())], [])

    def _spell_field(self, op, spelling, args):
        """``params["W"]``, ``layers[0][1]``, ``self.W``: a container's leaf."""
        node = args[0]
        for step, label in op.param("path"):
            node = ast.Attribute(node, label, ast.Load()) if step == "attr" else \
                ast.Subscript(node, ast.Constant(label), ast.Load())
        return node

    def _spell_write(self, op, spelling, args):
        """The place ``a[index]`` a write changes (emitter.py writes the statement)."""
        return ast.Subscript(args[0], self._slices(args[2:]), ast.Load())

    def write_statement(self, op):
        """``a[index] = v``, ``a[index] += v`` or ``np.add.at(a, index, v)``."""
        args = [self.atom(a) for a in op.args]
        how = TABLE[op.prim].spelling[1]
        if how == "np.add.at":
            at = ast.Attribute(self._np_attr("add"), "at", ast.Load())
            index = self._slices(args[2:])
            if isinstance(index, ast.Slice) or isinstance(index, ast.Tuple) and any(
                    isinstance(e, ast.Slice) for e in index.elts):
                index = self._index(args[2:])
            return ast.Expr(ast.Call(at, [args[0], index, args[1]], []))
        place = ast.Subscript(args[0], self._slices(args[2:]), ast.Store())
        if how == "+=":
            return ast.AugAssign(place, ast.Add(), args[1])
        return ast.Assign([place], args[1], lineno=0)

    def _spell_method(self, op, spelling, args):
        """``x.astype('float32')``: a method of the first operand."""
        return ast.Call(ast.Attribute(args[0], spelling[1], ast.Load()), args[1:],
                        self._keywords(op))

    def _spell_method_part(self, op, spelling, args):
        """``m.nonzero()[0]``: one result of a method that returns a tuple."""
        call = ast.Call(ast.Attribute(args[0], spelling[1], ast.Load()), [], [])
        return ast.Subscript(call, ast.Constant(spelling[2]), ast.Load())

    def _spell_np_part(self, op, spelling, args):
        """``np.split(x, 3, axis=1)[0]``: one piece of a NumPy function that
        returns a list (params ``how``, ``sections``, ``index``; see rules/joins.py)."""
        how = op.param("how", "split")
        keywords = [ast.keyword("axis", self.const(op.param("axis")))
                    if how in ("split", "array_split") and op.param("axis") else None]
        call = ast.Call(self._np_attr(how), args + [self.const(op.param("sections", 1))],
                        [k for k in keywords if k is not None])
        return ast.Subscript(call, self.const(op.param("index", 0)), ast.Load())

    def _spell_call_operand(self, op, spelling, args):
        """``odeint(rhs, y0, t, args=(k,))``: a function symdiff has no rule for
        (its first operand), called on values (see rules/opaque.py)."""
        names = op.param("keywords")
        positional = args[1:len(args) - len(names)]
        keywords = [ast.keyword(k, a) for k, a in zip(names, args[len(args) - len(names):])]
        return ast.Call(args[0], positional, keywords)

    def _spell_attr(self, op, spelling, args):
        return ast.Attribute(args[0], spelling[1], ast.Load())

    def _spell_call(self, op, spelling, args):
        return ast.Call(ast.Name(self._builtin(spelling[1]), ast.Load()), args, [])

    def _spell_subscript(self, op, spelling, args):
        parts = args[1:]
        if self.backend is not None and self._fewer_axes(op.args[0], op.args[1:]):
            parts = parts + [ast.Constant(...)]  # xs[t, ...]: the standard's form
        return ast.Subscript(args[0], self._slices(parts), ast.Load())

    def _fewer_axes(self, value, index):
        """Whether ``index`` (integers and slices) names fewer axes than an
        array ``value`` has (NumPy reads the rest as ``...``)."""
        rank = self.facts.rank(value) if self.facts is not None else None
        simple = all(isinstance(p, Var) and self.facts.is_scalar(p) or
                     not isinstance(p, Var) and isinstance(p.value, (int, slice))
                     for p in index)
        return rank is not None and simple and len(index) < rank

    def _spell_slice(self, op, spelling, args):
        return ast.Call(ast.Name(self._builtin("slice"), ast.Load()), args, [])

    def _spell_output(self, op, spelling, args):
        return ast.Subscript(args[0], ast.Constant(op.param("index")), ast.Load())

    def _spell_tuple(self, op, spelling, args):
        return ast.Tuple(args, ast.Load())

    def _spell_identity(self, op, spelling, args):
        return args[0]

    def _index(self, parts):
        """``np.s_[...]``: an index as a value, for the indexing helpers."""
        return ast.Subscript(self._np_attr("s_"), self._slices(parts), ast.Load())

    def _slices(self, parts):
        parts = [_as_slice(p, self._builtin("slice")) for p in parts]
        return parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())

    def _builtin(self, name):
        return self.builtins.get(name, name)

    def _np_attr(self, name):
        return ast.Attribute(ast.Name(self.np, ast.Load()), name, ast.Load())

    def _keywords(self, op):
        record = TABLE[op.prim]
        defaults = dict(record.params)
        written = [(k, v) for k, v in op.params if k not in record.leading and k != record.paired]
        return [ast.keyword(k, self.const(v)) for k, v in written
                if k not in defaults or defaults[k] != v or type(defaults[k]) is not type(v)]

    def _leading(self, op):
        """Parameters written before the operands: ``np.einsum('ij,j->i', a, x)``."""
        return [self.const(op.param(k)) for k in TABLE[op.prim].leading]


def _as_slice(node, spelled="slice"):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == spelled:
        bounds = [None if isinstance(a, ast.Constant) and a.value is None else a
                  for a in node.args]
        if isinstance(bounds[0], ast.Constant) and bounds[0].value == 0:
            bounds[0] = None  # x[0:n] reads better as x[:n]
        return ast.Slice(*bounds)
    return node


def plus(left, right):
    """``left + right``, written ``left - x`` where ``right`` is ``-x`` or
    ``-2.0 * x`` (IEEE: the same bits)."""
    if isinstance(right, ast.UnaryOp) and isinstance(right.op, ast.USub):
        return ast.BinOp(left, ast.Sub(), right.operand)
    if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Mult) and \
            isinstance(right.left, ast.UnaryOp) and isinstance(right.left.op, ast.USub) \
            and isinstance(right.left.operand, ast.Constant):
        return ast.BinOp(left, ast.Sub(), ast.BinOp(right.left.operand, ast.Mult(), right.right))
    return ast.BinOp(left, ast.Add(), right)
