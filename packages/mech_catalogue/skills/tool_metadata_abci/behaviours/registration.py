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

"""Re-registration with a bounded payload: the database an agent offers the others.

Shared by the chained apps that run the catalogue rounds (the tool metadata service and
the requester service).

When ``reset_and_pause`` fails, the chained app goes back to the framework's
``RegistrationRound``, whose behaviour sends the agent's whole serialised database as the
``RegistrationPayload`` (``AbciAppDB.serialize()``: every kept period, every value each
key ever had in it). Our database holds the mech-interact views (``mechs_info`` /
``mech_tools``, which grow with the catalogue: about 14 MB at 200,000 tools) and, during
a period, the agreed views chunks; sent whole, that payload passes Tendermint's limits and
the agents never re-register (observed: stuck, RSS 251 -> 482 MB).

:func:`bounded_initialisation` is what this app's registration behaviour sends instead:
the current period only, the latest value of each key only, the views and their digest
reset to their empty defaults (``views_digest`` "" makes the next period share the views
again, chunk by chunk, from the agreed catalogue) and the chunk scratch keys left out; a
non-persisted key whose value is larger than :data:`MAX_VALUE_BYTES` is left out too.
Every agent holding the same database sends the same text, and ``RegistrationRound``
syncs every agent's database to the agreed one.
"""

import json
from typing import Any, Dict, Generator

from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    CROSS_PERIOD_DEFAULTS,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    VIEWS_CHUNK_KEY_PREFIX,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB
from packages.valory.skills.registration_abci.behaviours import (
    RegistrationBehaviour,
)
from packages.valory.skills.registration_abci.payloads import RegistrationPayload

#: keys reset to these values in the payload: the views grow with the catalogue and are
#: shared again in the next period from the agreed catalogue digest
RESET_KEYS: Dict[str, Any] = {
    key: CROSS_PERIOD_DEFAULTS[key]
    for key in ("views_digest", "mechs_info", "mech_tools")
}

#: scratch keys of ``ShareViewsRound`` left out of the payload (prefix match)
DROPPED_PREFIXES = (VIEWS_CHUNK_KEY_PREFIX, "views_chunk", "participant_to_views")

#: a key not persisted across periods whose JSON value is longer than this is left out
MAX_VALUE_BYTES = 4096

#: what the payload stays under when every persisted key has a bounded value (it is sent
#: as hex in a URL: 32 KiB of payload fits the 64 KiB request line of the mock Tendermint)
MAX_INITIALISATION_BYTES = 32 * 1024


def _kept(key: str, value: Any, persisted: frozenset) -> bool:
    if key in RESET_KEYS:
        return True
    if key.startswith(DROPPED_PREFIXES):
        return False
    if key in persisted:
        return True
    return len(json.dumps(value)) <= MAX_VALUE_BYTES


def bounded_initialisation(db: AbciAppDB) -> str:
    """Serialise the part of ``db`` an agent offers at re-registration.

    Same shape as :meth:`AbciAppDB.serialize` (``{"db_data": {period: {key: [value]}},
    "slashing_config": ...}``, keys sorted), so ``RegistrationRound`` syncs it as usual.
    When the text is still over :data:`MAX_INITIALISATION_BYTES`, only the keys persisted
    across periods are offered (a new period needs them; the others are rebuilt).

    :param db: the agent's database.
    :return: JSON text; under :data:`MAX_INITIALISATION_BYTES` whenever the values of the
        keys persisted across periods are (ours are digests and the reset views).
    """
    persisted = frozenset(db.cross_period_persisted_keys)
    latest = db.get_latest()
    kept = {
        key: [RESET_KEYS.get(key, value)]
        for key, value in latest.items()
        if _kept(key, value, persisted)
    }
    text = _serialised(db, kept)
    if len(text) > MAX_INITIALISATION_BYTES:
        text = _serialised(
            db, {k: v for k, v in kept.items() if k in persisted or k in RESET_KEYS}
        )
    return text


def _serialised(db: AbciAppDB, data: Dict[str, Any]) -> str:
    document = {
        AbciAppDB.DB_DATA_KEY: {db.reset_index: data},
        AbciAppDB.SLASHING_CONFIG_KEY: db.slashing_config,
    }
    return json.dumps(document, sort_keys=True)


class BoundedRegistrationBehaviour(
    RegistrationBehaviour
):  # pylint: disable=too-many-ancestors
    """``RegistrationRound``'s behaviour, sending :func:`bounded_initialisation`."""

    def async_act(self) -> Generator:
        """Send the bounded database and wait for the round to end."""
        initialisation = bounded_initialisation(self.synchronized_data.db)
        if len(initialisation) > MAX_INITIALISATION_BYTES:
            self.context.logger.error(
                f"the registration payload is {len(initialisation)} bytes, over "
                f"{MAX_INITIALISATION_BYTES}: a key persisted across periods grew"
            )
        payload = RegistrationPayload(
            self.context.agent_address, initialisation=initialisation
        )
        yield from self.send_a2a_transaction(payload)
        yield from self.wait_until_round_end()
        self.set_done()
