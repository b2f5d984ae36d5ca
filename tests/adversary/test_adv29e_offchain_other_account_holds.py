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

"""Another account's off-chain request blocks this account's calls (adversary adv29e).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint) with the MCP SDK's client launching ``mech-catalogue mcp`` over stdio, one
agent, two keys on one ``--state-dir`` (the default state folder is one per user, for
every key and every chain: docs/mcp.md, ``--state-dir``).

``mapNonces`` is per requester, but the nonce decisions of adv29d
(``RequestSender.ensure_sent``: ``others = [h for r in records for h in r.holds if
h.key != key]``, then ``outstanding.next_nonce``, ``blocking_hold``,
``onchain_blocker``) take every journalled off-chain request of the folder, whichever
account signed it (and whichever chain: entries record neither), and compare its nonce
with *this* requester's:

- account S's request, accepted by its mech and not yet settled, holds S's nonce N;
- account T (another key, same folder), whose own nonce is below N, calls on chain:
  refused, "an off-chain request to mech ... is outstanding at nonce N ...: an on-chain
  request now would take nonce M and that request could no longer be settled", nothing
  sent, for the marketplace's ``maxResponseTimeout`` (3,600 s on the devnet) although
  T's request cannot touch S's nonce;
- the same holds the other way for T's off-chain requests (signed behind S's holds at
  a nonce T's own marketplace nonce never reaches in order: unsettleable), and a
  devnet run's leftover entries in the default folder hold a mainnet server's nonces.

Expected: only this requester's requests (on this chain and marketplace) hold its
nonces; T's on-chain call is sent and paid once.
"""

from pathlib import Path

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.test_mcp_offchain import calls, declare_url, native_mech, prepay


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_another_accounts_accepted_request_does_not_hold_this_accounts_nonce(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """S's accepted off-chain request; T on the same folder calls on chain: sent.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the shared state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    other_key = tmp_path / "other.key"
    other_key.write_text(str(devnet.info.accounts["owner_3"]["private_key"]))
    state = tmp_path / "state"
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        (s,) = calls(
            devnet, state, 1, "--mech", mech, "--offchain", "only", "--timeout", "3"
        )
        assert "accepted" in _text(s), _text(s)
        (t,) = calls(
            devnet,
            state,
            1,
            "--mech",
            mech,
            "--offchain",
            "never",
            "--key-file",
            str(other_key),
            "--timeout",
            "3",
            prompt="T: another account's call",
        )
    # observed on main: isError "... outstanding at nonce N (... accepted by its
    # endpoint; the marketplace is at nonce M for this requester): an on-chain request
    # now would take nonce M ...", nothing sent
    assert "outstanding at nonce" not in _text(t), _text(t)
    assert "tx 0x" in _text(t), _text(t)  # sent on chain (no one answers it here)
