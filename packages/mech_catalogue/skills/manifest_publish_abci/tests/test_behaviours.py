"""Behaviour tests of the publish branch (FSMBehaviourBaseCase), every branch of the three behaviours.

The ledger and IPFS connections are replaced by the framework's harness: each request is
checked in the outbox and answered by the test with real return data (eth_abi-encoded
Multicall2 results, the manifest's real canonical bytes). The same steps run for real
against anvil + kubo in tests/devnet/test_publish_*.py (through the CLI's publisher).
"""

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Tuple, cast

import pytest
from eth_abi import encode

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.prepare import (
    PublishPrepareBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.round_behaviour import (
    PublishRoundBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.tx import (
    PublishTxBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.upload import (
    PublishUploadBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    PublishSettings,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishStatus,
    PublishSynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci import (
    tests as tool_metadata_tests,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.derive import (
    derive_package,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.generate import (
    generate_manifest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.publish.publish import (
    PreparedManifest,
    PublishTarget,
    prepare_manifest,
    update_call,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_behaviours import (
    CSM,
    LEGACY,
    SERVICE_REGISTRY,
    ToolMetadataBehaviourCase,
    _CapturePayload,
)
from packages.valory.contracts.gnosis_safe.contract import PUBLIC_ID as GNOSIS_SAFE_ID
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.contract_api.custom_types import State
from packages.valory.protocols.ipfs import IpfsMessage
from packages.valory.skills.abstract_round_abci.base import AbciAppDB
from packages.valory.skills.abstract_round_abci.behaviour_utils import (
    IPFS_CONNECTION_ID,
)
from packages.valory.skills.transaction_settlement_abci.payload_tools import (
    skill_input_hex_to_payload,
)

#: the skill's own folder (FSMBehaviourBaseCase loads its skill.yaml)
PACKAGE_DIR = Path(__file__).parents[1]
TOOL_PACKAGE = (
    Path(tool_metadata_tests.__file__).parent
    / "fixtures"
    / "tool_packages"
    / "echo_tool"
)
SAFE = "0x00000000000000000000000000000000000005af"
SERVICE_ID = 5
OVERRIDES = {"name": "Published by the FSM"}


def expected_manifest() -> PreparedManifest:
    """Prepare the manifest the behaviours should generate (CIDv0 layout of the connection).

    :return: the prepared manifest.
    """
    document, _ = generate_manifest([derive_package(TOOL_PACKAGE)], OVERRIDES)
    return prepare_manifest(document, cid_version=0)


class PublishBehaviourCase(  # pylint: disable=attribute-defined-outside-init
    ToolMetadataBehaviourCase
):
    """Drive the PublishRoundBehaviour with the skill's context."""

    path_to_skill = PACKAGE_DIR

    def setup_method(self, **kwargs: Any) -> None:
        """Enable publishing to service 5 of a ComplementaryServiceMetadata; use the publish round behaviour."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True,
            (str(TOOL_PACKAGE),),
            OVERRIDES,
            PublishTarget("complementary_service_metadata", CSM, SERVICE_ID),
            5.0,
        )
        self.behaviour = PublishRoundBehaviour(
            name="publish", skill_context=self.skill.skill_context
        )
        self.behaviour.setup()
        self.prepared = expected_manifest()

    def enter(self, behaviour: Any, data: Dict[str, Any]) -> _CapturePayload:
        """Fast-forward to a publish behaviour and run it once.

        :param behaviour: the behaviour class.
        :param data: database content.
        :return: the payload capture.
        """
        agent = self.skill.skill_context.agent_address
        setup = {
            "all_participants": (agent,),
            "participants": (agent,),
            "consensus_threshold": 1,
            "safe_contract_address": SAFE,
            **data,
        }
        self.fast_forward_to_behaviour(
            self.behaviour,
            behaviour.auto_behaviour_id(),
            PublishSynchronizedData(
                AbciAppDB(setup_data=AbciAppDB.data_to_lists(setup))
            ),
        )
        # fast_forward_to_behaviour records the round height on the skill's main behaviour
        abci_app = self.skill.skill_context.state.round_sequence.abci_app
        self.behaviour._last_round_height = (  # pylint: disable=protected-access
            abci_app.current_round_height
        )
        # the skill's handlers deliver responses to behaviours.main's current behaviour
        self.skill.skill_context.behaviours.main.current_behaviour = (
            self.behaviour.current_behaviour
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def answer_reads(self, exists: bool, able: bool, onchain: bytes) -> None:
        """Answer serviceRegistry(), then exists / isAbleChangeHash / mapServiceHashes.

        :param exists: the service exists.
        :param able: the Safe may change the hash.
        :param onchain: the digest on chain.
        """
        self.answer_multicall(9, [(True, encode(["address"], [SERVICE_REGISTRY]))])
        self.answer_multicall(
            9,
            [
                (True, encode(["bool"], [exists])),
                (True, encode(["bool"], [able])),
                (True, encode(["bytes32"], [onchain])),
            ],
        )

    def finish(self, event: PublishEvent = PublishEvent.DONE) -> None:
        """Deliver the payload and end the round.

        :param event: the round's event.
        """
        self.mock_a2a_transaction()
        self._test_done_flag_set()
        self.end_round(event)


class TestPublishPrepareBehaviour(PublishBehaviourCase):
    """PublishPrepareBehaviour."""

    def status_after(
        self, exists: bool, able: bool, onchain: bytes
    ) -> Tuple[str, str, str]:
        """Run with the given chain answers; return the payload values."""
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_reads(exists, able, onchain)
        payload = capture.payloads[0]
        self.finish()
        return payload.status, payload.manifest_digest, payload.onchain_digest

    def test_update_when_digests_differ(self) -> None:
        """A new manifest: status update with both digests."""
        onchain = b"\x11" * 32
        assert self.status_after(True, True, onchain) == (
            PublishStatus.UPDATE.value,
            self.prepared.digest,
            "0x" + onchain.hex(),
        )

    def test_up_to_date_when_equal(self) -> None:
        """The registry already holds this manifest: up_to_date (no transaction follows)."""
        onchain = bytes.fromhex(self.prepared.digest[2:])
        assert (
            self.status_after(True, True, onchain)[0] == PublishStatus.UP_TO_DATE.value
        )

    def test_safe_not_authorised(self) -> None:
        """The Safe may not change the hash (isAbleChangeHash false): not_authorised."""
        assert (
            self.status_after(True, False, b"\x11" * 32)[0]
            == PublishStatus.NOT_AUTHORISED.value
        )

    def test_service_not_found(self) -> None:
        """The service id does not exist: mech_not_found."""
        assert (
            self.status_after(False, False, b"\x00" * 32)[0]
            == PublishStatus.MECH_NOT_FOUND.value
        )

    def test_chain_unreadable(self) -> None:
        """The ledger connection fails: read_failed."""
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_multicall(0, [], error=True)
        assert capture.payloads[0].status == PublishStatus.READ_FAILED.value
        self.finish()

    def enter_legacy(self) -> _CapturePayload:
        """Publish to legacy mech 3 instead, and enter the prepare behaviour.

        :return: the payload capture.
        """
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True,
            (str(TOOL_PACKAGE),),
            OVERRIDES,
            PublishTarget("legacy_mech_registry", LEGACY, 3),
            5.0,
        )
        return self.enter(PublishPrepareBehaviour, {})

    def test_legacy_registry_owned_by_the_safe(self) -> None:
        """A legacy mech NFT owned by the Safe: one batch (exists, ownerOf, getHashes); update."""
        capture = self.enter_legacy()
        old = b"\x22" * 32
        self.answer_multicall(
            9,
            [
                (True, encode(["bool"], [True])),
                (True, encode(["address"], [SAFE])),
                (True, encode(["uint256", "bytes32[]"], [1, [old]])),
            ],
        )
        payload = capture.payloads[0]
        assert (payload.status, payload.onchain_digest) == (
            PublishStatus.UPDATE.value,
            "0x" + old.hex(),
        )
        self.finish()

    def test_legacy_registry_owned_by_someone_else(self) -> None:
        """The NFT belongs to another account than the Safe: not_authorised."""
        capture = self.enter_legacy()
        self.answer_multicall(
            9,
            [
                (True, encode(["bool"], [True])),
                (True, encode(["address"], [LEGACY])),
                (True, encode(["uint256", "bytes32[]"], [0, []])),
            ],
        )
        assert capture.payloads[0].status == PublishStatus.NOT_AUTHORISED.value
        self.finish()

    def test_garbage_return_is_read_failed(self) -> None:
        """A registry answer that does not decode: read_failed, no crash."""
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_multicall(9, [(True, b"\x01")])
        assert capture.payloads[0].status == PublishStatus.READ_FAILED.value
        self.finish()

    def test_no_safe_is_not_authorised(self) -> None:
        """No service Safe in the synchronized data: not_authorised, nothing read."""
        capture = self.enter(PublishPrepareBehaviour, {"safe_contract_address": ""})
        self.assert_quantity_in_outbox(0)
        assert capture.payloads[0].status == PublishStatus.NOT_AUTHORISED.value
        self.finish()

    def test_disabled_reads_nothing(self) -> None:
        """publish_enabled false: status disabled, no request at all."""
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings()
        capture = self.enter(PublishPrepareBehaviour, {})
        assert capture.payloads[0].status == PublishStatus.DISABLED.value
        self.finish()

    def test_invalid_package(self) -> None:
        """A tool package that cannot be derived: invalid_manifest, nothing read."""
        settings = self.skill.skill_context.params.publish
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True, ("/nonexistent/tool",), {}, settings.target, 5.0
        )
        capture = self.enter(PublishPrepareBehaviour, {})
        assert capture.payloads[0].status == PublishStatus.INVALID_MANIFEST.value
        self.finish()

    @pytest.mark.timeout(10, method="thread")
    def test_hostile_tool_module_is_derived_within_the_budget(self) -> None:
        """A 2 KB module doubling a default 60 times: the period still prepares a manifest.

        Derivation runs inside the behaviour (the agent's loop), so it must be bounded: the
        static evaluator's budget leaves the default unknown and the manifest is generated.
        """
        folder = Path(tempfile.mkdtemp(prefix="hostile-tool-"))
        try:
            (folder / "component.yaml").write_text(
                (TOOL_PACKAGE / "component.yaml")
                .read_text()
                .replace("echo_tool", "hostile_tool")
            )
            (folder / "hostile_tool.py").write_text(
                'ALLOWED_TOOLS = ["hostile"]\nA = [1]\n'
                + "A = [A, A]\n" * 60
                + "B = {tuple(A)}\n"
                + 'def run(**kwargs):\n    """Run."""\n'
                + '    return kwargs["prompt"], kwargs.get("n", A), None, None\n'
            )
            settings = self.skill.skill_context.params.publish
            self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
                True, (str(folder),), {}, settings.target, 5.0
            )
            capture = self.enter(PublishPrepareBehaviour, {})
            self.answer_reads(True, True, b"\x11" * 32)
            payload = capture.payloads[0]
            assert payload.status == PublishStatus.UPDATE.value
            assert payload.manifest_digest.startswith("0x")
            self.finish()
        finally:
            shutil.rmtree(folder, ignore_errors=True)


class TestPublishUploadBehaviour(PublishBehaviourCase):
    """PublishUploadBehaviour."""

    def reply(self, request: Any, **kwargs: Any) -> None:
        """Answer an IPFS request."""
        response = self.build_incoming_message(
            message_type=IpfsMessage,
            dialogue_reference=(request.dialogue_reference[0], "stub"),
            target=request.message_id,
            message_id=-1,
            to=str(self.skill.skill_context.skill_id),
            sender=str(IPFS_CONNECTION_ID),
            **kwargs,
        )
        self.skill.skill_context.handlers.ipfs.handle(response)
        self.behaviour.act_wrapper()

    def run_upload(self, read_back: str) -> str:
        """Store, answer, read back, answer; return the verified digest sent."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        assert store.performative == IpfsMessage.Performative.STORE_FILES
        ((path, text),) = store.files.items()
        assert path.endswith("manifest.json") and text.encode() == self.prepared.data
        self.reply(
            store,
            performative=IpfsMessage.Performative.IPFS_HASH,
            ipfs_hash="bafy-directory",
        )
        get = cast(IpfsMessage, self.get_message_from_outbox())
        assert get.performative == IpfsMessage.Performative.GET_FILES
        assert get.ipfs_hash == self.prepared.cid
        self.reply(
            get,
            performative=IpfsMessage.Performative.FILES,
            files={self.prepared.cid: read_back},
        )
        verified = capture.payloads[0].verified_digest
        self.finish()
        return verified

    def test_uploaded_and_verified(self) -> None:
        """Read back equal to the upload: the digest is sent."""
        assert self.run_upload(self.prepared.data.decode()) == self.prepared.digest

    def test_read_back_mismatch(self) -> None:
        """Other bytes read back: "" is sent."""
        assert (
            self.run_upload(self.prepared.data.decode().replace("echo", "ecko", 1))
            == ""
        )

    def test_ipfs_down(self) -> None:
        """The connection answers ERROR to the store: "" is sent."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        self.reply(
            store,
            performative=IpfsMessage.Performative.ERROR,
            reason="connection refused",
        )
        assert capture.payloads[0].verified_digest == ""
        self.finish()

    def test_late_ipfs_answer_is_a_refusal_not_a_crash(self) -> None:
        """The store is answered after publish_ipfs_timeout_seconds: "" is sent (the framework's TimeoutException stops in the adapter)."""
        settings = self.skill.skill_context.params.publish
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True, settings.tool_packages, settings.overrides, settings.target, 0.05
        )
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        assert store.performative == IpfsMessage.Performative.STORE_FILES
        assert not capture.payloads  # still waiting
        time.sleep(0.1)
        self.reply(
            store,
            performative=IpfsMessage.Performative.IPFS_HASH,
            ipfs_hash="bafy-directory",
        )
        self.assert_quantity_in_outbox(0)  # no read-back after a failed store
        assert capture.payloads[0].verified_digest == ""
        self.finish()

    @pytest.mark.parametrize(
        "answer",
        [
            {"performative": IpfsMessage.Performative.ERROR, "reason": "not found"},
            {
                "performative": IpfsMessage.Performative.FILES,
                "files": {"a.json": "{}", "b.json": "{}"},
            },
        ],
        ids=["error", "two-files"],
    )
    def test_read_back_not_one_file(self, answer: Dict[str, Any]) -> None:
        """Stored, but the read-back is an error or not exactly one file: "" is sent."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        self.reply(
            store,
            performative=IpfsMessage.Performative.IPFS_HASH,
            ipfs_hash="bafy-directory",
        )
        get = cast(IpfsMessage, self.get_message_from_outbox())
        assert get.performative == IpfsMessage.Performative.GET_FILES
        self.reply(get, **answer)
        assert capture.payloads[0].verified_digest == ""
        self.finish()

    def test_other_manifest_than_agreed(self) -> None:
        """This agent generates another digest than the agreed one: "" without uploading."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": "0x" + "00" * 32}
        )
        self.assert_quantity_in_outbox(0)
        assert capture.payloads[0].verified_digest == ""
        self.finish()


class TestPublishTxBehaviour(PublishBehaviourCase):
    """PublishTxBehaviour."""

    def answer_hash(self, error: bool = False) -> None:
        """Answer get_raw_safe_transaction_hash."""
        if error:
            response: Dict[str, Any] = {
                "performative": ContractApiMessage.Performative.ERROR,
                "code": 1,
                "message": "rpc down",
                "data": b"",
            }
        else:
            response = {
                "performative": ContractApiMessage.Performative.STATE,
                "state": State(
                    ledger_id="ethereum", body={"tx_hash": "0x" + "5a" * 32}
                ),
            }
        self.mock_contract_api_request(
            contract_id=str(GNOSIS_SAFE_ID),
            request_kwargs={
                "performative": ContractApiMessage.Performative.GET_STATE,
                "callable": "get_raw_safe_transaction_hash",
                "contract_address": SAFE,
            },
            response_kwargs=response,
        )

    def test_settlement_payload(self) -> None:
        """The payload decodes (transaction_settlement_abci) to changeHash on the registry, 0 wei."""
        digest = self.prepared.digest
        capture = self.enter(PublishTxBehaviour, {"publish_verified_digest": digest})
        self.answer_hash()
        tx_hash = capture.payloads[0].tx_hash
        decoded = skill_input_hex_to_payload(tx_hash)
        call = update_call(
            PublishTarget("complementary_service_metadata", CSM, SERVICE_ID), digest
        )
        assert decoded["safe_tx_hash"] == "5a" * 32
        assert decoded["to_address"].lower() == CSM and decoded["data"] == call.data
        assert decoded["ether_value"] == 0 and decoded["safe_tx_gas"] == 0
        self.finish()

    def test_hash_not_built(self) -> None:
        """The contract call fails: "" is sent."""
        capture = self.enter(
            PublishTxBehaviour, {"publish_verified_digest": self.prepared.digest}
        )
        self.answer_hash(error=True)
        assert capture.payloads[0].tx_hash == ""
        self.finish()
