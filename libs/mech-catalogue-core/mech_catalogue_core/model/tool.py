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

"""Tool-level parts of the manifest model: MechRef, Provenance, Argument, Tool.

Import them from this module (their one import path). Every JSON-valued field is stored
as RFC 8785 canonical text (``*_json: str``); the property without ``_json`` returns a
fresh decoded copy.
"""

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Dict, Optional, Tuple

from mech_catalogue_core.model.canonical import (
    canonical_text,
    decode,
    json_string,
)
from mech_catalogue_core.model.vocabulary import (
    RegistryKind,
)

# The older names hold the plain ``str`` values of :class:`.vocabulary.RegistryKind` (the
# one definition): click's Choice, for one, reads an Enum member by its *name*, so a
# member passed as ``--kind`` would be refused.
REGISTRY_OLAS_AGENT = RegistryKind.OLAS_AGENT.value
REGISTRY_LEGACY_MECH = RegistryKind.LEGACY_MECH.value
REGISTRY_COMPLEMENTARY_SERVICE = RegistryKind.COMPLEMENTARY_SERVICE.value
REGISTRY_KINDS: Tuple[str, ...] = tuple(kind.value for kind in RegistryKind)

#: Where a tool's metadata came from (which manifest shape).
SHAPE_NAME_ONLY = "name_only"  # `tools: [names]`, no toolMetadata entry
SHAPE_TOOL_METADATA = "tool_metadata"  # toolMetadata with input {type: text}
SHAPE_INPUT_SCHEMA = "input_schema"  # toolMetadata[t].input.schema (JSON Schema)
SHAPE_KWARGS = "kwargs"  # the seed's `kwargs: [{identifier, type}]`
SHAPE_DESCRIPTION_JSON = "description_json"  # JSON stuffed into `description`
SHAPE_ARGUMENTS_V1 = "arguments_v1"  # manifest-v1 typed `arguments`
TOOL_SHAPES = (
    SHAPE_NAME_ONLY,
    SHAPE_TOOL_METADATA,
    SHAPE_INPUT_SCHEMA,
    SHAPE_KWARGS,
    SHAPE_DESCRIPTION_JSON,
    SHAPE_ARGUMENTS_V1,
)

EMPTY_OBJECT_JSON = "{}"

#: What kind of tool it is: the vocabulary of mech-predict's ``tool_schemas.yaml``.
#: Extensible: another lowercase word is accepted (with a warning), not dropped.
TOOL_KINDS = ("prediction", "resolve", "chat", "image", "question_generation")


def _opt_text(value: Any, present: bool) -> Optional[str]:
    return canonical_text(value) if present else None


