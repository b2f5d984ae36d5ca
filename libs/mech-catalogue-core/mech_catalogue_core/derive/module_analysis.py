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

"""Analysing an entry-point module's text: parse, depth guard, tool names, the callable.

The keyword reads themselves are collected by :mod:`.kwargs_reads`.
"""

import ast
import json
from pathlib import PurePath
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from mech_catalogue_core.derive.kwargs_reads import (
    Collector,
)
from mech_catalogue_core.derive.python_hints import (
    parse_param_docs,
)
from mech_catalogue_core.derive.results import (
    DerivedPackage,
    DeriveError,
)
from mech_catalogue_core.derive.static_values import (
    UNKNOWN,
    StaticScope,
)
from mech_catalogue_core.model.canonical import (
    canonical_text,
)
from mech_catalogue_core.model.problems import (
    CALLABLE_NOT_FOUND,
    EVALUATION_BUDGET_EXCEEDED,
    NO_TOOL_LIST,
    SOURCE_SYNTAX_ERROR,
    SOURCE_TOO_DEEP,
    UNRESOLVED_TOOL_LIST,
    Problem,
    error,
    warning,
)

#: Deepest syntax-tree nesting analysed; deeper modules are refused (``source_too_deep``)
#: before any recursive walk, so the outcome never depends on the interpreter's
#: recursion limit (real tool modules nest a few dozen levels).
MAX_SOURCE_DEPTH = 200

#: Module constants that list the tool names a package serves, in lookup order.
TOOL_LIST_NAMES = ("ALLOWED_TOOLS", "AVAILABLE_TOOLS")


def derive_source(  # pylint: disable=too-many-arguments
    source: str,
    callable_name: str = "run",
    component_name: str = "",
    params: Optional[Dict[str, Any]] = None,
    filename: str = "<tool>",
    siblings: Optional[Mapping[str, str]] = None,
) -> DerivedPackage:
    """Analyse a tool module's source text.

    :param source: Python source of the entry point.
    :param callable_name: the function the mech calls.
    :param component_name: fallback tool name when the module lists none.
    :param params: the component's ``params`` (``default_model`` becomes ``model``'s default).
    :param filename: for messages.
    :param siblings: other modules of the package (file name -> source); functions the
        entry point imports from them (``from .helpers import call``,
        ``from packages.<author>.customs.<name>.helpers import call``) are followed like
        its own; a sibling that does not parse is skipped.
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
        return _analyse(
            module,
            callable_name,
            component_name,
            params,
            filename,
            _imported_functions(module, siblings or {}),
        )
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
    imported: Dict[str, ast.FunctionDef],
) -> DerivedPackage:
    """Derive from a parsed module (see :func:`derive_source`), within one evaluation budget."""
    scope = StaticScope(module)
    functions = {**imported, **_top_level_functions(module)}
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
        scope, module, component_name or PurePath(filename).stem, problems
    )
    collector = Collector(scope, module, functions, problems, filename)
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
        name=component_name or PurePath(filename).stem,
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


def _imported_functions(
    module: ast.Module, siblings: Mapping[str, str]
) -> Dict[str, ast.FunctionDef]:
    """Top-level functions the module imports by name from sibling modules (local names)."""
    found: Dict[str, ast.FunctionDef] = {}
    for node in module.body:
        if not isinstance(node, ast.ImportFrom) or not node.module:
            continue
        parts = node.module.split(".")
        sibling = parts[-1] + ".py"
        in_package = node.level == 1 or (
            len(parts) == 5 and parts[0] == "packages" and parts[2] == "customs"
        )
        if not in_package or sibling not in siblings:
            continue
        try:
            tree = ast.parse(siblings[sibling])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if _deeper_than(tree, MAX_SOURCE_DEPTH):
            continue
        functions = _top_level_functions(tree)
        for alias in node.names:
            if alias.name in functions:
                found[alias.asname or alias.name] = functions[alias.name]
    return found


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
