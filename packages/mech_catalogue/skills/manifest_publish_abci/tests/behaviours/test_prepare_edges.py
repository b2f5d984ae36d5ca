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

"""PublishPrepareBehaviour: the calls it sends, its payload and what it logs, per outcome.

The ledger connection is the framework's test harness (as in test_prepare.py); here the
Multicall2 request each read sends is decoded and checked call by call, so a wrong
selector, argument or target cannot pass because the test answers whatever was asked.
"""

from typing import Any, List, Tuple
from unittest import mock

from eth_abi import decode, encode
from eth_utils import function_signature_to_4byte_selector, to_checksum_address

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.prepare import (
    PublishPrepareBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    PublishSettings,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishStatus,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.behaviour_case import (
    SAFE,
    SERVICE_ID,
    PublishBehaviourCase,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    CSM,
    SERVICE_REGISTRY,
)

#: Multicall2 ``tryBlockAndAggregate(bool,(address,bytes)[])``
BATCH_SELECTOR = function_signature_to_4byte_selector(
    "tryBlockAndAggregate(bool,(address,bytes)[])"
)


def call(
    target: str, signature: str, types: Tuple[str, ...] = (), args: Any = ()
) -> Tuple[str, bytes]:
    """Encode one expected call of a batch.

    :param target: the contract.
    :param signature: the function signature.
    :param types: its argument types.
    :param args: its arguments.
    :return: ``(checksum target, calldata)`` as Multicall2 receives it.
    """
    return (
        to_checksum_address(target),
        function_signature_to_4byte_selector(signature) + encode(list(types), args),
    )


class TestPrepareRequests(PublishBehaviourCase):
    """The batches of a ComplementaryServiceMetadata target, decoded from the outbox."""

    sent: List[Any]

    def setup_method(self, **kwargs: Any) -> None:
        """Record every message the behaviour sends."""
        super().setup_method(**kwargs)
        self.sent = self.record_outbox()

    def batch(self, index: int) -> List[Tuple[str, bytes]]:
        """Decode the calls of the ``index``-th Multicall2 request sent.

        :param index: which request.
        :return: ``[(checksum target, calldata)]``.
        """
        data = bytes.fromhex(self.sent[index].kwargs.body["data"][2:])
        assert data[:4] == BATCH_SELECTOR
        require_success, calls = decode(["bool", "(address,bytes)[]"], data[4:])
        assert require_success is False  # one failing call must not revert the batch
        return [(to_checksum_address(t), bytes(d)) for t, d in calls]

    def test_the_calls_read_the_service_registry_then_the_target(self) -> None:
        """serviceRegistry() first, then exists, isAbleChangeHash and mapServiceHashes.

        serviceRegistry() is asked of the metadata contract; exists(id) of the service
        registry it returned; isAbleChangeHash(Safe, id) and mapServiceHashes(id) of the
        metadata contract.
        """
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_reads(True, True, b"\x11" * 32)
        assert capture.payloads[0].status == PublishStatus.UPDATE.value
        assert self.batch(0) == [call(CSM, "serviceRegistry()")]
        assert self.batch(1) == [
            call(SERVICE_REGISTRY, "exists(uint256)", ("uint256",), (SERVICE_ID,)),
            call(
                CSM,
                "isAbleChangeHash(address,uint256)",
                ("address", "uint256"),
                (SAFE, SERVICE_ID),
            ),
            call(CSM, "mapServiceHashes(uint256)", ("uint256",), (SERVICE_ID,)),
        ]
        self.finish()

    def test_a_reverted_service_registry_read_is_read_failed(self) -> None:
        """A reverted serviceRegistry() is read_failed, and nothing more is asked.

        Its return data still decodes as an address: the behaviour must not read exists()
        on an address taken from a failed call.
        """
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_multicall(9, [(False, encode(["address"], [SERVICE_REGISTRY]))])
        assert len(self.sent) == 1
        payload = capture.payloads[0]
        assert (payload.status, payload.manifest_digest, payload.onchain_digest) == (
            PublishStatus.READ_FAILED.value,
            self.prepared.digest,
            "",
        )
        self.finish()


class TestPreparePayloadAndLog(PublishBehaviourCase):
    """The whole payload (sender and both digests) and the logged line of each outcome."""

    def run_logged(self, data: Any = None, reads: Any = None) -> Tuple[Any, Any, Any]:
        """Enter the behaviour with the logger watched; answer ``reads`` when given.

        :param data: synchronized data of the period.
        :param reads: ``(exists, able, onchain)`` to answer, None when nothing is read.
        :return: ``(payload, info mock, error mock)``.
        """
        logger = self.skill.skill_context.logger
        with (
            mock.patch.object(logger, "info") as info,
            mock.patch.object(logger, "error") as error,
        ):
            capture = self.enter(PublishPrepareBehaviour, data or {})
            if reads is not None:
                self.answer_reads(*reads)
        payload = capture.payloads[0]
        assert payload.sender == self.skill.skill_context.agent_address
        self.finish()
        return payload, info, error

    def test_disabled_sends_no_digests_and_says_so(self) -> None:
        """Publishing disabled: (disabled, "", "") and the line shows "-" for both digests."""
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings()
        payload, info, error = self.run_logged()
        assert payload.values == ("disabled", "", "")
        info.assert_any_call("publish: disabled (manifest -, on chain -)")
        error.assert_not_called()

    def test_an_underivable_package_sends_no_digests_and_names_the_package(
        self,
    ) -> None:
        """A tool package path that does not exist: (invalid_manifest, "", "").

        The error line names the path, so the operator knows which package to fix.
        """
        settings = self.skill.skill_context.params.publish
        missing = "/nonexistent/tool_package_for_the_test"
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True, (missing,), {}, settings.target, 5.0
        )
        payload, info, error = self.run_logged()
        assert payload.values == ("invalid_manifest", "", "")
        (line,), _ = error.call_args
        assert line.startswith("publish: refusing the generated manifest: ")
        assert missing in line
        info.assert_any_call("publish: invalid_manifest (manifest -, on chain -)")

    def test_an_update_logs_both_digests(self) -> None:
        """Digests differ: the payload and the line carry the manifest's and the chain's."""
        onchain = b"\x11" * 32
        payload, info, error = self.run_logged(reads=(True, True, onchain))
        expected = ("update", self.prepared.digest, "0x" + onchain.hex())
        assert payload.values == expected
        info.assert_any_call(
            f"publish: update (manifest {expected[1]}, on chain {expected[2]})"
        )
        error.assert_not_called()

    def test_no_safe_sends_the_manifest_digest_only(self) -> None:
        """No Safe: (not_authorised, manifest digest, "") and "-" for the chain's digest."""
        payload, info, error = self.run_logged({"safe_contract_address": ""})
        assert payload.values == ("not_authorised", self.prepared.digest, "")
        error.assert_called_once_with(
            "publish: The service Safe (safe_contract_address) address '' is not a 0x "
            "20-byte address."
        )
        info.assert_any_call(
            f"publish: not_authorised (manifest {self.prepared.digest}, on chain -)"
        )


