"""Derive typed tool arguments from a mech tool package by static analysis only.

A mech tool package (valory-xyz/mech, ``packages/<author>/customs/<name>/``) is a folder
with a ``component.yaml`` (fields ``name``, ``author``, ``version``, ``type: custom``,
``description``, ``entry_point``, ``callable``, ``params``, ``dependencies``) and the
entry-point module, whose ``callable`` (normally ``run(**kwargs)``) the mech calls with the
request's fields plus runtime values (valory-xyz/mech,
``packages/valory/skills/task_execution/behaviours.py``, ``_prepare_task``: ``tool_py``,
``callable_method``, ``api_keys``, ``counter_callback``, ``model``).

This module reads those files as text and parses the module with :mod:`ast`; it never
imports or executes tool code. It finds:

- the callable's signature (parameters, annotations, literal defaults);
- reads of its ``**kwargs`` mapping: ``kwargs["x"]`` (required), ``kwargs.get("x", d)`` /
  ``kwargs.pop("x", d)`` / ``kwargs.setdefault("x", d)`` and ``"x" in kwargs`` (optional),
  also inside module-level helpers that receive the mapping (``helper(kwargs)``,
  ``helper(**kwargs)``, ``helper(x=kwargs)``), to a bounded depth;
- types from annotations, from literal defaults (resolved through module constants by
  :mod:`.static_values`), from ``int(kwargs["x"])``-style conversions and from annotated
  assignments ``x: int = kwargs[...]``;
- tool names from ``ALLOWED_TOOLS`` / ``AVAILABLE_TOOLS`` (a list/tuple/set of strings, or
  a dict whose keys are the names);
- descriptions from the callable's docstring (Sphinx ``:param x:`` and Google ``Args:``).

Entry points: :func:`derive_package` (a folder) and :func:`derive_source` (module text).
:meth:`DerivedPackage.to_tools` turns the result into :class:`.model.Tool` objects.
"""

import ast
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

import yaml

