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

"""The MechMarketplace request and its delivery, over web3, with a call journal.

Request id: ``MechMarketplace.getRequestId(mech, requester, data, deliveryRate,
paymentType, nonce)`` where ``nonce`` is ``mapNonces(requester)``, the requester's count
of requests (the contract increments it per request). So the id of the next request is
known before it is sent: :meth:`Marketplace.next_request_id`. The journal
(:class:`Journal`, one JSON file per call key) records it before the transaction is
sent; a retry of the same call reads ``getRequestStatus(id)`` first, and pays only when
the chain has never seen that request. The signed transaction, its hash and its account
nonce are journalled before it is broadcast: while that account nonce is not mined, a
retry broadcasts the same transaction again instead of signing a new one (a new one took
the next pending nonce, and both were mined: paid twice).

Delivery: ``getRequestStatus`` turns ``Delivered`` (3); the data is in the delivering
mech's ``Deliver`` event (``mapRequestIdInfos(id).deliveryMech``): the ai-registry-mech
``Deliver(address indexed mech, address indexed mechServiceMultisig, bytes32 requestId,
uint256 deliveryRate, bytes data)`` or the devnet fixture's ``Deliver(address indexed
sender, bytes32 requestId, bytes data)``.

The signing key stays inside :class:`Marketplace` (``eth_account``); nothing here logs,
returns or puts it in an error.
"""

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from eth_abi import decode as abi_decode
from eth_account import Account
from eth_typing import HexStr
from web3 import Web3
from web3.exceptions import ContractLogicError, TimeExhausted

from mech_catalogue_cli.keys import redacted_url, without_url

#: MechMarketplace.RequestStatus
STATUS_DOES_NOT_EXIST = 0
STATUS_REQUESTED_PRIORITY = 1
STATUS_REQUESTED_EXPIRED = 2
STATUS_DELIVERED = 3

_ADDRESS = {"type": "address", "name": ""}
MARKETPLACE_ABI: List[Dict[str, Any]] = [
    {
        "type": "function",
        "name": "request",
        "stateMutability": "payable",
        "inputs": [
            {"type": "bytes", "name": "requestData"},
            {"type": "uint256", "name": "maxDeliveryRate"},
            {"type": "bytes32", "name": "paymentType"},
            {"type": "address", "name": "priorityMech"},
            {"type": "uint256", "name": "responseTimeout"},
            {"type": "bytes", "name": "paymentData"},
        ],
        "outputs": [{"type": "bytes32", "name": "requestId"}],
    },
    {
        "type": "function",
        "name": "getRequestId",
        "stateMutability": "view",
        "inputs": [
            {"type": "address", "name": "mech"},
            {"type": "address", "name": "requester"},
            {"type": "bytes", "name": "data"},
            {"type": "uint256", "name": "deliveryRate"},
            {"type": "bytes32", "name": "paymentType"},
            {"type": "uint256", "name": "nonce"},
        ],
        "outputs": [{"type": "bytes32", "name": ""}],
    },
    {
        "type": "function",
        "name": "getRequestStatus",
        "stateMutability": "view",
        "inputs": [{"type": "bytes32", "name": "requestId"}],
        "outputs": [{"type": "uint8", "name": "status"}],
    },
    {
        "type": "function",
        "name": "mapRequestIdInfos",
        "stateMutability": "view",
        "inputs": [{"type": "bytes32", "name": ""}],
        "outputs": [
            {"type": "address", "name": "priorityMech"},
            {"type": "address", "name": "deliveryMech"},
            {"type": "address", "name": "requester"},
            {"type": "uint256", "name": "responseTimeout"},
            {"type": "uint256", "name": "deliveryRate"},
            {"type": "bytes32", "name": "paymentType"},
        ],
    },
    {
        "type": "function",
        "name": "mapNonces",
        "stateMutability": "view",
        "inputs": [_ADDRESS],
        "outputs": [{"type": "uint256", "name": ""}],
    },
    {
        "type": "function",
        "name": "minResponseTimeout",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"type": "uint256", "name": ""}],
    },
    {
        "type": "function",
        "name": "maxResponseTimeout",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"type": "uint256", "name": ""}],
    },
]
#: the one mech call read at send time (MechFixedPriceNative, ai-registry-mech 0.8.28)
MECH_PRICE_ABI: List[Dict[str, Any]] = [
    {
        "type": "function",
        "name": "maxDeliveryRate",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"type": "uint256", "name": ""}],
    },
]
#: ``Deliver`` of ai-registry-mech's OlasMech and of the devnet's FixtureMech
DELIVER_TOPICS = {
    "0x"
    + Web3.keccak(text="Deliver(address,address,bytes32,uint256,bytes)")
    .hex()
    .removeprefix("0x"): [
        "bytes32",
        "uint256",
        "bytes",
    ],
    "0x"
    + Web3.keccak(text="Deliver(address,bytes32,bytes)")
    .hex()
    .removeprefix("0x"): [
        "bytes32",
        "bytes",
    ],
}


