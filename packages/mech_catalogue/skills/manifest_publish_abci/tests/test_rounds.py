"""Round tests of the PublishManifestAbciApp: every event of every round, and the transitions."""

from typing import Any, Dict, FrozenSet

import pytest

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishPreparePayload,
    PublishTxPayload,
    PublishUploadPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.rounds import (
    PublishManifestAbciApp,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishStatus,
    PublishSynchronizedData,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.final_states import (
    FinishedPublishTxRound,
    FinishedWithoutPublishRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.prepare import (
    PublishPrepareRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.tx import (
    PublishTxRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.upload import (
    PublishUploadRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_rounds import (
    _RoundTest as ToolMetadataRoundTest,
)
from packages.valory.skills.abstract_round_abci.base import BaseTxPayload

DIGEST = "0x" + "ab" * 32
ONCHAIN = "0x" + "cd" * 32
TX_HASH = "ef" * 100


class _RoundTest(ToolMetadataRoundTest):
    """The tool metadata round test runner, on the publish data and events."""

    _synchronized_data_class = PublishSynchronizedData
    _event_class = PublishEvent  # type: ignore[assignment]

    def run(  # type: ignore[override]
        self,
        payloads: Dict[str, BaseTxPayload],
        expected_event: PublishEvent,
        checks: Dict[str, Any],
    ) -> None:
        """Process the payloads; compare the event and the database keys.

        :param payloads: one payload per participant.
        :param expected_event: the expected event.
        :param checks: database keys and their expected values.
        """
        super().run(payloads, expected_event, checks)  # type: ignore[arg-type]


def _each(
    participants: FrozenSet[str], cls: Any, *values: Any
) -> Dict[str, BaseTxPayload]:
    return {p: cls(p, *values) for p in sorted(participants)}


class TestPublishPrepareRound(_RoundTest):
    """PublishPrepareRound."""

    round_class = PublishPrepareRound

    @pytest.mark.parametrize(
        "status,event",
        [
            (PublishStatus.UPDATE, PublishEvent.DONE),
            (PublishStatus.UP_TO_DATE, PublishEvent.SKIP),
            (PublishStatus.DISABLED, PublishEvent.SKIP),
            (PublishStatus.INVALID_MANIFEST, PublishEvent.ERROR),
            (PublishStatus.NOT_AUTHORISED, PublishEvent.ERROR),
            (PublishStatus.MECH_NOT_FOUND, PublishEvent.ERROR),
            (PublishStatus.READ_FAILED, PublishEvent.ERROR),
        ],
    )
    def test_status_to_event(self, status: PublishStatus, event: PublishEvent) -> None:
        """Each agreed status gives its event and is stored."""
        self.run(
            _each(
                self.participants, PublishPreparePayload, status.value, DIGEST, ONCHAIN
            ),
            event,
            {
                "publish_status": status.value,
                "publish_manifest_digest": DIGEST,
                "publish_onchain_digest": ONCHAIN,
            },
        )

    def test_no_majority(self) -> None:
        """Different digests from every agent: NO_MAJORITY."""
        test_round = self.round_class(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        for index, participant in enumerate(sorted(self.participants)):
            test_round.process_payload(
                PublishPreparePayload(
                    participant, PublishStatus.UPDATE.value, f"0x{index:064x}", ""
                )
            )
        result = test_round.end_block()
        assert result is not None and result[1] == PublishEvent.NO_MAJORITY


class TestPublishUploadRound(_RoundTest):
    """PublishUploadRound."""

    round_class = PublishUploadRound

    def setup_method(self) -> None:
        """Agree on the manifest digest first."""
        super().setup_method()
        self.synchronized_data = self.synchronized_data.update(
            publish_manifest_digest=DIGEST
        )

    def test_verified_agreed_digest_is_done(self) -> None:
        """The agreed digest verified by a threshold: DONE."""
        self.run(
            _each(self.participants, PublishUploadPayload, DIGEST),
            PublishEvent.DONE,
            {"publish_verified_digest": DIGEST},
        )

    def test_other_digest_is_error(self) -> None:
        """A verified digest other than the agreed one: ERROR."""
        self.run(
            _each(self.participants, PublishUploadPayload, ONCHAIN),
            PublishEvent.ERROR,
            {"publish_verified_digest": ONCHAIN},
        )

    def test_failed_upload_is_error(self) -> None:
        """Agents agree the upload failed (""): ERROR."""
        self.run(
            _each(self.participants, PublishUploadPayload, ""),
            PublishEvent.ERROR,
            {"publish_verified_digest": ""},
        )


class TestPublishTxRound(_RoundTest):
    """PublishTxRound."""

    round_class = PublishTxRound

    def test_done_sets_tx_hash_and_submitter(self) -> None:
        """DONE stores the settlement payload and the submitter round."""
        self.run(
            _each(self.participants, PublishTxPayload, TX_HASH),
            PublishEvent.DONE,
            {
                "most_voted_tx_hash": TX_HASH,
                "tx_submitter": PublishTxRound.auto_round_id(),
            },
        )

    def test_empty_is_error(self) -> None:
        """No transaction could be built: ERROR."""
        self.run(
            _each(self.participants, PublishTxPayload, ""),
            PublishEvent.ERROR,
            {"most_voted_tx_hash": ""},
        )


@pytest.mark.parametrize(
    "round_cls,event,next_round",
    [
        (PublishPrepareRound, PublishEvent.DONE, PublishUploadRound),
        (PublishPrepareRound, PublishEvent.SKIP, FinishedWithoutPublishRound),
        (PublishPrepareRound, PublishEvent.ERROR, FinishedWithoutPublishRound),
        (PublishPrepareRound, PublishEvent.ROUND_TIMEOUT, PublishPrepareRound),
        (PublishUploadRound, PublishEvent.DONE, PublishTxRound),
        (PublishUploadRound, PublishEvent.ERROR, FinishedWithoutPublishRound),
        (PublishTxRound, PublishEvent.DONE, FinishedPublishTxRound),
        (PublishTxRound, PublishEvent.ERROR, FinishedWithoutPublishRound),
    ],
)
def test_transitions(round_cls: Any, event: PublishEvent, next_round: Any) -> None:
    """The transition function routes every event as documented."""
    assert PublishManifestAbciApp.transition_function[round_cls][event] is next_round


def test_final_states_and_timeout() -> None:
    """Two final states; the round timeout is registered."""
    assert PublishManifestAbciApp.final_states == {
        FinishedPublishTxRound,
        FinishedWithoutPublishRound,
    }
    assert PublishManifestAbciApp.event_to_timeout[PublishEvent.ROUND_TIMEOUT] > 0
