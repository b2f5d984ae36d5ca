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

"""Collecting the keywords a tool reads from its ``**kwargs`` (signature and body).

Follows the mapping into module-level helpers (``helper(**kwargs)``, ``helper(kwargs)``,
dispatch tables) to :data:`MAX_HELPER_DEPTH` hops; types are decided by :mod:`.arg_types`.
"""

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from mech_catalogue_core.derive.arg_types import (
    CONVERSIONS,
    SOURCE_RANK,
)
from mech_catalogue_core.derive.python_hints import (
    annotation_type,
    literal_type,
)
from mech_catalogue_core.derive.results import (
    DerivedArgument,
)
from mech_catalogue_core.derive.static_values import (
    UNKNOWN,
    StaticScope,
)
from mech_catalogue_core.model.canonical import (
    canonical_text,
)
from mech_catalogue_core.model.problems import (
    DYNAMIC_KWARGS_ACCESS,
    Problem,
    warning,
)

#: How many helper-function hops a kwargs mapping is followed through.
MAX_HELPER_DEPTH = 3

#: Keywords the mech runtime supplies itself (valory-xyz/mech task_execution
#: ``_prepare_task``); they are not part of a request, so not arguments of the tool.
#: ``tool`` is the request's tool name, implied by which tool is called.
RUNTIME_KWARGS = ("tool", "tool_py", "callable_method", "api_keys", "counter_callback")

_NO_DEFAULT = object()


@dataclass
class _Read:  # pylint: disable=too-many-instance-attributes
    """Mutable accumulator for one identifier while collecting."""

    identifier: str
    subscripted: bool = False
    guarded: bool = False
    default: Any = _NO_DEFAULT
    type: str = "any"
    type_source: str = ""
    nullable: bool = False
    from_signature: bool = False
    refused_when_missing: bool = False
    evidence: List[str] = field(default_factory=list)

    def offer_type(self, type_name: str, source: str) -> None:
        """Keep the type from the most reliable source (:data:`SOURCE_RANK`)."""
        if type_name == "any":
            return
        if SOURCE_RANK[source] > SOURCE_RANK[self.type_source]:
            self.type, self.type_source = type_name, source

    def offer_default(self, value: Any) -> None:
        """Record a default: the read is optional; the first known default wins."""
        self.guarded = True
        if value is None:
            self.nullable = True
        if self.default is _NO_DEFAULT and value is not UNKNOWN:
            self.default = value
            literal = literal_type(value)
            if literal:
                self.offer_type(literal, "default")