class MarketError(RuntimeError):
    """A marketplace read or transaction failed; the message names it (never the key)."""


@dataclass
class JournalEntry:  # pylint: disable=too-many-instance-attributes
    """One call's record, written before its transaction is sent.

    :param key: the call key (:func:`.decisions.call_key`).
    :param tool: the mech tool name.
    :param mech: the mech contract paid.
    :param price: wei paid (the mech's price when sent).
    :param payment_type: 0x + 64 hex.
    :param cid: the request payload's CID.
    :param data: the request data (0x + 64 hex digest).
    :param market_nonce: ``mapNonces(requester)`` the request id was derived with.
    :param request_id: 0x + 64 hex.
    :param from_block: the head block before sending (delivery logs are read from it).
    :param tx_hash: the request transaction ("" until signed).
    :param status: ``prepared`` (id derived, not known to be sent), ``sent``, ``delivered``.
    :param response_cid: the verified response's CID ("" until delivered).
    :param raw_tx: the signed request transaction, 0x + hex ("" until signed).
    :param account_nonce: the requester account's nonce it was signed with (-1 until).
    """

    key: str
    tool: str
    mech: str
    price: int
    payment_type: str
    cid: str
    data: str
    market_nonce: int
    request_id: str
    from_block: int
    tx_hash: str = ""
    status: str = "prepared"
    response_cid: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)
    raw_tx: str = ""
    account_nonce: int = -1


@dataclass(frozen=True)
class SignedRequest:
    """A signed request transaction, journalled before it is broadcast.

    :param raw_tx: 0x + hex of the signed transaction.
    :param tx_hash: 0x + 64 hex.
    :param account_nonce: the requester account's nonce in it.
    """

    raw_tx: str
    tx_hash: str
    account_nonce: int


class Journal:
    """Call records under a state folder (``<dir>/calls/<key>.json``), written atomically."""

    def __init__(self, state_dir: Path) -> None:
        """Use a folder (created when missing).

        :param state_dir: ``--state-dir``.
        """
        self.folder = Path(state_dir) / "calls"
        self.folder.mkdir(parents=True, exist_ok=True)

    def load(self, key: str) -> Optional[JournalEntry]:
        """Return a call's record, or None.

        :param key: the call key.
        :return: the entry.
        """
        path = self.folder / f"{key}.json"
        if not path.exists():
            return None
        return JournalEntry(**json.loads(path.read_text(encoding="utf-8")))

    def save(self, entry: JournalEntry) -> None:
        """Write a record (temporary file, fsync, rename).

        :param entry: the entry.
        """
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(entry), handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.folder / f"{entry.key}.json")


def _hex32(value: bytes) -> str:
    return "0x" + bytes(value).hex()


