"""PublishTxRound: every event."""

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishTxPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.tx import (
    PublishTxRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.round_case import (
    TX_HASH,
    _each,
    _RoundTest,
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
