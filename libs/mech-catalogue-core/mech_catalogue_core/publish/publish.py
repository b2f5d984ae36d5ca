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

"""Publishing a mech's manifest: decide, build the calls, check every step. Pure code.

The flow (docs/publish.md "The steps", issue 5), each step a function here, all I/O done by the
caller (the CLI's publisher through web3 + the kubo API, the skill's behaviours through the
ledger and IPFS connections):

1. :func:`prepare_manifest`: serialise the manifest (RFC 8785 canonical JSON, so every
   agent of a service produces the same bytes), check it with the readers' own parser
   (:func:`.parsing.parse_manifest` over the exact bytes) and the v1 JSON Schema, and
   compute the digest the upload must produce: the sha2-256 of the UnixFS dag-pb root
   kubo builds for ``ipfs add --cid-version=1 --raw-leaves=false`` (the ``f01701220``
   CID every reader derives from an on-chain digest).
2. :func:`check_upload`: the CID the node returned and the bytes read back must both match.
3. :func:`decide`: the on-chain digest equal to the new one means "up to date, no
   transaction". Deciding on digests (not on "did my last attempt send?") makes a retry
   after any failure safe: a transaction that did land is seen, and never sent twice.
4. :func:`update_call`: the calldata for the registry kind:

   ==============================  =====================================================
   registry kind                   transaction
   ==============================  =====================================================
   ``olas_agent_registry``         ``RegistriesManager.updateHash(1, agentId, hash)``
                                   by the agent owner; event ``UpdateUnitHash`` from
                                   the AgentRegistry (autonolas-registries
                                   ``RegistriesManager.sol``, ``UnitRegistry.sol``)
   ``legacy_mech_registry``        ``updateHash(agentId, hash)`` by the NFT owner;
                                   event ``UpdateAgentHash`` (ai-registry-mech
                                   ``AgentRegistry.sol``)
   ``complementary_service_        ``changeHash(serviceId, hash)`` by the service owner,
   metadata``                      or its multisig once deployed; event
                                   ``ComplementaryMetadataUpdated`` (mech-server
                                   ``ComplementaryServiceMetadata``)
   ==============================  =====================================================

5. :func:`update_event_digest`: find the registry's event in the receipt logs.

For the Safe path :func:`safe_tx_hash` computes the EIP-712 hash a Gnosis Safe 1.3.0
signs (``GnosisSafe.getTransactionHash``), so a person can check what they sign.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_utils import function_signature_to_4byte_selector, keccak
from mech_catalogue_core.chain.registry import Call
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    CidError,
    cid_to_digest,
    digest_to_cid,
    verify,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.manifest.documents import (
    validate_document,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.manifest.validation import (
    quality_problems,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.canonical import (
    CanonicalizationError,
    canonical_bytes,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_KINDS,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
)
from mech_catalogue_core.model.untrusted_text import (
    publish_refusals,
)
from mech_catalogue_core.model.vocabulary import (
    PublishStatus,
)

#: RegistriesManager unit type of agents (autonolas-registries ``IRegistry.UnitType``)
UNIT_TYPE_AGENT = 1
ZERO_ADDRESS = "0x" + "00" * 20
#: Safe ``Enum.Operation.Call`` (safe-contracts 1.3.0 ``common/Enum.sol``)
SAFE_OPERATION_CALL = 0

# --- problem codes of the publish flow (machine-readable; never rename, only add) --------
# (short names of the ProblemCode.PUBLISH_* members, defined in problems.py)
INVALID_MANIFEST = P.ProblemCode.PUBLISH_INVALID_MANIFEST
IPFS_UNAVAILABLE = P.ProblemCode.PUBLISH_IPFS_UNAVAILABLE
UPLOAD_MISMATCH = P.ProblemCode.PUBLISH_UPLOAD_MISMATCH
READBACK_MISMATCH = P.ProblemCode.PUBLISH_READBACK_MISMATCH
RPC_UNAVAILABLE = P.ProblemCode.PUBLISH_RPC_UNAVAILABLE
MECH_NOT_FOUND = P.ProblemCode.PUBLISH_MECH_NOT_FOUND
NOT_AUTHORISED = P.ProblemCode.PUBLISH_NOT_AUTHORISED
TRANSACTION_FAILED = P.ProblemCode.PUBLISH_TRANSACTION_FAILED
NOT_CONFIRMED = P.ProblemCode.PUBLISH_NOT_CONFIRMED
INVALID_TARGET = P.ProblemCode.PUBLISH_INVALID_TARGET
FEE_OVER_CAP = P.ProblemCode.PUBLISH_FEE_OVER_CAP

#: decisions of :func:`decide` (members of :class:`.model.vocabulary.PublishStatus`)
UP_TO_DATE = PublishStatus.UP_TO_DATE
UPDATE = PublishStatus.UPDATE


class PublishError(RuntimeError):
    """A publish step failed; nothing after it ran. Carries the problems.

    :param problems: what failed (at least one), each with a code from this module or
        :mod:`..model.problems` and a sentence naming the registry / id / CID and what to do.
    """

    def __init__(
        self, problems: Union[str, Sequence[P.Problem]], message: str = ""
    ) -> None:
        """Keep the problems; the message joins their sentences.

        :param problems: the problems, or one code of this module (then ``message`` is
            its sentence).
        :param message: the sentence when ``problems`` is a code.
        """
        if isinstance(problems, str):
            problems = (P.error(problems, message),)
        super().__init__("; ".join(p.message for p in problems))
        self.problems = tuple(problems)

    @property
    def code(self) -> str:
        """Get the code of the first problem.

        :return: the code of the first problem.
        """
        return self.problems[0].code


# --- targets -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PublishTarget:
    """Where a mech's manifest digest lives and how it is changed.

    :param kind: one of :data:`.model.REGISTRY_KINDS`.
    :param registry: the contract holding the digest and emitting the event (Olas
        AgentRegistry, legacy mech registry, ComplementaryServiceMetadata), 0x address.
    :param mech_id: the agent id (Olas, legacy) or service id (ComplementaryServiceMetadata).
    :param manager: for ``olas_agent_registry`` only: the RegistriesManager the owner calls.
    """

    kind: str
    registry: str
    mech_id: int
    manager: str = ""

    def __post_init__(self) -> None:
        """Check the fields.

        :raises PublishError: INVALID_TARGET naming the field.
        """
        if self.kind not in REGISTRY_KINDS:
            raise PublishError(
                INVALID_TARGET,
                f"Registry kind {self.kind!r} is not one of {', '.join(REGISTRY_KINDS)}.",
            )
        if isinstance(self.mech_id, bool) or not isinstance(self.mech_id, int):
            raise PublishError(
                INVALID_TARGET, f"The id {self.mech_id!r} is not an integer."
            )
        if self.mech_id < 1:
            raise PublishError(
                INVALID_TARGET,
                f"The id {self.mech_id} is not a registry id (ids start at 1).",
            )
        check_address(self.registry, "registry")
        if self.kind == REGISTRY_OLAS_AGENT:
            check_address(self.manager, "manager (the RegistriesManager)")

    @property
    def describe(self) -> str:
        """Get a phrase naming the registry and id, for messages.

        :return: e.g. ``legacy_mech_registry 0xab.. id 3``.
        """
        noun = (
            "service id" if self.kind == REGISTRY_COMPLEMENTARY_SERVICE else "agent id"
        )
        return f"{self.kind} at {self.registry} {noun} {self.mech_id}"


def check_address(value: str, name: str) -> None:
    """Refuse anything but a 0x-prefixed 20-byte hex address.

    :param value: the address.
    :param name: what it is, for the message.
    :raises PublishError: INVALID_TARGET naming ``name``.
    """
    text = str(value or "")
    try:
        ok = text.startswith("0x") and len(text) == 42 and int(text, 16) >= 0
    except ValueError:
        ok = False
    if not ok:
        raise PublishError(
            INVALID_TARGET, f"The {name} address {value!r} is not a 0x 20-byte address."
        )


# --- step 1: prepare --------------------------------------------------------------------


@dataclass(frozen=True)
class PreparedManifest:
    """A manifest ready to upload.

    :param data: its canonical bytes (what is uploaded and read back).
    :param digest: ``0x`` + 64 hex: the dag-pb root digest of ``data`` (the on-chain value).
    :param cid: the CIDv1 (base32, dag-pb) the upload must return.
    :param tools: the tool names readers will see, in manifest order.
    :param warnings: non-fatal problems (e.g. untyped tools), then
        :func:`.validation.quality_problems` (instruction-like text included).
    """

    data: bytes
    digest: str
    cid: str
    tools: Tuple[str, ...]
    warnings: Tuple[P.Problem, ...] = field(default=())


def expected_digest(data: bytes, cid_version: int = 1) -> str:
    """Compute the digest kubo gives ``data`` added with dag-pb leaves.

    :param data: the file bytes (at most :data:`.unixfs.MAX_FILE_SIZE`).
    :param cid_version: 1 for ``ipfs add --cid-version=1 --raw-leaves=false``; 0 for
        kubo's defaults (what the ``valory/ipfs`` connection's IPFSTool uses). Both give
        the same digest for files up to one 256 KiB chunk.
    :return: ``0x`` + 64 hex (ValueError, from :func:`.unixfs.root_digest`, for a file
        larger than one UnixFS level holds; :func:`prepare_manifest` caps sizes first).
    """
    _, digest = root_digest(data, raw_leaves=False, cid_version=cid_version)
    return "0x" + digest.hex()


def prepare_manifest(document: Any, cid_version: int = 1) -> PreparedManifest:
    """Serialise and check a manifest exactly as readers will see it.

    :param document: the manifest (e.g. from :func:`.generate.generate_manifest`).
    :param cid_version: the ``ipfs add`` CID version that will store it (see
        :func:`expected_digest`).
    :return: the prepared manifest.
    :raises PublishError: INVALID_MANIFEST with every problem found (schema violations,
        parse errors, no tool, not I-JSON, over the size cap, a tool whose argument asks
        for a secret: :func:`.untrusted_text.publish_refusals`); nothing to upload then.
    """
    try:
        data = canonical_bytes(document)
    except CanonicalizationError as exc:
        raise PublishError(
            INVALID_MANIFEST,
            f"The manifest is not I-JSON and cannot be serialised canonically ({str(exc)[:120]}); fix the value.",
        ) from exc
    # checked as the kind of document readers read it as, as `validate` checks it
    errors = list(validate_document(document)[1])
    parsed = parse_manifest(data)
    errors += [p for p in parsed.problems if p.is_error and p not in errors]
    tools: Tuple[str, ...] = ()
    quality: Tuple[P.Problem, ...] = ()
    if parsed.manifest is not None:
        tools = tuple(t.name for t in parsed.manifest.tools)
        quality = quality_problems(parsed.manifest)
        errors += publish_refusals(quality)  # tools the MCP server would never serve
    if not tools and not errors:
        errors.append(
            P.error(
                P.NO_TOOLS,
                "The manifest yields no tool readers could call; refusing to publish it.",
            )
        )
    if errors:
        raise PublishError(
            (
                P.error(
                    INVALID_MANIFEST,
                    f"The manifest is invalid ({len(errors)} problem(s)); nothing was uploaded or sent.",
                ),
                *errors,
            )
        )
    digest = expected_digest(data, cid_version)
    return PreparedManifest(
        data=data,
        digest=digest,
        cid=digest_to_cid(digest, DAG_PB),
        tools=tools,
        warnings=tuple(p for p in parsed.problems if not p.is_error) + quality,
    )


# --- step 2: upload check ----------------------------------------------------------------


def check_upload(
    prepared: PreparedManifest, returned_cid: str, read_back: bytes
) -> str:
    """Check an upload: the node's CID and the bytes it serves back match the manifest.

    :param prepared: what was uploaded.
    :param returned_cid: the CID the node reported for the upload.
    :param read_back: the bytes read back from the node under ``returned_cid``.
    :return: the verified digest (``0x`` + 64 hex) to put on chain.
    :raises PublishError: UPLOAD_MISMATCH when the node's CID is not the expected dag-pb
        CID (e.g. a node adding with raw leaves); READBACK_MISMATCH when the bytes read
        back differ or do not re-hash to the digest.
    """
    try:
        codec, digest = cid_to_digest(returned_cid)
    except CidError as exc:
        raise PublishError(
            UPLOAD_MISMATCH,
            f"The IPFS node answered the upload with {returned_cid!r}, not a CID ({exc.problem.message}).",
        ) from exc
    if codec != DAG_PB or digest != prepared.digest:
        raise PublishError(
            UPLOAD_MISMATCH,
            f"The IPFS node stored the manifest as {returned_cid} ({codec}), not as the expected dag-pb "
            f"{prepared.cid}; add with --cid-version=1 --raw-leaves=false. Nothing was sent on chain.",
        )
    return check_read_back(prepared, read_back)


def check_read_back(prepared: PreparedManifest, read_back: bytes) -> str:
    """Check the bytes a node serves back for the manifest's CID.

    :param prepared: what was uploaded.
    :param read_back: the bytes read back.
    :return: the verified digest (``0x`` + 64 hex).
    :raises PublishError: READBACK_MISMATCH when the bytes differ from the upload or do
        not re-hash (dag-pb) to its digest.
    """
    verification = verify(read_back, prepared.digest, DAG_PB)
    if read_back != prepared.data or not verification.ok:
        raise PublishError(
            READBACK_MISMATCH,
            f"The {len(read_back)} bytes read back for {prepared.cid} are not the {len(prepared.data)} bytes "
            "uploaded (or do not re-hash to its digest); the node cannot be trusted. Nothing was sent on chain.",
        )
    return prepared.digest


# --- step 3: decide ------------------------------------------------------------------------


def decide(onchain_digest: str, new_digest: str) -> str:
    """Decide whether a transaction is needed.

    :param onchain_digest: the registry's latest digest (``0x`` hex, "" for none).
    :param new_digest: the verified digest of the new manifest.
    :return: :data:`UP_TO_DATE` when they are equal (send nothing), else :data:`UPDATE`.
    """
    return UP_TO_DATE if onchain_digest.lower() == new_digest.lower() else UPDATE


# --- step 4: calls -------------------------------------------------------------------------


def contract_call(
    to: str, signature: str, types: Sequence[str] = (), args: Sequence[Any] = ()
) -> Call:
    """Encode a call.

    :param to: the contract address.
    :param signature: the canonical signature, e.g. ``nonce()``.
    :param types: ABI types of ``args``.
    :param args: the arguments.
    :return: the call.
    """
    data = function_signature_to_4byte_selector(signature) + abi_encode(
        list(types), list(args)
    )
    return Call(to, data, signature=signature)


def _digest_bytes(digest: str) -> bytes:
    return bytes.fromhex(digest[2:] if digest.startswith("0x") else digest)


def update_call(target: PublishTarget, digest: str) -> Call:
    """Build the transaction that sets ``digest`` for ``target``.

    :param target: the registry and id.
    :param digest: ``0x`` + 64 hex.
    :return: the call (see the module table).
    """
    value = _digest_bytes(digest)
    if target.kind == REGISTRY_OLAS_AGENT:
        return contract_call(
            target.manager,
            "updateHash(uint8,uint256,bytes32)",
            ("uint8", "uint256", "bytes32"),
            (UNIT_TYPE_AGENT, target.mech_id, value),
        )
    if target.kind == REGISTRY_LEGACY_MECH:
        return contract_call(
            target.registry,
            "updateHash(uint256,bytes32)",
            ("uint256", "bytes32"),
            (target.mech_id, value),
        )
    return contract_call(
        target.registry,
        "changeHash(uint256,bytes32)",
        ("uint256", "bytes32"),
        (target.mech_id, value),
    )


def owner_call(target: PublishTarget) -> Call:
    """Build the read of who may update ``target`` (``ownerOf(id)`` of the NFT).

    For ComplementaryServiceMetadata the owner is that of the service in its
    ServiceRegistry; use :func:`can_change_call` there instead.

    :param target: the registry and id.
    :return: ``ownerOf(uint256)`` on the registry (returns ``address``).
    """
    return contract_call(
        target.registry, "ownerOf(uint256)", ("uint256",), (target.mech_id,)
    )


def exists_call(target: PublishTarget, service_registry: str = "") -> Call:
    """Build the existence check of the id (``exists(uint256)`` returns ``bool``).

    :param target: the registry and id.
    :param service_registry: for ComplementaryServiceMetadata: its ServiceRegistry.
    :return: the call.
    """
    where = (
        service_registry
        if target.kind == REGISTRY_COMPLEMENTARY_SERVICE
        else target.registry
    )
    return contract_call(where, "exists(uint256)", ("uint256",), (target.mech_id,))


def can_change_call(target: PublishTarget, account: str) -> Call:
    """Build ``ComplementaryServiceMetadata.isAbleChangeHash(account, serviceId)`` (returns ``bool``).

    :param target: a ComplementaryServiceMetadata target.
    :param account: the would-be sender (owner key or the service Safe).
    :return: the call.
    """
    return contract_call(
        target.registry,
        "isAbleChangeHash(address,uint256)",
        ("address", "uint256"),
        (account, target.mech_id),
    )


def decode_single(abi_type: str, data: bytes) -> Any:
    """Decode a one-value return.

    :param abi_type: e.g. ``address``, ``bool``.
    :param data: the return data.
    :return: the value.
    :raises PublishError: RPC_UNAVAILABLE when the bytes do not decode (wrong contract?).
    """
    try:
        return abi_decode([abi_type], bytes(data))[0]
    except (
        Exception
    ) as exc:  # eth_abi raises several unrelated types  # pylint: disable=broad-except
        raise PublishError(
            RPC_UNAVAILABLE,
            f"A registry read returned {len(data)} bytes that are not one {abi_type}; check the address.",
        ) from exc


def authorise(
    target: PublishTarget, sender: str, exists: bool, owner_or_able: Any
) -> None:
    """Refuse a sender that the registry would reject, before anything is sent.

    :param target: the registry and id.
    :param sender: the account that would send (or the Safe that would execute).
    :param exists: what :func:`exists_call` returned.
    :param owner_or_able: for Olas/legacy the ``ownerOf`` address; for
        ComplementaryServiceMetadata the ``isAbleChangeHash`` bool.
    :raises PublishError: MECH_NOT_FOUND or NOT_AUTHORISED.
    """
    if not exists:
        raise PublishError(
            MECH_NOT_FOUND,
            f"{target.describe} does not exist; check the id and the registry address. Nothing was sent.",
        )
    if target.kind == REGISTRY_COMPLEMENTARY_SERVICE:
        if not owner_or_able:
            raise PublishError(
                NOT_AUTHORISED,
                f"{sender} may not change the hash of {target.describe}: only the service owner may, or its "
                "multisig once the service is deployed (isAbleChangeHash is false). Nothing was sent.",
            )
        return
    if str(owner_or_able).lower() != sender.lower():
        raise PublishError(
            NOT_AUTHORISED,
            f"{sender} does not own {target.describe} (the owner is {owner_or_able}); use the owner's key. "
            "Nothing was sent.",
        )


# --- step 5: confirm -------------------------------------------------------------------------

#: event signature per registry kind (topics[0] = keccak of it); digest in the data
UPDATE_EVENTS: Dict[str, str] = {
    REGISTRY_OLAS_AGENT: "UpdateUnitHash(uint256,uint8,bytes32)",
    REGISTRY_LEGACY_MECH: "UpdateAgentHash(uint256,bytes32)",
    REGISTRY_COMPLEMENTARY_SERVICE: "ComplementaryMetadataUpdated(uint256,bytes32)",
}


def _topic(signature: str) -> bytes:
    return keccak(text=signature)


def _hexbytes(value: Any) -> bytes:
    if isinstance(value, str):
        return bytes.fromhex(value[2:] if value.startswith("0x") else value)
    return bytes(value)


def update_event_digest(
    target: PublishTarget, logs: Sequence[Dict[str, Any]]
) -> Optional[str]:
    """Find the registry's hash-update event for ``target`` in receipt logs.

    Field layout per event (indexed or not) differs by contract version, so the id and
    digest are read from topics + data together: every word after topics[0], in order.

    :param target: the registry and id.
    :param logs: receipt logs (``address``, ``topics``, ``data``; hex strings or bytes).
    :return: the digest the event carries (``0x`` hex), or None when no such event.
    """
    wanted = _topic(UPDATE_EVENTS[target.kind])
    for log in logs:
        if str(log.get("address", "")).lower() != target.registry.lower():
            continue
        topics = [_hexbytes(t) for t in log.get("topics", [])]
        if not topics or topics[0] != wanted:
            continue
        data = _hexbytes(log.get("data", b""))
        words = topics[1:] + [data[i : i + 32] for i in range(0, len(data), 32)]
        if len(words) < 2 or int.from_bytes(words[0], "big") != target.mech_id:
            continue
        return "0x" + words[-1].hex()
    return None


# --- the Safe path --------------------------------------------------------------------------

_DOMAIN_TYPE = "EIP712Domain(uint256 chainId,address verifyingContract)"
_SAFE_TX_TYPE = (
    "SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,"
    "uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)"
)


@dataclass(frozen=True)
class SafeTransaction:  # pylint: disable=too-many-instance-attributes
    """A Gnosis Safe 1.3.0 transaction (``execTransaction`` arguments + nonce).

    :param safe: the Safe address.
    :param to: the call target.
    :param data: the calldata.
    :param nonce: the Safe's nonce it is built for.
    :param value: wei.
    :param operation: 0 call, 1 delegatecall.
    :param safe_tx_gas: gas for the inner call (0 = all).
    :param base_gas: gas for the refund logic.
    :param gas_price: refund gas price (0 = no refund).
    :param gas_token: refund token (zero = ether).
    :param refund_receiver: refund receiver (zero = tx.origin).
    """

    safe: str
    to: str
    data: bytes
    nonce: int
    value: int = 0
    operation: int = SAFE_OPERATION_CALL
    safe_tx_gas: int = 0
    base_gas: int = 0
    gas_price: int = 0
    gas_token: str = ZERO_ADDRESS
    refund_receiver: str = ZERO_ADDRESS

    def to_dict(self, chain_id: int) -> Dict[str, Any]:
        """Get the JSON form, with the hash to sign.

        :param chain_id: the chain id (part of the EIP-712 domain).
        :return: every field (data as 0x hex; the wei amounts ``value`` and ``gasPrice``
            as decimal strings, as the Safe Transaction Service writes them: a uint256
            need not fit a JavaScript number) plus ``safeTxHash``.
        """
        return {
            "safe": self.safe,
            "to": self.to,
            "value": str(self.value),
            "data": "0x" + self.data.hex(),
            "operation": self.operation,
            "safeTxGas": self.safe_tx_gas,
            "baseGas": self.base_gas,
            "gasPrice": str(self.gas_price),
            "gasToken": self.gas_token,
            "refundReceiver": self.refund_receiver,
            "nonce": self.nonce,
            "chainId": chain_id,
            "safeTxHash": safe_tx_hash(self, chain_id),
        }


#: the Safe transaction fields, in ``execTransaction`` and ``SafeTx`` order, with ABI types
SAFE_TX_FIELDS = (
    ("to", "address"),
    ("value", "uint256"),
    ("data", "bytes"),
    ("operation", "uint8"),
    ("safe_tx_gas", "uint256"),
    ("base_gas", "uint256"),
    ("gas_price", "uint256"),
    ("gas_token", "address"),
    ("refund_receiver", "address"),
)


def safe_tx_hash(tx: SafeTransaction, chain_id: int) -> str:
    """Compute the EIP-712 hash a Safe 1.3.0 owner signs (``GnosisSafe.getTransactionHash``).

    Source: safe-contracts v1.3.0 ``GnosisSafe.sol`` (``DOMAIN_SEPARATOR_TYPEHASH``,
    ``SAFE_TX_TYPEHASH``, ``encodeTransactionData``): ``bytes`` fields enter as their keccak.

    :param tx: the transaction.
    :param chain_id: the chain id.
    :return: ``0x`` + 64 hex.
    """
    domain = keccak(
        abi_encode(
            ["bytes32", "uint256", "address"],
            [keccak(text=_DOMAIN_TYPE), chain_id, tx.safe],
        )
    )
    types = ["bytes32"] + ["bytes32" if t == "bytes" else t for _, t in SAFE_TX_FIELDS]
    values = [keccak(text=_SAFE_TX_TYPE)] + [
        keccak(getattr(tx, name)) if kind == "bytes" else getattr(tx, name)
        for name, kind in SAFE_TX_FIELDS
    ]
    struct = keccak(abi_encode(types + ["uint256"], values + [tx.nonce]))
    return "0x" + keccak(b"\x19\x01" + domain + struct).hex()


def exec_transaction_call(tx: SafeTransaction, signatures: bytes) -> Call:
    """Build a Safe 1.3.0 ``execTransaction`` of ``tx`` with packed ``signatures``.

    :param tx: the transaction.
    :param signatures: 65-byte signatures (r, s, v) sorted by owner address.
    :return: the call to send to the Safe.
    """
    types = [kind for _, kind in SAFE_TX_FIELDS] + ["bytes"]
    values = [getattr(tx, name) for name, _ in SAFE_TX_FIELDS] + [signatures]
    return contract_call(tx.safe, f"execTransaction({','.join(types)})", types, values)
