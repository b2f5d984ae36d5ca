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

"""Conformance checkers: would each consumer accept what an exporter wrote?

SDK models (``mcp_types``, ``openai``, ``anthropic``) accept most broken schemas, so each
checker here is written from the consumer's public documentation, cited per function.
Every checker returns a list of sentences, ``"<JSON Pointer>: <what breaks>"``; an empty
list means conformant. None raises on any JSON value.

- :func:`dangling_references` - every ``$ref`` resolves inside the same schema, resolved
  with the ``referencing`` library (JSON Schema 2020-12 rules; nothing is fetched);
- :func:`openai_tool_problems` / :func:`openai_strict_problems` - OpenAI function tools
  and the Structured Outputs strict subset;
- :func:`anthropic_tool_problems` - Anthropic Messages API ``tools``;
- :func:`mcp_tool_problems` / :func:`mcp_tools_list_problems` - MCP ``Tool`` and the
  ``tools/list`` result of revision :data:`.mcp_tool.MCP_PROTOCOL_VERSION`;
- :func:`agent_card_problems` - A2A 1.0 ``AgentCard`` required fields;
- :func:`registration_file_problems` - ERC-8004 registration-v1 files.
"""

import json
import re
from typing import Any, Iterator, List, Tuple

import referencing.jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.validators import Draft202012Validator
from mech_catalogue_core.exporters.erc8004 import (
    image_refusal,
    registration_problems,
    uri_refusal,
)
from mech_catalogue_core.exporters.names import (
    ANTHROPIC_KEY_RULE,
    ANTHROPIC_RULE,
    MCP_RULE,
    OPENAI_RULE,
)
from mech_catalogue_core.exporters.schemas import (
    STRICT_FORMATS,
    STRICT_KEYWORDS,
    SUBSCHEMA_LIST,
    SUBSCHEMA_MAP,
    SUBSCHEMA_ONE,
)
from mech_catalogue_core.manifest.validation import (
    SCHEMA_CHECK_MAX_DEPTH,
    nesting_depth,
)
from mech_catalogue_core.model.memo import (
    bounded_memo,
    digest_key,
)
from referencing.exceptions import Unresolvable

#: OpenAI Structured Outputs limits ("Supported schemas": "Objects have limitations on
#: nesting depth and size"): nesting levels, object properties in total, enum values in
#: total, and characters of all property names, definition names, enum and const values.
OPENAI_MAX_NESTING = 10
OPENAI_MAX_PROPERTIES = 5000
OPENAI_MAX_ENUM_VALUES = 1000
OPENAI_MAX_STRING_BUDGET = 120_000
_STRICT_TYPES = frozenset(STRICT_KEYWORDS)
_STRICT_COMMON = frozenset({"type", "description", "enum", "anyOf", "$ref", "$defs"})
_TEMPLATE = re.compile(r"[{}]")
#: entries of the meta-schema check memo
META_CHECK_MEMO_ENTRIES = 4096
#: characters an entry may hold: its key (the schema text, or a sha2-256 when longer than
#: ``memo.DIGEST_KEY_OVER``) and the error message
META_CHECK_MEMO_CHARS = 1 << 13
#: characters the memo holds at most
META_CHECK_MEMO_TOTAL = 1 << 22


def subschemas(schema: Any, path: str = "") -> Iterator[Tuple[str, Any]]:
    """Every sub-schema of a schema with its JSON Pointer, the schema itself first.

    :param schema: a JSON Schema.
    :param path: the pointer of ``schema``.
    :yield: ``(pointer, sub-schema)`` pairs, depth first.
    """
    stack = [(path, schema)]
    while stack:
        where, node = stack.pop()
        yield where, node
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key in _ONE:
                if isinstance(value, (dict, bool)):
                    stack.append((f"{where}/{key}", value))
            elif key in _MAP:
                if isinstance(value, dict):
                    for name, child in value.items():
                        part = name.replace("~", "~0").replace("/", "~1")[:100]
                        stack.append((f"{where}/{key}/{part}", child))
            elif key in _LIST and isinstance(value, list):
                for index, child in enumerate(value):
                    stack.append((f"{where}/{key}/{index}", child))