class Collector:
    """Walks the callable (and helpers it hands kwargs to) collecting keyword reads."""

    def __init__(  # pylint: disable=too-many-arguments
        self,
        scope: StaticScope,
        scope_module: ast.Module,
        functions: Dict[str, ast.FunctionDef],
        problems: List[Problem],
        filename: str,
    ) -> None:
        """Initialise.

        :param scope: the module's static values (shared evaluation budget).
        :param scope_module: the parsed module (for dispatch tables).
        :param functions: its top-level functions by name.
        :param problems: where warnings are appended.
        :param filename: for messages.
        """
        self.scope = scope
        self.functions = functions
        self.problems = problems
        self.filename = filename
        self.reads: Dict[str, _Read] = {}
        self.dispatch_tables = _dispatch_tables(scope_module, functions)
        self.visiting: Set[str] = set()
        self.dynamic_reported = False

    def _read(self, identifier: str) -> _Read:
        if identifier not in self.reads:
            self.reads[identifier] = _Read(identifier)
        return self.reads[identifier]

    # --- signature ---------------------------------------------------------------
    def visit_function(
        self,
        function: ast.FunctionDef,
        mapping_param: Optional[str],
        depth: int,
        bound: FrozenSet[str] = frozenset(),
    ) -> None:
        """Collect a function's named parameters (top level only) and its mapping reads.

        :param function: the function.
        :param mapping_param: the parameter holding the kwargs mapping in a helper called
            as ``helper(kwargs)``; None means "its ``**`` parameter".
        :param depth: helper hops so far.
        :param bound: parameters the call site binds itself (``helper(token=t, **kwargs)``,
            ``helper(t, **kwargs)``): their values do not come from the request.
        """
        if function.name in self.visiting or depth > MAX_HELPER_DEPTH:
            return
        self.visiting.add(function.name)
        args = function.args
        mapping_names: Set[str] = set()
        if mapping_param is not None:
            mapping_names.add(mapping_param)
        elif args.kwarg is not None:
            mapping_names.add(args.kwarg.arg)
        if mapping_param is None:
            self._signature(function, bound)
        for name in list(mapping_names):
            mapping_names |= _aliases(function, name)
        self._scan_body(function, mapping_names, depth)
        self._refusals(function, mapping_names, depth)
        self.visiting.discard(function.name)

    def _signature(self, function: ast.FunctionDef, bound: FrozenSet[str]) -> None:
        args = function.args
        positional = list(args.posonlyargs) + list(args.args)
        defaults: List[Optional[ast.expr]] = [None] * (
            len(positional) - len(args.defaults)
        )
        defaults += list(args.defaults)
        pairs = list(zip(positional, defaults)) + list(
            zip(args.kwonlyargs, args.kw_defaults)
        )
        for parameter, default_node in pairs:
            if parameter.arg in ("self", "cls") or parameter.arg in bound:
                continue
            read = self._read(parameter.arg)
            read.from_signature = True
            read.evidence.append(f"{function.name}:{parameter.lineno}:parameter")
            kind, nullable = annotation_type(parameter.annotation)
            read.offer_type(kind, "annotation")
            read.nullable = read.nullable or nullable
            if default_node is None:
                read.subscripted = True
            else:
                default = self.scope.evaluate(default_node)
                read.offer_default(default)
                if default is UNKNOWN:
                    self._offer_form_type(read, default_node)

    def _offer_form_type(self, read: _Read, default_node: Optional[ast.expr]) -> None:
        """Type a read whose default is computed at run time by what the code fixes.

        :param read: the read.
        :param default_node: its default expression (value unknown).
        """
        kind = self.scope.value_type(default_node)
        if kind:
            read.offer_type(kind, "default")

    # --- body --------------------------------------------------------------------
    def _scan_body(
        self, function: ast.FunctionDef, mapping: Set[str], depth: int
    ) -> None:
        parents = _parent_map(function)
        calls: List[ast.Call] = []
        for node in ast.walk(function):
            if isinstance(node, ast.Subscript) and _is_mapping(node.value, mapping):
                self._subscript(node, parents, function.name)
            elif isinstance(node, ast.Call):
                self._call(node, mapping, parents, function.name, depth)
                calls.append(node)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1:
                self._membership(node, mapping, function.name)
        local_reads = _local_reads(function, mapping)
        for call in calls:
            self._flow(call, mapping, local_reads)

    def _subscript(
        self, node: ast.Subscript, parents: Dict[ast.AST, ast.AST], where: str
    ) -> None:
        key = _literal_key(node.slice)
        if key is None:
            self._dynamic(node)
            return
        read = self._read(key)
        if isinstance(node.ctx, ast.Load):
            read.subscripted = True
            read.evidence.append(f"{where}:{node.lineno}:subscript")
            self._type_from_use(node, read, parents)

    def _call(  # pylint: disable=too-many-arguments
        self,
        node: ast.Call,
        mapping: Set[str],
        parents: Dict[ast.AST, ast.AST],
        where: str,
        depth: int,
    ) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and _is_mapping(func.value, mapping):
            if func.attr in ("get", "pop", "setdefault") and node.args:
                key = _literal_key(node.args[0])
                if key is None:
                    self._dynamic(node)
                    return
                read = self._read(key)
                default_node = node.args[1] if len(node.args) > 1 else None
                if default_node is None and func.attr == "pop":
                    read.subscripted = True  # pop without default raises like []
                else:
                    default = (
                        None
                        if default_node is None
                        else self.scope.evaluate(default_node)
                    )
                    read.offer_default(default)
                    if default is UNKNOWN:  # computed at run time: its form's type
                        self._offer_form_type(read, default_node)
                read.evidence.append(f"{where}:{node.lineno}:{func.attr}")
                self._type_from_use(node, read, parents)
            return
        for helper in self._callees(func):
            self._follow(helper, node, mapping, depth)

    def _callees(self, func: ast.expr) -> List[ast.FunctionDef]:
        """Module functions a call may reach (helper name or a dispatch-table entry).

        :param func: the called expression: ``helper`` or ``DISPATCH[key]``, where
            ``DISPATCH`` is a top-level dict literal whose values name functions.
        :return: the functions, empty when the callee is not a module function.
        """
        if isinstance(func, ast.Name) and func.id in self.functions:
            return [self.functions[func.id]]
        if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name):
            table = self.dispatch_tables.get(func.value.id, ())
            return [self.functions[name] for name in table if name in self.functions]
        return []

    def _follow(
        self, helper: ast.FunctionDef, node: ast.Call, mapping: Set[str], depth: int
    ) -> None:
        for keyword in node.keywords:
            if keyword.arg is None and _is_mapping(keyword.value, mapping):
                self.visit_helper(helper, None, depth, _bound_at(helper, node))
            elif keyword.arg is not None and _is_mapping(keyword.value, mapping):
                self.visit_helper(helper, keyword.arg, depth)
        for index, argument in enumerate(node.args):
            if _is_mapping(argument, mapping):
                params = list(helper.args.posonlyargs) + list(helper.args.args)
                if index < len(params):
                    self.visit_helper(helper, params[index].arg, depth)

    def visit_helper(
        self,
        helper: ast.FunctionDef,
        mapping_param: Optional[str],
        depth: int,
        bound: FrozenSet[str] = frozenset(),
    ) -> None:
        """Follow the mapping into a helper.

        ``helper(**kwargs)`` (mapping_param None): the helper's named parameters are
        keywords the tool reads, and its own ``**`` mapping is scanned; ``helper(kwargs)``:
        reads on the parameter ``mapping_param`` are scanned.

        :param helper: the module-level function receiving the mapping.
        :param mapping_param: its parameter holding the mapping, or None for ``**``.
        :param depth: hops so far.
        :param bound: the helper's parameters the call binds itself (not from the request).
        """
        self.visit_function(helper, mapping_param, depth + 1, bound)

    def _membership(self, node: ast.Compare, mapping: Set[str], where: str) -> None:
        if isinstance(node.ops[0], (ast.In, ast.NotIn)) and _is_mapping(
            node.comparators[0], mapping
        ):
            key = _literal_key(node.left)
            if key is not None:
                read = self._read(key)
                read.guarded = True
                read.evidence.append(f"{where}:{node.lineno}:membership")

    def _flow(
        self, node: ast.Call, mapping: Set[str], local_reads: Dict[str, str]
    ) -> None:
        """Type a read by the annotated parameter of a module function it is passed to.

        ``slippage = kwargs.get("slippage", 0)`` then ``apply(price, slippage)`` with
        ``def apply(price: float, slippage: float)``: a caller may send 0.5, so the
        argument is a float although its literal default is an int.

        :param node: a call.
        :param mapping: names bound to the kwargs mapping.
        :param local_reads: local names bound to a read (name -> identifier).
        """
        for callee in self._callees(node.func):
            for parameter, value in _passed(callee, node):
                identifier = _read_identifier(value, mapping, local_reads)
                if identifier is not None:
                    kind, _ = annotation_type(parameter.annotation)
                    self._read(identifier).offer_type(kind, "flow")

    def _refusals(
        self, function: ast.FunctionDef, mapping: Set[str], depth: int
    ) -> None:
        """Mark reads the function refuses to go on without.

        ``x = kwargs.get("x")`` then ``if x is None: return "error", ...`` (or ``if not
        x``, ``if "x" not in kwargs``, ``x is None or y is None``; ``raise`` instead of
        ``return``) means a caller must give ``x``, whatever ``.get`` suggests. Only the
        callable itself fails the request by returning; a helper must raise. A name is
        taken as the read it was last bound to before the ``if`` (in source order), so
        early returns, raises and cleaning steps before the check (``x = x.strip()``,
        ``x = kwargs.get("x", "").strip()``) do not hide it; a name rebound to
        something else (``x = "fallback"``) is not the read any more.

        :param function: the function scanned.
        :param mapping: names bound to the kwargs mapping.
        :param depth: helper hops so far (0 is the callable).
        """
        bindings = _bindings(function, mapping)
        stops = (ast.Return, ast.Raise) if depth == 0 else (ast.Raise,)
        for node in ast.walk(function):
            if not isinstance(node, ast.If) or not isinstance(node.body[-1], stops):
                continue
            local_reads = _reads_before(bindings, _position(node))
            for identifier in _missing_tests(node.test, mapping, local_reads):
                read = self._read(identifier)
                read.refused_when_missing = True
                read.evidence.append(
                    f"{function.name}:{node.lineno}:refused_when_missing"
                )

    def _type_from_use(
        self, node: ast.AST, read: _Read, parents: Dict[ast.AST, ast.AST]
    ) -> None:
        parent = parents.get(node)
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id in CONVERSIONS
            and len(parent.args) == 1
            and parent.args[0] is node
        ):
            read.offer_type(CONVERSIONS[parent.func.id], "conversion")
        elif isinstance(parent, ast.AnnAssign) and parent.value is node:
            kind, nullable = annotation_type(parent.annotation)
            read.offer_type(kind, "annotation")
            read.nullable = read.nullable or nullable

    @staticmethod
    def _conventions(read: _Read, params: Dict[str, Any]) -> None:
        """Apply what the mech runtime guarantees (valory-xyz/mech task_execution).

        ``prompt`` is the request's text, so a string; ``model`` falls back to the
        component's ``params.default_model`` when the request has none.

        :param read: the accumulated reads of one identifier (updated in place).
        :param params: the component's ``params``.
        """
        if read.identifier == "prompt" and read.type == "any":
            read.type, read.type_source = "str", "convention"
        default_model = params.get("default_model")
        if read.identifier == "model" and isinstance(default_model, str):
            if read.default is _NO_DEFAULT or read.default is None:
                read.default = default_model
                read.guarded = True
                read.nullable = False
            if read.type == "any":
                read.type, read.type_source = "str", "convention"

    def _dynamic(self, node: ast.AST) -> None:
        if self.dynamic_reported:
            return
        self.dynamic_reported = True
        self.problems.append(
            warning(
                DYNAMIC_KWARGS_ACCESS,
                f"{self.filename}:{getattr(node, 'lineno', '?')}: kwargs is read with a "
                "non-literal key; arguments read that way are not listed. Declare them "
                "in an overrides file.",
            )
        )

    # --- result ------------------------------------------------------------------
    def arguments(
        self, docs: Dict[str, str], params: Dict[str, Any]
    ) -> Tuple[DerivedArgument, ...]:
        """Return the arguments.

        :param docs: docstring descriptions.
        :param params: component params.
        :return: the arguments.
        """
        found = []
        for read in self.reads.values():
            self._conventions(read, params)
            default_json = None
            if read.refused_when_missing:
                read.default, read.nullable = _NO_DEFAULT, False
            if read.default is not _NO_DEFAULT:
                try:
                    default_json = canonical_text(_plain(read.default))
                except (ValueError, TypeError):
                    default_json = None
            runtime = read.identifier in RUNTIME_KWARGS
            found.append(
                DerivedArgument(
                    identifier=read.identifier,
                    type=read.type,
                    type_source=read.type_source,
                    required=(read.subscripted and not read.guarded)
                    or read.refused_when_missing,
                    default_json=default_json,
                    nullable=read.nullable,
                    description=docs.get(read.identifier, ""),
                    runtime=runtime,
                    evidence=tuple(read.evidence),
                )
            )
        return tuple(a for a in found if not a.runtime) + tuple(
            a for a in found if a.runtime
        )


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return sorted(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        if any(v is UNKNOWN for v in value.values()) or not all(
            isinstance(k, str) for k in value
        ):
            raise ValueError("not a JSON object")
        return {k: _plain(v) for k, v in value.items()}
    return value


def _dispatch_tables(
    module: ast.Module, functions: Dict[str, ast.FunctionDef]
) -> Dict[str, Tuple[str, ...]]:
    """Top-level ``NAME = {"key": function, ...}`` dicts: NAME -> the function names."""
    tables: Dict[str, Tuple[str, ...]] = {}
    for node in module.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            names = tuple(
                v.id
                for v in node.value.values
                if isinstance(v, ast.Name) and v.id in functions
            )
            for target in node.targets:
                if isinstance(target, ast.Name) and names:
                    tables[target.id] = tuple(dict.fromkeys(names))
    return tables


def _literal_key(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _is_mapping(node: ast.AST, mapping: Set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in mapping


def _aliases(function: ast.FunctionDef, name: str) -> Set[str]:
    """Local names bound to the mapping itself (``params = kwargs``, ``params = dict(kwargs)``)."""
    aliases: Set[str] = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            value = node.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id == "dict"
            ):
                value = (
                    value.args[0]
                    if len(value.args) == 1 and not value.keywords
                    else value
                )
            if isinstance(value, ast.Name) and value.id == name:
                aliases.add(node.targets[0].id)
    return aliases


def _parent_map(root: ast.AST) -> Dict[ast.AST, ast.AST]:
    parents: Dict[ast.AST, ast.AST] = {}
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _bound_at(helper: ast.FunctionDef, node: ast.Call) -> FrozenSet[str]:
    """The helper's parameters a call binds itself (explicit keywords and positionals)."""
    return frozenset(parameter.arg for parameter, _ in _passed(helper, node))


def _passed(
    function: ast.FunctionDef, node: ast.Call
) -> List[Tuple[ast.arg, ast.expr]]:
    """Pair a call's explicit arguments with the function's parameters they bind."""
    positional = list(function.args.posonlyargs) + list(function.args.args)
    by_name = {p.arg: p for p in positional + list(function.args.kwonlyargs)}
    pairs = [
        (positional[index], value)
        for index, value in enumerate(node.args)
        if index < len(positional) and not isinstance(value, ast.Starred)
    ]
    pairs += [
        (by_name[keyword.arg], keyword.value)
        for keyword in node.keywords
        if keyword.arg is not None and keyword.arg in by_name
    ]
    return pairs


def _direct_read(node: ast.AST, mapping: Set[str]) -> Optional[str]:
    """The identifier of ``kwargs["x"]`` / ``kwargs.get("x"...)`` / ``.pop`` / ``.setdefault``."""
    if isinstance(node, ast.Subscript) and _is_mapping(node.value, mapping):
        return _literal_key(node.slice)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "pop", "setdefault")
        and _is_mapping(node.func.value, mapping)
        and node.args
    ):
        return _literal_key(node.args[0])
    return None


