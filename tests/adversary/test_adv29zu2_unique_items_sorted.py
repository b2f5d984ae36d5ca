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

"""adv29zu2 P2: ``uniqueItems`` read by jsonschema's sort: a duplicate passes, Ajv refuses.

Severity: MEDIUM (a paid answer lost in both TypeScript clients: kind (b); the Python
SDK's client reads it).

``jsonschema`` 4.26's ``uniqueItems`` (``_utils.uniq``) sorts the items (booleans
unboxed at the top level only) and compares neighbours: for ``[[1], [true], [1]]``
Python sorts the lists as ``[1] == [True]``, the two ``[1]`` are not neighbours, and
``equal([1], [True])`` is false, so the array is "unique". Ajv (both majors of the
TypeScript SDK) compares every pair and refuses it: "must NOT have duplicate items
(items ## 0 and 2 are identical)". ``uniqueItems`` is in ``portable_schema.
PORTABLE_VALUES``, so it is listed; the server's own check and ``client_refusal`` are
the same jsonschema, so both accept the answer and it is delivered structured.

Observed on main (no chain: the listing and ``answer_result`` of a paid delivery, then
the Python SDK's check and the TypeScript SDK's Ajv of 1.x (the Inspector) and 2.x):
``{"tides": [[1], [true], [1]]}`` against ``{"tides": {"type": "array", "uniqueItems":
true, "items": {"type": "array", "items": {"type": ["integer", "boolean"]}}}}`` is
structured, the Python check accepts it, both TypeScript majors refuse
"data/answer/tides must NOT have duplicate items (items ## 0 and 2 are identical)".
Same for ``[["06:10", 1], ["06:10", true], ["06:10", 1]]``.

Expected: what the server returns structured is accepted by every client: a
``uniqueItems`` checked by a pairwise comparison (as the drafts define it), or
``uniqueItems`` left out of the listed schema.
"""

import json
from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server import results as results_module
from tests.adversary.adv29zy_ts_clients import ts_client
from tests.test_mcp_portable_schema import STRANGER, _delivered, _listing, _object
from tests.test_mcp_served_structure import sdk_refusal

ROWS: Dict[str, Any] = {
    "one-item lists": {"type": ["integer", "boolean"]},
    "time and height": {"type": ["string", "integer", "boolean"]},
}
ANSWERS: Dict[str, Any] = {
    "one-item lists": [[1], [True], [1]],
    "time and height": [["06:10", 1], ["06:10", True], ["06:10", 1]],
}


@pytest.fixture(autouse=True)
def checked_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check answers in this process (the child-process bound is tested elsewhere).

    :param monkeypatch: pytest's monkeypatch.
    """

    async def inline(function: Any, args: Any) -> Any:
        return function(*args)

    monkeypatch.setattr(results_module, "run_bounded_async", inline)


def _output(row: Any) -> Dict[str, Any]:
    items: Dict[str, Any] = {"type": "array", "items": row}
    tides = {"type": "array", "uniqueItems": True, "items": items}
    return _object({"tides": tides}, required=["tides"])


def _seen(case: str) -> Dict[str, Any]:
    """The delivered result, and what each client does with it."""
    tools, tool = _listing(_output(ROWS[case]))
    result = _delivered(tool, {"tides": ANSWERS[case]})
    structured: Dict[str, Any] = dict(result.structured_content or {})
    wire = [json.loads(json.dumps(t.tool)) for t in tools]
    return {
        "structured": structured,
        "python": sdk_refusal(tools[1].tool["outputSchema"], structured),
        "v1": ts_client("v1", wire, STRANGER, structured)["refused"],
        "v2": ts_client("v2", wire, STRANGER, structured)["refused"],
    }


@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_a_structured_answer_with_a_duplicate_list_is_accepted_by_all(
    case: str,
) -> None:
    """Structured only when every client accepts it (else text, with the reason)."""
    seen = _seen(case)
    if seen["structured"]["answer"] != {"tides": ANSWERS[case]}:
        return  # given as text: the client reads it
    assert seen["python"] is None, seen
    # observed on main: both "data/answer/tides must NOT have duplicate items
    # (items ## 0 and 2 are identical), ..."
    assert seen["v1"] == "" and seen["v2"] == "", seen


def test_distinct_lists_are_structured_for_all() -> None:
    """Control: ``[[1], [2]]`` structured and accepted by every client."""
    tools, tool = _listing(_output(ROWS["one-item lists"]))
    result = _delivered(tool, {"tides": [[1], [2]]})
    structured: Dict[str, Any] = dict(result.structured_content or {})
    assert structured["answer"] == {"tides": [[1], [2]]}
    wire = [json.loads(json.dumps(t.tool)) for t in tools]
    for version in ("v1", "v2"):
        assert ts_client(version, wire, STRANGER, structured)["refused"] == ""