_ONE = frozenset(SUBSCHEMA_ONE)
_MAP = frozenset(SUBSCHEMA_MAP)
_LIST = frozenset(SUBSCHEMA_LIST)


def dangling_references(schema: Any, path: str = "") -> List[str]:
    """References that do not resolve inside the schema itself.

    Resolved by ``referencing`` under JSON Schema 2020-12 (``$id``, anchors and JSON
    Pointers as that dialect defines them); the schema is the only resource, so a
    remote URI never resolves (strict MCP clients drop a whole tool list for one).

    :param schema: a JSON Schema.
    :param path: pointer prefix for the sentences.
    :return: one sentence per unresolvable ``$ref``.
    """
    if not isinstance(schema, (dict, bool)):
        return [f"{path or '/'}: a schema is an object or a boolean"]
    references = [
        (where, node["$ref"])
        for where, node in subschemas(schema, path)
        if isinstance(node, dict) and "$ref" in node
    ]
    if not references:
        return []
    resource = referencing.jsonschema.DRAFT202012.create_resource(schema)
    resolver = (
        referencing.Registry()
        .with_resource("urn:export", resource)
        .resolver("urn:export")
    )
    found = []
    for where, ref in references:
        try:
            if not isinstance(ref, str):
                raise Unresolvable(str(ref))
            resolver.lookup(ref)
        except Unresolvable:
            found.append(
                f"{where}/$ref: {str(ref)[:100]!r} does not resolve in the schema"
            )
    return found


def _schema_errors(schema: Any, path: str) -> List[str]:
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return [f"{path}: not JSON"]
    error = _meta_schema_error(text)
    return [f"{path}: {error}"] if error else []


@bounded_memo(
    META_CHECK_MEMO_ENTRIES, META_CHECK_MEMO_CHARS, META_CHECK_MEMO_TOTAL, digest_key
)
def _meta_schema_error(text: str) -> str:
    """Check against the 2020-12 meta-schema (slow: ~25 ms a schema), memoised by text.

    A text longer than ``memo.DIGEST_KEY_OVER`` is keyed by its sha2-256, so the memo
    holds no long schema.

    :param text: the schema's JSON text.
    :return: "" when valid, else why not.
    """
    if nesting_depth(text, SCHEMA_CHECK_MAX_DEPTH) > SCHEMA_CHECK_MAX_DEPTH:
        return f"nested more than {SCHEMA_CHECK_MAX_DEPTH} levels deep"
    try:
        Draft202012Validator.check_schema(json.loads(text))
    except SchemaError as exc:
        return f"not a valid JSON Schema 2020-12 ({exc.message[:160]})"
    except RecursionError:  # only past ~300 caller frames at the limit of 1,000 (CLI)
        return f"nested more than {SCHEMA_CHECK_MAX_DEPTH} levels deep"
    return ""


