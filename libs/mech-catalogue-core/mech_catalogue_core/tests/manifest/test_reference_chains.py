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

"""Definitions that refer to one another in a chain: cut at a fixed depth, whatever the stack.

The bundler follows a reference into its definition by recursion. Before the cut, how
long a chain could be followed depended on Python's recursion limit and on how deep the
caller already was: the same bytes parsed on arrival and again from the cache, or by an
agent whose limit a library had raised (py_ecc sets 100,000), gave different tools, so
agents could build different catalogues; and each link kept its own copy of a growing
path (4,000 links: 256 MB). Now a rewrite stops at ``MAX_REWRITE_DEPTH`` nested schemas.
"""

import json
import tracemalloc
from typing import Any, Dict, List

from mech_catalogue_core.manifest import (
    parse_tool,
    typed_fast_path,
)
from mech_catalogue_core.manifest.parsing import (
    ParseResult,
    parse_manifest,
    parse_manifest_general,
)
from mech_catalogue_core.manifest.schema_refs import (
    MAX_REWRITE_DEPTH,
)
from mech_catalogue_core.model import problems as P


def chain(links: int) -> Dict[str, Any]:
    """An input schema whose one property leads through ``links`` definitions.

    :param links: definitions ``A0`` .. ``A{links-1}``, each referring to the next.
    :return: the schema (the last definition is a string).
    """
    defs: Dict[str, Any] = {
        f"A{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/A{i + 1}"}}}
        for i in range(links)
    }
    defs[f"A{links}"] = {"type": "string"}
    return {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A0"}},
        "$defs": defs,
    }


def manifest(links: int) -> bytes:
    """A one-tool manifest whose arguments come from :func:`chain`.

    :param links: the chain's length.
    :return: its bytes.
    """
    tool = {"input": {"type": "object", "schema": chain(links)}}
    return json.dumps({"tools": ["t"], "toolMetadata": {"t": tool}}).encode()


def parsed_at_depth(data: bytes, frames: int) -> ParseResult:
    """Parse afresh with ``frames`` more Python frames on the stack than the caller has.

    The memos are emptied first: an agent meeting the bytes for the first time (or after
    a restart) derives them at whatever depth its caller is.

    :param data: the manifest.
    :param frames: extra frames.
    :return: the parse result.
    """
    if frames:
        return parsed_at_depth(data, frames - 1)
    typed_fast_path.clear_memos()
    parse_tool.INPUT_SCHEMA_MEMO.clear()
    parse_tool.OUTPUT_SCHEMA_MEMO.clear()
    return parse_manifest(data)


def test_the_result_does_not_depend_on_the_callers_stack(recursion_limit: Any) -> None:
    """Chains around every cut a stack could make parse alike at 0, 200 and 400 frames."""
    recursion_limit(1000)
    for links in range(10, 131, 15):
        data = manifest(links)
        results: List[ParseResult] = [parsed_at_depth(data, f) for f in (0, 200, 400)]
        assert results[1] == results[0] and results[2] == results[0], links


def test_a_short_chain_is_followed_and_a_long_one_is_cut(recursion_limit: Any) -> None:
    """A chain within the depth keeps its type; a longer one is any value, with a warning."""
    recursion_limit(1000)
    short = parse_manifest_general(manifest(10))
    assert short.problems == ()
    assert short.manifest is not None
    argument = short.manifest.tools[0].arguments[0]
    assert '"string"' in argument.schema_json  # the chain's end is still there
    long = parse_manifest_general(manifest(MAX_REWRITE_DEPTH))
    assert long.codes == (P.INVALID_ARGUMENT_SCHEMA,)
    assert f"more than {MAX_REWRITE_DEPTH} schemas deep" in long.problems[0].message
    assert (
        long.manifest is not None and long.manifest.tools[0].arguments[0].type == "any"
    )


def test_a_chain_as_long_as_a_manifest_allows_costs_little(
    recursion_limit: Any,
) -> None:
    """Under an agent's raised recursion limit a 3,000-link chain is cut, not followed.

    Followed to its end it took about 100 MB and seconds (each link a copy of a longer
    path); cut, a few MB, and the same result as under the default limit.

    :param recursion_limit: sets Python's recursion limit for this test.
    """
    data = manifest(3000)
    recursion_limit(1000)
    expected = parse_manifest_general(data)
    recursion_limit(100_000)
    tracemalloc.start()
    try:
        result = parse_manifest_general(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result == expected
    assert peak < 32 * 2**20, peak
