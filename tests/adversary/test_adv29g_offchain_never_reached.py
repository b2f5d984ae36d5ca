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

"""A signed request no endpoint ever received holds the nonce of every later call (adv29g).

Severity: LOW (MEDIUM where the mech is the only one a user serves with
``--offchain only``: every later paid call is refused until the mode is changed).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint of :mod:`scripts.devnet.offchain_responder`) with the MCP SDK's client
launching ``mech-catalogue mcp --offchain only`` over stdio, one agent, one state folder.

Since fix29g no off-chain request is signed behind another call's outstanding one,
accepted or not (``outstanding.blocking_hold``): a refused request counts as held
because "the mech holds it signed and may still settle it". That is true of a request
the endpoint answered (402, a wrong id, a late 200) but not of one whose connection was
refused: not one byte of it left this machine, nobody holds the signature, and it can
never be settled. Yet:

- call A: the mech's declared endpoint is down (a closed port: connection refused);
  A is refused, nothing was received by anyone;
- the endpoint is back (the same mech, honest); call B (other arguments) is refused at
  once, saying "its endpoint did not accept it, but the mech holds it signed and may
  still settle it, so no request is signed behind it": false, and every later call is
  refused the same way until A itself is called again or the server changes mode.

One moment of downtime of any mech a user's calls reached (or a hostile mech that
declares a dead endpoint and is the first offer of a tool, or is pinned) refuses every
other off-chain call of the requester, with a reason that is not true.

Expected: a request whose post never connected (connection refused, or an address the
check refused before connecting) is known never received: it holds no nonce and counts
nothing, so B is signed at the marketplace's nonce and answered (or, at the least, B's
refusal does not say the mech holds a signature it never received).
"""

from pathlib import Path

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import free_port, market_nonce, price_of
from tests.devnet.test_mcp_offchain import calls, declare_url, native_mech, prepay


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_a_request_no_endpoint_received_holds_no_nonce(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """After A's connection was refused, B is signed at the nonce and answered.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    options = ("--mech", mech, "--offchain", "only", "--timeout", "20")
    prepay(devnet, 3 * price)
    start = market_nonce(devnet)
    declare_url(devnet, service_id, f"http://127.0.0.1:{free_port()}")
    (a,) = calls(devnet, tmp_path, 1, *options, prompt="A: the endpoint is down")
    assert a.is_error and "ConnectionError" in _text(a), _text(a)  # never received
    with OffchainResponder(devnet.info, [mech]) as endpoint:  # the mech is back
        declare_url(devnet, service_id, endpoint.url)
        (b,) = calls(devnet, tmp_path, 1, *options, prompt="B: another call")
        observed = (
            f"B: {_text(b)[:400]!r}; posts received: {len(endpoint.posts)}; "
            f"marketplace nonce {start} -> {market_nonce(devnet)}"
        )
    # observed on adv29f: B refused at once, nothing posted, the nonce unmoved:
    # "... its endpoint did not accept it, but the mech holds it signed ..."
    assert not b.is_error, observed
    assert "holds it signed" not in _text(b), observed