def openai_strict_problems(  # pylint: disable=too-many-branches,too-many-statements
    schema: Any, path: str = ""
) -> List[str]:
    """Where a function's ``parameters`` leave OpenAI's strict subset.

    Source: OpenAI API docs, "Structured Outputs" guide, "Supported schemas": supported
    types string, number, boolean, integer, object, array, enum, anyOf; supported
    properties per type (strings ``pattern``, ``format`` of a fixed list; numbers
    ``multipleOf``, ``maximum``, ``exclusiveMaximum``, ``minimum``, ``exclusiveMinimum``;
    arrays ``minItems``, ``maxItems``); "Root objects must not be anyOf" and must be
    objects; "All fields must be required"; "additionalProperties: false must always be
    set in objects"; definitions via ``$defs`` and ``$ref`` (recursion allowed); size
    limits :data:`OPENAI_MAX_NESTING`, :data:`OPENAI_MAX_PROPERTIES`,
    :data:`OPENAI_MAX_ENUM_VALUES`, :data:`OPENAI_MAX_STRING_BUDGET`.

    :param schema: the ``parameters`` value.
    :param path: pointer prefix.
    :return: sentences, empty when the schema is in the subset.
    """
    if (
        not isinstance(schema, dict)
        or schema.get("type") != "object"
        or "anyOf" in schema
    ):
        return [f"{path or '/'}: the root must be an object schema, not anyOf"]
    found = dangling_references(schema, path)
    properties_total = enum_total = budget = 0
    for where, node in subschemas(schema, path):
        if not isinstance(node, dict):
            if not (node is False and where.endswith("/additionalProperties")):
                found.append(f"{where}: boolean schemas are not supported")
            continue
        depth = where.count("/properties/") + where.count("/items")
        if depth > OPENAI_MAX_NESTING:
            found.append(f"{where}: more than {OPENAI_MAX_NESTING} levels of nesting")
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds] if kinds else []
        real = [k for k in kinds if k != "null"]
        if any(k not in _STRICT_TYPES for k in kinds):
            found.append(f"{where}/type: {kinds} has an unsupported type")
        if len(real) > 1:
            found.append(f"{where}/type: several non-null types; use anyOf")
        if not kinds and not ({"$ref", "anyOf", "enum"} & set(node)):
            found.append(f"{where}: a schema needs a type, enum, anyOf or $ref")
        allowed = set(_STRICT_COMMON)
        for kind in real:
            allowed |= STRICT_KEYWORDS.get(kind, set())
        extra = sorted(set(node) - allowed)
        if extra:
            found.append(f"{where}: keywords {extra} are outside the strict subset")
        if "format" in node and node["format"] not in STRICT_FORMATS:
            found.append(f"{where}/format: {node['format']!r} is not supported")
        if "object" in real:
            props = node.get("properties")
            if not isinstance(props, dict):
                found.append(f"{where}: an object needs properties")
                props = {}
            if node.get("additionalProperties") is not False:
                found.append(f"{where}: additionalProperties must be false")
            if sorted(node.get("required", [])) != sorted(props):
                found.append(f"{where}/required: must list every property")
            properties_total += len(props)
            budget += sum(len(k) for k in props)
        if "array" in real and not isinstance(node.get("items"), dict):
            found.append(f"{where}: an array needs items")
        if isinstance(node.get("enum"), list):
            enum_total += len(node["enum"])
            budget += sum(len(str(v)) for v in node["enum"])
        if isinstance(node.get("$defs"), dict):
            budget += sum(len(k) for k in node["$defs"])
    if properties_total > OPENAI_MAX_PROPERTIES:
        found.append(
            f"{path or '/'}: {properties_total} properties (max {OPENAI_MAX_PROPERTIES})"
        )
    if enum_total > OPENAI_MAX_ENUM_VALUES:
        found.append(
            f"{path or '/'}: {enum_total} enum values (max {OPENAI_MAX_ENUM_VALUES})"
        )
    if budget > OPENAI_MAX_STRING_BUDGET:
        found.append(f"{path or '/'}: {budget} characters of names and enum values")
    return found