@dataclass(frozen=True, order=True, slots=True)
class MechRef:
    """Identity of a mech: where on chain its manifest hash lives.

    :param chain_id: EIP-155 chain id.
    :param registry_kind: one of :data:`REGISTRY_KINDS`.
    :param registry_address: 0x-prefixed, lowercase 20-byte hex address of the registry.
    :param mech_id: agent id (registry kinds olas_agent/legacy_mech) or service id
        (complementary_service_metadata).
    """

    chain_id: int
    registry_kind: str
    registry_address: str
    mech_id: int

    @property
    def key(self) -> str:
        """Return ``"<chain_id>:<registry_kind>:<address>:<id>"``, unique and stable.

        :return: ``"<chain_id>:<registry_kind>:<address>:<id>"``, unique and stable.
        """
        return f"{self.chain_id}:{self.registry_kind}:{self.registry_address}:{self.mech_id}"

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict.

        :return: a JSON-serialisable dict.
        """
        return {
            "chain_id": self.chain_id,
            "registry_kind": self.registry_kind,
            "registry_address": self.registry_address,
            "mech_id": self.mech_id,
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "MechRef":
        """Return the ref (address lowercased).

        :param data: from :meth:`to_dict`.
        :return: the ref (address lowercased).
        """
        return cls(
            chain_id=int(data["chain_id"]),
            registry_kind=str(data["registry_kind"]),
            registry_address=str(data["registry_address"]).lower(),
            mech_id=int(data["mech_id"]),
        )


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a tool's description came from.

    :param shape: the manifest shape the tool was read from, one of :data:`TOOL_SHAPES`.
    :param mech: the mech that published it (None when a manifest is parsed on its own).
    :param cid: the manifest's CID as fetched ("" when unknown).
    :param digest: the on-chain bytes32 as 0x-hex ("" when unknown).
    :param derived_component: the ComponentRegistry id whose code the arguments were
        derived from (0: the arguments are declared by the manifest).
    :param derived_cid: the CID of that component's tool package directory ("" when
        declared).
    """

    shape: str
    mech: Optional[MechRef] = None
    cid: str = ""
    digest: str = ""
    derived_component: int = 0
    derived_cid: str = ""

    @property
    def arguments_source(self) -> str:
        """Return ``derived`` (read from the component's code) or ``declared`` (the manifest's).

        :return: ``derived`` or ``declared``.
        """
        return "derived" if self.derived_cid else "declared"

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict.

        :return: a JSON-serialisable dict.
        """
        data: Dict[str, Any] = {
            "shape": self.shape,
            "mech": None if self.mech is None else self.mech.to_dict(),
            "cid": self.cid,
            "digest": self.digest,
        }
        if self.derived_cid:  # only then: declared tools keep their digests
            data["derived_from"] = {
                "component_id": self.derived_component,
                "cid": self.derived_cid,
            }
        return data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Provenance":
        """Return the provenance.

        :param data: from :meth:`to_dict`.
        :return: the provenance.
        """
        mech = data.get("mech")
        derived = data.get("derived_from") or {}
        return cls(
            shape=str(data["shape"]),
            mech=None if mech is None else MechRef.from_dict(mech),
            cid=str(data.get("cid", "")),
            digest=str(data.get("digest", "")),
            derived_component=int(derived.get("component_id", 0)),
            derived_cid=str(derived.get("cid", "")),
        )


@dataclass(frozen=True, slots=True)
class Argument:
    """One typed argument of a tool.

    :param identifier: the keyword the tool reads (``kwargs["identifier"]``).
    :param type: a term of the type vocabulary (:mod:`.types`), e.g. ``int``,
        ``hexAddress``, ``list[str]``; ``any`` when unknown.
    :param schema_json: canonical JSON Schema (2020-12) for the value.
    :param required: whether a call must supply it.
    :param default_json: canonical JSON of the default, None when there is none.
    :param description: human text ("" when none).
    """

    identifier: str
    type: str
    schema_json: str = EMPTY_OBJECT_JSON
    required: bool = True
    default_json: Optional[str] = None
    description: str = ""

    @property
    def schema(self) -> Dict[str, Any]:
        """Return a fresh copy of the argument's JSON Schema.

        :return: a fresh copy of the argument's JSON Schema.
        """
        return decode(self.schema_json)

    @property
    def has_default(self) -> bool:
        """Return true when a default is declared (a default may itself be null).

        :return: True when a default is declared (a default may itself be null).
        """
        return self.default_json is not None

    @property
    def default(self) -> Any:
        """Decode the declared default.

        :return: a fresh copy of the default (None when absent; check has_default).
        """
        return None if self.default_json is None else decode(self.default_json)

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict (``default`` only when declared).

        :return: a JSON-serialisable dict (``default`` only when declared).
        """
        data: Dict[str, Any] = {
            "identifier": self.identifier,
            "type": self.type,
            "schema": self.schema,
            "required": self.required,
            "description": self.description,
        }
        if self.default_json is not None:
            data["default"] = self.default
        return data

    def canonical_body(self) -> str:
        """Write :meth:`to_dict` in RFC 8785 form, reusing the canonical texts held.

        :return: ``canonical_bytes(self.to_dict())`` as text (keys in RFC 8785 order; the
            schema and default spliced as stored); a lone surrogate in a text field makes
            encoding the result to UTF-8 fail, as ``canonical_bytes`` would.
        """
        default = (
            "" if self.default_json is None else '"default":' + self.default_json + ","
        )
        return (
            "{"
            + default
            + '"description":'
            + json_string(self.description)
            + ',"identifier":'
            + json_string(self.identifier)
            + ',"required":'
            + ("true" if self.required else "false")
            + ',"schema":'
            + self.schema_json
            + ',"type":'
            + json_string(self.type)
            + "}"
        )

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Argument":
        """Return the argument.

        :param data: from :meth:`to_dict`.
        :return: the argument.
        """
        return cls(
            identifier=str(data["identifier"]),
            type=str(data["type"]),
            schema_json=canonical_text(data.get("schema", {})),
            required=bool(data.get("required", True)),
            default_json=_opt_text(data.get("default"), "default" in data),
            description=str(data.get("description", "")),
        )


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool a mech offers.

    :param name: the tool name sent in requests (``tool`` field of a mech request).
    :param description: human text.
    :param arguments: typed arguments, in declaration order (empty when the manifest gives
        none: then the only input is the free-text ``prompt``).
    :param input_type: the manifest's ``input.type`` (``"text"`` today), "" when absent.
    :param input_description: the manifest's ``input.description``.
    :param output_type: the manifest's ``output.type`` (e.g. ``"object"``).
    :param output_description: the manifest's ``output.description``.
    :param output_schema_json: canonical JSON Schema of the result, None when absent.
    :param examples_json: canonical JSON of each example, in order.
    :param extra_json: canonical JSON object of unknown fields of the tool's metadata.
    :param provenance: where this description came from.
    :param kind: what kind of tool it is (one of :data:`TOOL_KINDS` or another lowercase
        word), "" when the manifest does not say.
    """

    name: str
    description: str = ""
    arguments: Tuple[Argument, ...] = ()
    input_type: str = ""
    input_description: str = ""
    output_type: str = ""
    output_description: str = ""
    output_schema_json: Optional[str] = None
    examples_json: Tuple[str, ...] = ()
    extra_json: str = EMPTY_OBJECT_JSON
    provenance: Provenance = field(default_factory=lambda: Provenance(SHAPE_NAME_ONLY))
    kind: str = ""

    @property
    def output_schema(self) -> Optional[Dict[str, Any]]:
        """Return a fresh copy of the output JSON Schema, or None.

        :return: a fresh copy of the output JSON Schema, or None.
        """
        return (
            None if self.output_schema_json is None else decode(self.output_schema_json)
        )

    @property
    def examples(self) -> Tuple[Any, ...]:
        """Return fresh copies of the examples.

        :return: fresh copies of the examples.
        """
        return tuple(decode(e) for e in self.examples_json)

    @property
    def extra(self) -> Dict[str, Any]:
        """Return a fresh copy of the unknown fields.

        :return: a fresh copy of the unknown fields.
        """
        return decode(self.extra_json)

    @property
    def is_typed(self) -> bool:
        """Return true when the manifest declared typed arguments for this tool.

        :return: True when the manifest declared typed arguments for this tool.
        """
        return bool(self.arguments)

    def input_schema(self) -> Dict[str, Any]:
        """Build the JSON Schema (2020-12) of a call's keyword arguments.

        :return: ``{"type": "object", "properties": {...}, "required": [...]}`` built from
            :attr:`arguments`; ``additionalProperties`` is left open for untyped tools.
        """
        properties = {}
        for arg in self.arguments:
            schema = arg.schema
            if arg.description and "description" not in schema:
                schema["description"] = arg.description
            if arg.default_json is not None and "default" not in schema:
                schema["default"] = arg.default
            properties[arg.identifier] = schema
        schema_out: Dict[str, Any] = {"type": "object", "properties": properties}
        required = [a.identifier for a in self.arguments if a.required]
        if required:
            schema_out["required"] = required
        if self.arguments:
            schema_out["additionalProperties"] = False
        return schema_out

    def with_provenance(self, provenance: Provenance) -> "Tool":
        """Return a copy carrying it.

        :param provenance: the new provenance.
        :return: a copy carrying it.
        """
        values = list(
            _TOOL_VALUES(self)
        )  # every field, in order (dataclasses.replace is slow)
        values[_PROVENANCE_AT] = provenance
        return Tool(*values)

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict.

        :return: a JSON-serialisable dict (``kind`` only when set, so catalogues of
            manifests that do not use it keep their digest).
        """
        data: Dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "arguments": [a.to_dict() for a in self.arguments],
            "input": {"type": self.input_type, "description": self.input_description},
            "output": {
                "type": self.output_type,
                "description": self.output_description,
                "schema": self.output_schema,
            },
            "examples": list(self.examples),
            "extra": self.extra,
            "provenance": self.provenance.to_dict(),
        }
        if self.kind:
            data["kind"] = self.kind
        return data

    def canonical_body(self) -> str:
        """Write :meth:`to_dict` without ``provenance`` in RFC 8785 form, fast.

        What the catalogue digest covers of a tool (``model.catalogue.body_digest``). The
        JSON fields are spliced as stored (they hold :func:`.canonical.canonical_text`
        output), the rest is written in RFC 8785 key order: the same text as
        ``canonical_bytes`` of the dict, without decoding and re-serialising the schemas.

        :return: the canonical text; a lone surrogate in a text field makes encoding it
            to UTF-8 fail, as ``canonical_bytes`` would.
        """
        kind = '"kind":' + json_string(self.kind) + "," if self.kind else ""
        return (
            '{"arguments":['
            + ",".join(a.canonical_body() for a in self.arguments)
            + '],"description":'
            + json_string(self.description)
            + ',"examples":['
            + ",".join(self.examples_json)
            + '],"extra":'
            + self.extra_json
            + ',"input":{"description":'
            + json_string(self.input_description)
            + ',"type":'
            + json_string(self.input_type)
            + "},"
            + kind
            + '"name":'
            + json_string(self.name)
            + ',"output":{"description":'
            + json_string(self.output_description)
            + ',"schema":'
            + ("null" if self.output_schema_json is None else self.output_schema_json)
            + ',"type":'
            + json_string(self.output_type)
            + "}}"
        )

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Tool":
        """Return the tool.

        :param data: from :meth:`to_dict`.
        :return: the tool.
        """
        inp = data.get("input") or {}
        out = data.get("output") or {}
        out_schema = out.get("schema")
        return cls(
            name=str(data["name"]),
            description=str(data.get("description", "")),
            arguments=tuple(Argument.from_dict(a) for a in data.get("arguments", ())),
            input_type=str(inp.get("type", "")),
            input_description=str(inp.get("description", "")),
            output_type=str(out.get("type", "")),
            output_description=str(out.get("description", "")),
            output_schema_json=(
                None if out_schema is None else canonical_text(out_schema)
            ),
            examples_json=tuple(canonical_text(e) for e in data.get("examples", ())),
            extra_json=canonical_text(data.get("extra", {})),
            provenance=Provenance.from_dict(data["provenance"]),
            kind=str(data.get("kind", "")),
        )


_TOOL_FIELDS = tuple(f.name for f in fields(Tool))
_TOOL_VALUES = attrgetter(*_TOOL_FIELDS)
_PROVENANCE_AT = _TOOL_FIELDS.index("provenance")
