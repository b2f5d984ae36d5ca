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

"""adv29zw2 R1 over the real path: a settled off-chain request lost once its tool left.

Severity: MEDIUM (kind (b): the prepaid balance is charged, the answer is never
returned; as ``test_adv29zw2_offchain_settled_unserved.py``).

On the devnet (anvil with the real MechMarketplace bytecode, kubo), the MCP SDK's
client over stdio, ``mech-catalogue mcp --offchain only``, one state folder: the
native mech's owner declares an endpoint and the one-tool ``tide-table`` manifest.
The endpoint holds the post past the call's ``--timeout`` (the call ends with its
signed request journalled), then the owner moves the service hash to a manifest
without ``tide-table`` and settles the request with
``deliverMarketplaceWithSignatures`` (the prepaid balance charged). A new server
process is called again with the same arguments.

Observed on main: the retry answers ``isError`` 'its mech tool "tide-table" is not
served now; no other tool is paid for this call: off-chain request ... its mech may
hold it and still settle it ... call again with the same arguments to check it';
the request is delivered on chain (``MarketplaceDeliveryWithSignatures``, no
``MarketplaceRequest``) and the price left the prepaid balance.

Expected: the settled request's answer returned (its status read as a served tool's
is), nothing signed again.
"""

import json
from pathlib import Path
from typing import Any

import anyio

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.adversary.tides_manifest import TIDES, tides_manifest
from tests.devnet.mcp_helpers import stdio_client
from tests.devnet.test_mcp_offchain import native_mech, prepaid, prepay

ARGUMENTS = {"prompt": "Brest"}


def _manifest(devnet: Devnet, service_id: int, manifest: Any) -> None:
    _, digest = devnet.add_manifest(json.dumps(manifest).encode("utf-8"))
    devnet.change_service_hash(service_id, digest)


def _call(devnet: Devnet, state: Path, mech: str) -> Any:
    options = ("--mech", mech, "--offchain", "only", "--timeout", "3")

    async def main() -> Any:
        async with stdio_client(devnet, state, *options) as client:
            return await client.call_tool(TIDES, ARGUMENTS)

    return anyio.run(main)


def test_a_settled_offchain_request_is_answered_after_its_tool_left(  # pylint: disable=R0914
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The retry returns the settled answer."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(
        devnet.info, [mech], behaviour="slow", slow_seconds=8.0
    ) as endpoint:
        manifest = tides_manifest({"type": "string", "description": "a port"})
        manifest["url"] = endpoint.url
        _manifest(devnet, service_id, manifest)
        prepay(devnet, 2 * price)
        first = _call(devnet, tmp_path, mech)
        assert first.is_error, first.content[0].text
        assert len(endpoint.posts) == 1, endpoint.posts
        form = endpoint.posts[0]
        # the owner drops the tool, then settles the held request
        gone = tides_manifest({"type": "string"})
        gone["tools"] = ["tide-chart"]
        gone["toolMetadata"] = {"tide-chart": gone["toolMetadata"].pop(TIDES)}
        gone["toolMetadata"]["tide-chart"]["name"] = "tide-chart"
        gone["url"] = endpoint.url
        _manifest(devnet, service_id, gone)
        before = prepaid(devnet)
        mech_of, sender, rid, _ = endpoint._checked(  # pylint: disable=protected-access
            form
        )
        endpoint._settle(mech_of, sender, rid, form)  # pylint: disable=protected-access
        assert not endpoint.errors, endpoint.errors
        assert prepaid(devnet) == before - price  # charged
        again = _call(devnet, tmp_path, mech)
    text = again.content[0].text
    # observed on main: isError, 'its mech tool "tide-table" is not served now; ...'
    assert not again.is_error, (first.content[0].text[:300], text)