def openai_tool_problems(tool: Any) -> List[str]:
    """Whether one OpenAI tool would be accepted.

    Source: OpenAI API reference, Chat Completions ``tools``: ``{"type": "function",
    "function": {"name", "description", "parameters", "strict"}}``; ``name`` matches
    ``^[a-zA-Z0-9_-]{1,64}$``; ``parameters`` is a JSON Schema object (an array schema
    without ``items`` is refused even without ``strict``); with ``strict: true`` the
    parameters follow :func:`openai_strict_problems`.

    :param tool: the exported tool JSON.
    :return: sentences, empty when conformant.
    """
    if not isinstance(tool, dict) or tool.get("type") != "function":
        return ["/type: must be 'function'"]
    function = tool.get("function")
    if not isinstance(function, dict):
        return ["/function: must be an object"]
    found = []
    name = function.get("name")
    if not isinstance(name, str) or not OPENAI_RULE.accepts(name):
        found.append(
            f"/function/name: {str(name)[:80]!r} does not match {OPENAI_RULE.pattern.pattern}"
        )
    if not isinstance(function.get("description", ""), str):
        found.append("/function/description: must be a string")
    parameters = function.get("parameters")
    found += _object_root(parameters, "/function/parameters")
    if function.get("strict") is True:
        found += openai_strict_problems(parameters, "/function/parameters")
    else:
        found += dangling_references(parameters, "/function/parameters")
        found += _untyped_arrays(parameters, "/function/parameters")
    return found


def _object_root(schema: Any, path: str, meta_schema: bool = True) -> List[str]:
    if not isinstance(schema, dict):
        return [f"{path}: must be a JSON Schema object"]
    found = _schema_errors(schema, path) if meta_schema else []
    if schema.get("type") != "object":
        found.append(f"{path}/type: the root must be type object")
    if not isinstance(schema.get("properties"), dict):
        found.append(f"{path}/properties: the root must have properties")
    for keyword in ("anyOf", "oneOf", "allOf", "not", "if", "then", "else"):
        if keyword in schema:
            found.append(f"{path}/{keyword}: not accepted at the top level")
    return found


def _untyped_arrays(schema: Any, path: str) -> List[str]:
    found = []
    for where, node in subschemas(schema, path):
        if not isinstance(node, dict):
            continue
        kinds = node.get("type")
        # a type list holding "array" beside other types is an array schema too
        is_array = kinds == "array" or (isinstance(kinds, list) and "array" in kinds)
        if is_array and "items" not in node and "prefixItems" not in node:
            found.append(f"{where}: an array schema needs items")
        items = node.get("items")
        if (
            is_array
            and isinstance(items, dict)
            and not (
                {"type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"}
                & set(items)
            )
        ):
            found.append(f"{where}/items: array items need a type")
    return found


def anthropic_tool_problems(tool: Any) -> List[str]:
    """Whether one Anthropic tool would be accepted.

    Source: Anthropic Messages API reference, ``tools``: ``name`` matches
    ``^[a-zA-Z0-9_-]{1,64}$``; ``input_schema`` is a JSON Schema object of type object;
    the API answers ``input_schema does not support oneOf, allOf, or anyOf at the top
    level`` and ``Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'``
    (checked here in every ``properties`` map, not only the top one).

    :param tool: the exported tool JSON.
    :return: sentences, empty when conformant.
    """
    if not isinstance(tool, dict):
        return ["/: a tool is an object"]
    found = []
    name = tool.get("name")
    if not isinstance(name, str) or not ANTHROPIC_RULE.accepts(name):
        found.append(
            f"/name: {str(name)[:80]!r} does not match {ANTHROPIC_RULE.pattern.pattern}"
        )
    if not isinstance(tool.get("description", ""), str):
        found.append("/description: must be a string")
    schema = tool.get("input_schema")
    found += _object_root(schema, "/input_schema")
    found += dangling_references(schema, "/input_schema")
    found += _untyped_arrays(schema, "/input_schema")
    for where, node in subschemas(schema, "/input_schema"):
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict):
            for key in props:
                if not ANTHROPIC_KEY_RULE.accepts(key):
                    found.append(
                        f"{where}/properties: key {key[:80]!r} does not match "
                        f"{ANTHROPIC_KEY_RULE.pattern.pattern}"
                    )
    return found