from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.python_hints import (
    annotation_type,
    literal_type,
    parse_param_docs,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.static_values import (
    UNKNOWN,
    StaticScope,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.canonical import (
    canonical_text,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.problems import (  # the problem codes of this module; re-exported
    CALLABLE_NOT_FOUND,
    CODE_DESCRIPTIONS,
    DYNAMIC_KWARGS_ACCESS,
    ENTRY_POINT_NOT_FOUND,
    EVALUATION_BUDGET_EXCEEDED,
    INVALID_COMPONENT_YAML,
    NO_TOOL_LIST,
    NOT_A_CUSTOM_COMPONENT,
    PACKAGE_NOT_FOUND,
    SOURCE_SYNTAX_ERROR,
    SOURCE_TOO_DEEP,
    SOURCE_TOO_LARGE,
    UNRESOLVED_TOOL_LIST,
    Problem,
    error,
    warning,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.tool import (
    SHAPE_ARGUMENTS_V1,
    Argument,
    Provenance,
    Tool,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.types import (
    ANY,
    normalise_type,
    type_schema,
)

#: Byte caps on what is read from a tool package.
MAX_COMPONENT_YAML_BYTES = 64 * 1024
MAX_SOURCE_BYTES = 2 * 1024 * 1024
#: How many helper-function hops a kwargs mapping is followed through.
MAX_HELPER_DEPTH = 3
#: Deepest syntax-tree nesting analysed; deeper modules are refused (``source_too_deep``)
#: before any recursive walk, so the outcome never depends on the interpreter's
#: recursion limit (real tool modules nest a few dozen levels).
MAX_SOURCE_DEPTH = 200

#: Keywords the mech runtime supplies itself (valory-xyz/mech task_execution
#: ``_prepare_task``); they are not part of a request, so not arguments of the tool.
#: ``tool`` is the request's tool name, implied by which tool is called.
RUNTIME_KWARGS = ("tool", "tool_py", "callable_method", "api_keys", "counter_callback")

#: Module constants that list the tool names a package serves, in lookup order.
TOOL_LIST_NAMES = ("ALLOWED_TOOLS", "AVAILABLE_TOOLS")

#: this module's problem codes, with their sentences (the registry is problems.py)
CODE_DESCRIPTIONS_DERIVE: Dict[str, str] = {
    code: CODE_DESCRIPTIONS[code]
    for code in (
        PACKAGE_NOT_FOUND,
        INVALID_COMPONENT_YAML,
        NOT_A_CUSTOM_COMPONENT,
        ENTRY_POINT_NOT_FOUND,
        SOURCE_TOO_LARGE,
        SOURCE_SYNTAX_ERROR,
        CALLABLE_NOT_FOUND,
        NO_TOOL_LIST,
        UNRESOLVED_TOOL_LIST,
        DYNAMIC_KWARGS_ACCESS,
        EVALUATION_BUDGET_EXCEEDED,
        SOURCE_TOO_DEEP,
    )
}

#: ``int(kwargs["x"])`` says x is numeric; ``str()``/``bool()`` accept anything, so say nothing.
_CONVERSIONS = {"int": "int", "float": "float"}
# precedence when several sources give a type: annotation > conversion > default literal
_SOURCE_RANK = {"annotation": 4, "conversion": 3, "default": 2, "convention": 1, "": 0}

_NO_DEFAULT = object()


class DeriveError(ValueError):
    """Raised when a tool package cannot be analysed at all.

    :param problem: the :class:`.problems.Problem` saying what failed and what to do.
    """

    def __init__(self, problem: Problem) -> None:
        """Initialise.

        :param problem: the reason.
        """
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class DerivedArgument:  # pylint: disable=too-many-instance-attributes
    """One keyword argument found in the tool's code.

    :param identifier: the keyword.
    :param type: type vocabulary term (``str``, ``int``, ``float``, ``bool``, ``list``,
        ``list[str]``..., ``dict``, ``any``); ``any`` when nothing says.
    :param type_source: ``annotation``, ``conversion``, ``default``, ``convention`` (what
        the mech runtime guarantees: ``prompt`` is text, ``model`` a name) or ``""``.
    :param required: True when read as ``kwargs["x"]`` with no membership test, no
        ``.get``/``.pop`` with a default anywhere, or a signature parameter without default.
    :param default_json: canonical JSON of a literal default, None when none is known
        (``kwargs.get("x")`` has default null, which makes the argument nullable).
    :param nullable: True when None is a possible value (``Optional[...]`` or default None).
    :param description: from the callable's docstring ("" when none).
    :param runtime: True for keywords the mech runtime supplies (:data:`RUNTIME_KWARGS`).
    :param evidence: ``"<function>:<line>:<how>"`` strings for each read, in source order.
    """

    identifier: str
    type: str = "any"
    type_source: str = ""
    required: bool = False
    default_json: Optional[str] = None
    nullable: bool = False
    description: str = ""
    runtime: bool = False
    evidence: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict (``default`` only when known).

        :return: a JSON-serialisable dict (``default`` only when known).
        """
        data: Dict[str, Any] = {
            "identifier": self.identifier,
            "type": self.type,
            "type_source": self.type_source,
            "required": self.required,
            "nullable": self.nullable,
            "description": self.description,
            "runtime": self.runtime,
            "evidence": list(self.evidence),
        }
        if self.default_json is not None:
            data["default"] = json.loads(self.default_json)
        return data


@dataclass(frozen=True)
class DerivedPackage:  # pylint: disable=too-many-instance-attributes
    """What static analysis found in one tool package.

    :param name: component ``name``.
    :param author: component ``author``.
    :param version: component ``version``.
    :param description: component ``description`` (or the callable's docstring summary).
    :param entry_point: the module file, relative to the package folder.
    :param callable_name: the component's ``callable``.
    :param tool_names: the names the package serves (ALLOWED_TOOLS...), or ``(name,)``.
    :param arguments: every keyword found, request arguments first in source order, then
        runtime ones (:attr:`DerivedArgument.runtime`).
    :param params_json: canonical JSON of component ``params`` (e.g. ``default_model``).
    :param problems: warnings met on the way (errors raise :class:`DeriveError`).
    """

    name: str
    author: str = ""
    version: str = ""
    description: str = ""
    entry_point: str = ""
    callable_name: str = "run"
    tool_names: Tuple[str, ...] = ()
    arguments: Tuple[DerivedArgument, ...] = ()
    params_json: str = "{}"
    problems: Tuple[Problem, ...] = ()

    @property
    def request_arguments(self) -> Tuple[DerivedArgument, ...]:
        """Return the arguments a caller supplies (runtime keywords left out).

        :return: the arguments a caller supplies (runtime keywords left out).
        """
        return tuple(a for a in self.arguments if not a.runtime)

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict.

        :return: a JSON-serialisable dict.
        """
        return {
            "name": self.name,
            "author": self.author,
            "version": self.version,
            "description": self.description,
            "entry_point": self.entry_point,
            "callable": self.callable_name,
            "tool_names": list(self.tool_names),
            "arguments": [a.to_dict() for a in self.arguments],
            "params": json.loads(self.params_json),
            "problems": [p.to_dict() for p in self.problems],
        }

    def to_arguments(self) -> Tuple[Argument, ...]:
        """Request arguments as model arguments; nullable ones get type ``optional[T]``.

        :return: :class:`.tool.Argument` objects with types normalised by :mod:`.types`.
        """
        return tuple(_to_model_argument(a) for a in self.request_arguments)

    def to_tools(self) -> Tuple[Tool, ...]:
        """One model :class:`.tool.Tool` per served tool name, all with the same arguments.

        :return: the tools, in :attr:`tool_names` order; input type ``text`` as today's
            manifests declare, provenance shape ``arguments_v1`` (typed arguments).
        """
        arguments = self.to_arguments()
        return tuple(
            Tool(
                name=name,
                description=self.description,
                arguments=arguments,
                input_type="text",
                input_description=_prompt_description(arguments),
                provenance=Provenance(SHAPE_ARGUMENTS_V1),
            )
            for name in self.tool_names
        )


def _to_model_argument(derived: DerivedArgument) -> Argument:
    term = normalise_type(derived.type) or ANY
    if derived.nullable and term != ANY and not term.startswith("optional["):
        term = f"optional[{term}]"
    return Argument(
        identifier=derived.identifier,
        type=term,
        schema_json=canonical_text(type_schema(term)),
        required=derived.required,
        default_json=derived.default_json,
        description=derived.description,
    )


def _prompt_description(arguments: Sequence[Argument]) -> str:
    for argument in arguments:
        if argument.identifier == "prompt" and argument.description:
            return argument.description
    return ""


# ======================================================================================
# package level
# ======================================================================================
def derive_package(path: Union[str, Path]) -> DerivedPackage:
    """Analyse a tool package folder (never importing its code).

    :param path: the folder holding ``component.yaml`` (or the ``component.yaml`` itself).
    :return: what was found.
    :raises DeriveError: when the folder, ``component.yaml``, entry point or callable is
        missing or unreadable; the problem names the file and what to do.
    """
    folder = Path(path)
    if folder.is_file() and folder.name == "component.yaml":
        folder = folder.parent
    component_file = folder / "component.yaml"
    if not component_file.is_file():
        raise DeriveError(
            error(
                PACKAGE_NOT_FOUND,
                f"{folder}: no component.yaml here; pass the tool package folder "
                "(e.g. packages/<author>/customs/<name>).",
            )
        )
    component = _read_component(component_file)
    warnings: List[Problem] = []
    if component.get("type") != "custom":
        warnings.append(
            warning(
                NOT_A_CUSTOM_COMPONENT,
                f"{component_file}: type is {component.get('type')!r}, expected 'custom'; "
                "derivation continues.",
                "/type",
            )
        )
    entry_file = _entry_point_file(folder, component["entry_point"], component_file)
    raw = _read_capped(entry_file, MAX_SOURCE_BYTES, SOURCE_TOO_LARGE)
    derived = derive_source(
        raw.decode("utf-8", errors="replace"),
        callable_name=component["callable"],
        component_name=str(component.get("name") or folder.name),
        params=(
            component.get("params") if isinstance(component.get("params"), dict) else {}
        ),
        filename=str(entry_file),
    )
    description = str(component.get("description") or "").strip() or derived.description
    return replace(
        derived,
        author=str(component.get("author") or ""),
        version=str(component.get("version") or ""),
        description=description,
        entry_point=str(component["entry_point"]),
        problems=tuple(warnings) + derived.problems,
    )


def _read_capped(path: Path, cap: int, code: str) -> bytes:
    with path.open("rb") as handle:
        raw = handle.read(cap + 1)
    if len(raw) > cap:
        raise DeriveError(error(code, f"{path}: more than the {cap}-byte cap."))
    return raw


def _read_component(component_file: Path) -> Dict[str, Any]:
    raw = _read_capped(component_file, MAX_COMPONENT_YAML_BYTES, INVALID_COMPONENT_YAML)
    try:
        documents = list(yaml.safe_load_all(raw.decode("utf-8")))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DeriveError(
            error(INVALID_COMPONENT_YAML, f"{component_file}: not valid YAML ({exc}).")
        ) from exc
    component = documents[0] if documents else None
    if not isinstance(component, dict):
        raise DeriveError(
            error(
                INVALID_COMPONENT_YAML,
                f"{component_file}: the first document is not a mapping.",
            )
        )
    for key in ("entry_point", "callable"):
        value = component.get(key)
        if not isinstance(value, str) or not value.strip():
            raise DeriveError(
                error(
                    INVALID_COMPONENT_YAML,
                    f"{component_file}: `{key}` is missing or not a string; "
                    "a mech tool needs entry_point (a .py file) and callable (e.g. run).",
                    "/" + key,
                )
            )
    return component


def _entry_point_file(folder: Path, entry_point: str, component_file: Path) -> Path:
    root = folder.resolve()
    candidate = (folder / entry_point).resolve()
    if not candidate.is_relative_to(root) or not candidate.is_file():
        raise DeriveError(
            error(
                ENTRY_POINT_NOT_FOUND,
                f"{component_file}: entry_point {entry_point!r} is not a file inside {folder}.",
                "/entry_point",
            )
        )
    return candidate


# ======================================================================================
# module level
# ======================================================================================
def derive_source(  # pylint: disable=too-many-arguments
    source: str,
    callable_name: str = "run",
    component_name: str = "",
    params: Optional[Dict[str, Any]] = None,
    filename: str = "<tool>",
) -> DerivedPackage:
    """Analyse a tool module's source text.

    :param source: Python source of the entry point.
    :param callable_name: the function the mech calls.
    :param component_name: fallback tool name when the module lists none.
    :param params: the component's ``params`` (``default_model`` becomes ``model``'s default).
    :param filename: for messages.
    :return: what was found (``author``/``version``/``entry_point`` left empty). Values
        the static evaluator's budget (:class:`.static_values.Budget`) stopped are
        unknown, with an ``evaluation_budget_exceeded`` warning.
    :raises DeriveError: on a syntax error, a module nested too deep to analyse
        (``source_too_deep``) or a missing callable.
    """
    try:
        module = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        raise DeriveError(
            error(
                SOURCE_SYNTAX_ERROR,
                f"{filename}: not valid Python (line {line}: {getattr(exc, 'msg', exc)}).",
            )
        ) from exc
    except (RecursionError, MemoryError) as exc:
        raise DeriveError(_too_deep(filename)) from exc
    if _deeper_than(module, MAX_SOURCE_DEPTH):
        raise DeriveError(_too_deep(filename))
    try:
        return _analyse(module, callable_name, component_name, params, filename)
    except RecursionError as exc:
        raise DeriveError(_too_deep(filename)) from exc


def _deeper_than(tree: ast.AST, limit: int) -> bool:
    """Tell whether a syntax tree nests deeper than ``limit`` (iteratively: no recursion)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def _too_deep(filename: str) -> Problem:
    return error(
        SOURCE_TOO_DEEP,
        f"{filename}: the module nests code more than {MAX_SOURCE_DEPTH} levels deep, "
        "deeper than the analyser follows; flatten it (nothing was derived).",
    )


def _analyse(  # pylint: disable=too-many-arguments
    module: ast.Module,
    callable_name: str,
    component_name: str,
    params: Optional[Dict[str, Any]],
    filename: str,
) -> DerivedPackage:
    """Derive from a parsed module (see :func:`derive_source`), within one evaluation budget."""
    scope = StaticScope(module)
    functions = _top_level_functions(module)
    function = functions.get(callable_name)
    if function is None:
        raise DeriveError(
            error(
                CALLABLE_NOT_FOUND,
                f"{filename}: no top-level function {callable_name!r}; check `callable` "
                "in component.yaml.",
            )
        )
    problems: List[Problem] = []
    tool_names = _tool_names(
        scope, module, component_name or Path(filename).stem, problems
    )
    collector = _Collector(scope, module, functions, problems, filename)
    collector.visit_function(function, None, depth=0)
    docs = parse_param_docs(ast.get_docstring(function) or "")
    params = dict(params or {})
    arguments = collector.arguments(docs, params)
    if scope.budget.exceeded:
        problems.append(
            warning(
                EVALUATION_BUDGET_EXCEEDED,
                f"{filename}: evaluating module constants stopped at "
                f"{scope.budget.exceeded}; the values involved (tool list, defaults) are "
                "unknown. Write them as small literals.",
            )
        )
    return DerivedPackage(
        name=component_name or Path(filename).stem,
        description=_summary(ast.get_docstring(function) or ""),
        callable_name=callable_name,
        tool_names=tool_names,
        arguments=arguments,
        params_json=canonical_text(_jsonable(params)),
        problems=tuple(problems),
    )


def _jsonable(value: Any) -> Any:
    try:
        canonical_text(value)
        return value
    except (ValueError, TypeError):
        return json.loads(json.dumps(value, default=str))


def _top_level_functions(module: ast.Module) -> Dict[str, ast.FunctionDef]:
    found: Dict[str, ast.FunctionDef] = {}
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = node  # type: ignore[assignment]
    return found


def _tool_names(
    scope: StaticScope, module: ast.Module, fallback: str, problems: List[Problem]
) -> Tuple[str, ...]:
    assigned = _assigned_names(module)
    for constant in TOOL_LIST_NAMES:
        if constant not in assigned:
            continue
        value = scope.bindings.get(constant, UNKNOWN)
        if isinstance(value, dict):
            value = list(value.keys())
        if (
            isinstance(value, (list, tuple, set))
            and value
            and all(isinstance(v, str) for v in value)
        ):
            ordered = sorted(value) if isinstance(value, set) else list(value)
            return tuple(dict.fromkeys(ordered))
        problems.append(
            warning(
                UNRESOLVED_TOOL_LIST,
                f"{constant} is not a literal list of strings (or a dict with string keys); "
                f"using the component name {fallback!r}. Write it as a literal to list every tool.",
            )
        )
        return (fallback,)
    problems.append(
        warning(
            NO_TOOL_LIST,
            f"no {' / '.join(TOOL_LIST_NAMES)} in the module; using the component name {fallback!r}.",
        )
    )
    return (fallback,)


def _assigned_names(module: ast.Module) -> Set[str]:
    names: Set[str] = set()
    for node in module.body:
        targets: List[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _summary(docstring: str) -> str:
    first = docstring.strip().split("\n\n", 1)[0]
    return " ".join(first.split())


# ======================================================================================
# kwargs reads
# ======================================================================================
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
    evidence: List[str] = field(default_factory=list)

    def offer_type(self, type_name: str, source: str) -> None:
        """Keep the type from the most reliable source (:data:`_SOURCE_RANK`)."""
        if type_name == "any":
            return
        if _SOURCE_RANK[source] > _SOURCE_RANK[self.type_source]:
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


class _Collector:
    """Walks the callable (and helpers it hands kwargs to) collecting keyword reads."""

    def __init__(  # pylint: disable=too-many-arguments
        self,
        scope: StaticScope,
        scope_module: ast.Module,
        functions: Dict[str, ast.FunctionDef],
        problems: List[Problem],
        filename: str,
    ) -> None:
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
        self, function: ast.FunctionDef, mapping_param: Optional[str], depth: int
    ) -> None:
        """Collect a function's named parameters (top level only) and its mapping reads.

        :param function: the function.
        :param mapping_param: the parameter holding the kwargs mapping in a helper called
            as ``helper(kwargs)``; None means "its ``**`` parameter".
        :param depth: helper hops so far.
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
            self._signature(function)
        for name in list(mapping_names):
            mapping_names |= _aliases(function, name)
        self._scan_body(function, mapping_names, depth)
        self.visiting.discard(function.name)

    def _signature(self, function: ast.FunctionDef) -> None:
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
            if parameter.arg in ("self", "cls"):
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
                read.offer_default(self.scope.evaluate(default_node))

    # --- body --------------------------------------------------------------------
    def _scan_body(
        self, function: ast.FunctionDef, mapping: Set[str], depth: int
    ) -> None:
        parents = _parent_map(function)
        for node in ast.walk(function):
            if isinstance(node, ast.Subscript) and _is_mapping(node.value, mapping):
                self._subscript(node, parents, function.name)
            elif isinstance(node, ast.Call):
                self._call(node, mapping, parents, function.name, depth)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1:
                self._membership(node, mapping, function.name)

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
                self.visit_helper(helper, None, depth)
            elif keyword.arg is not None and _is_mapping(keyword.value, mapping):
                self.visit_helper(helper, keyword.arg, depth)
        for index, argument in enumerate(node.args):
            if _is_mapping(argument, mapping):
                params = list(helper.args.posonlyargs) + list(helper.args.args)
                if index < len(params):
                    self.visit_helper(helper, params[index].arg, depth)

    def visit_helper(
        self, helper: ast.FunctionDef, mapping_param: Optional[str], depth: int
    ) -> None:
        """Follow the mapping into a helper.

        ``helper(**kwargs)`` (mapping_param None): the helper's named parameters are
        keywords the tool reads, and its own ``**`` mapping is scanned; ``helper(kwargs)``:
        reads on the parameter ``mapping_param`` are scanned.

        :param helper: the module-level function receiving the mapping.
        :param mapping_param: its parameter holding the mapping, or None for ``**``.
        :param depth: hops so far.
        """
        self.visit_function(helper, mapping_param, depth + 1)

    def _membership(self, node: ast.Compare, mapping: Set[str], where: str) -> None:
        if isinstance(node.ops[0], (ast.In, ast.NotIn)) and _is_mapping(
            node.comparators[0], mapping
        ):
            key = _literal_key(node.left)
            if key is not None:
                read = self._read(key)
                read.guarded = True
                read.evidence.append(f"{where}:{node.lineno}:membership")

    def _type_from_use(
        self, node: ast.AST, read: _Read, parents: Dict[ast.AST, ast.AST]
    ) -> None:
        parent = parents.get(node)
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id in _CONVERSIONS
            and len(parent.args) == 1
            and parent.args[0] is node
        ):
            read.offer_type(_CONVERSIONS[parent.func.id], "conversion")
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
                    required=read.subscripted and not read.guarded,
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
