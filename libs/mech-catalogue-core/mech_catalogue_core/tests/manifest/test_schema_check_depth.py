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

"""The JSON Schema checks refuse a schema by its depth, never by the stack.

``jsonschema`` walks a schema by recursion, about 11 frames a level. A check that ran
into the recursion limit answered "nested too deeply", and remembered it: the same schema
was valid or not depending on the caller's depth and the process's limit (an agent's is
100,000, the CLI's 1,000). Now every schema deeper than ``SCHEMA_CHECK_MAX_DEPTH`` is
refused by its count, and every shallower one is checked in full, wherever it is called.
"""

import json
from typing import Any, Callable

import pytest
from mech_catalogue_core.exporters import (
    conformance,
)
from mech_catalogue_core.manifest import (
    validation,
)
from mech_catalogue_core.manifest.validation import (
    SCHEMA_CHECK_MAX_DEPTH,
)


def nested(levels: int, dialect: str) -> str:
    """A schema of ``levels`` nested ``items`` (the deepest walk jsonschema makes).

    :param levels: nesting depth of the JSON text.
    :param dialect: its ``$schema``.
    :return: its canonical text.
    """
    schema: Any = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"items": schema}
    schema["$schema"] = dialect
    return json.dumps(schema, sort_keys=True)


def called_at_depth(frames: int, check: Callable[[str], str], text: str) -> str:
    """Call a memoised check afresh with ``frames`` more frames on the stack.

    :param frames: extra frames.
    :param check: ``validation.schema_error`` or ``conformance._meta_schema_error``.
    :param text: the schema text.
    :return: the check's answer.
    """
    if frames:
        return called_at_depth(frames - 1, check, text)
    check.cache_clear()  # type: ignore[attr-defined]
    return check(text)


CHECKS = {
    "schema_error": (
        validation.schema_error,
        "https://json-schema.org/draft/2019-09/schema",
    ),
    "meta_schema_error": (
        conformance._meta_schema_error,  # pylint: disable=protected-access
        "https://json-schema.org/draft/2020-12/schema",
    ),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_answer_depends_on_the_depth_not_on_the_stack(
    name: str, recursion_limit: Any
) -> None:
    """At the cap: valid at 0 and 200 extra frames; one level more: refused, any limit.

    :param name: which check.
    :param recursion_limit: sets Python's recursion limit.
    """
    check, dialect = CHECKS[name]
    at_cap = nested(SCHEMA_CHECK_MAX_DEPTH, dialect)
    deeper = nested(SCHEMA_CHECK_MAX_DEPTH + 1, dialect)
    for limit in (1000, 100_000):
        recursion_limit(limit)
        assert [called_at_depth(f, check, at_cap) for f in (0, 200)] == ["", ""]
        answers = {called_at_depth(f, check, deeper) for f in (0, 200)}
        assert len(answers) == 1
        assert f"more than {SCHEMA_CHECK_MAX_DEPTH} levels deep" in answers.pop()
    check.cache_clear()  # type: ignore[attr-defined]
