"""JSON Schemas of a tool's call, as each export format needs them.

The call schema is the model's :meth:`.tool.Tool.input_schema` for typed tools. A tool
without typed arguments (today's ``input: {"type": "text"}`` manifests) is called with the
request's free-text ``prompt`` (valory-xyz/mech task_execution requires ``prompt`` and
``tool`` in every request), so its call schema is an object with one required string
``prompt``.

:func:`strict_schema` rewrites a schema for OpenAI Structured Outputs / strict function
calling ("Supported schemas" in OpenAI's function-calling guide): every object has
``additionalProperties: false`` and lists all its properties in ``required``; an optional
property becomes nullable instead (``anyOf: [T, {"type": "null"}]``); ``default`` is not
supported and moves into the description; a schema that allows any value (``{}``, a
free-form object) becomes a string holding JSON text, said so in its description.
"""

import copy
import json
from typing import Any, Dict, List

from packages.mech_catalogue.skills.tool_metadata_abci.domain.tool import Tool

PROMPT_DESCRIPTION = "The request text sent to the mech tool."

#: Keywords strict mode does not accept; dropped (their meaning is kept in descriptions).
_STRICT_UNSUPPORTED = (
    "default",
    "examples",
    "$schema",
    "$id",
    "title",
    "format",
    "example",
)


def call_schema(tool: Tool) -> Dict[str, Any]:
    """JSON Schema 2020-12 of a call's keyword arguments.

    :param tool: the model tool.
    :return: a fresh object schema; untyped tools get ``{"prompt": string}`` required.
    """
    if tool.arguments:
        return tool.input_schema()
    return {
        "type": "object",
        "properties": {
            "prompt": {
                "type": "string",
                "description": tool.input_description or PROMPT_DESCRIPTION,
            }
        },
        "required": ["prompt"],
        "additionalProperties": False,
    }


def output_object_schema(tool: Tool) -> Any:
    """The tool's output schema when it describes a JSON object (what MCP requires).

    :param tool: the model tool.
    :return: the schema dict, or None when absent or not of type object.
    """
    schema = tool.output_schema
    if isinstance(schema, dict) and schema.get("type") == "object":
        return schema
    return None


def strict_schema(schema: Dict[str, Any]) -> Dict[str, Any]:
    """Rewrite a JSON Schema to satisfy OpenAI strict mode (see the module docstring).

    :param schema: an object schema (not modified).
    :return: a new schema.
    """
    return _strict(copy.deepcopy(schema), nullable=False)


def _describe(schema: Dict[str, Any], extra: str) -> None:
    text = schema.get("description", "")
    schema["description"] = (text + " " + extra).strip() if text else extra


def _is_free(schema: Dict[str, Any]) -> bool:
    """True for schemas strict mode cannot express: any value, free-form objects."""
    keys = set(schema) - {"description"}
    if not keys:
        return True
    if schema.get("type") == "object" and not schema.get("properties"):
        return True
    return False


def _strict(schema: Dict[str, Any], nullable: bool) -> Dict[str, Any]:
    if "default" in schema:
        _describe(schema, f"Default: {json.dumps(schema['default'], sort_keys=True)}.")
    if "format" in schema:
        _describe(schema, f"Format: {schema['format']}.")
    for keyword in _STRICT_UNSUPPORTED:
        schema.pop(keyword, None)
    if _is_free(schema):
        description = schema.get("description", "")
        schema = {"type": "string"}
        _describe(
            schema, (description + " " if description else "") + "JSON-encoded value."
        )
    if "anyOf" in schema:
        schema["anyOf"] = [
            _strict(option, nullable=False) for option in schema["anyOf"]
        ]
    if schema.get("type") == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        schema["properties"] = {
            key: _strict(value, nullable=key not in required)
            for key, value in properties.items()
        }
        schema["required"] = list(properties)
        schema["additionalProperties"] = False
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        schema["items"] = _strict(schema["items"], nullable=False)
    if nullable:
        schema = _nullable(schema)
    return schema


def _nullable(schema: Dict[str, Any]) -> Dict[str, Any]:
    options: List[Dict[str, Any]] = (
        schema.get("anyOf", []) if set(schema) <= {"anyOf", "description"} else []
    )
    if options:
        if not any(o.get("type") == "null" for o in options):
            schema["anyOf"] = options + [{"type": "null"}]
        return schema
    kind = schema.get("type")
    if (
        isinstance(kind, str)
        and kind not in ("object", "array")
        and "enum" not in schema
    ):
        schema["type"] = [kind, "null"]
        return schema
    if isinstance(kind, list):
        if "null" not in kind:
            schema["type"] = kind + ["null"]
        return schema
    description = schema.pop("description", None)
    wrapped: Dict[str, Any] = {"anyOf": [schema, {"type": "null"}]}
    if description:
        wrapped["description"] = description
    return wrapped