class Marketplace:
    """One MechMarketplace on one chain, paid from one account."""

    def __init__(
        self, rpc_url: str, marketplace: str, private_key: str, timeout: float = 30.0
    ) -> None:
        """Connect.

        :param rpc_url: the chain's JSON-RPC URL.
        :param marketplace: the MechMarketplace address.
        :param private_key: the paying account's key (kept in this object only).
        :param timeout: seconds per RPC request.
        """
        self.w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": timeout}))
        self.rpc_url = rpc_url
        self.address = Web3.to_checksum_address(marketplace)
        self.contract = self.w3.eth.contract(address=self.address, abi=MARKETPLACE_ABI)
        self._account = Account.from_key(  # pylint: disable=no-value-for-parameter
            private_key
        )
        self.requester = self._account.address

    def __repr__(self) -> str:
        """Name the marketplace and requester only (never the key).

        :return: the text.
        """
        return (
            f"Marketplace({self.address} on {redacted_url(self.rpc_url)}, "
            f"requester {self.requester})"
        )

    def _call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self.contract.functions, name)(*args).call()
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # ContractLogicError, ValueError, OSError, and web3 7's Web3RPCError
            raise MarketError(
                f"MechMarketplace {self.address}.{name} failed through "
                f"{redacted_url(self.rpc_url)}: "
                f"{type(exc).__name__}"
            ) from exc

    def market_nonce(self) -> int:
        """Return ``mapNonces(requester)``.

        :return: the requester's request count.
        """
        return int(self._call("mapNonces", self.requester))

    def next_request_id(
        self, mech: str, data: bytes, price: int, payment_type: str, nonce: int
    ) -> str:
        """Derive the id the marketplace will give this request (``getRequestId``).

        :param mech: the mech contract.
        :param data: the request data.
        :param price: the delivery rate paid.
        :param payment_type: 0x + 64 hex.
        :param nonce: ``mapNonces(requester)`` now.
        :return: 0x + 64 hex.
        """
        raw = self._call(
            "getRequestId",
            Web3.to_checksum_address(mech),
            self.requester,
            data,
            price,
            bytes.fromhex(payment_type[2:]),
            nonce,
        )
        return _hex32(raw)

    def status(self, request_id: str) -> int:
        """Return ``getRequestStatus(id)`` (:data:`STATUS_DELIVERED` etc.).

        :param request_id: 0x + 64 hex.
        :return: the status.
        """
        return int(self._call("getRequestStatus", bytes.fromhex(request_id[2:])))

    def response_timeout(self, wanted: float) -> int:
        """Clamp a wait to the marketplace's response timeout bounds.

        :param wanted: seconds.
        :return: seconds within ``[minResponseTimeout, maxResponseTimeout]``.
        """
        low = int(self._call("minResponseTimeout"))
        high = int(self._call("maxResponseTimeout"))
        return max(low, min(high, int(wanted + 0.999)))

    def head(self) -> int:
        """Return the latest block number.

        :return: the number.
        """
        return int(self.w3.eth.block_number)

    def mech_price(self, mech: str) -> Optional[int]:
        """Read a mech's ``maxDeliveryRate()`` at the latest block (its price now).

        :param mech: the mech contract address.
        :return: wei per request, or None when the call fails or does not decode (the
            caller refuses to pay an unread price; nothing is raised).
        """
        contract = self.w3.eth.contract(
            address=Web3.to_checksum_address(mech), abi=MECH_PRICE_ABI
        )
        try:
            return int(contract.functions.maxDeliveryRate().call())
        except Exception:  # pylint: disable=broad-exception-caught
            # ContractLogicError, BadFunctionCallOutput, ValueError, OSError, Web3RPCError
            return None

    def request_transaction(  # pylint: disable=too-many-arguments
        self,
        mech: str,
        data: bytes,
        price: int,
        payment_type: str,
        response_timeout: int,
    ) -> Dict[str, Any]:
        """Build the unsigned ``request`` transaction (value = the price, native payment).

        :param mech: the priority mech.
        :param data: the request data.
        :param price: wei.
        :param payment_type: 0x + 64 hex.
        :param response_timeout: seconds.
        :return: ``{"from", "to", "value", "data", "chainId"}`` (hex data).
        """
        call = self.contract.functions.request(
            data,
            price,
            bytes.fromhex(payment_type[2:]),
            Web3.to_checksum_address(mech),
            response_timeout,
            b"",
        )
        return {
            "from": self.requester,
            "to": self.address,
            "value": price,
            "data": call._encode_transaction_data(),  # pylint: disable=protected-access
            "chainId": int(self.w3.eth.chain_id),
        }

    def sign(self, transaction: Dict[str, Any]) -> SignedRequest:
        """Sign a transaction at the account's next pending nonce (nothing is sent).

        :param transaction: from :meth:`request_transaction`.
        :return: the signed transaction, to journal before :meth:`broadcast`.
        :raises MarketError: when gas cannot be estimated (e.g. it would revert).
        """
        tx = dict(transaction)
        try:
            tx["nonce"] = self.w3.eth.get_transaction_count(self.requester, "pending")
            tx["gas"] = int(self.w3.eth.estimate_gas(tx) * 1.2)  # type: ignore[arg-type]
            tx["maxFeePerGas"] = int(self.w3.eth.gas_price * 2)
            tx["maxPriorityFeePerGas"] = 0
            signed = self._account.sign_transaction(tx)
        except (ContractLogicError, ValueError, OSError) as exc:
            raise MarketError(
                f"the request transaction to {self.address} failed: "
                f"{type(exc).__name__}: {without_url(str(exc), self.rpc_url)[:200]}"
            ) from exc
        return SignedRequest(
            "0x" + bytes(signed.raw_transaction).hex(),
            _hex32(signed.hash),
            int(tx["nonce"]),
        )

    def confirmed_nonce(self) -> int:
        """Return the requester account's mined transaction count.

        :return: the nonce the next mined transaction will have.
        """
        return int(self.w3.eth.get_transaction_count(self.requester, "latest"))

    def send(self, transaction: Dict[str, Any], wait: float = 60.0) -> str:
        """Sign, broadcast and wait for a transaction; raise when it reverts.

        :param transaction: from :meth:`request_transaction`.
        :param wait: seconds to wait for the receipt.
        :return: the transaction hash.
        """
        return self.broadcast(self.sign(transaction), wait)

    def broadcast(self, signed: SignedRequest, wait: float = 60.0) -> str:
        """Broadcast a signed transaction (again, if need be) and wait for its receipt.

        Broadcasting the same bytes twice is harmless: a node that holds them answers
        "already known", and the wait is for the one hash.

        :param signed: from :meth:`sign` (or the journal).
        :param wait: seconds to wait for the receipt.
        :return: the transaction hash.
        :raises MarketError: when it is not mined in time, cannot be sent, or reverts.
        """
        tx_hash = signed.tx_hash
        try:
            self._send_raw(signed.raw_tx)
            receipt = self.w3.eth.wait_for_transaction_receipt(
                tx_hash, timeout=wait  # type: ignore[arg-type]
            )
        except TimeExhausted as exc:
            raise MarketError(
                f"the request transaction to {self.address} was not mined within "
                f"{wait:g} s; it may still be: call again with the same arguments to "
                "check (that will not pay twice)"
            ) from exc
        except (ContractLogicError, ValueError, OSError) as exc:
            raise MarketError(
                f"the request transaction to {self.address} failed: "
                f"{type(exc).__name__}: {without_url(str(exc), self.rpc_url)[:200]}"
            ) from exc
        if receipt["status"] != 1:
            raise MarketError(
                f"the request transaction {tx_hash} reverted on {self.address}"
            )
        return tx_hash

    def _send_raw(self, raw_tx: str) -> None:
        try:
            self.w3.eth.send_raw_transaction(HexStr(raw_tx))
        except (
            ValueError
        ) as exc:  # a node holding these very bytes says "already known"
            if "already known" not in str(exc).lower():
                raise

    def delivery(self, request_id: str, from_block: int) -> Optional[bytes]:
        """Return the delivered data, or None while undelivered.

        :param request_id: 0x + 64 hex.
        :param from_block: a block at or before the request.
        :return: the ``Deliver`` event's data.
        :raises MarketError: when the marketplace says delivered but no event holds it.
        """
        if self.status(request_id) != STATUS_DELIVERED:
            return None
        info = self._call("mapRequestIdInfos", bytes.fromhex(request_id[2:]))
        mech = info[1]
        try:
            logs = self.w3.eth.get_logs(
                {
                    "address": Web3.to_checksum_address(mech),
                    "fromBlock": from_block,
                    "toBlock": "latest",
                }
            )
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # web3 7's Web3RPCError is no ValueError; a mech flooding logs past the RPC's
            # limit must give an error result, not end the call's task
            raise MarketError(
                f"the Deliver events of mech {mech} could not be read "
                f"({type(exc).__name__}); call again later"
            ) from exc
        for log in logs:
            topic = "0x" + bytes(log["topics"][0]).hex() if log["topics"] else ""
            types = DELIVER_TOPICS.get(topic)
            if types is None:
                continue
            try:
                values = abi_decode(types, bytes(log["data"]))
            except Exception:  # pylint: disable=broad-exception-caught
                continue  # a malformed Deliver event from the mech: not the answer
            if _hex32(values[0]) == request_id.lower():
                return bytes(values[-1])
        raise MarketError(
            f"request {request_id} is delivered but mech {mech} emitted no Deliver "
            f"event for it since block {from_block}"
        )

    def balance(self) -> int:
        """Return the requester's balance.

        :return: wei.
        """
        return int(self.w3.eth.get_balance(self.requester))
