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

"""adv29zw2 R1: an off-chain request its mech settled is never read once its tool left.

Severity: MEDIUM (kind (b): the prepaid balance is charged, the answer is never
returned; the retry loops on "call again with the same arguments to check it").

fix29zzg resumes a call whose earlier attempt signed anything by its remembered key
(:func:`.recall.recall_signed`); when that key's mech tool is not served now,
``MechToolServer._resumed_unserved`` looks the request up on chain with
``resume_from_chain`` alone, which reads ``MarketplaceRequest`` events. An off-chain
request settled by its mech (``deliverMarketplaceWithSignatures``) emits
``MarketplaceDeliveryWithSignatures``, never ``MarketplaceRequest``, and the request's
status (``mapRequestIdInfos``), which ``_offchain_again`` reads for a served tool,
is not read. A stranger whose mech holds the signed request (the post's answer cut by
the call's end, or a 5xx after keeping it) drops its tool from its manifest and then
delivers: the user is charged and every retry says the tool is not served.

Observed on main (the stand-ins of ``tests/test_mcp_recall_signed.py``: the entry
``prepared`` with one off-chain request signed to mech 0x11.., its status on chain
delivered, the delivery readable; the MCP name now standing for another mech tool):
two calls each answer ``isError`` "its mech tool "t" is not served now; no other tool
is paid for this call: off-chain request 0xabab.. ... its mech may hold it and still
settle it ... call again with the same arguments to check it (that will not pay
twice)"; the delivery is never read.

Expected: the request's status read as for a served tool (``_offchain_again``): a
settled one waited for under :func:`.recall.departed_tool` and its answer returned,
as a ``sent`` entry of a departed tool is (:func:`.recall.recall_paid`).
"""

from pathlib import Path

import anyio

from tests.test_mcp_paid_answer_unit import (  # noqa: F401  # pylint: disable=unused-import
    REQUEST_ID,
    _entry,
    no_child_processes,
)
from tests.test_mcp_recall_paid import ANSWER
from tests.test_mcp_recall_signed import (
    ARGUMENTS,
    NAME,
    SIGNED,
    UnminedMarket,
    _app,
)


class SettledMarket(UnminedMarket):
    """No ``MarketplaceRequest`` of the call; its off-chain request delivered."""


def test_a_settled_offchain_request_of_a_departed_tool_is_answered(
    tmp_path: Path,
) -> None:
    """The paid answer returned; nothing paid again (``sign`` raises)."""
    entry = _entry(**SIGNED["offchain"])
    assert entry.request_id == REQUEST_ID
    app = _app(tmp_path, SettledMarket(), entry)
    assert SettledMarket.status(REQUEST_ID) != 0  # settled on chain
    for _ in range(2):
        result = anyio.run(app.call, NAME, ARGUMENTS)
        text = result.content[0].text
        # observed on main: isError, "its mech tool "t" is not served now; ...
        # call again with the same arguments to check it"
        assert not result.is_error and ANSWER in text, text