def mcp_tool_problems(tool: Any, meta_schema: bool = True) -> List[str]:
    """Whether one MCP ``Tool`` follows the specification of the revision exported.

    Source: MCP specification 2026-07-28 (and 2025-11-25), "Server features / Tools":
    ``Tool`` has ``name`` (string; "Tool names" guidance: 1-128 characters of
    ``A-Za-z0-9_-.``), optional ``title``, ``description``, ``annotations``, ``_meta``
    (object), ``inputSchema`` ("a JSON Schema object ... ``type: "object"`` is required at
    the root", JSON Schema 2020-12 by default) and optional ``outputSchema`` (an object
    schema). Beyond the text, what strict clients enforce (VS Code refuses an array
    without ``items``; several clients drop the whole list on an unresolvable ``$ref``):
    typed array items, no dangling reference, ``properties`` present at the root.
    This checker is written from the specification text: the ``mcp`` SDK ships the
    revision as pydantic models, not as a JSON Schema file.

    :param tool: the exported Tool JSON.
    :param meta_schema: also validate the schemas against the 2020-12 meta-schema (about
        25 ms a new schema). The exporter's own check on the serving path leaves it out:
        every argument and output schema already passed it when the manifest was parsed
        (``validation.schema_error``) and the exporters only restructure them; the tests
        run it on every export.
    :return: sentences, empty when conformant.
    """
    if not isinstance(tool, dict):
        return ["/: a Tool is an object"]
    found = []
    name = tool.get("name")
    if not isinstance(name, str) or not MCP_RULE.accepts(name):
        found.append(
            f"/name: {str(name)[:80]!r} does not match {MCP_RULE.pattern.pattern}"
        )
    for key in ("title", "description"):
        if key in tool and not isinstance(tool[key], str):
            found.append(f"/{key}: must be a string")
    for key in ("annotations", "_meta"):
        if key in tool and not isinstance(tool[key], dict):
            found.append(f"/{key}: must be an object")
    schema = tool.get("inputSchema")
    found += _object_root(schema, "/inputSchema", meta_schema)
    found += dangling_references(schema, "/inputSchema")
    found += _untyped_arrays(schema, "/inputSchema")
    if "outputSchema" in tool:
        output = tool["outputSchema"]
        if not isinstance(output, dict) or output.get("type") != "object":
            found.append("/outputSchema: must be an object schema of type object")
        else:
            found += _schema_errors(output, "/outputSchema") if meta_schema else []
            found += dangling_references(output, "/outputSchema")
            found += _untyped_arrays(output, "/outputSchema")
    return found


def mcp_tools_list_problems(result: Any) -> List[str]:
    """Whether a ``tools/list`` result follows MCP 2026-07-28.

    Source: MCP specification 2026-07-28, ``ListToolsResult``: ``tools`` (array of
    ``Tool``), ``nextCursor`` (optional string), ``resultType`` (required), ``ttlMs``
    (integer >= 0) and ``cacheScope`` (``"public"`` or ``"private"``); tool names unique
    within the list, in a stable order.

    :param result: the result JSON.
    :return: sentences, empty when conformant.
    """
    if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
        return ["/tools: must be an array"]
    found = []
    if not isinstance(result.get("resultType"), str):
        found.append("/resultType: required string")
    ttl = result.get("ttlMs")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
        found.append("/ttlMs: required integer >= 0")
    if result.get("cacheScope") not in ("public", "private"):
        found.append("/cacheScope: must be 'public' or 'private'")
    if "nextCursor" in result and not isinstance(result["nextCursor"], str):
        found.append("/nextCursor: must be a string")
    names = [t.get("name") for t in result["tools"] if isinstance(t, dict)]
    if len(set(names)) != len(names):
        found.append("/tools: tool names repeat")
    for index, tool in enumerate(result["tools"]):
        found += [f"/tools/{index}{p}" for p in mcp_tool_problems(tool)]
    return found


