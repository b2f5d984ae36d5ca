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

"""The registry snapshot round's own timeout (issue 16: 20,000 ids, four agents).

At 20,000 ids the snapshot read is 101 ``eth_call``s through the ledger connection, which
builds a new web3 provider for each; on a loaded 2-CPU machine that took about 70 s, and
the 30 s ``round_timeout_seconds`` restarted the read for ever (the round never ended, no
catalogue). The round now has its own ``snapshot_round_timeout_seconds``, and the
behaviour warns when a read takes over half of it.
"""

from types import SimpleNamespace
from typing import Any, List
from unittest import mock

import pytest
from eth_abi import encode

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours import (
    registry_snapshot,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import SharedState
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.rounds import ToolMetadataAbciApp
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import Event
from packages.mech_catalogue.skills.tool_metadata_abci.states.registry_snapshot import (
    RegistrySnapshotRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    ShareViewsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    LEGACY,
    ToolMetadataBehaviourCase,
    _CapturePayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_models import (
    make_params,
)


def test_snapshot_round_times_out_on_its_own_event() -> None:
    """The snapshot round retries on SNAPSHOT_TIMEOUT, not on the 30 s ROUND_TIMEOUT."""
    snapshot = ToolMetadataAbciApp.transition_function[RegistrySnapshotRound]
    assert snapshot[Event.SNAPSHOT_TIMEOUT] is RegistrySnapshotRound
    assert Event.ROUND_TIMEOUT not in snapshot
    # the other rounds keep theirs: ShareViewsRound's chunks are small and fast
    assert (
        Event.ROUND_TIMEOUT in ToolMetadataAbciApp.transition_function[ShareViewsRound]
    )


def test_snapshot_timeout_is_a_parameter() -> None:
    """The parameter snapshot_round_timeout_seconds is read, positive, above 30 s by default."""
    assert make_params().snapshot_round_timeout_seconds == 120.0
    assert (
        make_params(snapshot_round_timeout_seconds=300).snapshot_round_timeout_seconds
        == 300.0
    )
    with pytest.raises(Exception, match="snapshot_round_timeout_seconds"):
        make_params(snapshot_round_timeout_seconds=0)


def test_shared_state_sets_the_snapshot_timeout_from_the_parameter() -> None:
    """SharedState.setup puts the parameter's value on the app's SNAPSHOT_TIMEOUT."""
    saved = dict(ToolMetadataAbciApp.event_to_timeout)
    params = make_params(
        snapshot_round_timeout_seconds=321.0, round_timeout_seconds=7.0
    )
    state = SharedState.__new__(SharedState)
    context = mock.MagicMock(params=params)
    try:
        with (
            mock.patch.object(
                SharedState, "context", new_callable=mock.PropertyMock
            ) as ctx,
            mock.patch(
                "packages.valory.skills.abstract_round_abci.models.SharedState.setup"
            ),
            mock.patch.object(SharedState, "load_kept_catalogue"),
            mock.patch.object(
                SharedState, "round_sequence", new_callable=mock.PropertyMock
            ),
        ):
            ctx.return_value = context
            state.setup()
        assert ToolMetadataAbciApp.event_to_timeout[Event.SNAPSHOT_TIMEOUT] == 321.0
        assert ToolMetadataAbciApp.event_to_timeout[Event.ROUND_TIMEOUT] == 7.0
    finally:
        ToolMetadataAbciApp.event_to_timeout.clear()
        ToolMetadataAbciApp.event_to_timeout.update(saved)


class TestSlowSnapshotWarning(ToolMetadataBehaviourCase):
    """The behaviour warns when its read took over half of the round's timeout."""

    def _read(self, seconds: float) -> List[Any]:
        """Read three legacy ids, the clock saying the read took ``seconds``.

        :param seconds: the read's duration as the behaviour measures it.
        :return: the warnings logged.
        """
        self.skill.skill_context.params.__dict__["snapshot_round_timeout_seconds"] = (
            120.0
        )
        self.use_registries(
            [
                {
                    "kind": "legacy_mech_registry",
                    "address": LEGACY,
                    "ids": {"from": 1, "to": 3},
                }
            ]
        )
        self.go_to(RegistrySnapshotBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        with (
            # the module's own name for time, not the time module: patching
            # time.monotonic itself fed these two values to every thread of the test
            # process (a server thread left by another test took them: StopIteration)
            mock.patch.object(
                registry_snapshot,
                "time",
                SimpleNamespace(
                    monotonic=mock.Mock(side_effect=[1000.0, 1000.0 + seconds])
                ),
            ),
            mock.patch.object(self.current().context.logger, "warning") as warned,
        ):
            self.behaviour.act_wrapper()
            self.answer_multicall(27, [(True, encode(["uint256"], [27]))])
            self.answer_multicall(
                20,
                [
                    (
                        True,
                        encode(["uint256", "bytes32[]"], [1, [i.to_bytes(32, "big")]]),
                    )
                    for i in (1, 2, 3)
                ],
            )
        payload = capture.payloads[0]
        # the read is used either way: the warning is advice, not a failure
        assert isinstance(payload, RegistrySnapshotPayload) and payload.snapshot_digest
        return [call.args[0] for call in warned.call_args_list]

    def test_a_read_over_half_the_timeout_is_warned_about(self) -> None:
        """70 s of 120 s: one warning naming the parameters to raise."""
        warnings = self._read(70.0)
        assert len(warnings) == 1, warnings
        for name in (
            "70.0 s",
            "120 s",
            "snapshot_round_timeout_seconds",
            "multicall_batch_size",
        ):
            assert name in warnings[0]
        assert warnings[0].endswith(
            "past the timeout the round restarts the read and never ends; raise "
            "snapshot_round_timeout_seconds or multicall_batch_size"
        )

    def test_exactly_half_the_timeout_is_not_warned_about(self) -> None:
        """60 s of 120 s is not over half: no warning (found by mutation testing)."""
        assert not [w for w in self._read(60.0) if "registry snapshot took" in w]

    def test_a_quick_read_is_not_warned_about(self) -> None:
        """50 s of 120 s: no warning."""
        assert not [w for w in self._read(50.0) if "registry snapshot took" in w]
