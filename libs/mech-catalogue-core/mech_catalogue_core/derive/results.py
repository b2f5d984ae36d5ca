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

"""What derivation finds: derived arguments and packages, and the error that stops it.

Shapes only; :mod:`.package` reads a tool package, :mod:`.module_analysis` and
:mod:`.kwargs_reads` analyse its entry point, :mod:`.arg_types` decides the types.
"""

import json
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

from mech_catalogue_core.derive.arg_types import (
    model_type,
)
from mech_catalogue_core.model.canonical import (
    canonical_text,
)
from mech_catalogue_core.model.problems import (
    Problem,
)
from mech_catalogue_core.model.tool import (
    SHAPE_ARGUMENTS_V1,
    Argument,
    Provenance,
    Tool,
)
from mech_catalogue_core.model.types import (
    type_schema,
)


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

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "DerivedArgument":
        """Read back :meth:`to_dict`.

        :param data: from :meth:`to_dict`.
        :return: the argument.
        """
        return cls(
            identifier=str(data["identifier"]),
            type=str(data["type"]),
            type_source=str(data["type_source"]),
            required=bool(data["required"]),
            default_json=(
                canonical_text(data["default"]) if "default" in data else None
            ),
            nullable=bool(data["nullable"]),
            description=str(data["description"]),
            runtime=bool(data["runtime"]),
            evidence=tuple(str(e) for e in data["evidence"]),
        )


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

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "DerivedPackage":
        """Read back :meth:`to_dict` (e.g. from the derivation cache).

        :param data: from :meth:`to_dict`.
        :return: the package.
        """
        return cls(
            name=str(data["name"]),
            author=str(data["author"]),
            version=str(data["version"]),
            description=str(data["description"]),
            entry_point=str(data["entry_point"]),
            callable_name=str(data["callable"]),
            tool_names=tuple(str(n) for n in data["tool_names"]),
            arguments=tuple(DerivedArgument.from_dict(a) for a in data["arguments"]),
            params_json=canonical_text(data["params"]),
            problems=tuple(Problem.from_dict(p) for p in data["problems"]),
        )

    def to_arguments(self) -> Tuple[Argument, ...]:
        """Request arguments as model arguments; nullable ones get type ``optional[T]``.

        :return: :class:`.tool.Argument` objects with types normalised by :mod:`..model.types`.
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
    term = model_type(derived.type, derived.nullable)
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
