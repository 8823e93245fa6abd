"""Lowering: a checked Python syntax tree to IR statements.

Statements and expressions are lowered here; what a *call* means (a NumPy
primitive, a helper to inline, a symdiff marker) is decided in `calls.py`.
"""
from __future__ import annotations

import ast
import builtins


from ..errors import NonScalarOutputError, UnknownNameError, UnsupportedSyntaxError
from ..ir.nodes import Const, FreeVar, Var
from . import calls, effects, fence, gradient_calls, in_place_calls, lists, loops, tapes, \
    unpacked_writes, writes
from .branches import FELL_THROUGH, lower_if, lower_if_expression, merge
from .builtin_calls import BUILTIN_NAMES
from . import containers
from .compile_time import Closure, Dict, Obj, OneBranch, Static, Tup, from_python, is_atom
from .subscripts import lower_index, lower_subscript

_BINOPS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply",
           ast.Div: "divide", ast.Pow: "power", ast.MatMult: "matmul",
           ast.FloorDiv: "floor_divide", ast.Mod: "mod", ast.BitAnd: "bitwise_and",
           ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor"}
_UNARY = {ast.USub: "negative", ast.Invert: "invert", ast.Not: "logical_not"}
_COMPARE = {ast.Gt: "greater", ast.GtE: "greater_equal", ast.Lt: "less",
            ast.LtE: "less_equal", ast.Eq: "equal", ast.NotEq: "not_equal"}


