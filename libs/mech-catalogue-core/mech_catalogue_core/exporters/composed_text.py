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

"""Text an exporter composes out of a manifest's values, cleaned as the manifest's prose is.

:func:`..model.untrusted_text.tool_for_model` makes every description inert and keeps
the values a call sends (``enum``, ``const``, ``default``, ``examples``), the contract
keywords (``format``, ``pattern``) and the keys of object values as published: they
are data shown as JSON. An exporter that writes such a value into text a model or a
person reads (OpenAI's strict rewrite: ``Default: <json>.``, ``Format: <format>.``,
``Also: not <json>.``; Anthropic's renamed keys: ``Mech argument name: <key>.``; an A2A
skill's examples as text) turns that data into prose after the cleaning step, where
its markup would render hidden (adversarial review adv29r).

So every exporter passes the text it outputs through this module last, one choke point
per output: :func:`composed_for_model` for one text, :func:`schema_prose_for_model`
for every prose string of a schema. Both clean as
:func:`..model.untrusted_text.for_model` does (through ``sentence_for_model``, which
returns a text needing nothing at once) and are idempotent: text that was already clean
is unchanged, and markup formed across the boundary of two pieces (a value beside a
sentence) is caught as well. Values that stay data (an ``enum`` list, a ``const``, a
``default`` as JSON, property names) are never touched: rewriting them would change
what a call must send.
"""

from typing import Any, Dict

from mech_catalogue_core.manifest.keywords import (
    DEFINITIONS,
    NAMED_SUBSCHEMAS,
    SUBSCHEMA_LIST,
    SUBSCHEMA_ONE,
)
from mech_catalogue_core.model.quoted_text import sentence_for_model
from mech_catalogue_core.model.untrusted_text import MAX_TEXT_CHARS, capped

#: characters of a text an exporter composes: the manifest's own description (at most
#: :data:`..model.untrusted_text.MAX_TEXT_CHARS`) and the notes the exporter adds to
#: it, capped by as much again (a ``default`` of any size is said in a note)
COMPOSED_TEXT_CHARS = 2 * MAX_TEXT_CHARS
#: the schema keywords whose strings are prose for a reader (as
#: :func:`..model.untrusted_text.schema_for_model` cleans them)
PROSE_KEYWORDS = ("description", "title", "$comment")


def composed_for_model(text: str) -> str:
    """A text an exporter composed, as a model or a person may read it.

    :param text: the composed text (manifest prose, values and the exporter's words).
    :return: invisible characters removed, markup inert
        (:func:`..model.quoted_text.sentence_for_model`), then capped at
        :data:`COMPOSED_TEXT_CHARS` saying so: ``for_model(text, COMPOSED_TEXT_CHARS)``.
    """
    return capped(sentence_for_model(text), COMPOSED_TEXT_CHARS)


def schema_prose_for_model(schema: Any) -> Any:
    """A JSON Schema whose prose strings are :func:`composed_for_model`, values kept.

    Walks the subschema keywords only (:mod:`..manifest.keywords`), so a property
    named ``description`` and the strings of ``enum``, ``const``, ``default``,
    ``examples``, ``format`` and ``pattern`` are left as they are.

    :param schema: a JSON Schema, as an exporter outputs it (not modified).
    :return: a new schema when it is an object or a list, else ``schema`` itself; its
        non-prose values are shared with ``schema``. Schemas nested deeper than Python
        walks raise RecursionError.
    """
    if isinstance(schema, list):
        return [schema_prose_for_model(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out: Dict[str, Any] = {}
    for key, value in schema.items():
        if key in PROSE_KEYWORDS and isinstance(value, str):
            out[key] = composed_for_model(value)
        elif key in SUBSCHEMA_ONE or key in SUBSCHEMA_LIST:
            out[key] = schema_prose_for_model(value)
        elif key in NAMED_SUBSCHEMAS + DEFINITIONS and isinstance(value, dict):
            out[key] = {name: schema_prose_for_model(v) for name, v in value.items()}
        else:
            out[key] = value
    return out
