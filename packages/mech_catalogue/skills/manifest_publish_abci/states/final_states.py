"""Final states of the PublishManifestAbciApp."""

from packages.valory.skills.abstract_round_abci.base import DegenerateRound


class FinishedPublishTxRound(DegenerateRound):  # pylint: disable=abstract-method
    """A Safe transaction updating the registry digest is ready (``most_voted_tx_hash``); map to transaction settlement."""


class FinishedWithoutPublishRound(DegenerateRound):  # pylint: disable=abstract-method
    """Nothing to send: publishing disabled, digest already on chain, or a refusal (logged with the reason)."""