class Lowerer:
    """Lowers one function body into the shared builder's current block."""

    def __init__(self, src, builder, depth=0, env=None, trees=None):
        if env is None:  # (a closure's source was checked with the function around it)
            fence.check(src, top=depth == 0)
        self.src = src
        self.b = builder
        self.depth = depth
        self.env = dict(env or {})
        self.loops = []   # (Loop, body block) of the loops being lowered, innermost last
        self.unrolling = 0  # how many loops unrolled when compiling are being lowered
        self.merged = {}  # Var a Merge made -> (condition, its value in each branch)
        self.inlining = frozenset({getattr(src.fn, "__code__", None)})  # (recursion)
        self.loop_locals = {}  # name first assigned inside a loop -> the loop's line
        self.carried_from = builder.origins  # a loop's carried var -> its values (writes.py)
        self.written = set()  # the arrays written into so far (writes.py)
        self.trees = trees  # argument -> structure; None: arguments taken as arrays
        self.caller = None  # the lowerer of the function calling this one, if inlined

    def nested(self, src, env=None):
        """A lowerer for a function this one calls (``env``: a closure's
        names), building into the same place: its body is inlined here."""
        sub = Lowerer(src, self.b, self.depth + 1, env)
        sub.caller = self  # (a write into an array or dict the caller holds changes its)
        sub.inlining = self.inlining
        sub.merged = self.merged  # (an inlined function's merges are read outside it)
        sub.carried_from, sub.written = self.carried_from, self.written
        sub.trees = self.trees
        return sub

    def call(self, callee, args, kwargs, node):
        """The value of calling ``callee`` (a compile-time value) here."""
        return calls.apply(self, callee, args, kwargs, node)

    def error(self, cls, node, message, hint=None):
        return cls(message, self.src.loc(node), hint)

    # -- blocks ------------------------------------------------------------------
    def lower_body(self, stmts):
        """Lower ``stmts``; the returned value, or None if they fall off the end."""
        for i, stmt in enumerate(stmts):
            with self.b.at(self.src.loc(stmt)):
                if isinstance(stmt, ast.Return):
                    return self.returned(stmt)
                if isinstance(stmt, ast.If):
                    result = self.if_stmt(stmt, stmts[i + 1:])
                    if result is FELL_THROUGH:  # (it lowered the rest too)
                        return None
                    if result is not None:
                        return result
                    continue
                self.stmt(stmt)
        return None

    def returned(self, stmt):
        if stmt.value is None:
            raise self.error(NonScalarOutputError, stmt, "the function returns None",
                             "return the value to differentiate")
        value = self.expr(stmt.value)
        if isinstance(value, Const) and value.value is None:
            raise self.error(NonScalarOutputError, stmt, "the function returns None",
                             "return the value to differentiate")
        return value

    def stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(UnsupportedSyntaxError, node,
                             f"`{type(node).__name__}` statements are not supported here",
                             "write it with assignments, `if` and loops over range()")
        method(node)

    def stmt_Assign(self, node):
        if tapes.is_new_tape(node):
            return tapes.lower_new_tape(self, node)
        value = self.expr(node.value)
        for target in node.targets:
            self.bind(target, value)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.bind(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node):
        writes.lower_aug_assign(self, node, _BINOPS.get(type(node.op)))

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant):
            return  # a docstring or a bare constant
        tape = tapes.appended_tape(self, node)
        if tape is not None:
            return tapes.lower_append(self, node, tape)
        if isinstance(node.value, ast.Call):
            ufunc = writes.ufunc_at(self, node.value)
            if ufunc is not None:  # np.add.at(out, index, values)
                return writes.lower_ufunc_at(self, node.value, ufunc)
            if in_place_calls.fills_diagonal(self, node.value):
                return in_place_calls.lower_fill_diagonal(self, node.value)
        self.expr(node.value)

    def stmt_Pass(self, node):
        pass

    def stmt_Assert(self, node):
        effects.lower_assert(self, node)

    def stmt_FunctionDef(self, node):
        self.env[node.name] = Closure(node, self.env, self.src)

    def stmt_For(self, node):
        loops.lower_for(self, node)

    def stmt_While(self, node):
        loops.lower_while(self, node)

    def stmt_Break(self, node):
        self.env[loops.BROKE] = Const(True)

    def stmt_Continue(self, node):
        pass  # the statements after it were moved into the other branch

    def stmt_With(self, node):
        gradient_calls.lower_with(self, node)

    def bind(self, target, value):
        if isinstance(target, ast.Name):
            if isinstance(value, Var) and not isinstance(value, FreeVar) \
                    and value not in self.b.named:
                value.hint = target.id  # the user's name for a value just made
                self.b.named.add(value)
            self.env[target.id] = value
            return
        if isinstance(target, ast.Subscript):
            return writes.lower_store(self, target, value, target)
        if isinstance(target, (ast.Tuple, ast.List)):
            target, items = unpacked_writes.unpacked(self, target, value)  # (a, *b = ...)
            return unpacked_writes.bind_unpacked(self, target, items)
        hint = "unpack into plain names, one for each value (`a, b = pair`), or index " \
            "the value (`a, rest = t[0], t[1:]`)" if isinstance(target, ast.Starred) \
            else "assign to a plain name: `y = ...`"
        raise self.error(UnsupportedSyntaxError, target,
                         f"cannot assign to `{ast.unparse(target)}`", hint)

    def unpack(self, value, count, node):
        if isinstance(value, writes.Stale):
            raise writes.stale_error(self, value, node)
        if isinstance(value, Dict):  # unpacking a dict gives its keys
            value = Tup(tuple(Const(k) for k in value.keys))
        if isinstance(value, Tup):
            if len(value.items) != count:
                raise self.error(UnsupportedSyntaxError, node,
                                 f"cannot unpack {len(value.items)} values into {count} names",
                                 f"write {len(value.items)} names on the left (`_` for a "
                                 "value you do not need)")
            return value.items
        if is_atom(value):
            containers.container_use(self, value, definite=False)
            return [self.b.op("getitem", value, Const(i)) for i in range(count)]
        raise self.error(UnsupportedSyntaxError, node, "cannot unpack this value",
                         "unpack a tuple or an array")

    # -- if / else (branches.py) -----------------------------------------------------
    def if_stmt(self, node, rest):
        return lower_if(self, node, rest)

    def merge(self, stmt, a, b, name, node):
        return merge(self, stmt, a, b, name, node)

    def predicate(self, node):
        value = self.expr(node)  # (`if xs:` of a list a loop filled: whether it appended)
        cond = lists.nonempty(self, value) if lists.runtime_list(value) else self.atom(value, node)
        if isinstance(cond, Const) or self.b.facts.is_scalar(cond):
            return cond
        loc = self.src.loc(node)
        return self.b.op("scalar_predicate", cond, hint="cond",
                         message=loc.short())

    def cond_key(self, cond):
        """What an `if` tests, before the run-time check that it is a scalar."""
        op = self.b.facts.defs.get(cond)
        return op.args[0] if op is not None and op.prim == "scalar_predicate" else cond

    # -- expressions -------------------------------------------------------------------
    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(UnsupportedSyntaxError, node,
                             f"`{type(node).__name__}` expressions are not supported here",
                             "write it with NumPy operations on arrays")
        # An op carries its own expression's place, so an error found later (in
        # the reverse pass) points at the call, not at the start of the statement.
        with self.b.at(self.src.loc(node).within(self.b.loc)):
            return method(node)

    def atom(self, value, node):
        """``value`` as an IR atom (a tuple of numbers becomes one constant)."""
        if is_atom(value):
            return value
        if isinstance(value, writes.Stale):
            raise writes.stale_error(self, value, node)
        if isinstance(value, Tup):
            items = [self.atom(v, node) for v in value.items]
            if all(isinstance(i, Const) for i in items):
                return Const(tuple(i.value for i in items))
            return self.b.op("tuple", *items, hint="row" if value.is_list else "shape")
        if lists.runtime_list(value):  # a list a loop filled: as an array
            return lists.stacked(self, value, node)
        hint = tapes.HINT if isinstance(value, tapes.TapeList) else (
            "use an array or a number here; call functions and pass modules only "
            "where a function or module is expected")
        raise self.error(UnsupportedSyntaxError, node,
                         f"`{ast.unparse(node)}` is not an array value", hint)

    def expr_Constant(self, node):
        return Const(node.value)

    def expr_Name(self, node):
        value = self.env.get(node.id)
        if isinstance(value, writes.Stale):
            return value  # an error where its values are read (atom), not its shape
        if isinstance(value, tapes.TapeList) and value.filling is not None:
            raise tapes.filling_error(self, node, value)
        if isinstance(value, tapes.TapeList) and value.known:  # a list known when compiling
            return Tup(tuple(value.prefix), is_list=True)
        if isinstance(value, OneBranch):
            raise self.error(UnknownNameError, node,
                             f"`{node.id}` is assigned in only one branch of the `if` "
                             f"at line {value.lineno}",
                             "assign it in both branches, or before the `if`")
        if node.id in self.env:
            return value
        return self.resolve(node.id, node)

    def resolve(self, name, node):
        for scope in (self.src.closure, self.src.globals):
            if name in scope:
                self.b.deps.append((scope, name, scope[name]))
                return self.b.free_var(from_python(name, scope[name]))
        if name in BUILTIN_NAMES:
            return Static(BUILTIN_NAMES[name])
        if hasattr(builtins, name) and not name.startswith("_"):
            # defined, but not in the language: calling it says so
            return Static(getattr(builtins, name))
        if name in self.loop_locals:
            last = loops.carry_out(self, name)  # its value in the loop's last iteration
            if last is not None:
                return last
            raise self.error(UnknownNameError, node,
                             f"`{name}` is first assigned inside the loop at line "
                             f"{self.loop_locals[name][0]}, so here it is defined only if "
                             "the loop ran",
                             f"assign `{name}` before the loop (e.g. `{name} = 0.0`), so "
                             "that it has a value however many times the loop runs")
        raise self.error(UnknownNameError, node, f"name `{name}` is not defined",
                         "define it before this line, or pass it as an argument")

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        if node.attr in ("shape", "ndim", "size"):
            base = writes.shape_of(base)
        if is_atom(base) or isinstance(base, writes.Stale):
            base = self.atom(base, node.value)
            return calls.array_attribute(self, base, node)
        if isinstance(base, Static):
            return calls.static_attribute(self, base.obj, node)
        if isinstance(base, Obj):  # self.W, self.forward (containers.py)
            return containers.attribute(self, base, node)
        if isinstance(base, Tup) and node.attr in base.names:  # np.linalg.eigh(a).eigenvalues
            return base.items[base.names.index(node.attr)]
        raise self.error(UnsupportedSyntaxError, node,
                         f"cannot read `.{node.attr}` of `{ast.unparse(node.value)}`",
                         "read attributes of arrays (.T, .shape) and modules (np.pi) only")

    def expr_BinOp(self, node):
        return self.binop(_BINOPS[type(node.op)], self.expr(node.left),
                          self.expr(node.right), node)

    def binop(self, prim, left, right, node):
        if isinstance(left, Tup) or isinstance(right, Tup):
            if prim == "add" and isinstance(left, Tup) and isinstance(right, Tup):
                return Tup(left.items + right.items, is_list=left.is_list)  # concatenation
            if prim == "multiply":  # [0.0] * n, (a, b) * 2: repetition, as in Python
                seq, count = (left, right) if isinstance(left, Tup) else (right, left)
                if isinstance(count, Const) and isinstance(count.value, int) \
                        and not isinstance(count.value, bool):
                    return Tup(seq.items * count.value, is_list=seq.is_list)
                made = lists.repetition(self, seq, count, node)
                if made is not None:
                    return made
        lists.refuse_list_operation(self, prim, left, right, node)
        return self.b.op(prim, self.atom(left, node), self.atom(right, node))

    def expr_UnaryOp(self, node):
        operand = self.atom(self.expr(node.operand), node)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(operand, Const) and isinstance(node.op, ast.USub) \
                and isinstance(operand.value, (int, float)):
            return Const(-operand.value)
        return self.b.op(_UNARY[type(node.op)], operand)

    def expr_BoolOp(self, node):
        values = [self.atom(self.expr(v), v) for v in node.values]
        return calls.bool_op(self, isinstance(node.op, ast.And), values)

    def expr_Compare(self, node):
        left = self.atom(self.expr(node.left), node)
        result = None
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            found = containers.contains(self, left, self.expr(node.comparators[0]), node)
            return Const(found.value != isinstance(node.ops[0], ast.NotIn))
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in _COMPARE:
                raise self.error(UnsupportedSyntaxError, node,
                                 f"the comparison `{type(op).__name__}` is not supported",
                                 "compare with < <= > >= == !=")
            right = self.atom(self.expr(right_node), right_node)
            test = self.b.op(_COMPARE[type(op)], left, right)
            result = test if result is None else self.b.op("logical_and", result, test)
            left = right
        return result

    def expr_Dict(self, node):
        return containers.literal(self, node)

    def expr_ListComp(self, node):
        return lists.comprehension(self, node)

    expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node):
        return lists.dict_comprehension(self, node)

    def expr_Tuple(self, node):
        return Tup(containers.items(self, node.elts))

    def expr_List(self, node):
        if any(isinstance(e, ast.Starred) and lists.runtime_list(self.expr(e.value))
               for e in node.elts):
            return lists.spliced(self, node.elts)  # [x0, *xs]
        return Tup(containers.items(self, node.elts), is_list=True)

    def expr_Starred(self, node):
        raise self.error(UnsupportedSyntaxError, node, "`*` unpacking is not supported",
                         "pass the items one by one")

    # -- subscripts (subscripts.py) ----------------------------------------------------
    def expr_Subscript(self, node):
        return lower_subscript(self, node)

    def index(self, node):
        return lower_index(self, node)

    def expr_IfExp(self, node):
        return lower_if_expression(self, node)

    def expr_JoinedStr(self, node):
        raise self.error(UnsupportedSyntaxError, node,
                         "an f-string can only be an argument of print, logging or "
                         "warnings.warn in a differentiated function",
                         "format strings outside the differentiated function")

    def expr_Lambda(self, node):
        return Closure(node, self.env, self.src)

    def expr_Call(self, node):
        return calls.lower_call(self, node)
