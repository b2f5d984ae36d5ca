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

"""adv29zu C3: a mech makes its paid answer a failed call; a pydantic-ai run then dies.

Severity: MEDIUM (issue #29 (b), and (c) with other arguments: a mech decides, by
delivering text where its own output schema promises structure, that its paid answer
comes back ``isError``. pydantic-ai's ``MCPToolset`` (default
``tool_error_behavior="retry"``) turns every ``isError`` result into ``ModelRetry``: the
agent's model reads the paid answer as a failed call (``{"error": "<framed answer>"}``,
outcome ``retried``, the provider's error channel), and the call counts against the
tool's ``max_retries`` (1 by default). A model that calls again, as models do after a
failed call, gets the journalled answer (no second payment for the same arguments),
again an error: the run raises ``UnexpectedModelBehavior`` ("Tool 'tide-table'
exceeded max retries count of 1") and the agent returns nothing; with other arguments
the second call pays again).

``results.answer_result`` sets ``is_error`` when the tool has an output schema and the
answer is not structured (``problem``), when its value was withheld for hidden text or
instructions, or when a mech outside the offers delivered: the mech controls the first
two. The MCP SDK's client refuses a non-error result without ``structuredContent`` for a
tool with an ``outputSchema``, which is why a text answer is an error there.

Observed on main (devnet: ``tide-table`` with output schema ``{"result": string}``, the
chosen mech delivering the plain text "High tide at 14:02 in Brest.", paid once, 5e15
wei; a pydantic-ai ``Agent`` whose stand-in ``FunctionModel`` calls the tool twice with
the same arguments): one payment; the model first reads ``{"error": "tide-table:
request 0x... was paid ... High tide at 14:02 in Brest. ..."}``; the run raises
``UnexpectedModelBehavior``. ``direct_call_tool`` raises ``ModelRetry``.

Expected: a paid, delivered answer is never returned as a failed call (e.g. paid mech
tools served without ``outputSchema``, their answers text, structure and problems said
in the server's line), so a client neither retries it nor ends its run on it.
"""

from pathlib import Path

from mech_catalogue_cli.mcp_server.offers import check_delivery
from mech_catalogue_cli.mcp_server.results import answer_result
from mech_catalogue_cli.mcp_server.source import ServedTool
from scripts.devnet import Devnet
from tests.adversary.test_adv29zu_structured_answer_in_clients import (
    OUTPUT,
    paid_call_view,
)
from tests.devnet.mcp_helpers import market_nonce
from tests.test_mcp_paid_answer_unit import PAID, SAME, _entry, _offer

ANSWER = "High tide at 14:02 in Brest."


def test_a_delivered_text_answer_is_not_a_failed_call() -> None:
    """Without a chain: a trusted delivery of text for a tool with an output schema."""
    listed = {"name": "tide", "inputSchema": {"type": "object"}, "outputSchema": OUTPUT}
    tool = ServedTool("tide", "tide", listed, (_offer(PAID), _offer(SAME)))
    check = check_delivery(PAID, PAID, [_offer(PAID), _offer(SAME)])
    problem = "the response is not JSON"
    result = answer_result(tool, _entry(), ANSWER.encode(), check, None, problem, {})
    text = str(getattr(result.content[0], "text", ""))
    assert ANSWER in text and "was paid" in text
    # observed on main: is_error True (pydantic-ai: ModelRetry)
    assert not result.is_error


def test_a_pydantic_ai_run_survives_a_paid_answer_shaped_wrongly(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A pydantic-ai Agent over stdio; its stand-in model calls the tool twice."""
    nonce = market_nonce(chain_snapshot)
    view = paid_call_view(
        chain_snapshot, tmp_path, "pydantic-ai-agent", ANSWER.encode(), calls=2
    )
    assert market_nonce(chain_snapshot) == nonce + 1  # the same arguments: paid once
    first = view["read"][0]
    assert ANSWER in first and "was paid" in first, first[:600]  # the answer is there
    # observed on main: {"raised": "UnexpectedModelBehavior: Tool 'tide-table' exceeded
    # max retries count of 1. ..."}, the first read {"error": "tide-table: request..."}
    assert view["call"] == "done", (view["call"], first[:80])