TRUE = encode(["bool"], [True])
DIGEST = encode(["bytes32"], [b"\x11" * 32])


class TestPrepareFailedCalls(PublishBehaviourCase):
    """A failed call of the second batch is never decoded as if it had answered.

    Each reverted call below carries return data that would decode to "go ahead" (true, an
    existing id), as a contract's revert data or a wrong contract may: only the success
    flag may decide.
    """

    def second_batch(
        self, results: List[Tuple[bool, bytes]], error: bool = False
    ) -> Any:
        """Answer serviceRegistry(), then the second batch with ``results``.

        :param results: exists, isAbleChangeHash, mapServiceHashes results.
        :param error: the ledger connection fails the second batch instead.
        :return: the payload sent.
        """
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_multicall(9, [(True, encode(["address"], [SERVICE_REGISTRY]))])
        self.answer_multicall(9, results, error=error)
        payload = capture.payloads[0]
        self.finish()
        return payload

    def test_a_reverted_exists_is_read_failed(self) -> None:
        """exists() reverted: read_failed, not an update."""
        payload = self.second_batch([(False, TRUE), (True, TRUE), (True, DIGEST)])
        assert payload.values == ("read_failed", self.prepared.digest, "")

    def test_a_reverted_authorisation_read_is_read_failed(self) -> None:
        """isAbleChangeHash() reverted: read_failed, not an update."""
        payload = self.second_batch([(True, TRUE), (False, TRUE), (True, DIGEST)])
        assert payload.values == ("read_failed", self.prepared.digest, "")

    def test_an_rpc_error_on_the_second_batch_is_read_failed(self) -> None:
        """The ledger connection fails after serviceRegistry() was read: read_failed."""
        payload = self.second_batch([], error=True)
        assert payload.values == ("read_failed", self.prepared.digest, "")

    def test_a_missing_service_sends_no_onchain_digest(self) -> None:
        """exists() false: mech_not_found, the manifest's digest, no chain digest.

        The digest call's answer is not read for a service that does not exist.
        """
        payload = self.second_batch(
            [(True, encode(["bool"], [False])), (True, TRUE), (True, DIGEST)]
        )
        assert payload.values == ("mech_not_found", self.prepared.digest, "")

    def test_a_refusal_and_an_undecodable_read_are_logged(self) -> None:
        """A refused Safe and an undecodable serviceRegistry() are each logged.

        The lines start with "publish: " and say why (the refusal names the Safe).
        """
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            payload = self.second_batch(
                [(True, TRUE), (True, encode(["bool"], [False])), (True, DIGEST)]
            )
        assert payload.values[0] == "not_authorised"
        (line,), _ = error.call_args
        assert line.startswith("publish: ") and SAFE.lower() in line.lower()
        with mock.patch.object(logger, "error") as error:
            capture = self.enter(PublishPrepareBehaviour, {})
            self.answer_multicall(9, [(True, b"\x01")])
        assert capture.payloads[0].values[0] == "read_failed"
        (line,), _ = error.call_args
        assert line.startswith("publish: ") and len(line) > len("publish: ")
        self.finish()
