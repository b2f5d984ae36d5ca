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

"""The publisher: prepare -> check the target -> upload + read back -> compare -> update -> confirm.

Every step is a pure function of
:mod:`mech_catalogue_core.publish.publish`; this module only
moves bytes (kubo RPC through :class:`.ipfs.IpfsApi`, the chain through web3) and turns
transport failures into :class:`PublishError` with a code. Order matters for "change
nothing on failure": every check that can fail (manifest, registry id, authorisation) runs
before the upload, and the upload + read-back before any transaction. The update is
signed with EIP-1559 fees within ``--max-fee-per-gas`` (:meth:`Publisher.fees`, every
signing command's rule), read just before signing: over the cap nothing is signed. A
retry after any failure is safe: the on-chain digest is compared first, so a transaction
that landed is never sent twice.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, cast

from eth_abi import decode as abi_decode
from eth_abi.exceptions import DecodingError
from eth_account.signers.local import LocalAccount
from eth_typing import Hash32
from mech_catalogue_core.chain.registry import (
    Call,
    IdSelection,
    RegistrySource,
    decode_digest_query,
    digest_query,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)
from mech_catalogue_core.publish.publish import (
    FEE_OVER_CAP,
    NOT_AUTHORISED,
    NOT_CONFIRMED,
    RPC_UNAVAILABLE,
    TRANSACTION_FAILED,
    UP_TO_DATE,
    PreparedManifest,
    PublishError,
    PublishTarget,
    SafeTransaction,
    authorise,
    can_change_call,
    check_address,
    check_upload,
    contract_call,
    decide,
    decode_single,
    exec_transaction_call,
    exists_call,
    owner_call,
    prepare_manifest,
    safe_tx_hash,
    update_call,
    update_event_digest,
)
from web3 import Web3
from web3.exceptions import ContractLogicError, TimeExhausted, Web3Exception
from web3.types import TxParams

from ..adapters.http import TRANSPORT_ERRORS
from ..adapters.urls import redacted_url
from ..fee_caps import FeeBounds, FeeOverCap, TipOverCap, fees_to_sign
from ..raw_blocks import BlockUnread, TipUnread
from .ipfs import IpfsApi

RECEIPT_TIMEOUT = 60.0
#: ``ServiceRegistry.mapServices(id)`` return types (autonolas-registries ``Service``
#: struct: securityDeposit, multisig, configHash, threshold, maxNumAgentInstances,
#: numAgentInstances, state)
SERVICE_FIELDS = ("uint96", "address", "bytes32", "uint32", "uint32", "uint32", "uint8")
GAS_MARGIN = 1.25
_TRANSPORT_ERRORS = (*TRANSPORT_ERRORS, Web3Exception)


@dataclass
class PublishReport:  # pylint: disable=too-many-instance-attributes
    """What a publish run did.

    :param target: the registry and id.
    :param digest: the new manifest's digest (``0x`` hex).
    :param cid: its CIDv1 (dag-pb, base32).
    :param tools: its tool names.
    :param onchain_before: the registry's digest before ("" = none).
    :param decision: ``up_to_date`` (nothing sent) or ``update``.
    :param dry_run: nothing was uploaded or sent.
    :param uploaded: the manifest was uploaded and read back verified.
    :param call: the update transaction (to, data, function).
    :param sender: who sends (the owner key's address, or the Safe).
    :param safe_tx: the Safe transaction to sign (when publishing through a Safe without
        executing it here), with its ``safeTxHash``.
    :param fees: the fees per gas this run signs the update with, read when it is to
        be signed (a dry run: what it would sign now): ``{"maxFeePerGas",
        "maxPriorityFeePerGas", "maxFeePerGasCap"}``, wei as decimal strings (None:
        nothing is signed here: no key, a Safe transaction to sign elsewhere, or up
        to date).
    :param tx_hash: the transaction sent ("" when none).
    :param gas_used: its gas, from the receipt.
    :param onchain_after: the digest read back after the transaction.
    :param event_digest: the digest in the registry's update event.
    :param warnings: non-fatal manifest problems.
    """

    target: PublishTarget
    digest: str
    cid: str
    tools: Sequence[str]
    onchain_before: str = ""
    decision: str = ""
    dry_run: bool = False
    uploaded: bool = False
    call: Optional[Call] = None
    sender: str = ""
    safe_tx: Optional[Dict[str, Any]] = None
    fees: Optional[Dict[str, str]] = None
    tx_hash: str = ""
    gas_used: int = 0
    onchain_after: str = ""
    event_digest: Optional[str] = None
    warnings: Sequence[P.Problem] = field(default_factory=tuple)

    @property
    def sent(self) -> bool:
        """Tell whether a transaction was sent.

        :return: whether a transaction was sent.
        """
        return bool(self.tx_hash)

    def to_dict(self) -> Dict[str, Any]:
        """Get the JSON form.

        :return: every field, the target as ``{kind, registry, id, manager}``.
        """
        return {
            "ok": True,
            "target": {
                "kind": self.target.kind,
                "registry": self.target.registry,
                "id": self.target.mech_id,
                "manager": self.target.manager,
            },
            "digest": self.digest,
            "cid": self.cid,
            "tools": list(self.tools),
            "onchainBefore": self.onchain_before,
            "decision": self.decision,
            "dryRun": self.dry_run,
            "uploaded": self.uploaded,
            "call": self.call.to_dict() if self.call else None,
            "sender": self.sender,
            "safeTransaction": self.safe_tx,
            "fees": self.fees,
            "txHash": self.tx_hash,
            "gasUsed": self.gas_used,
            "onchainAfter": self.onchain_after,
            "eventDigest": self.event_digest,
            "warnings": [w.to_dict() for w in self.warnings],
        }


class Publisher:
    """Publish manifests to one chain and one IPFS node.

    :param w3: a connected Web3.
    :param ipfs: the IPFS node's RPC API.
    :param receipt_timeout: seconds to wait for a receipt.
    :param fee_bounds: ``--max-fee-per-gas`` and the tip the update is signed
        within (None: 100 gwei and the devnet's tip, 0).
    """

    def __init__(
        self,
        w3: Web3,
        ipfs: IpfsApi,
        receipt_timeout: float = RECEIPT_TIMEOUT,
        fee_bounds: Optional[FeeBounds] = None,
    ) -> None:
        """Bind the transports.

        :param w3: a connected Web3.
        :param ipfs: the IPFS node's RPC API.
        :param receipt_timeout: seconds to wait for a receipt.
        :param fee_bounds: the fee cap and tip choice (None: :class:`FeeBounds`'
            defaults).
        """
        self.w3 = w3
        self.ipfs = ipfs
        self.receipt_timeout = receipt_timeout
        self.fee_bounds = fee_bounds or FeeBounds()

    # ------------------------------------------------------------------ chain reads

    def _rpc(self, what: str, action: Callable[[], Any]) -> Any:
        try:
            return action()
        except ContractLogicError:
            raise
        except _TRANSPORT_ERRORS as exc:
            raise PublishError(
                RPC_UNAVAILABLE,
                f"The RPC at {self._rpc_url()} failed while {what} ({type(exc).__name__}: {str(exc)[:120]}); "
                "nothing was sent. Run publish again when it answers: it compares digests first and "
                "never sends twice.",
            ) from exc

    def _rpc_url(self) -> str:
        return str(getattr(self.w3.provider, "endpoint_uri", "") or self.w3.provider)

    def eth_call(self, call: Call, sender: Optional[str] = None) -> bytes:
        """Run a read-only call.

        :param call: the call.
        :param sender: ``from`` of the call, if it matters.
        :return: the return data. Raises PublishError RPC_UNAVAILABLE when the RPC
            fails, web3's ``ContractLogicError`` on a revert.
        """
        params: Dict[str, Any] = {
            "to": Web3.to_checksum_address(call.target),
            "data": "0x" + call.data.hex(),
        }
        if sender:
            params["from"] = Web3.to_checksum_address(sender)
        return bytes(
            self._rpc(
                f"calling {call.signature} on {call.target}",
                lambda: self.w3.eth.call(cast(TxParams, params)),
            )
        )

    def chain_id(self) -> int:
        """Read the chain id.

        :return: the chain id.
        """
        return int(self._rpc("reading the chain id", lambda: self.w3.eth.chain_id))

    def read_digest(self, target: PublishTarget) -> str:
        """Read the latest digest of ``target`` the way the reader does (:mod:`...domain.registry`).

        :param target: the registry and id.
        :return: ``0x`` hex, "" when the registry holds none.
        """
        source = RegistrySource(
            target.kind,
            0,
            target.registry.lower(),
            IdSelection("list", (target.mech_id,)),
        )
        query = digest_query(0, source, target.mech_id)
        results = []
        for call in query.calls:
            try:
                results.append(
                    (
                        True,
                        self.eth_call(call),
                    )
                )
            except ContractLogicError:
                results.append((False, b""))
        return decode_digest_query(query, source, results).digest

    def check_target(self, target: PublishTarget, sender: str) -> None:
        """Refuse a registry id that does not exist or a sender the registry would reject.

        :param target: the registry and id.
        :param sender: the account or Safe that will send the update.
        :raises PublishError: MECH_NOT_FOUND, NOT_AUTHORISED (naming the service's
            multisig when a deployed service's owner tries), RPC_UNAVAILABLE.
        """
        service_registry = ""
        if target.kind == REGISTRY_COMPLEMENTARY_SERVICE:
            holder = contract_call(target.registry, "serviceRegistry()")
            service_registry = decode_single("address", self._read(holder))
        exists = bool(
            decode_single("bool", self._read(exists_call(target, service_registry)))
        )
        if not exists:
            authorise(target, sender, False, None)
        if target.kind == REGISTRY_COMPLEMENTARY_SERVICE:
            able = decode_single("bool", self._read(can_change_call(target, sender)))
            try:
                authorise(target, sender, True, able)
            except PublishError as exc:
                raise PublishError(
                    exc.code,
                    f"{exc} {self._multisig_hint(service_registry, target.mech_id)}",
                ) from exc
        else:
            authorise(
                target,
                sender,
                True,
                decode_single("address", self._read(owner_call(target))),
            )

    def _multisig_hint(self, service_registry: str, service_id: int) -> str:
        """Name the service's multisig (``ServiceRegistry.mapServices(id)``), if deployed.

        :param service_registry: the ServiceRegistry address.
        :param service_id: the service id.
        :return: a sentence for the error message ("" when the service has no multisig).
        """
        call = contract_call(
            service_registry, "mapServices(uint256)", ("uint256",), (service_id,)
        )
        try:
            service = abi_decode(list(SERVICE_FIELDS), self._read(call))
        except (PublishError, ValueError, DecodingError):
            return ""
        multisig = str(service[1])
        if int(multisig, 16) == 0:
            return ""
        return f"Service {service_id}'s multisig is {Web3.to_checksum_address(multisig)}: pass --safe with it."

    def _read(self, call: Call) -> bytes:
        try:
            return self.eth_call(call)
        except ContractLogicError as exc:
            raise PublishError(
                RPC_UNAVAILABLE,
                f"{call.signature} reverted on {call.target} ({str(exc)[:120]}); is the address the right registry?",
            ) from exc

    # ------------------------------------------------------------------ IPFS

    def upload(self, prepared: PreparedManifest) -> str:
        """Upload, read back, re-hash.

        :param prepared: the manifest.
        :return: the verified digest. Raises PublishError IPFS_UNAVAILABLE,
            UPLOAD_MISMATCH or READBACK_MISMATCH.
        """
        cid = self.ipfs.add(prepared.data)
        return check_upload(prepared, cid, self.ipfs.cat(cid))

    # ------------------------------------------------------------------ writes

    def fees(self) -> Tuple[int, int]:
        """The fees per gas a transaction would be signed with now, within the cap.

        Every signing command's rule (:func:`mech_catalogue_cli.fee_caps.fees_to_sign`):
        twice the latest base fee plus the tip, at most ``--max-fee-per-gas``.

        :return: ``(maxFeePerGas, maxPriorityFeePerGas)``, wei per gas.
        :raises PublishError: FEE_OVER_CAP when the base fee plus the tip, or the
            node's suggested tip, is over ``--max-fee-per-gas`` (nothing signed; the
            words say the fee needed, the cap and what to do); RPC_UNAVAILABLE when
            the node cannot be read or answers no quantity.
        """
        bounds = self.fee_bounds
        node = redacted_url(self._rpc_url())
        try:
            return cast(
                Tuple[int, int],
                self._rpc(
                    "reading the fees",
                    lambda: fees_to_sign(
                        self.w3, bounds.tips, bounds.max_fee_per_gas, node
                    ),
                ),
            )
        except (FeeOverCap, TipOverCap) as exc:
            raise PublishError(FEE_OVER_CAP, f"{exc}.") from exc
        except (BlockUnread, TipUnread) as exc:
            raise PublishError(
                RPC_UNAVAILABLE,
                f"The RPC at {node} answered no fee to sign with ({exc}); nothing was "
                "sent. Run publish again when it answers.",
            ) from exc

    def fee_report(self, fees: Tuple[int, int]) -> Dict[str, str]:
        """The fees signed, for the report (wei as decimal strings).

        :param fees: ``(maxFeePerGas, maxPriorityFeePerGas)``, wei per gas.
        :return: ``{"maxFeePerGas", "maxPriorityFeePerGas", "maxFeePerGasCap"}``.
        """
        return {
            "maxFeePerGas": str(fees[0]),
            "maxPriorityFeePerGas": str(fees[1]),
            "maxFeePerGasCap": str(self.fee_bounds.max_fee_per_gas),
        }

    def send(
        self,
        call: Call,
        account: LocalAccount,
        fees: Optional[Tuple[int, int]] = None,
    ) -> Dict[str, Any]:
        """Simulate, sign and send ``call`` from ``account``; wait for the receipt.

        Signed with EIP-1559 fees within ``--max-fee-per-gas`` (:meth:`fees`).

        :param call: the transaction.
        :param account: the signing account.
        :param fees: ``(maxFeePerGas, maxPriorityFeePerGas)`` to sign, as
            :meth:`fees` read them (None: read now).
        :return: the receipt (status 1).
        :raises PublishError: NOT_AUTHORISED when the simulation reverts (nothing sent),
            FEE_OVER_CAP when the fee is over the cap (nothing signed),
            RPC_UNAVAILABLE before sending, NOT_CONFIRMED when sent but no receipt came,
            TRANSACTION_FAILED when mined with status 0.
        """
        tx: Dict[str, Any] = {
            "from": account.address,
            "to": Web3.to_checksum_address(call.target),
            "data": "0x" + call.data.hex(),
            "value": 0,
        }
        try:
            gas = self._rpc(
                f"simulating {call.signature}",
                lambda: self.w3.eth.estimate_gas(cast(TxParams, tx)),
            )
        except ContractLogicError as exc:
            raise PublishError(
                NOT_AUTHORISED,
                f"{call.signature} on {call.target} from {account.address} would revert ({str(exc)[:160]}); nothing was sent.",
            ) from exc
        max_fee, tip = fees or self.fees()
        tx.update(
            gas=int(gas * GAS_MARGIN),
            maxFeePerGas=max_fee,
            maxPriorityFeePerGas=tip,
            nonce=self._rpc(
                "reading the nonce",
                lambda: self.w3.eth.get_transaction_count(account.address, "pending"),
            ),
            chainId=self.chain_id(),
        )
        signed = account.sign_transaction(tx)
        tx_hash = self._rpc(
            f"sending {call.signature}",
            lambda: self.w3.eth.send_raw_transaction(signed.raw_transaction),
        )
        try:
            receipt = self.w3.eth.wait_for_transaction_receipt(
                tx_hash, timeout=self.receipt_timeout, poll_latency=0.05
            )
        except (TimeExhausted, *_TRANSPORT_ERRORS) as exc:
            raise PublishError(
                NOT_CONFIRMED,
                f"Transaction {Web3.to_hex(tx_hash)} was sent but no receipt came ({type(exc).__name__}); run publish "
                "again: it reads the on-chain digest first and sends nothing if the update landed.",
            ) from exc
        if receipt["status"] != 1:
            raise PublishError(
                TRANSACTION_FAILED,
                f"Transaction {Web3.to_hex(tx_hash)} was mined but failed (status 0).",
            )
        return dict(receipt)

    def safe_transaction(self, safe: str, call: Call) -> SafeTransaction:
        """Build the Safe transaction wrapping ``call`` at the Safe's current nonce.

        :param safe: the Safe address.
        :param call: the inner call.
        :return: the Safe transaction.
        """
        nonce_call = contract_call(safe, "nonce()")
        nonce = int(decode_single("uint256", self._read(nonce_call)))
        return SafeTransaction(
            safe=Web3.to_checksum_address(safe),
            to=Web3.to_checksum_address(call.target),
            data=call.data,
            nonce=nonce,
        )

    def exec_safe(
        self,
        safe_tx: SafeTransaction,
        owners: Sequence[LocalAccount],
        sender: LocalAccount,
        fees: Optional[Tuple[int, int]] = None,
    ) -> Dict[str, Any]:
        """Sign ``safe_tx`` with ``owners`` (enough for the threshold) and execute it, sent by ``sender``.

        Signatures are ECDSA over the safe tx hash (v 27/28), sorted by owner address, as
        Safe 1.3.0 ``checkSignatures`` requires.

        :param safe_tx: the Safe transaction.
        :param owners: Safe owners' accounts.
        :param sender: any funded account that submits ``execTransaction``.
        :param fees: the fees to sign it with (None: :meth:`send` reads them).
        :return: the receipt.
        :raises PublishError: TRANSACTION_FAILED when the Safe reports ExecutionFailure,
            and as :meth:`send`.
        """
        digest = bytes.fromhex(safe_tx_hash(safe_tx, self.chain_id())[2:])
        signatures = b""
        for owner in sorted(owners, key=lambda a: int(a.address, 16)):
            signed = owner.unsafe_sign_hash(Hash32(digest))
            signatures += (
                signed.r.to_bytes(32, "big")
                + signed.s.to_bytes(32, "big")
                + bytes([signed.v])
            )
        call = exec_transaction_call(safe_tx, signatures)
        receipt = self.send(call, sender, fees)
        failure = Web3.keccak(text="ExecutionFailure(bytes32,uint256)")
        for log in receipt["logs"]:
            if (
                log["address"].lower() == safe_tx.safe.lower()
                and log["topics"]
                and bytes(log["topics"][0]) == failure
            ):
                raise PublishError(
                    TRANSACTION_FAILED,
                    f"Safe {safe_tx.safe} executed the transaction but the inner call to {safe_tx.to} reverted.",
                )
        return receipt

    # ------------------------------------------------------------------ the whole flow

    def publish(  # pylint: disable=too-many-arguments
        self,
        document: Any,
        target: PublishTarget,
        account: Optional[LocalAccount] = None,
        safe: Optional[str] = None,
        dry_run: bool = False,
    ) -> PublishReport:
        """Run the whole flow.

        Who sends: with ``safe``, the Safe (its transaction is executed here when
        ``account`` is a Safe owner meeting the threshold alone, else returned to sign);
        without, ``account`` (the owner key), else the unsigned call is returned.

        :param document: the manifest.
        :param target: the registry and id.
        :param account: the owner key, or a Safe owner key with ``safe``.
        :param safe: the Safe that owns the mech / is the service multisig.
        :param dry_run: check and report, upload nothing, send nothing.
        :return: the report; when the update is to be signed here, its ``fees``
            (a dry run: what it would sign now). Raises PublishError at the first
            failed step, with its code; nothing after that step ran (FEE_OVER_CAP:
            the fee over ``--max-fee-per-gas``, nothing signed, a dry run too).
        """
        if safe:
            check_address(safe, "Safe")
        prepared = prepare_manifest(document)
        report = PublishReport(
            target,
            prepared.digest,
            prepared.cid,
            prepared.tools,
            dry_run=dry_run,
            warnings=prepared.warnings,
        )
        report.sender = safe or (account.address if account else "")
        if report.sender:
            self.check_target(target, report.sender)
        if not dry_run:
            self.upload(prepared)
            report.uploaded = True
        report.onchain_before = self.read_digest(target)
        report.decision = decide(report.onchain_before, prepared.digest)
        if report.decision == UP_TO_DATE:
            return report
        report.call = update_call(target, prepared.digest)
        safe_tx = self.safe_transaction(safe, report.call) if safe else None
        if safe_tx is not None:
            report.safe_tx = safe_tx.to_dict(self.chain_id())
        if account is None or (safe and not self._sole_owner(safe, account.address)):
            return report  # signed elsewhere: the call or the Safe transaction
        fees = self.fees()
        report.fees = self.fee_report(fees)
        if dry_run:
            return report
        if safe_tx is not None:
            receipt = self.exec_safe(safe_tx, [account], account, fees)
        else:
            receipt = self.send(report.call, account, fees)
        return self._confirm(report, receipt)

    def _sole_owner(self, safe: str, address: str) -> bool:
        threshold = int(
            decode_single("uint256", self._read(contract_call(safe, "getThreshold()")))
        )
        is_owner = bool(
            decode_single(
                "bool",
                self._read(
                    contract_call(safe, "isOwner(address)", ("address",), (address,))
                ),
            )
        )
        return threshold == 1 and is_owner

    def _confirm(self, report: PublishReport, receipt: Dict[str, Any]) -> PublishReport:
        report.tx_hash = Web3.to_hex(receipt["transactionHash"])
        report.gas_used = int(receipt["gasUsed"])
        report.event_digest = update_event_digest(
            report.target, [_log(entry) for entry in receipt["logs"]]
        )
        report.onchain_after = self.read_digest(report.target)
        if (
            report.onchain_after != report.digest
            or report.event_digest != report.digest
        ):
            raise PublishError(
                NOT_CONFIRMED,
                f"Transaction {report.tx_hash} succeeded but {report.target.describe} reads {report.onchain_after or 'no hash'} "
                f"(event: {report.event_digest or 'none'}), not {report.digest}.",
            )
        return report


def _log(entry: Any) -> Dict[str, Any]:
    return {
        "address": entry["address"],
        "topics": [bytes(t) for t in entry["topics"]],
        "data": bytes(entry["data"]),
    }
