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

"""What the skill exposes agent-wide: the agreed catalogue with its freshness.

"Exposed" (not "published"): publishing means writing a manifest digest on chain
(``manifest_publish_abci``).

Other skills of the same agent (ABCI or not) read it from ``context.shared_state`` under
:data:`SHARED_STATE_KEY`::

    exposed = self.context.shared_state.get("mech_catalogue.tool_catalogue")
    if exposed is not None:
        tools = exposed.catalogue.tools_named("prediction-online")
        stale = exposed.age_seconds(time.time()) > 3600

The value is replaced (never mutated) each time the agents agree on a new catalogue.
"""

from dataclasses import dataclass
from typing import Optional

from mech_catalogue_core.catalogue.views import (
    IncumbentViews,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

# Other skills read the catalogue under this exact string: it must not change, even
# though the class and attributes around it were renamed from "published" to "exposed".
SHARED_STATE_KEY = "mech_catalogue.tool_catalogue"


@dataclass(frozen=True, slots=True)
class ExposedCatalogue:
    """The agreed catalogue and when and where it was agreed.

    :param catalogue: the immutable catalogue (queries: ``tools_named``, ``tools_of``,
        ``mech``, ``collisions``, ``errors``, ``stale``, ``freshness``).
    :param catalogue_digest: its digest, as agreed in ``FetchManifestsRound``.
    :param snapshot_digest: the registry snapshot digest it was built from.
    :param block_number: the block the registries were read at.
    :param agreed_at: unix time (seconds) this agent saw the agreement.
    :param period: the ABCI period count of the agreement.
    :param incumbents: the views agreed before this catalogue, from which its views were
        selected (``views.views_selection``), so ``GET /mechs``' ``in_views`` is the agreed
        selection (None: not known, the selection is then catalogue order only).
    """

    catalogue: Catalogue
    catalogue_digest: str
    snapshot_digest: str
    block_number: int
    agreed_at: float
    period: int
    incumbents: Optional[IncumbentViews] = None

    def age_seconds(self, now: float) -> float:
        """Compute the age of the agreement.

        :param now: unix time, seconds.
        :return: seconds since the agreement (>= 0).
        """
        return max(0.0, now - self.agreed_at)