def _read_identifier(
    node: ast.AST, mapping: Set[str], local_reads: Dict[str, str]
) -> Optional[str]:
    """The identifier an expression carries: a read, a local bound to one, or a walrus."""
    if isinstance(node, ast.NamedExpr):
        node = node.value
    if isinstance(node, ast.Name):
        return local_reads.get(node.id)
    return _direct_read(node, mapping)


def _local_reads(function: ast.FunctionDef, mapping: Set[str]) -> Dict[str, str]:
    """Local names bound to one read (``x = kwargs.get("x")``, ``x: T = kwargs["x"]``, walrus)."""
    # a name bound more than once to different things is left out: its value is not known
    bindings: Dict[str, Optional[str]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value:
            target, value = node.target, node.value
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            bindings[node.target.id] = None
            continue
        else:
            continue
        if isinstance(target, ast.Name):
            identifier = _direct_read(value, mapping)
            previous = bindings.get(target.id, identifier)
            bindings[target.id] = identifier if previous == identifier else None
    return {name: key for name, key in bindings.items() if key is not None}


Position = Tuple[int, int]


def _position(node: ast.AST) -> Position:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _carried_read(
    value: ast.AST, mapping: Set[str], target: str, previous: Optional[str]
) -> Optional[str]:
    """The read a value assigned to ``target`` still is, or None.

    A direct read (``kwargs.get("x")``), a method called on one
    (``kwargs.get("x", "").strip()``), or a value computed from the target's own
    previous read alone (``x = x.strip()``, ``x = str(x)``, ``x = x.strip() if x else
    x``): each is the request's value, cleaned.

    :param value: the assigned expression.
    :param mapping: names bound to the kwargs mapping.
    :param target: the name assigned.
    :param previous: the read the target was bound to before, if any.
    :return: the identifier read, or None.
    """
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        direct = _direct_read(value, mapping)
        if direct is not None:
            return direct
        value = value.func.value
    direct = _direct_read(value, mapping)
    if direct is not None:
        return direct
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    reads = [n for n in ast.walk(value) if _direct_read(n, mapping) is not None]
    if previous is not None and target in names and not reads:
        return previous
    return None


def _bindings(
    function: ast.FunctionDef, mapping: Set[str]
) -> Dict[str, List[Tuple[Position, Optional[str]]]]:
    """Every binding of each local name, in source order, with the read it carries.

    :param function: the function.
    :param mapping: names bound to the kwargs mapping.
    :return: name -> [(position, identifier read or None)], sorted by position.
    """
    found: List[Tuple[Position, str, ast.AST]] = []
    for node in ast.walk(function):
        target: Any = None
        value: ast.AST = ast.Constant(None)  # rebound to something that is not a read
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value:
            target, value = node.target, node.value
        elif isinstance(node, (ast.AugAssign, ast.For)):
            target = node.target
        elif isinstance(node, ast.withitem):
            target = node.optional_vars
        if isinstance(target, ast.Name):  # its position: a withitem has none of its own
            found.append((_position(target), target.id, value))
    bindings: Dict[str, List[Tuple[Position, Optional[str]]]] = {}
    for position, name, value in sorted(found, key=lambda f: f[0]):
        history = bindings.setdefault(name, [])
        previous = history[-1][1] if history else None
        history.append((position, _carried_read(value, mapping, name, previous)))
    return bindings


def _reads_before(
    bindings: Dict[str, List[Tuple[Position, Optional[str]]]], position: Position
) -> Dict[str, str]:
    """Local names whose last binding before ``position`` carries a read.

    :param bindings: from :func:`_bindings`.
    :param position: (line, column) of the statement.
    :return: name -> identifier read.
    """
    reads: Dict[str, str] = {}
    for name, history in bindings.items():
        last = [identifier for at, identifier in history if at < position]
        if last and last[-1] is not None:
            reads[name] = last[-1]
    return reads


def _missing_tests(
    test: ast.expr, mapping: Set[str], local_reads: Dict[str, str]
) -> List[str]:
    """Identifiers a condition is true for when the caller did not give them."""
    # ``x is None``, ``x == None``, ``not x``, ``"x" not in kwargs``, and ``or`` of those
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return [
            i
            for value in test.values
            for i in _missing_tests(value, mapping, local_reads)
        ]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        found = _read_identifier(test.operand, mapping, local_reads)
        return [found] if found else []
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        operator, right = test.ops[0], test.comparators[0]
        if isinstance(operator, ast.NotIn) and _is_mapping(right, mapping):
            key = _literal_key(test.left)
            return [key] if key else []
        if (
            isinstance(operator, (ast.Is, ast.Eq))
            and isinstance(right, ast.Constant)
            and right.value is None
        ):
            found = _read_identifier(test.left, mapping, local_reads)
            return [found] if found else []
    return []
