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

"""A call whose post never connected, called again, signs anew and is answered (adv29g).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in endpoint
of :mod:`scripts.devnet.offchain_responder`) with the MCP SDK's client launching
``mech-catalogue mcp --offchain only`` over stdio. The other side of
``tests/adversary/test_adv29g_offchain_never_reached.py``: there another call goes on;
here the same call does, once the mech is back, paid once.
"""

from pathlib import Path

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import free_port, market_nonce, price_of
from tests.devnet.test_mcp_offchain import (
    calls,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_the_same_call_after_an_unreached_endpoint_is_answered_once(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Unreached, then the same call: answered, one price charged, one post.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    options = ("--mech", mech, "--offchain", "only", "--timeout", "30")
    prepay(devnet, 3 * price)
    start, before = market_nonce(devnet), prepaid(devnet)
    declare_url(devnet, service_id, f"http://127.0.0.1:{free_port()}")
    (unreached,) = calls(devnet, tmp_path, 1, *options)
    text = _text(unreached)
    assert unreached.is_error and "nothing was sent" in text, text
    assert "holds it signed" not in text, text
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        (again,) = calls(devnet, tmp_path, 1, *options)
        posts = len(endpoint.posts)
    assert not again.is_error, _text(again)
    assert posts == 1 and before - prepaid(devnet) == price
    assert market_nonce(devnet) == start + 1
