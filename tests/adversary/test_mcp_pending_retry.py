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

"""A retried call whose request transaction is still pending never pays twice.

Before the fix, a retry found ``getRequestStatus`` = DoesNotExist (the first transaction
was only pending), signed a new transaction at the next pending account nonce, and both
were mined: three calls with the same arguments broadcast three payments (adversary
review). The chain here is an in-process stand-in with a mempool and account nonces (anvil
cannot hold one transaction pending while mining the next in a unit test; no kubo is
needed to count payments).
"""

from pathlib import Path
from typing import Any, Dict, List, Optional, Set

import anyio
import pytest

from mech_catalogue_cli.mcp_server import sending as sending_module
from mech_catalogue_cli.mcp_server.ipfs import Uploaded
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DOES_NOT_EXIST,
    STATUS_REQUESTED_PRIORITY,
    MarketError,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from tests.adversary.test_mcp_spend_cap_unmined import OneTool, UnminedMarket


class PendingChain(UnminedMarket):
    """A mempool: signed transactions wait there until :meth:`mine`, one per account nonce."""

    def __init__(self) -> None:
        """Nothing mined, nothing pending."""
        super().__init__()
        self.pool: Dict[int, Set[str]] = {}  # account nonce -> distinct raw txs seen
        self.mined: List[str] = []
        self.used_nonces = 0  # the account's mined transaction count

    def sign(self, transaction: Dict[str, Any]) -> SignedRequest:
        """Sign at the next pending nonce (mined count + pending ones), a new tx each time.

        :param transaction: the transaction.
        :return: the signed request.
        """
        nonce = self.used_nonces + len(self.pool)
        raw = f"0x{nonce:04x}{sum(len(v) for v in self.pool.values()):04x}"
        return SignedRequest(raw, "0x" + raw[2:].ljust(64, "0"), nonce)

    def confirmed_nonce(self) -> int:
        """Return the mined count.

        :return: it.
        """
        return self.used_nonces

    def final_nonce(self, depth: int) -> int:
        """Return the count ``depth`` blocks deep: every mined nonce final (no reorg here).

        :param depth: ignored.
        :return: the mined count.
        """
        del depth
        return self.used_nonces

    @staticmethod
    def mined_block(tx_hash: str) -> None:
        """No block is read here.

        :param tx_hash: ignored.
        """
        del tx_hash

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """Put it in the mempool; not mined in time.

        :param signed: the signed request.
        :param wait: seconds.
        :raises MarketError: always.
        """
        self.pool.setdefault(signed.account_nonce, set()).add(signed.raw_tx)
        raise MarketError(f"not mined within {wait:g} s")

    def mine(self) -> None:
        """Mine every pending nonce (one transaction each), as a chain would."""
        for nonce in sorted(self.pool):
            self.mined.append(sorted(self.pool[nonce])[0])
            self.used_nonces += 1
        self.pool = {}

    def mined_request_id(self, tx_hash: str, data: str) -> None:
        """No receipt names another request id here: the derived id is the request's.

        :param tx_hash: the transaction hash.
        :param data: the request data.
        """
        del tx_hash, data

    def transaction_reverted(self, tx_hash: str) -> Optional[bool]:
        """No receipt for a request not mined here (its nonce went elsewhere).

        :param tx_hash: the transaction hash.
        :return: False for a mined request, else None.
        """
        return False if any(tx_hash[2:].startswith(r[2:]) for r in self.mined) else None

    def market_nonce(self) -> int:
        """Return the requests mined so far.

        :return: the nonce.
        """
        return len(self.mined)

    def status(self, request_id: str) -> int:
        """Mined requests exist; nothing else does.

        :param request_id: the id.
        :return: the status.
        """
        mined_ids = {"0x" + f"{n + 1:064x}" for n in range(len(self.mined))}
        return (
            STATUS_REQUESTED_PRIORITY
            if request_id in mined_ids
            else STATUS_DOES_NOT_EXIST
        )


def _server(tmp_path: Path, chain: PendingChain) -> MechToolServer:
    settings = CallSettings(
        gateway_url="", ipfs_api_url="", max_spend=10**6, io_timeout=0.1, timeout=0.1
    )
    app = MechToolServer(OneTool(), settings, chain, Journal(tmp_path))  # type: ignore
    app.refresh()
    return app


@pytest.fixture(autouse=True)
def no_ipfs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads return a fixed CID (what is counted is payments).

    :param monkeypatch: pytest's monkeypatch.
    """
    monkeypatch.setattr(
        sending_module,
        "upload_json",
        lambda url, payload, timeout: Uploaded("Qm", "0x" + "ab" * 32, 1),
    )


def _call_three_times(app: MechToolServer) -> None:
    async def main() -> None:
        for _ in range(3):
            with pytest.raises(MarketError):
                await app.call("t", {"prompt": "same"})

    anyio.run(main)


def test_retries_of_a_pending_request_send_the_same_transaction(tmp_path: Path) -> None:
    """Three calls with the same arguments while pending: one transaction, mined once."""
    chain = PendingChain()
    _call_three_times(_server(tmp_path, chain))
    assert {n: len(raws) for n, raws in chain.pool.items()} == {0: 1}
    chain.mine()
    assert len(chain.mined) == 1, "paid more than once for one call"


def test_the_same_holds_after_a_restart(tmp_path: Path) -> None:
    """A new server on the same journal re-sends the journalled transaction, signs none."""
    chain = PendingChain()
    _call_three_times(_server(tmp_path, chain))
    _call_three_times(_server(tmp_path, chain))
    chain.mine()
    assert len(chain.mined) == 1


def test_a_request_whose_nonce_went_elsewhere_is_paid_anew(tmp_path: Path) -> None:
    """The account nonce was mined by another transaction: the request can never be; pay once more."""
    chain = PendingChain()
    app = _server(tmp_path, chain)
    _call_three_times(app)
    chain.pool = {}  # dropped from the mempool...
    chain.used_nonces = 1  # ...and its nonce used by another transaction of the account
    with pytest.raises(MarketError):
        anyio.run(app.call, "t", {"prompt": "same"})
    assert list(chain.pool) == [1]  # a new transaction, at the next nonce
