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

"""The root rules of a tool's ``input.schema``: what constrains its arguments together.

Each property of an ``input.schema`` becomes one argument (:mod:`.parse_tool`); what the
root says of several arguments at once (``anyOf`` arms, ``minProperties``,
``dependentRequired``, ...) cannot ride on any one of them, so it is stated as a
sentence in the tool's description. A root that constrains nothing is an untyped input;
a root made of ``anyOf``/``oneOf`` arms that each declare ``properties`` is read as one
object of optional arguments. The keywords: JSON Schema 2020-12 Core, section 10.2
(``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``,
``dependentSchemas``) and Validation, section 6.5 (``minProperties``, ``maxProperties``,
``dependentRequired``); ``dependencies`` is draft-07's.
"""

from typing import Any, Dict, Optional

from mech_catalogue_core.model.canonical import (
    canonical_text,
)

#: Root keywords of an ``input.schema`` that constrain arguments together (not one each).
TOP_LEVEL_COMBINATORS = (
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "minProperties",
    "maxProperties",
)
#: Root keywords that add no constraint on arguments.
_UNCONSTRAINED_KEYS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "$defs", "definitions"}
)
MAX_RULE_TEXT = 300


def unconstrained(schema: Any) -> bool:
    """Whether an ``input.schema`` declares no constraint at all (any object goes).

    :param schema: the ``input.schema`` value.
    :return: True for ``{}``, ``true``, ``$schema``-only and ``{"type": "object"}``
        (with annotations and an open ``additionalProperties`` at most).
    """
    if schema is True:
        return True
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return False
    rest = set(schema) - _UNCONSTRAINED_KEYS - {"type"}
    if schema.get("additionalProperties", True) in (True, {}):
        rest.discard("additionalProperties")
    return not rest


def union_root(schema: Any) -> Optional[Dict[str, Any]]:
    """An object root from ``anyOf``/``oneOf`` arms that each declare ``properties``.

    The arms' properties become optional arguments (the first arm declaring a property
    gives its schema); the arms' ``required`` sets stay as the root combinator, which
    :func:`rule_sentence` turns into a sentence.

    :param schema: the ``input.schema``.
    :return: the merged schema, or None when the root is not such a union.
    """
    if not isinstance(schema, dict):
        return None
    for keyword in ("anyOf", "oneOf"):
        arms = schema.get(keyword)
        if not isinstance(arms, list) or not arms:
            continue
        if not all(
            isinstance(a, dict) and isinstance(a.get("properties"), dict) for a in arms
        ):
            return None
        properties: Dict[str, Any] = {}
        for arm in arms:
            for key, value in arm["properties"].items():
                properties.setdefault(key, value)
        merged = {k: v for k, v in schema.items() if k != keyword}
        merged.update({"type": "object", "properties": properties})
        merged[keyword] = [
            {"required": list(a["required"])}
            for a in arms
            if isinstance(a.get("required"), list) and a["required"]
        ]
        if not merged[keyword]:
            del merged[keyword]
        return merged
    return None


def rule_sentence(keyword: str, value: Any) -> str:
    """One sentence saying what a root combinator of an input schema asks.

    :param keyword: the keyword (one of :data:`TOP_LEVEL_COMBINATORS`).
    :param value: its value.
    :return: e.g. "Give at least one of: market_id; slug."
    """
    if keyword in ("anyOf", "oneOf") and isinstance(value, list):
        sets = [a.get("required") if isinstance(a, dict) else None for a in value]
        if sets and all(
            isinstance(s, list) and s and set(a) == {"required"}
            for s, a in zip(sets, value)
        ):
            alternatives = [" and ".join(str(x)[:80] for x in s or ()) for s in sets]
            quantity = "at least one of" if keyword == "anyOf" else "exactly one of"
            return f"Give {quantity}: {'; '.join(alternatives)}."
    text = canonical_text({keyword: value})
    if len(text) > MAX_RULE_TEXT:
        text = text[:MAX_RULE_TEXT] + "..."
    return f"The arguments must also satisfy the JSON Schema rule {text}."


def top_level_rules(schema: Any) -> str:
    """The sentences for every root combinator of an ``input.schema`` ("" when none).

    :param schema: the ``input.schema`` value (as in the manifest).
    :return: the sentences, space-separated.
    """
    if not isinstance(schema, dict):
        return ""
    if not isinstance(schema.get("properties"), dict):
        schema = union_root(schema) or schema
    return " ".join(
        rule_sentence(k, schema[k]) for k in TOP_LEVEL_COMBINATORS if k in schema
    )
