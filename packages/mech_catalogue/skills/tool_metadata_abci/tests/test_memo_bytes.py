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

"""No growth with distinct large manifests: the domain's memos hold bounded text.

A manifest of about 1 MB (one tool whose ``input.schema`` has 4 properties, each a
``$ref`` to one large definition with a title of its own, and a large ``output.schema``)
parses without a problem into about 2.5 MB of canonical schema text. Memos bounded only by
entries (the canonical-text memo, the embedded-schema check, the body digest) kept about
that much of every distinct such manifest after every reference to it was dropped: about
6 MB a manifest at 500 KB a schema, up to gigabytes at 4,096 entries. Every memo of the
domain is now bounded in characters (``mech_catalogue_core/model/memo.py``), so what a run of K such
manifests leaves behind does not grow with K.
"""

import gc
import json
import tracemalloc
from typing import Any, Dict

from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Mech,
)
from mech_catalogue_core.model.tool import MechRef

#: characters of each large schema (the definition, the output schema)
SCHEMA_CHARS = 200_000
#: what K manifests may leave behind, whatever K (the old memos kept ~1 MB a manifest)
RETAINED_BOUND = 2_000_000


def large_schema(index: int, tag: str) -> Dict[str, Any]:
    """A valid schema of about :data:`SCHEMA_CHARS` characters, distinct per index.

    :param index: which manifest.
    :param tag: which schema of it.
    :return: the schema.
    """
    return {"type": "object", "description": f"{tag}{index} " + "x" * SCHEMA_CHARS}


def large_manifest(index: int) -> bytes:
    """One tool, 4 arguments that each ``$ref`` one large definition, a large output.

    :param index: makes every text in it distinct from the other manifests'.
    :return: UTF-8 JSON.
    """
    properties = {
        f"a{j}": {"$ref": "#/$defs/big", "title": f"t{j}-{index}"} for j in range(4)
    }
    meta = {
        "amp": {
            "name": "amp",
            "description": "amplifies",
            "input": {
                "type": "object",
                "description": "in",
                "schema": {
                    "type": "object",
                    "properties": properties,
                    "$defs": {"big": large_schema(index, "def")},
                },
            },
            "output": {
                "type": "object",
                "description": "out",
                "schema": large_schema(index, "out"),
            },
        }
    }
    return json.dumps(
        {"name": "m", "description": "d", "tools": ["amp"], "toolMetadata": meta}
    ).encode()


def digest_each(first: int, count: int) -> None:
    """Parse manifests, build their mechs and content digests, keep nothing.

    :param first: index of the first manifest.
    :param count: how many.
    """
    for index in range(first, first + count):
        result = parse_manifest(large_manifest(index))
        assert result.manifest is not None and not result.errors, result.problems
        (tool,) = result.manifest.tools
        assert len(tool.arguments) == 4
        assert sum(len(a.schema_json) for a in tool.arguments) > 4 * SCHEMA_CHARS
        ref = MechRef(100, "complementary_service_metadata", "0x" + "5a" * 20, index)
        mech = Mech.from_manifest(
            ref, result.manifest, result.problems, "0x" + "11" * 32
        )
        assert len(mech.content_digest()) == 64


def retained_after(first: int, count: int) -> int:
    """Bytes still allocated after digesting manifests and dropping every reference.

    :param first: index of the first manifest.
    :param count: how many.
    :return: traced bytes alive after a collection.
    """
    gc.collect()
    tracemalloc.start()
    try:
        digest_each(first, count)
        gc.collect()
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_distinct_large_manifests_leave_bounded_memory_behind() -> None:
    """K = 4 and K = 12 distinct large manifests leave about the same (little) behind."""
    digest_each(
        1000, 1
    )  # imports, compiled validators, interned names: not what is measured
    few = retained_after(0, 4)
    many = retained_after(100, 12)
    assert few < RETAINED_BOUND, few
    assert many < RETAINED_BOUND, many
    assert many - few < RETAINED_BOUND // 2, (few, many)
