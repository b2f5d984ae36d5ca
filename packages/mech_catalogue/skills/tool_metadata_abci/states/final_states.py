"""Final states of the ToolMetadataAbciApp."""

from packages.valory.skills.abstract_round_abci.base import DegenerateRound


class FinishedCatalogueReadyRound(DegenerateRound):  # pylint: disable=abstract-method
    """The agents agreed on a catalogue; ``catalogue_digest``, ``mechs_info`` and ``mech_tools`` are set."""


class FinishedWithoutUpdateRound(DegenerateRound):  # pylint: disable=abstract-method
    """A threshold of agents could not read the registries or build a catalogue.

    The database keeps the previous period's catalogue keys (cross-period persisted), and
    every agent keeps exposing its previous catalogue, whose freshness shows its age.
    """
