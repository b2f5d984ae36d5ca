# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Evaluate literal Python expressions from an AST, without importing or executing code.

Tool modules build their ``ALLOWED_TOOLS`` and defaults from module constants, e.g.
``ALLOWED_TOOLS = [PREFIX + m for ms in ENGINES.values() for m in ms]`` (valory-xyz/mech,
``packages/valory/customs/openai_request/openai_request.py``). :class:`StaticScope` reads a
module's top-level literal assignments in order and evaluates a small, closed set of
expression forms over them: literals, names bound to literals, ``+`` on str/list/tuple and
numbers, unary minus, f-strings, subscripts, ``dict.keys()/values()/items()``,
``list()/tuple()/sorted()/set()`` of a known value, ``TABLE.get(key[, fallback])`` on a
known dict, and list/set/dict comprehensions. Anything else is :data:`UNKNOWN`; for such
a value, :meth:`StaticScope.value_type` still gives its type when the code fixes it
(``float(os.getenv(...))``, ``datetime.now().strftime(...)``, an f-string, a module
table's entry whose values share one type).

A hostile module must not make evaluation slow or large, so one :class:`Budget` per scope
(the module's bindings and every later :meth:`StaticScope.evaluate`) bounds:

- total work, in units (:data:`WORK_BUDGET`): every node evaluated, every element built,
  copied, hashed or compared, every comprehension scope bound. Hashing or comparing a
  value costs its *expanded* size, since Python walks shared references again each time;
- the size of every value built (:data:`MAX_VALUE_SIZE` units, counted as if fully
  expanded, so ``a = [a, a]`` doubles the size although it adds two references) and its
  nesting depth (:data:`MAX_VALUE_DEPTH`).

Sizes are measured when a value is built and remembered by identity, so measuring costs
each element once. A value over a cap is never built into another; the expression
evaluates to :data:`UNKNOWN` and :attr:`Budget.exceeded` says why (``derive`` reports it as
``evaluation_budget_exceeded``). Once the work is spent, every later evaluation of the
scope is :data:`UNKNOWN`. Because every value reachable from the bindings fits the caps,
what callers do with one (``json.dumps``, ``literal_type``, sorting) is bounded too.
"""

import ast
from typing import Any, Dict, Iterable, List, Optional, Tuple

from mech_catalogue_core.derive.python_hints import (
    literal_type,
)


class _Unknown:
    """The value of an expression this module does not evaluate."""

    _instance: Optional["_Unknown"] = None

    def __new__(cls) -> "_Unknown":
        """Return the singleton.

        :return: the singleton.
        """
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        """Return ``UNKNOWN``.

        :return: ``UNKNOWN``.
        """
        return "UNKNOWN"

    def __bool__(self) -> bool:
        """Return False, so ``if value:`` never treats an unknown as known.

        :return: False, so ``if value:`` never treats an unknown as known.
        """
        return False


UNKNOWN: Any = _Unknown()

#: Work units one scope may spend in all (module bindings plus every later evaluation).
WORK_BUDGET = 200_000
#: Largest value, in size units as if fully expanded: 1 per scalar and per container,
#: plus one per :data:`CHARS_PER_UNIT` characters of a string.
MAX_VALUE_SIZE = 10_000
#: Deepest nesting of containers in one value (the manifest parser's depth cap).
MAX_VALUE_DEPTH = 64
#: Characters of a string that count as one size unit (a 640 KB prompt constant fits).
CHARS_PER_UNIT = 64

_BUILTIN_CONVERSIONS = {"list", "tuple", "sorted", "set", "dict"}
_DICT_VIEWS = {"keys", "values", "items"}


class _BudgetExceeded(Exception):
    """Raised internally when an evaluation runs out of work or builds a value too large."""


class Budget:
    """Work and value-size accounting shared by every evaluation of one scope.

    :param work: work units available in all (default :data:`WORK_BUDGET`).
    :param max_size: largest value, expanded size units (default :data:`MAX_VALUE_SIZE`).
    :param max_depth: deepest value nesting (default :data:`MAX_VALUE_DEPTH`).
    """

    def __init__(
        self,
        work: int = WORK_BUDGET,
        max_size: int = MAX_VALUE_SIZE,
        max_depth: int = MAX_VALUE_DEPTH,
    ) -> None:
        """Start with the whole budget."""
        self.work_left = work
        self.max_size = max_size
        self.max_depth = max_depth
        #: why the budget was first exceeded ("" while it never was), a sentence part
        self.exceeded = ""
        self._measured: Dict[int, Tuple[Any, int, int]] = {}

    def fail(self, why: str) -> None:
        """Record why the budget is exceeded (the first reason is kept) and stop the evaluation.

        :param why: a sentence part, e.g. ``a value of more than 10000 size units``.
        :raises _BudgetExceeded: always.
        """
        self.exceeded = self.exceeded or why
        raise _BudgetExceeded()

    def spend(self, units: int) -> None:
        """Take work units; once the work is spent this (and every later call) stops the evaluation.

        :param units: how many (>= 0).
        """
        self.work_left -= units
        if self.work_left < 0:
            self.fail(f"more than {WORK_BUDGET} work units")

    def size(self, value: Any) -> int:
        """Measure a value as if fully expanded, checking the caps.

        A value over :attr:`max_size` or nested over :attr:`max_depth` deep stops the
        evaluation (:meth:`fail`), as does measuring it with the last work units.

        :param value: a value built by the evaluator.
        :return: its expanded size in units.
        """
        return self._measure(value)[0]

    def _measure(self, value: Any) -> Tuple[int, int]:
        """Return (expanded size, depth), remembered by identity for containers."""
        if isinstance(value, (str, bytes)):
            return 1 + len(value) // CHARS_PER_UNIT, 0
        if isinstance(value, int):
            return 1 + value.bit_length() // 1024, 0
        if not isinstance(value, (list, tuple, dict, set, frozenset)):
            return 1, 0
        known = self._measured.get(id(value))
        if known is not None and known[0] is value:
            return known[1], known[2]
        self.spend(1 + len(value))
        members = (
            [x for pair in value.items() for x in pair]
            if isinstance(value, dict)
            else value
        )
        size, depth = 1, 0
        for member in members:
            member_size, member_depth = self._measure(member)
            size += member_size
            depth = max(depth, member_depth + 1)
            if size > self.max_size:
                self.fail(f"a value of more than {self.max_size} size units")
            if depth > self.max_depth:
                self.fail(f"a value nested more than {self.max_depth} deep")
        # keep the value alive with its measure, so its id cannot be reused by another
        self._measured[id(value)] = (value, size, depth)
        return size, depth


class StaticScope:
    """Module-level literal bindings, and an evaluator over them.

    :param module: a parsed module (``ast.parse`` of the tool's entry point).
    """

    def __init__(self, module: ast.Module, budget: Optional[Budget] = None) -> None:
        """Bind every top-level ``NAME = <literal expression>`` in source order.

        :param module: the parsed module.
        :param budget: the budget for this scope (a fresh :class:`Budget` by default).
        """
        self.budget = budget if budget is not None else Budget()
        self.bindings: Dict[str, Any] = {}
        for statement in module.body:
            self._bind(statement)

    def _bind(self, statement: ast.stmt) -> None:
        """Record one top-level statement's effect on the bindings, if it is a literal one."""
        if isinstance(statement, ast.Assign):
            value = self.evaluate(statement.value)
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    self.bindings[target.id] = value
        elif isinstance(statement, ast.AnnAssign) and isinstance(
            statement.target, ast.Name
        ):
            if statement.value is not None:
                self.bindings[statement.target.id] = self.evaluate(statement.value)
        elif isinstance(statement, ast.AugAssign) and isinstance(
            statement.target, ast.Name
        ):
            name = statement.target.id
            combined = ast.BinOp(
                left=ast.Name(id=name, ctx=ast.Load()),
                op=statement.op,
                right=statement.value,
            )
            self.bindings[name] = self.evaluate(combined)
        elif isinstance(
            statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            self.bindings[statement.name] = UNKNOWN
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                self.bindings[(alias.asname or alias.name).split(".")[0]] = UNKNOWN
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            self._bind_mutation(statement.value)

    def _bind_mutation(self, call: ast.Call) -> None:
        """Follow ``NAME.append(x)`` / ``NAME.extend(xs)`` on a known list; forget others."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return
        name = func.value.id
        current = self.bindings.get(name, UNKNOWN)
        if not isinstance(current, list) or len(call.args) != 1 or call.keywords:
            if name in self.bindings:
                self.bindings[name] = UNKNOWN
            return
        argument = self.evaluate(call.args[0])
        grown: Any = UNKNOWN
        try:
            if func.attr == "append" and argument is not UNKNOWN:
                self.budget.spend(len(current) + 1)
                grown = current + [argument]
            elif func.attr == "extend" and isinstance(argument, (list, tuple)):
                self.budget.spend(len(current) + len(argument))
                grown = current + list(argument)
            if grown is not UNKNOWN:
                self.budget.size(grown)
        except _BudgetExceeded:
            grown = UNKNOWN
        self.bindings[name] = grown

    def evaluate(
        self, node: Optional[ast.AST], local: Optional[Dict[str, Any]] = None
    ) -> Any:
        """Evaluate an expression over the module bindings.

        :param node: an expression node, or None.
        :param local: extra bindings that shadow module ones (comprehension variables).
        :return: the Python value, or :data:`UNKNOWN` when the expression is not a
            supported literal form, refers to something not literal, or exceeds the
            scope's :class:`Budget` (then :attr:`Budget.exceeded` says why).
        """
        if node is None:
            return UNKNOWN
        try:
            return _Evaluator(self.bindings, self.budget).eval(node, dict(local or {}))
        except _BudgetExceeded:
            return UNKNOWN
        except RecursionError:
            self.budget.exceeded = (
                self.budget.exceeded
                or "an expression nested deeper than the evaluator follows"
            )
            return UNKNOWN
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            return UNKNOWN

    def value_type(self, node: Optional[ast.AST]) -> str:
        """The type vocabulary term of an expression's value, when the code fixes it.

        A known value gives its literal's type (:func:`.python_hints.literal_type`);
        an unknown one the type its form fixes (:func:`_form_type`): a builtin
        conversion (``int(...)``, ``float(...)``, ``str(...)``, ``len(...)``), a string
        method (``.strftime(...)``, ``.join(...)``), ``os.getenv(name, "text")``, an
        f-string, a comparison or ``not``, an arithmetic of typed operands, a display
        or comprehension, an entry of a known table whose values share one type.

        :param node: an expression node, or None.
        :return: e.g. ``"float"``, ``"str"``; ``""`` when the type is not fixed (a
            module function's result, ``os.getenv(name)`` that may be None).
        """
        if node is None:
            return ""
        value = self.evaluate(node)
        if value is not UNKNOWN:
            return literal_type(value)
        return _form_type(self, node)


#: builtins whose result has one type whatever they are given
_BUILTIN_RESULTS = {
    "int": "int",
    "float": "float",
    "str": "str",
    "bool": "bool",
    "len": "int",
    "repr": "str",
    "list": "list",
    "tuple": "list",
    "sorted": "list",
    "set": "list",
    "dict": "dict",
}
#: methods that return a string (str's own, and date/time formatting)
_STRING_METHODS = frozenset(
    {
        "strftime",
        "isoformat",
        "format",
        "join",
        "strip",
        "lstrip",
        "rstrip",
        "lower",
        "upper",
        "title",
        "capitalize",
        "casefold",
        "replace",
        "removeprefix",
        "removesuffix",
    }
)
#: ``os.getenv`` and ``os.environ.get``: a string, when the default is a string
_ENVIRONMENT_READERS = ("getenv", "get")


def _form_type(  # pylint: disable=too-many-return-statements
    scope: StaticScope, node: ast.AST
) -> str:
    """The type an expression's form fixes, its value unknown (see :meth:`StaticScope.value_type`).

    :param scope: the module scope (for known tables and shadowed builtins).
    :param node: the expression.
    :return: a type vocabulary term, or "".
    """
    if isinstance(node, ast.Call):
        return _call_type(scope, node)
    if isinstance(node, ast.JoinedStr):
        return "str"
    if isinstance(node, ast.Compare) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    ):
        return "bool"
    if isinstance(node, (ast.List, ast.ListComp, ast.Tuple, ast.Set, ast.SetComp)):
        return "list"
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(node, ast.IfExp):
        return _one_type(scope.value_type(n) for n in (node.body, node.orelse))
    if isinstance(node, ast.BoolOp):
        return _one_type(scope.value_type(n) for n in node.values)
    if isinstance(node, ast.BinOp):
        return _arithmetic_type(scope, node)
    if isinstance(node, ast.Subscript):
        return _entry_type(scope.evaluate(node.value))
    return ""


def _entry_type(table: Any) -> str:
    """The type every entry of a known table shares (``MODELS[tool]``, ``LIMITS[i]``).

    :param table: a value (a dict, list or tuple; anything else has no entries).
    :return: the common literal type of its values, "" when empty, mixed or unknown.
    """
    if isinstance(table, dict):
        entries = list(table.values())
    elif isinstance(table, (list, tuple)):
        entries = list(table)
    else:
        return ""
    return _one_type(literal_type(v) for v in entries) if entries else ""


def _call_type(scope: StaticScope, node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        shadowed = func.id in scope.bindings
        return "" if shadowed else _BUILTIN_RESULTS.get(func.id, "")
    if not isinstance(func, ast.Attribute):
        return ""
    if func.attr in _STRING_METHODS:
        return "str"
    if func.attr in _ENVIRONMENT_READERS and _is_environment(func.value):
        default = node.args[1] if len(node.args) == 2 else None
        return "str" if scope.value_type(default) == "str" else ""
    return ""


def _is_environment(node: ast.AST) -> bool:
    """``os`` (for ``os.getenv``) or ``os.environ`` (for ``os.environ.get``)."""
    if isinstance(node, ast.Name):
        return node.id == "os"
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _arithmetic_type(scope: StaticScope, node: ast.BinOp) -> str:
    left, right = scope.value_type(node.left), scope.value_type(node.right)
    if isinstance(node.op, ast.Mod) and left == "str":
        return "str"
    numbers = {left, right}
    if numbers <= {"int", "float"} and "" not in numbers:
        if isinstance(node.op, ast.Div) or "float" in numbers:
            return "float"
        return "int"
    if isinstance(node.op, ast.Add) and left == right and left in ("str", "list"):
        return left
    return ""


def _one_type(kinds: Iterable[str]) -> str:
    """The common type of several values: "" when any is unknown or they differ."""
    found = set(kinds)
    if len(found) == 1 and "" not in found:
        return found.pop()
    if found and found <= {"int", "float"}:
        return "float"
    return ""


class _Evaluator:  # pylint: disable=too-few-public-methods
    """One evaluation, spending from its scope's budget."""

    # handlers are named after the ast node classes they evaluate: _eval_<NodeClass>
    # pylint: disable=invalid-name

    def __init__(self, bindings: Dict[str, Any], budget: Budget) -> None:
        """Initialise.

        :param bindings: module bindings.
        :param budget: the scope's budget.
        """
        self.bindings = bindings
        self.budget = budget

    def _tick(self, amount: int = 1) -> None:
        self.budget.spend(amount)

    def _sized(self, value: Any) -> Any:
        self.budget.size(value)
        return value

    def _walk_cost(self, *values: Any) -> None:
        """Spend what hashing or comparing these values costs: their expanded sizes."""
        self._tick(sum(self.budget.size(v) for v in values))

    def eval(self, node: ast.AST, local: Dict[str, Any]) -> Any:  # noqa: C901
        """Return value or UNKNOWN.

        :param node: expression.
        :param local: local names.
        :return: value or UNKNOWN.
        """
        self._tick()
        handler = getattr(self, "_eval_" + type(node).__name__, None)
        if handler is None:
            return UNKNOWN
        return self._sized(handler(node, local))

    # --- literals ------------------------------------------------------------------
    def _eval_Constant(self, node: ast.Constant, local: Dict[str, Any]) -> Any:
        del local
        if isinstance(node.value, (str, int, float, bool, type(None))):
            return node.value
        return UNKNOWN

    def _items(self, nodes: Iterable[ast.expr], local: Dict[str, Any]) -> Any:
        values: List[Any] = []
        for element in nodes:
            if isinstance(element, ast.Starred):
                inner = self.eval(element.value, local)
                if not isinstance(inner, (list, tuple)):
                    return UNKNOWN
                self._tick(len(inner))
                values.extend(inner)
                continue
            value = self.eval(element, local)
            if value is UNKNOWN:
                return UNKNOWN
            values.append(value)
        return values

    def _eval_List(self, node: ast.List, local: Dict[str, Any]) -> Any:
        return self._items(node.elts, local)

    def _eval_Tuple(self, node: ast.Tuple, local: Dict[str, Any]) -> Any:
        values = self._items(node.elts, local)
        return UNKNOWN if values is UNKNOWN else tuple(values)

    def _eval_Set(self, node: ast.Set, local: Dict[str, Any]) -> Any:
        values = self._items(node.elts, local)
        if values is UNKNOWN:
            return UNKNOWN
        self._walk_cost(*values)
        try:
            return set(values)
        except TypeError:
            return UNKNOWN

    def _eval_Dict(self, node: ast.Dict, local: Dict[str, Any]) -> Any:
        result: Dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values):
            if key_node is None:
                inner = self.eval(value_node, local)
                if not isinstance(inner, dict):
                    return UNKNOWN
                self._walk_cost(*inner.keys())
                result.update(inner)
                continue
            key = self.eval(key_node, local)
            if key is UNKNOWN or isinstance(key, (list, dict, set)):
                return UNKNOWN
            self._walk_cost(key)
            # an unknown value (e.g. a function in AVAILABLE_TOOLS) keeps the key known
            result[key] = self.eval(value_node, local)
        return result

    def _eval_JoinedStr(self, node: ast.JoinedStr, local: Dict[str, Any]) -> Any:
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and value.format_spec is None:
                inner = self.eval(value.value, local)
                if not isinstance(inner, (str, int, float, bool)):
                    return UNKNOWN
                self._walk_cost(inner)
                parts.append(str(inner))
            else:
                return UNKNOWN
        return "".join(parts)

    # --- names and operators -------------------------------------------------------
    def _eval_Name(self, node: ast.Name, local: Dict[str, Any]) -> Any:
        if node.id in local:
            return local[node.id]
        return self.bindings.get(node.id, UNKNOWN)

    def _eval_UnaryOp(self, node: ast.UnaryOp, local: Dict[str, Any]) -> Any:
        operand = self.eval(node.operand, local)
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
        return UNKNOWN

    def _eval_BinOp(self, node: ast.BinOp, local: Dict[str, Any]) -> Any:
        if not isinstance(node.op, ast.Add):
            return UNKNOWN
        left = self.eval(node.left, local)
        right = self.eval(node.right, local)
        numeric = (int, float)
        if isinstance(left, bool) or isinstance(right, bool):
            return UNKNOWN
        if isinstance(left, numeric) and isinstance(right, numeric):
            return left + right
        if isinstance(left, str) and isinstance(right, str):
            self._walk_cost(left, right)
            return left + right
        for kind in (list, tuple):
            if isinstance(left, kind) and isinstance(right, kind):
                self._tick(len(left) + len(right))
                return left + right  # type: ignore[operator]  # same kind, checked above
        return UNKNOWN

    def _eval_Subscript(self, node: ast.Subscript, local: Dict[str, Any]) -> Any:
        container = self.eval(node.value, local)
        key = self.eval(node.slice, local)
        if container is UNKNOWN or key is UNKNOWN:
            return UNKNOWN
        if isinstance(container, dict):
            self._walk_cost(key)
            return container.get(key, UNKNOWN)
        if isinstance(container, (list, tuple, str)) and isinstance(key, int):
            return container[key]
        return UNKNOWN

    # --- calls -----------------------------------------------------------------------
    def _eval_Call(  # pylint: disable=too-many-return-statements
        self, node: ast.Call, local: Dict[str, Any]
    ) -> Any:
        if node.keywords:
            return UNKNOWN
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and not node.args
            and func.attr in _DICT_VIEWS
        ):
            receiver = self.eval(func.value, local)
            if not isinstance(receiver, dict):
                return UNKNOWN
            if func.attr != "keys" and any(v is UNKNOWN for v in receiver.values()):
                return UNKNOWN
            self._tick(len(receiver))
            return list(getattr(receiver, func.attr)())
        if isinstance(func, ast.Attribute) and func.attr == "get":
            return self._dict_get(func.value, node.args, local)
        if isinstance(func, ast.Name) and func.id in _BUILTIN_CONVERSIONS:
            if func.id in local or self.bindings.get(func.id, None) is not None:
                return UNKNOWN  # shadowed builtin
            if len(node.args) != 1:
                return UNKNOWN
            argument = self.eval(node.args[0], local)
            if not isinstance(argument, (list, tuple, set, dict, str)):
                return UNKNOWN
            self._tick(len(argument))
            if func.id == "sorted":
                # n log n comparisons, each walking at most the whole argument
                self._tick(
                    self.budget.size(argument) * max(1, len(argument).bit_length())
                )
                return sorted(argument)
            if func.id in ("set", "dict"):
                self._walk_cost(argument)  # hashing every element (or key)
            if func.id == "dict":
                return dict(argument)  # type: ignore[arg-type]  # TypeError -> UNKNOWN
            return {"list": list, "tuple": tuple, "set": set}[func.id](argument)
        return UNKNOWN

    def _dict_get(
        self, receiver_node: ast.expr, args: List[ast.expr], local: Dict[str, Any]
    ) -> Any:
        """``TABLE.get(key)`` / ``TABLE.get(key, fallback)`` on a known dict."""
        receiver = self.eval(receiver_node, local)
        if not isinstance(receiver, dict) or not 1 <= len(args) <= 2:
            return UNKNOWN
        key = self.eval(args[0], local)
        if key is UNKNOWN or isinstance(key, (list, dict, set)):
            return UNKNOWN
        self._walk_cost(key)
        if key in receiver:
            return receiver[key]
        return self.eval(args[1], local) if len(args) == 2 else None

    # --- comprehensions --------------------------------------------------------------
    def _comprehension(
        self, generators: List[ast.comprehension], local: Dict[str, Any]
    ) -> Any:
        """Expand comprehension generators into one local scope per produced element."""
        scopes = [local]
        for generator in generators:
            if generator.is_async:
                return UNKNOWN
            next_scopes = []
            for scope in scopes:
                iterable = self.eval(generator.iter, scope)
                if not isinstance(iterable, (list, tuple, set, dict, str)):
                    return UNKNOWN
                for item in iterable:
                    self._tick(1 + len(scope))  # the scope is copied per item
                    bound = _bind_target(generator.target, item, scope)
                    if bound is UNKNOWN:
                        return UNKNOWN
                    keep = True
                    for condition in generator.ifs:
                        verdict = self._condition(condition, bound)
                        if verdict is UNKNOWN:
                            return UNKNOWN
                        keep = keep and verdict
                    if keep:
                        next_scopes.append(bound)
                    if len(next_scopes) > self.budget.max_size:
                        self.budget.fail(
                            f"a comprehension of more than {self.budget.max_size} elements"
                        )
            scopes = next_scopes
        return scopes

    def _condition(self, node: ast.expr, local: Dict[str, Any]) -> Any:
        """Evaluate ``a == b``, ``a != b``, ``a in b``, ``a not in b`` only."""
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            return UNKNOWN
        left = self.eval(node.left, local)
        right = self.eval(node.comparators[0], local)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        self._walk_cost(left, right)
        operator = node.ops[0]
        if isinstance(operator, ast.Eq):
            return left == right
        if isinstance(operator, ast.NotEq):
            return left != right
        if isinstance(operator, (ast.In, ast.NotIn)) and isinstance(
            right, (list, tuple, set, dict, str)
        ):
            inside = left in right
            return inside if isinstance(operator, ast.In) else not inside
        return UNKNOWN

    def _eval_ListComp(self, node: ast.ListComp, local: Dict[str, Any]) -> Any:
        scopes = self._comprehension(node.generators, local)
        if scopes is UNKNOWN:
            return UNKNOWN
        return self._items_from(node.elt, scopes)

    def _eval_SetComp(self, node: ast.SetComp, local: Dict[str, Any]) -> Any:
        values = self._eval_ListComp(node, local)  # type: ignore[arg-type]
        if values is UNKNOWN:
            return UNKNOWN
        self._walk_cost(values)
        return set(values)

    def _eval_DictComp(self, node: ast.DictComp, local: Dict[str, Any]) -> Any:
        scopes = self._comprehension(node.generators, local)
        if scopes is UNKNOWN:
            return UNKNOWN
        keys = self._items_from(node.key, scopes)
        values = self._items_from(node.value, scopes)
        if keys is UNKNOWN or values is UNKNOWN:
            return UNKNOWN
        self._walk_cost(keys)
        return dict(zip(keys, values))

    def _items_from(self, element: ast.expr, scopes: List[Dict[str, Any]]) -> Any:
        values = []
        for scope in scopes:
            value = self.eval(element, scope)
            if value is UNKNOWN:
                return UNKNOWN
            values.append(value)
        return values


def _bind_target(target: ast.expr, item: Any, scope: Dict[str, Any]) -> Any:
    """Bind a comprehension target (name or nested tuple) to an item, in a scope copy."""
    if isinstance(target, ast.Name):
        return {**scope, target.id: item}
    if isinstance(target, ast.Tuple) and isinstance(item, (tuple, list)):
        if len(target.elts) != len(item):
            return UNKNOWN
        bound: Any = scope
        for sub_target, sub_item in zip(target.elts, item):
            bound = _bind_target(sub_target, sub_item, bound)
            if bound is UNKNOWN:
                return UNKNOWN
        return bound
    return UNKNOWN