def agent_card_problems(  # pylint: disable=too-many-branches
    card: Any,
) -> List[str]:
    """Whether an A2A AgentCard has what A2A 1.0 requires.

    Source: A2A protocol 1.0, ``a2a.proto`` (fields with ``field_behavior = REQUIRED``):
    card ``name``, ``description``, ``supportedInterfaces`` (each ``url``,
    ``protocolBinding``, ``protocolVersion``), ``version``, ``capabilities``,
    ``defaultInputModes``, ``defaultOutputModes``, ``skills`` (each ``id``, ``name``,
    ``description``, ``tags``); URLs are absolute and without ``{`` ``}`` templates.

    :param card: the card JSON.
    :return: sentences, empty when conformant.
    """
    if not isinstance(card, dict):
        return ["/: a card is an object"]
    found = []
    for key in ("name", "description", "version"):
        if not isinstance(card.get(key), str) or not card[key]:
            found.append(f"/{key}: required non-empty string")
    for key in ("capabilities",):
        if not isinstance(card.get(key), dict):
            found.append(f"/{key}: required object")
    for key in (
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
        "supportedInterfaces",
    ):
        if not isinstance(card.get(key), list) or not card[key]:
            found.append(f"/{key}: required non-empty array")
    for index, interface in enumerate(card.get("supportedInterfaces") or []):
        for key in ("url", "protocolBinding", "protocolVersion"):
            if not isinstance(interface, dict) or not interface.get(key):
                found.append(f"/supportedInterfaces/{index}/{key}: required")
        url = interface.get("url", "") if isinstance(interface, dict) else ""
        if isinstance(url, str) and _TEMPLATE.search(url):
            found.append(f"/supportedInterfaces/{index}/url: holds a template")
    for index, skill in enumerate(card.get("skills") or []):
        for key in ("id", "name", "description"):
            if not isinstance(skill, dict) or not isinstance(skill.get(key), str):
                found.append(f"/skills/{index}/{key}: required string")
        if not isinstance(skill, dict) or not skill.get("tags"):
            found.append(f"/skills/{index}/tags: required non-empty array")
    return found


def registration_file_problems(document: Any) -> List[str]:
    """Whether an ERC-8004 registration file is well-formed.

    Source: EIP-8004 "Trustless Agents", "Agent URI and registration file": ``type`` is
    the registration-v1 URI; ``services`` each ``{name, endpoint}``; ``registrations``
    each ``{agentId, agentRegistry}`` (CAIP-10); ``image`` a URI. Here also: ``image``
    empty or one :func:`.erc8004.image_refusal` finds nothing against (absolute
    ``https``, ``ipfs`` or ``data:image``, no hidden character, bounded), every endpoint
    bounded and without hidden characters (:func:`.erc8004.uri_refusal`), and no
    ``{...}`` template left in an endpoint (``{`` and ``}`` are not legal in a URI,
    RFC 3986).

    :param document: the file JSON.
    :return: sentences, empty when conformant.
    """
    found = [f"/{p}" for p in registration_problems(document)]
    if not isinstance(document, dict):
        return found or ["/: a registration file is an object"]
    if "endpoints" in document:
        found.append("/endpoints: registration-v1 uses services")
    image = document.get("image", "")
    if isinstance(image, str) and image and image_refusal(image):
        found.append(f"/image: {image[:80]!r} {image_refusal(image)}")
    for index, service in enumerate(document.get("services") or []):
        endpoint = service.get("endpoint", "") if isinstance(service, dict) else ""
        if isinstance(endpoint, str) and uri_refusal(endpoint):
            found.append(
                f"/services/{index}/endpoint: {endpoint[:80]!r} {uri_refusal(endpoint)}"
            )
        if isinstance(endpoint, str) and _TEMPLATE.search(endpoint):
            found.append(
                f"/services/{index}/endpoint: {endpoint[:80]!r} holds a template"
            )
        if isinstance(service, dict) and "url" in service:
            found.append(
                f"/services/{index}/url: registration-v1 services use endpoint"
            )
    return found
