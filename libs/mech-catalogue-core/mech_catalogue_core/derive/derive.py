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
- which of those a caller really supplies: a helper parameter the call site binds itself
  (``helper(token=secret, **kwargs)``) is not one; a read the callable refuses to go on
  without (``x = kwargs.get("x")``, then ``if x is None: return error``, ``if not x``,
  ``"x" not in kwargs``, or a helper's ``raise``) is required;
- types from annotations, from literal defaults (resolved through module constants by
  :mod:`.static_values`), from ``int(kwargs["x"])``-style conversions, from annotated
  assignments ``x: int = kwargs[...]`` and from the annotated parameter of a module
  function the value is passed to (an int default passed as ``slippage: float`` is float);
- tool names from ``ALLOWED_TOOLS`` / ``AVAILABLE_TOOLS`` (a list/tuple/set of strings, or
  a dict whose keys are the names);
- descriptions from the callable's docstring (Sphinx ``:param x:`` and Google ``Args:``).

Entry points: :func:`derive_files` (a package's files, handed in), :func:`derive_source`
(module text) and, for a local folder, the adapter
:func:`mech_catalogue_core.adapters.package_folder.derive_package`.
:meth:`DerivedPackage.to_tools` turns the result into :class:`.model.Tool` objects.
"""

# The implementation is split by job; this module keeps every public name importable
# from one place.
from typing import Dict

from mech_catalogue_core.derive.arg_types import (
    model_type,
)
from mech_catalogue_core.derive.kwargs_reads import (
    MAX_HELPER_DEPTH,
    RUNTIME_KWARGS,
)
from mech_catalogue_core.derive.module_analysis import (
    MAX_SOURCE_DEPTH,
    TOOL_LIST_NAMES,
    derive_source,
)
from mech_catalogue_core.derive.package import (
    MAX_COMPONENT_YAML_BYTES,
    MAX_SOURCE_BYTES,
    derive_files,
)
from mech_catalogue_core.derive.python_hints import (
    annotation_type,
    literal_type,
    parse_param_docs,
)
from mech_catalogue_core.derive.results import (
    DerivedArgument,
    DerivedPackage,
    DeriveError,
)
from mech_catalogue_core.model.problems import (  # the problem codes of derivation; re-exported
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
)

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

__all__ = [
    "CODE_DESCRIPTIONS_DERIVE",
    "DeriveError",
    "DerivedArgument",
    "DerivedPackage",
    "MAX_COMPONENT_YAML_BYTES",
    "MAX_HELPER_DEPTH",
    "MAX_SOURCE_BYTES",
    "MAX_SOURCE_DEPTH",
    "RUNTIME_KWARGS",
    "TOOL_LIST_NAMES",
    "annotation_type",
    "derive_files",
    "derive_source",
    "literal_type",
    "model_type",
    "parse_param_docs",
]
