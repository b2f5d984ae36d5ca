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

"""The PublishManifestAbciApp (rounds.py): transitions, final states, timeout."""

from typing import Any

import pytest

from packages.mech_catalogue.skills.manifest_publish_abci.rounds import (
    PublishManifestAbciApp,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
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
