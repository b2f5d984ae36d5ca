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

"""Re-registration sends a bounded database, whatever the size of the catalogue."""

import json
from typing import Dict, Tuple

import pytest
from mech_catalogue_core.catalogue.views import (
    views_digest,
    views_document,
    views_from_document,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
    MechRef,
    Tool,
)

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registration import (
    MAX_INITIALISATION_BYTES,
    MAX_VALUE_BYTES,
    BoundedRegistrationBehaviour,
    bounded_initialisation,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    CROSS_PERIOD_DEFAULTS,
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.behaviours import (
    ToolMetadataConsensusBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.composition import (
    ToolMetadataChainedAbciApp,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB
from packages.valory.skills.registration_abci.behaviours import RegistrationBehaviour
from packages.valory.skills.registration_abci.payloads import RegistrationPayload
from packages.valory.skills.registration_abci.rounds import RegistrationRound

AGENTS = tuple(f"0x{i:040x}" for i in range(1, 5))
CATALOGUE_DIGEST = "ab" * 32
SNAPSHOT_DIGEST = "cd" * 32
#: open-autonomy 0.21.30's BaseTxPayload cap
FRAMEWORK_CAP = 1_048_576


def views_of(tools: int) -> Tuple[str, str, str]:
    """The mech-interact views of ``tools`` CJK-named tools over ten mechs.

    :param tools: how many tools in all.
    :return: ``(mechs_info JSON, mech_tools JSON, views digest)``.
    """
    per_mech = max(1, tools // 10)
    mechs = []
    for m in range(10):
        ref = MechRef(100, "complementary_service_metadata", "0x" + "c5" * 20, m + 1)
        names = (f"预测工具{m:03d}{t:06d}" for t in range(per_mech))
        mechs.append(
            Mech(
                ref=ref,
                digest="0x" + f"{m:064x}",
                status=STATUS_OK,
                tools=tuple(Tool(name=n, description="预测") for n in names),
            )
        )
    document = views_document(Catalogue.build(mechs))
    mechs_info, mech_tools = views_from_document(document)
    return mechs_info, mech_tools, views_digest(document)


def agent_db(tools: int, chunks_left: int = 3) -> AbciAppDB:
    """A database as a period leaves it when reset_and_pause times out.

    The views of the agreed catalogue are written, and the period was in the middle of
    sharing new views: ``chunks_left`` agreed chunks, the collected chunk payloads and a
    history of earlier values are still in it.

    :param tools: catalogue size.
    :param chunks_left: views chunks still in the db.
    :return: the database (with the chained app's cross-period keys).
    """
    db = AbciAppDB(
        setup_data=AbciAppDB.data_to_lists(
            {
                "all_participants": AGENTS,
                "participants": AGENTS,
                "consensus_threshold": 3,
                "safe_contract_address": "0x" + "5a" * 20,
                **CROSS_PERIOD_DEFAULTS,
            }
        ),
        cross_period_persisted_keys=ToolMetadataChainedAbciApp.cross_period_persisted_keys,
    )
    mechs_info, mech_tools, digest = views_of(tools)
    for block in range(3):  # earlier periods' values stay in the key history
        db.update(
            registry_snapshot_block=block,
            registry_snapshot_digest=SNAPSHOT_DIGEST,
            catalogue_digest=CATALOGUE_DIGEST,
            views_digest=digest,
            mechs_info=mechs_info,
            mech_tools=mech_tools,
        )
    chunk = "x" * 12_288
    db.update(
        catalogue_views_digest=digest,
        views_chunk=chunk,
        participant_to_views={a: {"views_chunk": chunk} for a in AGENTS},
        most_voted_tx_hash="0x" + "77" * 100,
        **{f"views_chunk_{i}": chunk for i in range(chunks_left)},
    )
    return db


@pytest.mark.parametrize("tools", [10, 20_000, 200_000])
def test_registration_payload_is_bounded_at_any_catalogue_size(tools: int) -> None:
    """10 to 200,000 tools: the payload is the same size, under the cap and the framework's."""
    db = agent_db(tools)
    whole = db.serialize()  # what the framework's RegistrationBehaviour sends
    text = bounded_initialisation(db)
    small = bounded_initialisation(agent_db(10))
    assert len(text) <= MAX_INITIALISATION_BYTES
    assert (
        abs(len(text) - len(small)) <= 64
    )  # digests only: the catalogue does not show
    assert len(RegistrationPayload(AGENTS[0], initialisation=text).encode()) < 2 * len(
        text
    )
    if tools == 200_000:
        assert (
            len(whole) > FRAMEWORK_CAP
        )  # the fault: views (bounded, 1 MiB) with history
        with pytest.raises(ValueError):
            RegistrationPayload(AGENTS[0], initialisation=whole).encode()


def test_offered_database_keeps_the_digests_and_resets_the_views() -> None:
    """Latest values only; views reset so they are shared again; scratch keys left out."""
    db = agent_db(20_000)
    offered = json.loads(bounded_initialisation(db))
    assert list(offered["db_data"]) == [str(db.reset_index)]
    data = offered["db_data"][str(db.reset_index)]
    assert all(len(values) == 1 for values in data.values())
    assert data["catalogue_digest"] == [CATALOGUE_DIGEST]
    assert data["registry_snapshot_digest"] == [SNAPSHOT_DIGEST]
    assert data["all_participants"] == [list(AGENTS)]
    assert data["most_voted_tx_hash"] == ["0x" + "77" * 100]  # small keys stay
    for key in ("views_digest", "mechs_info", "mech_tools"):
        assert data[key] == [CROSS_PERIOD_DEFAULTS[key]]
    assert not [
        k for k in data if k.startswith(("views_chunk", "participant_to_views"))
    ]


def test_a_large_unknown_key_is_left_out_but_persisted_keys_never() -> None:
    """A non-persisted value over MAX_VALUE_BYTES is dropped; cross-period keys always stay."""
    db = agent_db(10)
    db.update(some_other_skill_blob="y" * (MAX_VALUE_BYTES + 1), small_value="z")
    data = json.loads(bounded_initialisation(db))["db_data"][str(db.reset_index)]
    assert "some_other_skill_blob" not in data and data["small_value"] == ["z"]
    assert set(db.cross_period_persisted_keys) <= set(data)


def test_many_mid_size_keys_fall_back_to_the_persisted_keys() -> None:
    """Keys each under MAX_VALUE_BYTES but over the cap together: only persisted keys go."""
    db = agent_db(10)
    db.update(**{f"blob_{i}": "w" * (MAX_VALUE_BYTES - 16) for i in range(20)})
    text = bounded_initialisation(db)
    data = json.loads(text)["db_data"][str(db.reset_index)]
    assert len(text) <= MAX_INITIALISATION_BYTES
    assert set(data) == set(db.cross_period_persisted_keys)


def test_registration_round_syncs_the_offered_database_and_a_period_follows() -> None:
    """The real RegistrationRound adopts the bounded db; the next period starts from it."""
    offered = bounded_initialisation(agent_db(20_000))
    receiving = agent_db(10)  # another agent, its db behind
    data = SynchronizedData(receiving)
    registration = RegistrationRound(synchronized_data=data, context=None)  # type: ignore[arg-type]
    for agent in AGENTS:
        registration.process_payload(RegistrationPayload(agent, initialisation=offered))
    result = None
    for _ in range(registration.required_block_confirmations + 2):
        result = registration.end_block()
        if result is not None:
            break
    assert result is not None
    synced = SynchronizedData(result[0].db)
    assert synced.db.get("catalogue_digest") == CATALOGUE_DIGEST
    assert (
        synced.views_digest == "" and synced.mechs_info == [] and not synced.mech_tools
    )
    synced.db.create()  # a new period: every cross-period key is there
    assert synced.db.get("registry_snapshot_digest") == SNAPSHOT_DIGEST


def test_the_chained_app_uses_the_bounded_registration() -> None:
    """The chained app serves RegistrationRound with the bounded behaviour, not the framework's."""
    by_round: Dict[type, type] = {
        b.matching_round: b for b in ToolMetadataConsensusBehaviour.behaviours
    }
    assert by_round[RegistrationRound] is BoundedRegistrationBehaviour
    assert RegistrationBehaviour not in ToolMetadataConsensusBehaviour.behaviours
